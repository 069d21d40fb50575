#pragma once
// Lower bounds on the iteration time of any schedule (docs/model.md,
// "Lower bounds"):
//   critical path   T >= max_v head_v + p_v + tail_v (ideal network)
//   port load       for every accelerator x and every subset S of the sends
//                   touching x:  T >= min_S head + (sum_S p + (d_S - s)^+ tau) / s
//                   + min_S q, where q_v = to_end_v - p_v is what must follow
//                   v's end, d_S the number of distinct (src, dst) pairs in S:
//                   on each switch x's sends are serial, and each switch
//                   carrying k distinct pairs on x reconfigures x >= k-1 times.
//                   With scale-up domains S holds x's sends between domains
//                   only, and the same bound with s = 1 and tau = 0 holds for
//                   the sends inside its domain leaving x (its scale-up
//                   egress) and for those entering x (its ingress); and
//                   with a packet fabric (System::packet_gbps) for x's
//                   packet sends (its packet egress) and receives (its
//                   packet ingress), which S leaves out too.
//   full duplex     (System::duplex) a circuit carries both directions at
//                   once, so a port's sends and receives are not one serial
//                   resource: the port-load bound above holds for x's sends
//                   alone and for its receives alone (d_S: distinct
//                   destinations, sources), and for any S touching x with
//                   sum_S p replaced by sum_y max(out_y, in_y) (out_y, in_y:
//                   S's load to and from partner y) and d_S the number of
//                   partners (one epoch per partner and switch; the proof is
//                   at partner_bound() in bounds.cpp). Scale-up ports are as
//                   in half duplex.
// Subsets scanned: S = {v : head_v >= a, q_v >= b} for thresholds a, b taken
// from the sends' own values (all of them up to 256 distinct values each,
// quantiles beyond); for the partner form of full duplex, {head >= a} and
// {q >= b} (one threshold at a time).
#include <cstdint>
#include <span>

#include "flux/core/dag.hpp"

namespace flux::sched {

/// Which port of an accelerator a port-load bound is about.
enum class PortKind : std::uint8_t {
  kOcs,            ///< its links to the optical switches
  kEgress,         ///< its scale-up egress
  kIngress,        ///< its scale-up ingress
  kPacketEgress,   ///< its packet-fabric egress
  kPacketIngress,  ///< its packet-fabric ingress
};

struct LowerBounds {
  core::TimePs critical_path_ps = 0;
  core::TimePs port_load_ps = 0;
  core::Rank port;                      ///< the accelerator whose load gave port_load_ps
  PortKind port_kind = PortKind::kOcs;  ///< and which of its ports
  [[nodiscard]] core::TimePs best() const {
    return critical_path_ps > port_load_ps ? critical_path_ps : port_load_ps;
  }
};

LowerBounds lower_bounds(const core::Workload& w, const core::System& system,
                         std::span<const core::TimePs> p, const core::IdealTiming& timing);

}  // namespace flux::sched
