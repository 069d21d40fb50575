#pragma once
// A plan executed on workloads it was not made for (docs/model.md,
// "Uncertain routing"): the runtime loop above the simulator and the
// schedulers that answers issue 13's question for MoE routing that changes
// every iteration. One scheduler plans once for the expected workload A
// (the expected routing, or last iteration's) and that plan runs, in
// ordered execution (sim::simulate_on), on each actual iteration B_1 .. B_k
// (routings drawn from the same distribution: the same structure, other
// sizes and compute); beside it the same scheduler re-plans for each B_i
// (the wall time of each re-plan is reported next to B_i's iteration time:
// re-planning online must fit in an iteration) and that plan runs on B_i.
// Baselines are other schedulers run the same way; an oblivious one
// (rotornet) plans the same either way.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/runtime/online.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::runtime {

/// One actual iteration B_i.
struct UncertainIteration {
  sim::Metrics planned;         ///< A's plan (or B_i's prediction's) run on B_i (ordered execution)
  double plan_wall_time_s = 0;  ///< run_uncertain_each: the plan's for B_i; else 0
  sim::Metrics replanned;       ///< B_i's own plan run on B_i (as sim::simulate resolves it)
  schedule::SolveStatus replan_status = schedule::SolveStatus::kFeasible;
  core::TimePs replan_makespan_ps = 0;  ///< task-level schedulers; 0 otherwise
  double replan_wall_time_s = 0;        ///< run_scheduler's wall time for B_i (validator included)
  /// With online options and a task-level plan: the plan run online on B_i
  /// (runtime/online.hpp) and each decision's wall time.
  std::optional<sim::Metrics> online;
  std::vector<double> decision_wall_s;
};

struct UncertainResult {
  std::string scheduler;
  schedule::Schedule plan;      ///< made for A
  double plan_wall_time_s = 0;  ///< run_scheduler's wall time for A
  std::vector<UncertainIteration> iterations;
  /// Over the iterations (nearest rank, sim::nearest_rank).
  sim::Percentiles<std::int64_t> planned_iteration_ps;
  sim::Percentiles<std::int64_t> replanned_iteration_ps;
  /// Mean over the iterations of planned / replanned iteration time (the
  /// price of not re-planning; < 1 when the plan for A did better).
  double mean_planned_over_replanned = 0;
  double max_replan_wall_time_s = 0;
  /// Every run delivered every byte of its B_i.
  bool all_delivered = true;
  /// With online options and a task-level plan: the online runs' iteration
  /// times, and the wall time of every decision of every iteration.
  std::optional<sim::Percentiles<std::int64_t>> online_iteration_ps;
  sim::Percentiles<double> decision_wall_s;
  std::uint64_t decisions = 0;
  /// Peak NIC memory (sim::Metrics::peak_nic_bytes), the maximum over the
  /// iterations: the plan for A run on each B_i, each B_i's own plan, and
  /// (with online options and a task-level plan) the online runs.
  std::uint64_t planned_peak_nic_bytes = 0;
  std::uint64_t replanned_peak_nic_bytes = 0;
  std::optional<std::uint64_t> online_peak_nic_bytes;
};

/// Plans `expected` with `scheduler` (options `sched_options`), runs the
/// plan on every workload of `actual` (each of `expected`'s structure:
/// sim::check_same_structure), and re-plans and runs each of them. Sim
/// options apply to every run (no perturbation: the differences are the
/// workloads'; trials 1). Throws core::InputError (an empty `actual`, a
/// structure that differs, a bad scheduler name or options) and what
/// sched::run_scheduler and sim::simulate throw.
UncertainResult run_uncertain(const core::Workload& expected,
                              std::span<const core::Workload> actual, const core::System& system,
                              std::string_view scheduler,
                              const sched::SchedulerOptions& sched_options,
                              const sim::SimOptions& sim_options = {});

/// An actual iteration as run_uncertain_plan's `make` gives it: made for
/// the call, or a caller's workload held without ownership.
using WorkloadPtr = std::shared_ptr<const core::Workload>;

/// The plan actual iteration B_i runs, made before it: for `planned` (a
/// prediction of B_i from the iterations before it, of B_i's structure),
/// with its planning's wall time.
struct IterationPlan {
  WorkloadPtr planned;
  std::shared_ptr<const schedule::Schedule> plan;
  double wall_time_s = 0;
};

/// As run_uncertain_plan, with a plan of its own for each actual iteration:
/// `plan_for(i)`, called for i = 0 .. count - 1 in order, each before B_i
/// = make(i) is made (a predictor re-planning every iteration). The
/// result's plan is the first iteration's, plan_wall_time_s the slowest.
/// With `online`, each iteration's plan also runs online on it
/// (run_online; skipped for a circuit-only plan).
UncertainResult run_uncertain_each(std::uint32_t count,
                                   const std::function<IterationPlan(std::uint32_t)>& plan_for,
                                   const std::function<WorkloadPtr(std::uint32_t)>& make,
                                   const core::System& system, std::string_view scheduler,
                                   const sched::SchedulerOptions& sched_options,
                                   const sim::SimOptions& sim_options = {},
                                   const std::optional<OnlineOptions>& online = std::nullopt);

/// The same with `plan` already made for `expected` by `scheduler` (in
/// plan_wall_time_s), and the actual iterations made one at a time by
/// `make(i)`, i = 0 .. count - 1 (one workload in memory at a time: a large
/// MoE iteration is hundreds of MB).
UncertainResult run_uncertain_plan(const core::Workload& expected, schedule::Schedule plan,
                                   double plan_wall_time_s, std::uint32_t count,
                                   const std::function<WorkloadPtr(std::uint32_t)>& make,
                                   const core::System& system, std::string_view scheduler,
                                   const sched::SchedulerOptions& sched_options,
                                   const sim::SimOptions& sim_options = {},
                                   const std::optional<OnlineOptions>& online = std::nullopt);

}  // namespace flux::runtime
