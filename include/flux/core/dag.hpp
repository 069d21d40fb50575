#pragma once
// Questions about a workload DAG that the schedulers ask: is u an ancestor of
// v (the MILP splits conflicting pairs into ordered and incomparable ones),
// and longest-path distances with transmission and compute times (earliest
// starts on an ideal network, the critical path, forced gaps between tasks).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// Transmission time p_v of every task on `system`'s links, in ps: on the
/// fabric system.fabric(src, dst) gives it. This is where a workload meets a
/// system: throws InputError naming scaleup_size when the domains do not
/// tile the workload's accelerators,
/// tasks[i].bytes when one p_v, or "tasks" when the serial horizon (the
/// latest release, then every send and a tau one after another, all the
/// compute and tails), is beyond kMaxTimePs. Every time computed from the
/// result within a schedule no longer than that horizon fits. Checks the
/// routes first (check_routes).
std::vector<TimePs> transmission_times(const Workload& w, const System& system);
/// The error transmission_times throws when the serial horizon of `sends`
/// sends is `seconds` (beyond kMaxTimePs).
[[noreturn]] void throw_serial_horizon(std::size_t sends, const System& system, double seconds);

/// Throws InputError when the wiring cannot carry the workload: a send
/// between scale-up domains whose endpoints no switch joins (field
/// tasks[i], naming the send and both endpoints' groups), or a folded
/// workload whose lift would change which sends a switch joins (field fold:
/// under rails, exact only when every rail is one switch per plane and
/// blocks are whole domains; never under a wiring file).
void check_routes(const Workload& w, const System& system);
/// The fold part of check_routes, before any workload is built: throws
/// InputError (field fold) when a workload folded as `fold` from a job of
/// `job_accelerators` cannot be lifted exactly on `system`'s wiring.
void check_fold_lift(const Fold& fold, std::uint64_t job_accelerators, const System& system);

/// Ancestor/descendant queries. Single queries search forward from u, pruned
/// by topological position; batches sweep the DAG once per 512 distinct
/// sources with one bit per source, O(E * sources / 64) time and O(V) memory.
/// Keeps scratch space between single queries: one object per thread.
class Reachability {
 public:
  explicit Reachability(const Workload& w) : w_(w) {}

  /// True when v is a descendant of u (u != v).
  [[nodiscard]] bool reaches(TaskIndex u, TaskIndex v) const;
  /// result[i] == 1 iff queries[i].first reaches queries[i].second.
  [[nodiscard]] std::vector<std::uint8_t> reaches_batch(
      std::span<const std::pair<TaskIndex, TaskIndex>> queries) const;

  enum class Order : std::uint8_t { kBefore, kAfter, kIncomparable, kSame };
  /// kBefore: u is an ancestor of v; kAfter: v is an ancestor of u.
  [[nodiscard]] Order order(TaskIndex u, TaskIndex v) const;

 private:
  const Workload& w_;
  mutable std::vector<std::uint32_t> seen_;  // seen_[x] == epoch_: visited by this query
  mutable std::vector<std::uint32_t> stack_;
  mutable std::uint32_t epoch_ = 0;
};

/// Longest-path timing on an ideal network (every pair always connected, no
/// reconfiguration): earliest start of every task and the critical path.
struct IdealTiming {
  std::vector<TimePs> earliest_start;  ///< head: longest path to the start of v, incl. release
  std::vector<TimePs> to_end;  ///< longest path from the start of v to the end, incl. p_v and tail
  TimePs makespan = 0;         ///< critical path length = max_v head_v + to_end_v
  TimePs compute_on_path = 0;  ///< compute (edges, release, tail) along one critical path
  std::vector<TaskIndex> critical_path;  ///< one critical path, first to last
};

IdealTiming ideal_timing(const Workload& w, std::span<const TimePs> p);

/// Longest distance from the end of u to the start of every task: dist[v] =
/// max over paths u -> ... -> v of the compute on its edges plus the
/// transmission of its inner tasks; -1 where v is not a descendant. Only
/// tasks up to topological position `limit` are settled (default: all).
std::vector<TimePs> longest_from(const Workload& w, std::span<const TimePs> p, TaskIndex u,
                                 std::uint32_t limit = 0xffffffffu);

}  // namespace flux::core
