// flux simulate w.json (--schedule s.json | --scheduler NAME ...): replays an
// iteration over a schedule's circuits in the discrete-event simulator and
// reports iteration time, NIC memory, reconfigurations and waiting.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/core/routes.hpp"
#include "flux/formats/chrome_trace.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/options.hpp"
#include "flux/frontend/scheduler_run.hpp"
#include "flux/frontend/workload_input.hpp"
#include "flux/io/save.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/runtime/online.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sim/simulator.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct SimulateOptions {
  std::string input;
  frontend::ChakraOptions chakra;
  std::string schedule_file;
  std::optional<std::string> run_on;
  std::optional<std::string> output;
  std::optional<std::string> trace;
  std::optional<std::string> save_schedule;
  frontend::SystemOptions system;
  frontend::SchedulerRun run;
  sim::SimOptions sim;
  std::optional<std::string> straggler;
  std::optional<std::string> fail_switch;
  std::string replan_scheduler;
  runtime::ReplanOptions replan;
  bool online = false;
  runtime::OnlineOptions online_options;
  bool expand = false;  // --expand: every send built, even where collectives could stay whole
};

// The iteration time line's note on a failed switch: what was re-planned,
// by which scheduler, and the re-planning's wall time.
std::string failure_note(const runtime::FailureTrials& f) {
  const runtime::FailureOutcome& o = f.chosen.outcome;
  std::string note = " (switch " + std::to_string(f.failure.switch_index) + " dark at " +
                     core::format_duration(f.failure.time_ps) + ": ";
  if (!o.disrupted) return note + "nothing to re-plan; the plain run)";
  char wall[64];
  std::snprintf(wall, sizeof wall, "%.3f s", o.replan_wall_time_s);
  return note + std::to_string(o.replanned_sends) + " sends re-planned by " + o.scheduler + " in " +
         wall + " wall time; the remainder took " +
         core::format_duration(o.remainder_iteration_ps) + " from " +
         core::format_duration(o.restart_ps) + ")";
}

void print_summary(FILE* out, const core::WorkloadFacts& w, const schedule::Schedule& s,
                   const sim::SimResult& r, bool perturbed, const runtime::FailureTrials* failure,
                   const std::string* planned_for) {
  const sim::Metrics& m = r.metrics;
  std::fprintf(out, "workload         %s (%llu sends, %u accelerators)\n", w.name.c_str(),
               static_cast<unsigned long long>(w.sends), w.accelerators);
  if (planned_for) {
    std::fprintf(out, "planned for      %s (the plan's order on this workload's sizes)\n",
                 planned_for->c_str());
  }
  if (w.fold.folded()) {
    std::fprintf(out,
                 "folded           one of %u copies (the job: %llu accelerators); iteration time, "
                 "NIC memory and switch reconfigurations are the job's, circuits, waits and bytes "
                 "one copy's\n",
                 w.fold.copies, static_cast<unsigned long long>(w.job_accelerators()));
  }
  std::fprintf(out, "scheduler        %s (%u switches, tau %s, %g Gb/s)\n", s.scheduler.c_str(),
               s.system.switches, core::format_duration(s.system.reconfig_delay_ps).c_str(),
               s.system.link_gbps);
  if (const std::string wiring = s.system.wiring_text(w.job_accelerators()); !wiring.empty()) {
    std::fprintf(out, "wiring           %s\n", wiring.c_str());
  }
  if (s.system.has_scaleup()) {
    std::fprintf(out, "scale-up         domains of %u at %g Gb/s: %llu sends, %s inside them\n",
                 s.system.scaleup_size, s.system.scaleup_gbps,
                 static_cast<unsigned long long>(m.scaleup_sends),
                 human_bytes(static_cast<double>(m.scaleup_bytes)).c_str());
  }
  std::fprintf(out, "iteration time   %s%s\n", core::format_duration(m.iteration_time_ps).c_str(),
               failure ? failure_note(*failure).c_str() : "");
  const bool disrupted = failure && failure->chosen.outcome.disrupted;
  if (!s.tasks.empty()) {
    std::fprintf(out, "schedule says    %s (%s)\n", core::format_duration(s.makespan_ps).c_str(),
                 disrupted                              ? "planned without the failure"
                 : planned_for                          ? "planned for the other workload"
                 : perturbed                            ? "planned for unperturbed compute"
                 : s.makespan_ps == m.iteration_time_ps ? "equal"
                                                        : "DIFFERENT");
  }
  const auto peak_nic = std::max_element(m.nic_peak_bytes.begin(), m.nic_peak_bytes.end());
  std::fprintf(out, "peak NIC memory  %s",
               human_bytes(static_cast<double>(m.peak_nic_bytes)).c_str());
  if (peak_nic != m.nic_peak_bytes.end()) {
    std::fprintf(out, " (GPU %zu)", static_cast<std::size_t>(peak_nic - m.nic_peak_bytes.begin()));
  }
  std::fprintf(out, "\nreconfigurations %llu switch reconfigurations, %llu circuits set up\n",
               static_cast<unsigned long long>(m.reconfigurations),
               static_cast<unsigned long long>(m.circuits_set_up));
  if (m.circuit_utilization) {
    std::fprintf(out, "utilisation      %.2f%% of circuit up time carried data\n",
                 100 * *m.circuit_utilization);
  }
  const double sends = std::max<double>(1, static_cast<double>(w.sends));
  std::fprintf(out, "waiting          mean %s, max %s per send\n",
               core::format_duration(static_cast<core::TimePs>(m.wait_total_ps / sends)).c_str(),
               core::format_duration(m.wait_max_ps).c_str());
  std::fprintf(out, "bytes            %s sent, %s delivered, %s relayed\n",
               human_bytes(static_cast<double>(m.bytes_sent)).c_str(),
               human_bytes(static_cast<double>(m.bytes_delivered)).c_str(),
               human_bytes(static_cast<double>(m.bytes_relayed)).c_str());
  std::fprintf(out, "simulation       %llu events in %.6f s (%.1f M events/s), %.3f s in all\n",
               static_cast<unsigned long long>(m.events), m.loop_time_s,
               m.loop_time_s > 0 ? static_cast<double>(m.events) / m.loop_time_s / 1e6 : 0.0,
               m.wall_time_s);
}

