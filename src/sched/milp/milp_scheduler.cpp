// flux-milp: the paper's MILP (milp_model.hpp) solved by CBC, warm-started
// from the greedy list schedule, decoded into switch assignments and per-port
// orders, then left-shifted to exact integer start times.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "../heuristic/flux_heuristic.hpp"
#include "../heuristic/list_scheduler.hpp"
#include "../schedulers.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "solver.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

// Switch and exact start times from MILP column values.
Placement decode(const core::Workload& w, const core::System& system, std::span<const TimePs> p,
                 const MilpModel& m, const std::vector<double>& values) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  Placement pl;
  pl.sw.resize(n);
  std::vector<double> key(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    std::uint32_t best = 0;
    for (std::uint32_t s = 1; s < m.switches; ++s) {
      if (values[m.x_col[v * m.switches + s]] > values[m.x_col[v * m.switches + best]]) best = s;
    }
    pl.sw[v] = core::SwitchId(best);
    key[v] = values[m.t_col[v]];
  }
  pl.start_ps = left_shift(w, p, system.reconfig_delay_ps, pl.sw, key);
  return pl;
}

}  // namespace

schedule::Schedule MilpScheduler::run(const core::Workload& w, const core::System& system,
                                      const SchedulerOptions& options) const {
  const auto t0 = std::chrono::steady_clock::now();
  const MilpOptions& mo = options.milp;
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, system, p, timing);

  // The warm start: the flux heuristic, with a tenth of the budget (at most
  // 30 s); plain greedy when warm starts are off (the paper's model).
  Placement incumbent =
      mo.warm_start ? flux_heuristic(w, system, p, timing, lb.best(),
                                     HeuristicOptions{std::min(30.0, 0.1 * options.time_limit_s),
                                                      options.seed, options.verbose})
                    : list_schedule(w, system, p, timing);
  const TimePs incumbent_ms = makespan(w, p, incumbent);
  MilpInputs in{p, &timing, std::nullopt, lb.best()};
  if (mo.horizon_big_m) in.horizon_ps = incumbent_ms;
  const MilpModel model = build_milp(w, system, in, mo);
  if (options.verbose) {
    std::cerr << "flux-milp: " << model.num_cols() << " columns (" << model.num_integers()
              << " integer), " << model.num_rows() << " rows; pairs: " << model.ordered_pairs
              << " ordered (" << model.ordered_kept << " kept), " << model.incomparable_pairs
              << " incomparable (" << model.incomparable_kept << " kept); greedy "
              << core::format_duration(incumbent_ms) << ", bound "
              << core::format_duration(lb.best()) << "\n";
  }
  if (!mo.export_path.empty()) export_milp(model, mo.export_path);

  MilpResult result;
  if (mo.warm_start && incumbent_ms == lb.best() && mo.solution_path.empty()) {
    // The greedy schedule meets a lower bound: optimal, nothing to solve.
    result.status = schedule::SolveStatus::kOptimal;
    if (options.verbose) std::cerr << "flux-milp: the greedy schedule meets the lower bound\n";
  } else if (!mo.solution_path.empty()) {
    result.values = read_solution(model, mo.solution_path);
    result.status = schedule::SolveStatus::kFeasible;
  } else {
    CbcParams params{options.time_limit_s, options.relative_gap, options.threads, options.verbose};
    std::vector<double> warm;
    if (mo.warm_start) warm = milp_solution_of(model, w, p, incumbent.sw, incumbent.start_ps);
    result = solve_with_cbc(model, params, mo.warm_start ? &warm : nullptr);
  }

  if (options.verbose && result.seconds > 0) {
    std::cerr << "flux-milp: CBC " << schedule::to_string(result.status);
    if (result.killed) std::cerr << " (stopped by the watchdog past the time limit)";
    // Model units are microseconds.
    if (!result.values.empty()) std::cerr << ", objective " << result.objective / 1e3 << " ms";
    std::cerr << ", bound " << result.bound / 1e3 << " ms, " << result.nodes << " nodes, "
              << result.seconds << " s\n";
  }
  Placement best = std::move(incumbent);
  TimePs best_ms = incumbent_ms;
  schedule::SolveStatus status = result.status;
  if (!result.values.empty()) {
    Placement solved = decode(w, system, p, model, result.values);
    const TimePs solved_ms = makespan(w, p, solved);
    if (solved_ms <= best_ms || !mo.warm_start) {
      best = std::move(solved);
      best_ms = solved_ms;
    }
  } else if (status == schedule::SolveStatus::kNoSolution ||
             status == schedule::SolveStatus::kError) {
    // CBC found nothing, but the greedy schedule is a valid one.
    status = schedule::SolveStatus::kFeasible;
  }
  if (status == schedule::SolveStatus::kInfeasible) {
    throw core::Error(
        "flux-milp: CBC reports the model infeasible (a bug: the greedy schedule is feasible)");
  }

  schedule::Schedule s = to_schedule(w, system, p, best);
  // Bound: the better of the combinatorial one and CBC's (floored to whole
  // ps). On a folded workload CBC's proof covers only the schedules in which
  // every copy runs alike, and the job may do better: only the combinatorial
  // bound, valid for every schedule of the job, counts (docs/model.md,
  // "Folding").
  const bool folded = w.fold().folded();
  TimePs bound = lb.best();
  if (!folded && result.bound > 0 && std::isfinite(result.bound) && mo.solution_path.empty()) {
    bound = std::max(bound, static_cast<TimePs>(std::floor(result.bound * kPsPerModelUnit)));
  }
  if (folded && status == schedule::SolveStatus::kOptimal)
    status = schedule::SolveStatus::kFeasible;
  finish_schedule(s, bound, status, t0);
  return s;
}

}  // namespace flux::sched
