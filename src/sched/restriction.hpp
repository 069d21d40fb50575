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
#include <cstdint>
#include <span>

#include "flux/core/dag.hpp"
#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/placement.hpp"

namespace flux::sched {

/// The instance restricted to `subset` (distinct task indices). Its sends
/// keep their ids, endpoints and bytes (so their transmission times), in
/// topological order; edges implied by a path through another send of the
/// subset are left out. Costs O(|S| (V + E)) for the distances.
core::Workload restrict_workload(const core::Workload& w, std::span<const core::TimePs> p,
                                 const core::IdealTiming& timing,
                                 std::span<const core::TaskIndex> subset);

/// Limits of restriction_bound(). Node budgets make the bound deterministic;
/// the wall-clock budget is a safety net.
struct RestrictionLimits {
  std::size_t window = 16;                 ///< sends in the first window
  std::size_t max_window = 64;             ///< most sends in a window
  std::uint64_t window_nodes = 100'000;    ///< branch-and-bound nodes per window
  std::uint64_t port_nodes = 1'000'000;    ///< nodes per search on a whole port
  std::uint64_t whole_nodes = 1'000'000;   ///< nodes per probe on the whole instance
  int whole_probes = 4;                    ///< probes on the whole instance
  std::uint64_t total_nodes = 20'000'000;  ///< over all windows
  double time_s = 10;                      ///< wall-clock seconds
  int probes = 6;  ///< destructive probes per window whose search does not complete
};

/// The restriction bound. Every restricted instance (restrict_workload) is
/// solved exactly by branch and bound from its list schedule; a window
/// contributes its optimum when the search completes, else its root bound,
/// raised, where said, by up to `probes` destructive probes (a search with
/// ExactLimits::cutoff_ps that completes without a schedule proves the
/// cutoff) that ask for more than max(`known`, the bound so far). Three passes:
///  1. one-port windows: for every accelerator x, the sends on its OCS port
///     (touching x, OCS sends), and with scale-up domains or a packet fabric
///     those on its egress and on its ingress of each, in order of head (ties: larger
///     tail first), k consecutive ones at a time with a stride of half a
///     window (the last window ends with the last send), `window_nodes` per
///     search, `total_nodes` in all, no probes; k starts at `limits.window`,
///     grows by a quarter after a search that completed within a quarter of
///     its nodes (up to `max_window`) and shrinks by a quarter after one that
///     did not complete;
///  2. the whole instance when it has at most `max_window` sends: probes only
///     (the caller has searched it), `whole_probes` of `whole_nodes` each, in
///     `system`'s own duplex; a schedule a probe finds below `target` is
///     stored in `better` when given;
///  3. every port not solved whole in pass 1 with at most `max_window` sends,
///     whole, `port_nodes` per search, with `probes` probes, the largest
///     one-threshold port-load bound first, down to 3/4 of max(`known`, the
///     bound so far).
/// Stops once the bound reaches `target` (the makespan of a known schedule)
/// or after `time_s`. Returns the largest value, at least 0 (no window). In
/// full duplex the OCS windows of passes 1 and 3 hold the sends leaving x or
/// those entering x, never both, and are searched in half duplex (the same
/// model on such a window; restriction.cpp).
core::TimePs restriction_bound(const core::Workload& w, const core::System& system,
                               std::span<const core::TimePs> p, const core::IdealTiming& timing,
                               core::TimePs target, const RestrictionLimits& limits,
                               core::TimePs known = 0, Placement* better = nullptr);

}  // namespace flux::sched
