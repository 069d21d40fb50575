#pragma once
// Internal: the first steps of the `flux` portfolio (portfolio/), also
// flux-milp's warm start. The method is described atop flux_heuristic.cpp.
#include <span>

#include "flux/core/dag.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::sched {

/// The `flux` heuristic (src/sched/heuristic/flux_heuristic.cpp): a
/// portfolio of list schedules, then local search on critical sends, until
/// `max_moves` moves, the time budget, or the schedule meets `bound`.
/// Deterministic for a seed unless the time budget cuts it short.
struct HeuristicOptions {
  double budget_s = 10;
  std::uint64_t seed = 1;
  std::uint64_t max_moves = 20000;          ///< local search moves (0: until the budget)
  bool verbose = false;                     ///< a line of statistics on stderr
  const std::atomic<bool>* stop = nullptr;  ///< SchedulerOptions::stop
};
Placement flux_heuristic(const core::Workload& w, const core::System& system,
                         std::span<const core::TimePs> p, const core::IdealTiming& timing,
                         core::TimePs bound, const HeuristicOptions& options);

}  // namespace flux::sched
