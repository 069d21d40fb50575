// flux schedule w.json --scheduler NAME ...: runs a scheduler, checks its
// schedule with the validator and writes it (flux.schedule/v1, or v2 with
// scale-up domains).
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/scheduler_run.hpp"
#include "flux/frontend/workload_input.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/sched/scheduler.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct ScheduleOptions {
  std::string input;
  frontend::ChakraOptions chakra;
  std::optional<std::string> output;
  frontend::SystemOptions system;
  frontend::SchedulerRun run;
};

void print_summary(FILE* out, const schedule::Schedule& s, const core::Workload& w) {
  std::size_t circuits = 0;
  for (const auto& t : s.timelines) circuits += t.circuits.size();
  std::fprintf(out, "scheduler       %s\n", s.scheduler.c_str());
  std::fprintf(out, "status          %s\n", std::string(schedule::to_string(s.status)).c_str());
  if (s.tasks.empty() && s.circuit_model == schedule::CircuitModel::kTimeline) {
    std::fprintf(out, "iteration time  known after simulation (flux simulate)\n");
  } else {
    std::fprintf(out, "iteration time  %s\n", core::format_duration(s.makespan_ps).c_str());
  }
  if (s.period_ps) {
    std::fprintf(out, "period          %s, repeated\n",
                 core::format_duration(*s.period_ps).c_str());
  }
  if (s.lower_bound_ps) {
    std::fprintf(out, "lower bound     %s (gap %.3f%%)\n",
                 core::format_duration(*s.lower_bound_ps).c_str(), 100 * s.gap.value_or(0));
  }
  std::fprintf(out, "circuits        %zu set up over %zu switches%s\n", circuits,
               s.timelines.size(), s.period_ps ? " per period" : "");
  if (const std::string wiring = s.system.wiring_text(w.job_accelerators()); !wiring.empty()) {
    std::fprintf(out, "wiring          %s; switch numbers are planes\n", wiring.c_str());
  }
  if (s.solve_time_s) std::fprintf(out, "solve time      %.2f s\n", *s.solve_time_s);
}

void run_schedule(const ScheduleOptions& o) {
  (void)o.system.to_system();  // option errors before any file is read
  const sched::SchedulerOptions options = o.run.resolve();
  (void)o.run.robust_planning();
  std::vector<io::OutputSpec> outputs;
  if (o.output) outputs.push_back({*o.output, "the schedule output (-o)", "-o", true});
  if (!options.milp.export_path.empty()) {
    outputs.push_back(
        {options.milp.export_path, "the model (--export-milp)", "--export-milp", false});
  }
  std::vector<io::InputSpec> inputs = frontend::workload_inputs(o.input, o.chakra);
  inputs.push_back({options.milp.solution_path, "the solution (--solution)"});
  for (io::InputSpec& in : o.system.inputs()) inputs.push_back(std::move(in));
  io::check_outputs(outputs, inputs);
  const frontend::LoadedWorkload loaded = frontend::load_workload(o.input, o.chakra);
  const core::Workload& w = loaded.workload;
  const core::System system = o.system.to_system(w);
  // The model (--export-milp) is written with the schedule, as one, once
  // the run has succeeded.
  frontend::SchedulerRun run = o.run;
  std::optional<std::string> model;
  run.sched.milp.export_sink = [&model](std::string text) { model = std::move(text); };
  const schedule::Schedule s = blame_workload(o.input, [&] { return run.run(w, system); });
  std::vector<io::NamedWriter> files;
  if (o.output) {
    files.emplace_back(*o.output, [&s](std::ostream& out) { formats::write_schedule(out, s); });
  }
  if (model) {
    files.emplace_back(options.milp.export_path, [&model](std::ostream& out) { out << *model; });
  }
  io::save_files(files);
  FILE* out = report_stream({o.output.value_or("")});
  print_summary(out, s, w);
  print_routes(out, core::Routed(w, system, s.choice, s.routes), 16);
  print_notes(loaded.notes);
}

}  // namespace

void register_schedule(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  auto* cmd = app.add_subcommand("schedule", "schedule a workload's sends on the switches");
  add_workload_argument(*cmd, o->input, o->chakra);
  cmd->add_option("-o,--output", o->output,
                  "schedule file to write (flux.schedule/v1; v2 with scale-up domains)");
  add_system_options(*cmd, o->system);
  add_scheduler_options(*cmd, o->run, true, true);
  cmd->callback([o] { run_schedule(*o); });
}

}  // namespace flux::cli