void print_trials(FILE* out, const sim::SimOptions& o, const sim::TrialsResult& t) {
  std::fprintf(out, "trials           %zu (%s execution, jitter %g%%", t.trials.size(),
               std::string(sim::to_string(t.execution)).c_str(),
               100 * o.perturbation.compute_jitter);
  if (o.perturbation.straggler) {
    std::fprintf(out, ", straggler %u x %g", o.perturbation.straggler->rank,
                 o.perturbation.straggler->factor);
  }
  std::fprintf(out, ", seed %llu; above: trial %u), %s, %.3f s\n",
               static_cast<unsigned long long>(o.perturbation.seed), o.trace_trial,
               t.all_delivered ? "every byte delivered in every trial" : "BYTES MISSING",
               t.wall_time_s);
  auto dur = [](std::int64_t ps) { return core::format_duration(ps); };
  std::fprintf(out, "iteration time   p50 %s, p95 %s, p99 %s, max %s\n",
               dur(t.iteration_time_ps.p50).c_str(), dur(t.iteration_time_ps.p95).c_str(),
               dur(t.iteration_time_ps.p99).c_str(), dur(t.iteration_time_ps.max).c_str());
  auto mem = [](std::int64_t b) { return human_bytes(static_cast<double>(b)); };
  std::fprintf(out, "peak NIC memory  p50 %s, p95 %s, p99 %s, max %s\n",
               mem(t.peak_nic_bytes.p50).c_str(), mem(t.peak_nic_bytes.p95).c_str(),
               mem(t.peak_nic_bytes.p99).c_str(), mem(t.peak_nic_bytes.max).c_str());
}

