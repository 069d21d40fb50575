// ideal: the reference network in which every pair of accelerators is always
// connected and nothing is ever reconfigured (circuit_model kAllConnected,
// empty timelines). Every send starts as soon as its parents' compute allows,
// so the iteration time is the DAG's critical path with the transmission
// times p_v on `system`'s links (core::ideal_timing, docs/model.md "Ideal
// timing"): T_ideal = max_v head_v + p_v + tail_v. With scale-up domains
// p_v is on each send's own fabric (core::transmission_times): bytes /
// scale-up rate inside a domain, bytes / link rate across; no port is ever
// shared, electrical or optical. It is exact for this
// network (lower bound == makespan, status kOptimal) and a lower bound on the
// iteration time of every OCS schedule.
#include <chrono>
#include <string>

#include "flux/core/dag.hpp"
#include "schedulers.hpp"

namespace flux::sched {

schedule::Schedule ideal_network(const std::string& workload, const core::System& system) {
  schedule::Schedule s;
  s.scheduler = "ideal";
  s.workload = workload;
  s.system = system;
  s.circuit_model = schedule::CircuitModel::kAllConnected;
  s.timelines.resize(system.switches);
  return s;
}

schedule::Schedule IdealScheduler::run(const core::Workload& w, const core::System& system,
                                       const SchedulerOptions&) const {
  const auto t0 = std::chrono::steady_clock::now();
  const core::TimePs makespan = core::ideal_timing(w, core::transmission_times(w, system)).makespan;
  schedule::Schedule s = ideal_network(w.name(), system);
  s.makespan_ps = makespan;
  s.lower_bound_ps = makespan;
  s.gap = 0.0;
  s.status = schedule::SolveStatus::kOptimal;
  s.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace flux::sched
