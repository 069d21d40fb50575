// greedy: one list schedule (list_scheduler.hpp) with the combinatorial
// lower bound and its gap.
#include <chrono>

#include "../schedulers.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "list_scheduler.hpp"

namespace flux::sched {

schedule::Schedule GreedyScheduler::run(const core::Workload& w, const core::System& system,
                                        const SchedulerOptions&) const {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<core::TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  schedule::Schedule s = to_schedule(w, system, p, list_schedule(w, system, p, timing));
  finish_schedule(s, lower_bounds(w, system, p, timing).best(), schedule::SolveStatus::kFeasible,
                  t0);
  return s;
}

}  // namespace flux::sched