// --online: the decisions, the moved sends and the decisions' wall times.
void print_online(FILE* out, const runtime::OnlineRun& r, const runtime::OnlineOptions& o) {
  std::uint64_t sends = 0, placed = 0;
  std::vector<double> walls;
  for (const runtime::Decision& d : r.decisions) {
    sends += d.sends;
    placed += d.placed;
    walls.push_back(d.wall_s);
  }
  const sim::Percentiles<double> w = sim::nearest_rank(walls);
  std::string latency(runtime::to_string(o.latency));
  if (o.reserve_ps != 0) latency += ", " + core::format_duration(o.reserve_ps) + " reserved";
  std::fprintf(out,
               "online           %u reveals, %zu decisions (%u kept the plan: sizes as "
               "predicted), %llu of %llu sends placed anew; budget %s (%s)\n",
               r.reveals, r.decisions.size(), r.kept, static_cast<unsigned long long>(placed),
               static_cast<unsigned long long>(sends), core::format_duration(o.budget_ps).c_str(),
               latency.c_str());
  if (!walls.empty()) {
    std::fprintf(out,
                 "decision time    p50 %.1f us, p99 %.1f us, max %.1f us (wall; the forecasts "
                 "between them %.3f s)\n",
                 w.p50 * 1e6, w.p99 * 1e6, w.max * 1e6, r.forecast_wall_s);
  }
}

// The failed switch's options, checked; nullopt without --fail-switch
// (then no --replan-* option may be given).
std::optional<runtime::Failure> failure_options(SimulateOptions& o, bool replan_given) {
  if (!o.fail_switch) {
    if (replan_given) {
      throw core::InputError("", "--replan-scheduler", "",
                             "--replan-scheduler, --replan-time-limit and --replan-delay apply "
                             "with --fail-switch only");
    }
    return std::nullopt;
  }
  try {
    o.replan.scheduler = o.replan_scheduler;
    o.replan.validate();
    return runtime::parse_failure(*o.fail_switch);
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, runtime::kReplanOptions);
  }
}

// Runs the trials with the failure; errors of the re-planning scheduler's
// name name --replan-scheduler, the failure's --fail-switch.
runtime::FailureTrials run_failure(const SimulateOptions& o, const core::Workload& w,
                                   const schedule::Schedule& s, const runtime::Failure& f) {
  try {
    return blame_workload(o.input, [&] {
      frontend::SchedulerRun run = o.run;  // its options go to the re-planning scheduler too
      run.also_for.push_back(runtime::replan_scheduler(o.replan, s));
      return runtime::run_trials_with_failure(w, s, f, o.replan, run.resolve(), o.sim);
    });
  } catch (const core::InputError& e) {
    if (e.field() == "scheduler") {
      throw core::InputError(e.source(), "--replan-scheduler", e.value(), e.problem());
    }
    if (e.field() == "fail_switch") throw frontend::option_error(e, runtime::kReplanOptions);
    throw;
  }
}

// Whether the run can keep a Chakra prefix's collectives whole
// (sim::simulate_lazy): the ideal network on a full wiring, one unperturbed
// run, and nothing that needs every send (a trace, a saved schedule, a
// schedule file, --run-on, --online, a failed switch, robust planning).
bool keeps_collectives_whole(const SimulateOptions& o, bool failure) {
  return !o.expand && frontend::is_chakra_prefix(o.input) && o.schedule_file.empty() &&
         o.run.scheduler == "ideal" && o.run.robust_jitter.empty() && !o.run_on && !o.online &&
         !failure && !o.trace && !o.save_schedule && o.sim.trials == 1 &&
         !o.sim.perturbation.any() && o.system.system.wiring.kind == core::WiringKind::kFull &&
         o.run.sched.collective.empty();  // --alternative: run_scheduler refuses it
}

// The ideal network over a prefix with its collectives kept whole
// (docs/benchmarks.md, "Collectives kept whole"): the same metrics and
// report as over every send. False when the import needs every send
// (--collective auto): the caller goes on the materialised way.
bool simulate_whole(const SimulateOptions& o) {
  (void)o.run.resolve();  // the scheduler options, refused as `ideal` would refuse them
  std::optional<frontend::LoadedLazy> loaded;
  try {
    loaded.emplace(frontend::load_lazy(o.input, o.chakra));
  } catch (const chakra::NeedsEverySend&) {
    return false;
  }
  const core::LazyWorkload& w = loaded->workload;
  const schedule::Schedule s = sched::ideal_network(
      w.name(), o.system.to_system(w.accelerators(), w.scaleup_size(), w.scaleup_gbps()));
  sim::SimOptions options = o.sim;
  options.keep_records = false;
  const sim::SimResult r =
      blame_workload(o.input, [&] { return sim::simulate_lazy(w, s, options); });
  const core::WorkloadFacts facts = core::facts_of(w);
  std::vector<io::NamedWriter> files;
  if (o.output) {
    files.push_back({*o.output, [&](std::ostream& out) {
                       formats::write_metrics(out, facts, s, o.sim, r.metrics);
                     }});
  }
  io::save_files(files);
  FILE* out = report_stream({o.output.value_or("")});
  print_summary(out, facts, s, r, false, nullptr, nullptr);
  loaded->notes.push_back("collectives kept whole: " + std::to_string(w.num_instances()) +
                          " instances of " + std::to_string(w.num_shapes()) +
                          " shapes (--expand builds every send)");
  print_notes(loaded->notes);
  return true;
}

