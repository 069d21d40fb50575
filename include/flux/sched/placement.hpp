#pragma once
// A task-level schedule in memory: a switch and a start time for every send
// (indexed by TaskIndex), and what every task-level scheduler shares: the
// left shift, the makespan, and the conversion to a schedule::Schedule.
#include <chrono>
#include <cstddef>
#include <span>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::sched {

struct Placement {
  /// Switch of task v: < system.switches for a send on the OCS,
  /// core::kScaleUpSwitch for one inside a scale-up domain and
  /// core::kPacketSwitch for one on the packet fabric (their only fabric:
  /// core::electrical_switch(system.fabric(src, dst))).
  std::vector<core::SwitchId> sw;
  std::vector<core::TimePs> start_ps;  ///< start time t_v
};

/// The electrical fabrics (a send on one has no switch to choose, no
/// circuit, no tau): the scale-up fabric (core::kScaleUpSwitch) and the
/// packet fabric (core::kPacketSwitch). Each gives every accelerator an
/// egress and an ingress port carrying one transfer at a time, R = 0 between
/// consecutive ones; a send holds its source's egress and its destination's
/// ingress of its fabric, and the two fabrics never share a port.
inline constexpr std::uint32_t kElectricalFabrics = 2;

/// Where a port of electrical switch `s` (core::is_electrical) lies among
/// 2 kElectricalFabrics * `ranks` slots: the scale-up egress of x at x, its
/// ingress at ranks + x, the packet egress at 2 ranks + x, its ingress at
/// 3 ranks + x.
constexpr std::size_t electrical_slot(core::SwitchId s, bool ingress, core::Rank x,
                                      std::size_t ranks) {
  const std::size_t fabric = s == core::kPacketSwitch ? 1 : 0;
  return (2 * fabric + (ingress ? 1 : 0)) * ranks + x.value();
}

/// Reconfiguration penalty R_{u,v} between two sends sharing an endpoint on
/// one switch: 0 when v reuses u's circuit (same src and dst), else tau.
inline core::TimePs reconfig_penalty(const core::Task& u, const core::Task& v, core::TimePs tau) {
  return (u.src == v.src && u.dst == v.dst) ? 0 : tau;
}

/// Iteration time max_v (t_v + p_v + tail_v).
core::TimePs makespan(const core::Workload& w, std::span<const core::TimePs> p,
                      const Placement& pl);

/// Left shift: keeps every task's switch and, on every (switch, port), the
/// order of the tasks given by `order_key` (ties by topological position);
/// returns the earliest start times those decisions allow: the longest path
/// through the DAG edges (with compute) and the per-port chains (with p_u +
/// R_{u,v}), from the releases. Sends on core::kScaleUpSwitch or
/// core::kPacketSwitch are chained per egress (source) and ingress
/// (destination) port of their fabric with R = 0.
/// In full duplex (system.duplex) a port's sends in key order form epochs
/// (runs with the same circuit partner y): within one the sends to y are
/// chained, and so are those from y, with R = 0, the two directions
/// independent; every send of an epoch ends tau before the next epoch's
/// first send of either direction starts. Never later than a feasible
/// schedule with the same decisions. Throws core::Error if the port orders
/// contradict the DAG.
std::vector<core::TimePs> left_shift(const core::Workload& w, std::span<const core::TimePs> p,
                                     const core::System& system, std::span<const core::SwitchId> sw,
                                     std::span<const double> order_key);

/// The times a left shift runs on in place of the workload's own (a
/// forecast's: an online decision sees some sends' sizes before others,
/// runtime/online.hpp): per send its transmission time p and its release,
/// per dependency (in w.deps()'s order) its compute. An empty `release_ps`
/// or `compute_ps` takes the workload's.
struct Durations {
  std::span<const core::TimePs> p;
  std::span<const core::TimePs> release_ps;
  std::span<const core::TimePs> compute_ps;
};

/// left_shift over `d` instead of the workload's releases and compute.
std::vector<core::TimePs> left_shift(const core::Workload& w, const Durations& d,
                                     const core::System& system, std::span<const core::SwitchId> sw,
                                     std::span<const double> order_key);

/// The left shift's start times and, per send, its tail: the longest path
/// from its start to the end of the iteration through the same graph (DAG
/// edges and per-port chains, epochs in full duplex). A send is critical
/// when start + tail == makespan: delaying it delays the iteration.
struct ScheduleTiming {
  std::vector<core::TimePs> start_ps;
  std::vector<core::TimePs> tail_ps;
  core::TimePs makespan_ps = 0;
};
ScheduleTiming schedule_timing(const core::Workload& w, std::span<const core::TimePs> p,
                               const core::System& system, std::span<const core::SwitchId> sw,
                               std::span<const double> order_key);

/// Packs a placement into a Schedule (tasks, makespan, timelines).
schedule::Schedule to_schedule(const core::Workload& w, const core::System& system,
                               std::span<const core::TimePs> p, const Placement& pl);

/// The epilogue every task-level scheduler shares: records the lower bound
/// `bound_ps` (clamped to the makespan), the relative gap (makespan - bound)
/// / bound, the status (kOptimal when the bound meets the makespan, else
/// `otherwise`) and the wall time since `started`.
void finish_schedule(schedule::Schedule& s, core::TimePs bound_ps, schedule::SolveStatus otherwise,
                     std::chrono::steady_clock::time_point started);

}  // namespace flux::sched
