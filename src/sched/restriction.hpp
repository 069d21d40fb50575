#pragma once
// Internal: restriction relaxations (docs/model.md, "Restriction bounds").
// The instance restricted to a subset S of the sends keeps S's sends and
// replaces everything outside S by what every schedule must respect anyway:
//   release'_v = head_v                (ideal earliest start)
//   tail'_v    = to_end_v - p_v        (ideal time from v's end to the end)
//   edge (u, v, L(u, v)) for u, v in S with v a descendant of u
// (L: the longest distance from u's end to v's start, core::longest_from).
// Every schedule of the full instance, restricted to S, is a schedule of the
// restricted one with an iteration time no larger, so the restricted
// optimum (or any lower bound of it) is a lower bound of the full optimum.
#include <span>

#include "flux/core/dag.hpp"
#include "flux/core/workload.hpp"

namespace flux::sched {

/// The instance restricted to `subset` (distinct task indices). Its sends
/// keep their ids, endpoints and bytes (so their transmission times), in
/// topological order; edges implied by a path through another send of the
/// subset are left out. Costs O(|S| (V + E)) for the distances.
core::Workload restrict_workload(const core::Workload& w, std::span<const core::TimePs> p,
                                 const core::IdealTiming& timing,
                                 std::span<const core::TaskIndex> subset);

}  // namespace flux::sched
