// flux schedule w.json --scheduler NAME ...: runs a scheduler, checks its
// schedule with the validator and writes it (flux.schedule/v1).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::cli {
namespace {

struct ScheduleOptions {
  std::string input;
  std::string output;
  SystemOptions system;
  SchedulerCliOptions run;
};

void print_summary(const schedule::Schedule& s) {
  std::size_t circuits = 0;
  for (const auto& t : s.timelines) circuits += t.circuits.size();
  std::printf("scheduler       %s\n", s.scheduler.c_str());
  std::printf("status          %s\n", std::string(schedule::to_string(s.status)).c_str());
  if (s.tasks.empty() && s.circuit_model == schedule::CircuitModel::kTimeline) {
    std::printf("iteration time  known after simulation (flux simulate)\n");
  } else {
    std::printf("iteration time  %s\n", core::format_duration(s.makespan_ps).c_str());
  }
  if (s.period_ps) {
    std::printf("period          %s, repeated\n", core::format_duration(*s.period_ps).c_str());
  }
  if (s.lower_bound_ps) {
    std::printf("lower bound     %s (gap %.3f%%)\n",
                core::format_duration(*s.lower_bound_ps).c_str(), 100 * s.gap.value_or(0));
  }
  std::printf("circuits        %zu set up over %zu switches%s\n", circuits, s.timelines.size(),
              s.period_ps ? " per period" : "");
  if (s.solve_time_s) std::printf("solve time      %.2f s\n", *s.solve_time_s);
}

void run_schedule(const ScheduleOptions& o) {
  const core::System system = o.system.to_system();
  const sched::SchedulerOptions options = o.run.resolve();
  const core::Workload w = formats::read_workload(o.input);
  const schedule::Schedule s = blame_workload(
      o.input, [&] { return run_named_scheduler(o.run.scheduler, w, system, options); });
  if (!o.output.empty()) formats::save_schedule(o.output, s);
  print_summary(s);
}

}  // namespace

void register_schedule(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  auto* cmd = app.add_subcommand("schedule", "schedule a workload's sends on the switches");
  cmd->add_option("workload", o->input, "workload file (flux.workload/v1)")->required();
  cmd->add_option("-o,--output", o->output, "schedule file to write (flux.schedule/v1)");
  o->system.add_to(*cmd, true);
  o->run.add_to(*cmd, true);
  cmd->callback([o] { run_schedule(*o); });
}

}  // namespace flux::cli