// The options the command line gave that only some combinations use.
struct Given {
  std::string system;     ///< system options (core::kSystemOptions), "--tau, --duplex"
  std::string scheduler;  ///< scheduler options (sched::kSchedulerOptions, kMilpOptions)
  bool replan = false;    ///< --replan-*
  std::string online;     ///< online options (runtime::kOnlineOptions)
};

// Refuses options a combination would ignore, before any file is read.
void check_combination(const SimulateOptions& o, const Given& given) {
  if (!o.online && !given.online.empty()) {
    throw core::InputError("", "--online", "", given.online + " apply with --online only");
  }
  if (o.schedule_file.empty() == o.run.scheduler.empty()) {
    throw core::InputError("", "--schedule", "", "give either --schedule FILE or --scheduler NAME");
  }
  if (o.schedule_file.empty()) return;
  if (!o.run.robust_jitter.empty()) {
    throw core::InputError("", "--robust-jitter", o.run.robust_jitter,
                           "plans with --scheduler; a schedule file is already planned");
  }
  if (!given.system.empty()) {
    throw core::InputError("", "--schedule", o.schedule_file,
                           "the system comes from the schedule file: the system options (" +
                               given.system + ") only apply with --scheduler");
  }
  if (o.save_schedule && !o.online) {
    throw core::InputError("", "--save-schedule", *o.save_schedule,
                           "writes the schedule --scheduler makes (or --online runs); --schedule "
                           "reads one");
  }
  if (!given.scheduler.empty() && !o.fail_switch) {
    throw core::InputError("", "--schedule", o.schedule_file,
                           "a schedule file is already planned: the scheduler options (" +
                               given.scheduler +
                               ") only apply with --scheduler, or to the re-planning after "
                               "--fail-switch");
  }
}

