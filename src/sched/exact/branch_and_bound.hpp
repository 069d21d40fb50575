#pragma once
// Internal: an exact depth-first branch and bound over serial generation
// (docs/model.md, "Exact search by serial generation"); the method and its
// proofs are at the top of branch_and_bound.cpp.
#include <cstdint>
#include <limits>
#include <span>

#include "flux/core/dag.hpp"
#include "flux/core/system.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::sched {

/// Where the search stops. The node budget is deterministic (same input,
/// same result); the wall-clock budget is a safety net.
struct ExactLimits {
  std::uint64_t max_nodes = 1'000'000;      ///< search nodes (one per placement tried)
  double time_s = 1e9;                      ///< wall-clock seconds
  const std::atomic<bool>* stop = nullptr;  ///< SchedulerOptions::stop
  /// Search only for schedules with a makespan below this (ps), as if an
  /// incumbent of this makespan were known. A search that completes without
  /// finding one proves that no schedule ends before `cutoff_ps`: the
  /// optimum is at least that (a destructive lower bound).
  core::TimePs cutoff_ps = std::numeric_limits<core::TimePs>::max();
};

struct ExactResult {
  static constexpr core::TimePs kNone = std::numeric_limits<core::TimePs>::max();
  Placement best;                    ///< best schedule found (the incumbent if none better)
  core::TimePs makespan_ps = kNone;  ///< its makespan; kNone when there is none
  bool complete = false;             ///< the whole tree was searched: `best` is optimal
  bool improved = false;             ///< `best` is better than the incumbent (and the cutoff)
  std::uint64_t nodes = 0;           ///< search nodes visited
  core::TimePs root_bound_ps = 0;    ///< the node bound at the root (the prefix placed)
};

/// A window of a schedule, for large-neighbourhood search: the `prefix`
/// sends are generated first, in this order, the `suffix` sends last, in
/// this order, both on their switches in `fixed`; the other sends (the
/// window) are searched exactly. Each prefix send's parents must be earlier
/// in the prefix, each window send's in the prefix or the window (throws
/// core::Error otherwise). Empty: the whole instance.
struct ExactWindow {
  std::span<const std::uint32_t> prefix;
  std::span<const std::uint32_t> suffix;
  std::span<const core::SwitchId> fixed_sw;  ///< switch of every send (prefix and suffix read)
};

/// Minimum makespan over all switch assignments and port orders of `w` on
/// `system`'s switches, with its reconfiguration delay, scale-up domains
/// and packet fabric (a send inside a domain is on core::kScaleUpSwitch, one
/// on the packet fabric on core::kPacketSwitch, ordered on that fabric's
/// egress and ingress; within `window`: over the window's sequences and
/// switches) and duplex (in full duplex a send and its
/// reverse on one switch may overlap). Starts from
/// `incumbent` when given (only strictly better schedules replace it).
/// `timing` is core::ideal_timing(w, p). Every schedule returned is left
/// shifted (each send starts as early as its switch and port orders allow).
/// Each search node costs O(V + E + accelerators * switches) for the whole
/// instance; in a window, the same over the window's sends, their edges and
/// ports only (bounds over the window's sends: valid, perhaps weaker), plus
/// O(suffix) per leaf for the replay.
ExactResult branch_and_bound(const core::Workload& w, std::span<const core::TimePs> p,
                             const core::System& system, const core::IdealTiming& timing,
                             const Placement* incumbent, const ExactLimits& limits,
                             const ExactWindow& window = {});

/// The bound branch_and_bound() uses at its root (nothing placed): the
/// critical path and, per port, the water-filled load (docs/model.md).
core::TimePs exact_root_bound(const core::Workload& w, std::span<const core::TimePs> p,
                              const core::System& system, const core::IdealTiming& timing);

}  // namespace flux::sched
