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
//                   the sends inside its domain leaving x (its electrical
//                   egress) and for those entering x (its ingress).
// Subsets scanned: S = {v : head_v >= a, q_v >= b} for thresholds a, b taken
// from the sends' own values (all of them up to 256 distinct values each,
// quantiles beyond).
#include <cstdint>
#include <span>

#include "flux/core/dag.hpp"

namespace flux::sched {

/// Which port of an accelerator a port-load bound is about.
enum class PortKind : std::uint8_t {
  kOcs,      ///< its links to the optical switches
  kEgress,   ///< its scale-up egress
  kIngress,  ///< its scale-up ingress
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