void run_simulate(SimulateOptions& o, const Given& given) {
  const std::optional<runtime::Failure> failure = failure_options(o, given.replan);
  if (failure && !o.replan_scheduler.empty()) o.run.also_for.push_back(o.replan_scheduler);
  try {
    if (o.straggler) o.sim.perturbation.straggler = sim::parse_straggler(*o.straggler);
    o.sim.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, sim::kSimOptions, sim::kPerturbationOptions);
  }
  (void)o.run.robust_planning();
  check_combination(o, given);
  std::vector<io::OutputSpec> outputs;
  if (o.output) outputs.push_back({*o.output, "the metrics output (-o)", "-o", true});
  if (o.trace) outputs.push_back({*o.trace, "the trace output (--trace)", "--trace", true});
  if (o.save_schedule) {
    outputs.push_back(
        {*o.save_schedule, "the schedule output (--save-schedule)", "--save-schedule", true});
  }
  if (o.run_on && failure) {
    throw core::InputError("", "--run-on", *o.run_on,
                           "a failed switch (--fail-switch) re-plans the planned workload; the "
                           "two options do not combine");
  }
  if (o.online) {
    if (!o.run_on) {
      throw core::InputError("", "--online", "", "needs --run-on: the actual iteration");
    }
    if (o.sim.trials != 1 || o.sim.perturbation.any()) {
      throw core::InputError("", "--online", "",
                             "an online run is one unperturbed iteration (no --trials, "
                             "--compute-jitter or --straggler)");
    }
    try {
      o.online_options.validate();
    } catch (const core::InputError& e) {
      throw frontend::option_error(e, runtime::kOnlineOptions);
    }
  }
  std::vector<io::InputSpec> inputs = frontend::workload_inputs(o.input, o.chakra);
  inputs.push_back({o.schedule_file, "the input schedule (--schedule)"});
  if (o.run_on) inputs.push_back({*o.run_on, "the workload run on (--run-on)"});
  for (io::InputSpec& in : o.system.inputs()) inputs.push_back(std::move(in));
  io::check_outputs(outputs, inputs);
  if (keeps_collectives_whole(o, failure.has_value()) && simulate_whole(o)) return;
  const frontend::LoadedWorkload loaded = frontend::load_workload(o.input, o.chakra);
  const std::uint32_t ranks = loaded.workload.accelerators();
  if (o.sim.perturbation.straggler && o.sim.perturbation.straggler->rank >= ranks) {
    throw core::InputError(
        "", "--straggler", std::to_string(o.sim.perturbation.straggler->rank),
        "the rank is not an accelerator of " + o.input + " (it has " + std::to_string(ranks) + ")");
  }
  // --run-on B: the plan is made for (or read against) w and runs on B.
  std::optional<core::Workload> actual;
  if (o.run_on) {
    actual.emplace(formats::read_workload(*o.run_on));
    try {
      sim::check_same_structure(loaded.workload, *actual);
    } catch (const core::InputError& e) {
      throw e.with_source(*o.run_on);
    }
    try {
      (void)o.sim.resolved_execution(true);
    } catch (const core::InputError& e) {
      throw frontend::option_error(e, sim::kSimOptions);
    }
  }
  schedule::Schedule s;
  if (!o.schedule_file.empty()) {
    s = formats::read_schedule(o.schedule_file);
  } else {
    s = blame_workload(
        o.input, [&] { return o.run.run(loaded.workload, o.system.to_system(loaded.workload)); });
  }
  // The workloads as the schedule's wiring routes them (core/routes.hpp):
  // what the simulator runs, the metrics count and the trace shows.
  const core::Routed routed = blame_schedule(o.schedule_file, [&] {
    return blame_workload(
        o.input, [&] { return core::Routed(loaded.workload, s.system, s.choice, s.routes); });
  });
  const core::Workload& w = routed.workload();
  std::optional<core::Routed> routed_actual;
  if (actual) {
    blame_schedule(o.schedule_file,
                   [&] { routed_actual.emplace(*actual, s.system, s.choice, s.routes); });
  }
  const core::Workload& run_w = actual ? routed_actual->workload() : w;
  sim::TrialsResult trials;
  std::optional<runtime::FailureTrials> failed;
  std::optional<runtime::OnlineRun> online;
  try {
    if (o.online) {
      online = blame_workload(o.input, [&] {
        return runtime::run_online(loaded.workload, *actual, s, o.online_options, o.sim);
      });
      trials.trials = {online->replay.metrics};
      trials.all_delivered = online->replay.metrics.bytes_delivered == run_w.total_bytes();
      trials.chosen = std::move(online->replay);
      s = std::move(online->schedule);  // what ran: the metrics, trace and --save-schedule
    } else if (failure) {
      failed = run_failure(o, w, s, *failure);
      trials = std::move(failed->trials);
    } else {
      // The simulator routes the workloads it is given (routing a routed
      // one again would not be the same under --route auto).
      sim::SimOptions sim_options = o.sim;
      sim_options.keep_records = o.trace.has_value();  // only the trace shows them
      trials = blame_workload(o.input, [&] {
        return sim::simulate_trials_on(loaded.workload, actual ? *actual : loaded.workload, s,
                                       sim_options);
      });
    }
  } catch (const schedule::ScheduleError& e) {
    if (o.schedule_file.empty()) throw;  // a scheduler's bug, not the user's input
    throw invalid_schedule(o.schedule_file, e);
  }
  const sim::SimResult& r = trials.chosen;
  const bool robust = o.sim.trials > 1 || o.sim.perturbation.any();
  // Online, the schedule run is the --run-on iteration's own.
  const core::Workload* planned_for = actual && !online ? &w : nullptr;
  const runtime::FailureTrials* f = failed ? &*failed : nullptr;
  // Everything that can refuse has run: the outputs, all or none.
  std::vector<io::NamedWriter> files;
  if (o.output) {
    files.push_back({*o.output, [&](std::ostream& out) {
                       formats::write_metrics(out, run_w, s, o.sim, r.metrics,
                                              robust ? &trials : nullptr, f, planned_for);
                     }});
  }
  if (o.trace) {
    files.push_back({*o.trace, [&](std::ostream& out) {
                       if (f && f->chosen.outcome.disrupted) {  // the remainder, from the restart
                         const runtime::FailureRun& c = f->chosen;
                         formats::write_chrome_trace(
                             out, *c.remainder,
                             c.continuation.executed ? *c.continuation.executed : *c.replan,
                             c.continuation);
                       } else {
                         const sim::SimResult& p = f ? f->chosen.plain : r;
                         formats::write_chrome_trace(out, run_w, p.executed ? *p.executed : s, p);
                       }
                     }});
  }
  if (o.save_schedule) {
    files.push_back(
        {*o.save_schedule, [&](std::ostream& out) { formats::write_schedule(out, s); }});
  }
  io::save_files(files);
  FILE* out =
      report_stream({o.output.value_or(""), o.trace.value_or(""), o.save_schedule.value_or("")});
  const std::string planned_name = planned_for ? planned_for->name() : std::string();
  print_summary(out, core::facts_of(run_w), s, r, o.sim.perturbation.any(), f,
                planned_for ? &planned_name : nullptr);
  if (online) print_online(out, *online, o.online_options);
  print_routes(out, routed, 17);
  if (robust) print_trials(out, o.sim, trials);
  print_notes(loaded.notes);
}

}  // namespace

