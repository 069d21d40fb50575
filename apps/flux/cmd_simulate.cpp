// flux simulate w.json (--schedule s.json | --scheduler NAME ...): replays an
// iteration over a schedule's circuits in the discrete-event simulator and
// reports iteration time, NIC memory, reconfigurations and waiting.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/formats/chrome_trace.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/io/save.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::cli {
namespace {

struct SimulateOptions {
  std::string input;
  std::string schedule_file;
  std::string output;
  std::string trace;
  std::string save_schedule;
  SystemOptions system;
  SchedulerCliOptions run;
  sim::SimOptions sim;
};

void print_summary(const core::Workload& w, const schedule::Schedule& s, const sim::SimResult& r) {
  const sim::Metrics& m = r.metrics;
  std::printf("workload         %s (%zu sends, %u accelerators)\n", w.name().c_str(), w.num_tasks(),
              w.accelerators());
  if (w.fold().folded()) {
    std::printf(
        "folded           one of %u copies (the job: %llu accelerators); iteration time, "
        "NIC memory and switch reconfigurations are the job's, circuits, waits and bytes "
        "one copy's\n",
        w.fold().copies, static_cast<unsigned long long>(w.job_accelerators()));
  }
  std::printf("scheduler        %s (%u switches, tau %s, %g Gb/s)\n", s.scheduler.c_str(),
              s.system.switches, core::format_duration(s.system.reconfig_delay_ps).c_str(),
              s.system.link_gbps);
  std::printf("iteration time   %s\n", core::format_duration(m.iteration_time_ps).c_str());
  if (!s.tasks.empty()) {
    std::printf("schedule says    %s (%s)\n", core::format_duration(s.makespan_ps).c_str(),
                s.makespan_ps == m.iteration_time_ps ? "equal" : "DIFFERENT");
  }
  const auto peak_nic = std::max_element(m.nic_peak_bytes.begin(), m.nic_peak_bytes.end());
  std::printf("peak NIC memory  %s", human_bytes(static_cast<double>(m.peak_nic_bytes)).c_str());
  if (peak_nic != m.nic_peak_bytes.end()) {
    std::printf(" (GPU %zu)", static_cast<std::size_t>(peak_nic - m.nic_peak_bytes.begin()));
  }
  std::printf("\nreconfigurations %llu switch reconfigurations, %llu circuits set up\n",
              static_cast<unsigned long long>(m.reconfigurations),
              static_cast<unsigned long long>(m.circuits_set_up));
  if (m.circuit_utilization) {
    std::printf("utilisation      %.2f%% of circuit up time carried data\n",
                100 * *m.circuit_utilization);
  }
  const double sends = std::max<double>(1, static_cast<double>(w.num_tasks()));
  std::printf("waiting          mean %s, max %s per send\n",
              core::format_duration(static_cast<core::TimePs>(m.wait_total_ps / sends)).c_str(),
              core::format_duration(m.wait_max_ps).c_str());
  std::printf("bytes            %s sent, %s delivered, %s relayed\n",
              human_bytes(static_cast<double>(m.bytes_sent)).c_str(),
              human_bytes(static_cast<double>(m.bytes_delivered)).c_str(),
              human_bytes(static_cast<double>(m.bytes_relayed)).c_str());
  std::printf("simulation       %llu events in %.6f s (%.1f M events/s), %.3f s in all\n",
              static_cast<unsigned long long>(m.events), m.loop_time_s,
              m.loop_time_s > 0 ? static_cast<double>(m.events) / m.loop_time_s / 1e6 : 0.0,
              m.wall_time_s);
}

void run_simulate(const SimulateOptions& o, bool system_given) {
  try {
    o.sim.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  if (o.schedule_file.empty() == o.run.scheduler.empty()) {
    throw core::InputError("", "--schedule", "", "give either --schedule FILE or --scheduler NAME");
  }
  if (!o.schedule_file.empty() && system_given) {
    throw core::InputError("", "--schedule", o.schedule_file,
                           "the system comes from the schedule file: --switches, --tau and "
                           "--link-gbps only apply with --scheduler");
  }
  const core::Workload w = formats::read_workload(o.input);
  schedule::Schedule s;
  if (!o.schedule_file.empty()) {
    s = formats::read_schedule(o.schedule_file);
  } else {
    s = blame_workload(o.input, [&] {
      return run_named_scheduler(o.run.scheduler, w, o.system.to_system(), o.run.resolve());
    });
    if (!o.save_schedule.empty()) formats::save_schedule(o.save_schedule, s);
  }
  sim::SimResult r;
  try {
    r = blame_workload(o.input, [&] { return sim::simulate(w, s, o.sim); });
  } catch (const schedule::ScheduleError& e) {
    if (o.schedule_file.empty()) throw;  // a scheduler's bug, not the user's input
    throw core::InputError(o.schedule_file, "", "", e.what());
  }
  if (!o.output.empty()) {
    io::save_file(o.output,
                  [&](std::ostream& out) { formats::write_metrics(out, w, s, o.sim, r.metrics); });
  }
  if (!o.trace.empty()) {
    io::save_file(o.trace, [&](std::ostream& out) { formats::write_chrome_trace(out, w, s, r); });
  }
  print_summary(w, s, r);
}

}  // namespace

void register_simulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  o->run.scheduler.clear();
  auto* cmd = app.add_subcommand("simulate", "replay an iteration over a schedule's circuits");
  cmd->add_option("workload", o->input, "workload file (flux.workload/v1)")->required();
  cmd->add_option("--schedule", o->schedule_file, "schedule file to replay (flux.schedule/v1)");
  cmd->add_option("-o,--output", o->output, "metrics file to write (flux.metrics/v1)");
  cmd->add_option("--trace", o->trace, "Chrome trace to write (open in Perfetto)");
  cmd->add_option("--save-schedule", o->save_schedule,
                  "with --scheduler: also write the schedule it made");
  cmd->add_option("--mtu", o->sim.mtu_bytes, "packet size for NIC memory accounting, bytes")
      ->capture_default_str();
  o->system.add_to(*cmd, true);
  o->run.add_to(*cmd, false);
  cmd->callback([o, cmd] {
    const bool system_given =
        cmd->count("--switches") + cmd->count("--tau") + cmd->count("--link-gbps") > 0;
    run_simulate(*o, system_given);
  });
}

}  // namespace flux::cli
