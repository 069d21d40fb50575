#pragma once
// Internal: large-neighbourhood search on a task-level schedule (the method
// is atop lns.cpp); part of the `flux` portfolio.
#include <cstdint>
#include <span>

#include "flux/core/dag.hpp"
#include "flux/core/system.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::sched {

struct LnsOptions {
  double budget_s = 10;                     ///< wall-clock seconds
  std::uint64_t seed = 1;                   ///< window choice
  std::uint64_t max_windows = 2000;         ///< windows searched (0: until the budget)
  std::uint64_t window_nodes = 20'000;      ///< branch-and-bound nodes per window
  std::uint32_t first_window = 8;           ///< sends in the first window
  bool verbose = false;                     ///< a line of statistics on stderr
  const std::atomic<bool>* stop = nullptr;  ///< SchedulerOptions::stop
};

struct LnsResult {
  Placement best;
  core::TimePs makespan_ps = 0;
  std::uint64_t windows = 0, improved = 0;
  std::uint32_t window = 0;  ///< window size at the end
};

/// Improves `start` (a left-shifted schedule) window by window until the
/// budget, `max_windows`, or the schedule meets `bound`. Deterministic for a
/// seed unless the clock ends it.
LnsResult large_neighbourhood_search(const core::Workload& w, std::span<const core::TimePs> p,
                                     const core::System& system, const core::IdealTiming& timing,
                                     Placement start, core::TimePs bound,
                                     const LnsOptions& options);

}  // namespace flux::sched