void register_simulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  o->run.scheduler.clear();
  auto* cmd = app.add_subcommand("simulate", "replay an iteration over a schedule's circuits");
  add_workload_argument(*cmd, o->input, o->chakra);
  cmd->add_option("--schedule", o->schedule_file,
                  "schedule file to replay (flux.schedule/v1 or v2)");
  cmd->add_option("--run-on", o->run_on,
                  "a workload file of the same structure (sends, endpoints, deps) to execute the "
                  "plan on, in ordered execution: e.g. another MoE routing (docs/model.md)");
  cmd->add_option("-o,--output", o->output,
                  "metrics file to write (flux.metrics/v1; v2 with scale-up domains)");
  cmd->add_option("--trace", o->trace, "Chrome trace to write (open in Perfetto)");
  cmd->add_option("--save-schedule", o->save_schedule,
                  "with --scheduler: also write the schedule it made; with --online: the online "
                  "schedule of the --run-on iteration");
  add_options(*cmd, sim::kSimOptions, o->sim);
  add_options(*cmd, sim::kPerturbationOptions, o->sim.perturbation);
  cmd->add_option("--straggler", o->straggler,
                  "RANK:FACTOR: every compute duration of that rank scaled by FACTOR");
  cmd->add_option("--fail-switch", o->fail_switch,
                  "SWITCH@TIME: that switch (from 0) goes dark at that time (e.g. 1@2.5ms); the "
                  "unfinished sends are re-planned on the others (docs/model.md)");
  cmd->add_option("--replan-scheduler", o->replan_scheduler,
                  "re-plans after --fail-switch [default: the schedule's scheduler, else flux]");
  add_options(*cmd, runtime::kReplanOptions, o->replan);
  cmd->add_flag("--online", o->online,
                "with --run-on: run the plan online, each MoE all-to-all placed on circuits when "
                "its routing is revealed, within --decision-budget (docs/model.md, Online MoE "
                "scheduling)");
  add_options(*cmd, runtime::kOnlineOptions, o->online_options);
  cmd->add_flag("--expand", o->expand,
                "build every send of a Chakra prefix before simulating; by default the ideal "
                "network keeps its collectives whole (no --trace, --save-schedule, --run-on, "
                "--online, --fail-switch or perturbation; the same results in a fraction of "
                "the memory)");
  add_system_options(*cmd, o->system);
  add_scheduler_options(*cmd, o->run, true, false);
  cmd->callback([o, cmd] {
    Given given;
    given.system = given_flags(*cmd, core::kSystemOptions);
    given.scheduler = given_flags(*cmd, sched::kSchedulerOptions);
    const std::string milp = given_flags(*cmd, sched::kMilpOptions);
    if (!milp.empty()) given.scheduler += (given.scheduler.empty() ? "" : ", ") + milp;
    given.online = given_flags(*cmd, runtime::kOnlineOptions);
    given.replan = cmd->count("--replan-scheduler") + cmd->count("--replan-time-limit") +
                       cmd->count("--replan-delay") >
                   0;
    run_simulate(*o, given);
  });
}

}  // namespace flux::cli
