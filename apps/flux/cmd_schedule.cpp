// flux schedule w.json --scheduler NAME ...: runs a scheduler, checks its
// schedule with the validator and writes it (flux.schedule/v1).
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/trace/schedule_json.hpp"
#include "flux/trace/workload_json.hpp"

namespace flux::cli {
namespace {

struct ScheduleOptions {
  std::string input;
  std::string output;
  std::string scheduler = "flux-milp";
  SystemOptions system;
  std::string time_limit = "60s";
  sched::SchedulerOptions sched;
  bool no_implied = false, no_symmetry = false, no_horizon = false, no_warm = false,
       no_bound = false;
};

void print_summary(const schedule::Schedule& s) {
  std::size_t circuits = 0;
  for (const auto& t : s.timelines) circuits += t.circuits.size();
  std::printf("scheduler       %s\n", s.scheduler.c_str());
  std::printf("status          %s\n", std::string(schedule::to_string(s.status)).c_str());
  std::printf("iteration time  %s\n", core::format_duration(s.makespan_ps).c_str());
  if (s.lower_bound_ps) {
    std::printf("lower bound     %s (gap %.3f%%)\n",
                core::format_duration(*s.lower_bound_ps).c_str(), 100 * s.gap.value_or(0));
  }
  std::printf("circuits        %zu set up over %zu switches\n", circuits, s.timelines.size());
  if (s.solve_time_s) std::printf("solve time      %.2f s\n", *s.solve_time_s);
}

void run_schedule(ScheduleOptions o) {
  const core::System system = o.system.to_system();
  o.sched.time_limit_s = core::ps_to_seconds(core::parse_duration(o.time_limit, "--time-limit"));
  o.sched.milp.drop_implied_pairs = !o.no_implied;
  o.sched.milp.symmetry_breaking = !o.no_symmetry;
  o.sched.milp.horizon_big_m = !o.no_horizon;
  o.sched.milp.warm_start = !o.no_warm;
  o.sched.milp.bound_rows = !o.no_bound;
  try {
    o.sched.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  const core::Workload w = trace::read_workload(o.input);
  schedule::Schedule s;
  try {
    s = sched::run_scheduler(o.scheduler, w, system, o.sched);
  } catch (const core::InputError& e) {
    if (e.field() == "scheduler") throw as_option_error(e);
    throw;
  }
  if (!o.output.empty()) trace::save_schedule(o.output, s);
  print_summary(s);
}

}  // namespace

void register_schedule(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  auto* cmd = app.add_subcommand("schedule", "schedule a workload's sends on the switches");
  cmd->add_option("workload", o->input, "workload file (flux.workload/v1)")->required();
  cmd->add_option("-o,--output", o->output, "schedule file to write (flux.schedule/v1)");
  cmd->add_option("--scheduler", o->scheduler, "flux-milp, greedy")->capture_default_str();
  o->system.add_to(*cmd, true);
  cmd->add_option("--time-limit", o->time_limit, "solver time limit, e.g. 60s, 10min")
      ->capture_default_str();
  cmd->add_option("--gap", o->sched.relative_gap, "relative gap at which the solver stops")
      ->capture_default_str();
  cmd->add_option("--threads", o->sched.threads, "solver threads")->capture_default_str();
  cmd->add_flag("-v,--verbose", o->sched.verbose, "solver progress on stderr");
  cmd->add_option("--export-milp", o->sched.milp.export_path,
                  "also write the MILP as an .lp or .mps file (for Gurobi, HiGHS, SCIP, CPLEX)");
  cmd->add_option("--solution", o->sched.milp.solution_path,
                  "decode a solver's .sol file for the exported model instead of solving");
  cmd->add_flag("--no-implied-pairs", o->no_implied, "keep pair rows the DAG already implies");
  cmd->add_flag("--no-symmetry", o->no_symmetry, "no symmetry breaking between switches");
  cmd->add_flag("--no-horizon", o->no_horizon, "the paper's global big-M, no incumbent horizon");
  cmd->add_flag("--no-warm-start", o->no_warm, "no MIP start from the greedy schedule");
  cmd->add_flag("--no-bound", o->no_bound, "no lower-bound row on the makespan");
  cmd->callback([o] { run_schedule(*o); });
}

}  // namespace flux::cli
