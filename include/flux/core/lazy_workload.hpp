#pragma once
// A workload whose collectives stay collectives (issue 33;
// docs/plan-lazy-collectives.md): instead of every send and dependency, it
// holds each distinct decomposition once (a CollectiveShape, in positions
// 0 .. p-1), the instances of it (which ranks, which label, where its sends
// are numbered) and the dependencies between instances' members as group
// edges. A member is (instance, position): the rank at that position in that
// collective. It stands for two sets of the instance's sends:
//
//   initial(M)   the sends of M that wait for nothing else in the collective
//                (CollectiveShape::initial): what the rank's compute before
//                the collective connects to;
//   terminal(M)  the sends involving M after which nothing else in the
//                collective involves M: when all have finished, M is done.
//
// A group edge (G, M, c) means: every send of initial(M) starts at least c
// after every send of terminal(G) has finished. So the workload it stands
// for (expand()) is: the instances' sends in order (instance i's local send
// k is task first_task(i) + k), the shapes' internal dependencies (compute
// 0), and for every group edge (G, M, c) the edges (t, v, c) for t in
// terminal(G) and v in initial(M) (a pair named twice keeps the larger c);
// a send of initial(M) has release at least release(M), a send of
// terminal(G) tail at least tail(G). A point-to-point send is an instance
// of a one-send shape (`single`) of two members, whose bytes the instance
// gives.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// One decomposition of a collective in local numbering: sends between
/// positions, dependencies among them (no compute), and what each member
/// starts with and ends with.
struct CollectiveShape {
  struct Send {
    std::uint32_t from = 0;   ///< the sender's position
    std::uint32_t to = 0;     ///< the receiver's position
    std::uint64_t bytes = 0;  ///< unused when `single` (the instance's bytes)
  };
  static constexpr std::uint8_t kTerminalFrom = 1;  ///< in terminal(sender)
  static constexpr std::uint8_t kTerminalTo = 2;    ///< in terminal(receiver)

  std::uint32_t members = 0;
  std::vector<Send> sends;
  std::vector<std::uint32_t> succ_offsets;  ///< per send + 1: its successors in succs
  std::vector<std::uint32_t> succs;
  std::vector<std::uint32_t> parents;          ///< per send: its predecessors in the shape
  std::vector<std::uint8_t> terminal;          ///< per send: kTerminalFrom | kTerminalTo
  std::vector<std::uint32_t> initial_offsets;  ///< per member + 1: its sends in initial
  std::vector<std::uint32_t> initial;
  std::vector<std::uint32_t> terminal_count;  ///< per member: |terminal(M)|
  /// Per member: whether waiting for terminal(M) implies waiting for what
  /// initial(M) waited for (workload::CollectiveTasks::replaces_frontier).
  std::vector<std::uint8_t> replaces;
  /// reach[m * words + q / 64] bit q % 64: a send of initial(m) is, or is an
  /// ancestor of, a send of terminal(q).
  std::vector<std::uint64_t> reach;
  std::uint32_t words = 0;
  bool single = false;  ///< one send 0 -> 1 of the instance's bytes
  /// Every member with initial sends reaches every member with terminal
  /// ones (set by LazyWorkload::add_shape).
  bool mixing = false;
  /// Per send: the member whose initial sends include it, or kNoMember
  /// (set by LazyWorkload::add_shape, which refuses a send in two lists).
  std::vector<std::uint32_t> owner;
  static constexpr std::uint32_t kNoMember = 0xffffffffu;

  [[nodiscard]] bool reaches(std::uint32_t m, std::uint32_t q) const {
    return ((reach[std::size_t{m} * words + q / 64] >> (q % 64)) & 1u) != 0;
  }
  [[nodiscard]] std::span<const std::uint32_t> initial_of(std::uint32_t m) const {
    return std::span<const std::uint32_t>(initial).subspan(
        initial_offsets[m], initial_offsets[m + 1] - initial_offsets[m]);
  }
  [[nodiscard]] std::span<const std::uint32_t> succs_of(std::uint32_t k) const {
    return std::span<const std::uint32_t>(succs).subspan(succ_offsets[k],
                                                         succ_offsets[k + 1] - succ_offsets[k]);
  }
  [[nodiscard]] std::uint64_t memory_bytes() const;
  /// Throws std::logic_error when the arrays do not describe a shape (sizes,
  /// positions out of range, dependencies that are not forward, counts).
  void check() const;
};

/// The one-send shape of a point-to-point send (position 0 sends to 1).
CollectiveShape single_send_shape();

/// Builds a LazyWorkload; see the header comment for what it stands for.
class LazyWorkload {
 public:
  LazyWorkload(std::string name, std::uint32_t accelerators);

  /// Adds a shape (checked); returns its index.
  std::uint32_t add_shape(CollectiveShape shape);
  /// Adds an instance of `shape` on `ranks` (one per position, distinct, in
  /// range); `bytes`: a single shape's send size (>= 1), 0 otherwise.
  /// Returns its first member's index (its members are consecutive). Throws
  /// InputError (field "tasks") past 2^32 - 2 sends in all ("collectives"
  /// past 2^32 - 2 members), and as a
  /// Workload does (field tasks[i].bytes) when the bytes of all sends up to
  /// send i pass 2^64-1.
  std::uint32_t add_instance(std::uint32_t shape, std::span<const Rank> ranks, std::uint32_t label,
                             std::uint64_t bytes = 0);
  /// A group edge (from, to, compute); `from` must be a member of an earlier
  /// instance than `to`'s. Throws InputError (field "deps") past 2^32 - 2.
  void add_edge(std::uint32_t from, std::uint32_t to, TimePs compute_ps);
  void raise_release(std::uint32_t member, TimePs ps);
  void raise_tail(std::uint32_t member, TimePs ps);
  std::uint32_t intern_label(std::string_view label);
  void set_scaleup_size(std::uint32_t k) { scaleup_size_ = k; }
  void set_scaleup_gbps(double gbps) { scaleup_gbps_ = gbps; }

  /// An instance: its shape, label, where its sends and members are
  /// numbered, and a single shape's bytes.
  struct Instance {
    std::uint32_t shape = 0;
    std::uint32_t label = kNoLabel;
    std::uint32_t first_task = 0;
    std::uint32_t first_member = 0;
    std::uint64_t bytes = 0;
  };

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::span<const std::string> labels() const { return labels_; }
  [[nodiscard]] double scaleup_gbps() const { return scaleup_gbps_; }
  [[nodiscard]] const Instance& instance(std::uint32_t i) const { return instances_[i]; }
  [[nodiscard]] const CollectiveShape& shape(std::uint32_t x) const { return shapes_[x]; }
  [[nodiscard]] Rank member_rank(std::uint32_t member) const { return member_rank_[member]; }
  /// Local send k of instance i as a task (id = its index; release and
  /// tail from its members).
  [[nodiscard]] Task task_of(std::uint32_t i, std::uint32_t k) const;
  [[nodiscard]] std::uint32_t accelerators() const { return accelerators_; }
  [[nodiscard]] std::uint32_t scaleup_size() const { return scaleup_size_; }
  [[nodiscard]] std::uint64_t num_tasks() const { return num_tasks_; }
  /// The bytes of all sends (add_instance keeps them within 2^64-1).
  [[nodiscard]] std::uint64_t total_bytes() const { return total_bytes_; }
  [[nodiscard]] std::size_t num_instances() const { return instances_.size(); }
  [[nodiscard]] std::size_t num_members() const { return member_rank_.size(); }
  [[nodiscard]] std::size_t num_edges() const { return edges_.size(); }
  [[nodiscard]] std::size_t num_shapes() const { return shapes_.size(); }
  [[nodiscard]] const CollectiveShape& shape_of_member(std::uint32_t member) const {
    return shapes_[instances_[member_instance_[member]].shape];
  }
  [[nodiscard]] std::uint32_t instance_first_member(std::uint32_t instance) const {
    return instances_[instance].first_member;
  }
  [[nodiscard]] const CollectiveShape& instance_shape(std::uint32_t instance) const {
    return shapes_[instances_[instance].shape];
  }
  /// The member's position in its instance.
  [[nodiscard]] std::uint32_t position(std::uint32_t member) const {
    return member - instances_[member_instance_[member]].first_member;
  }
  [[nodiscard]] std::uint32_t instance_of(std::uint32_t member) const {
    return member_instance_[member];
  }
  [[nodiscard]] std::uint32_t terminal_count(std::uint32_t member) const {
    return shape_of_member(member).terminal_count[position(member)];
  }
  /// A group edge: every send of initial(to) starts compute_ps after every
  /// send of terminal(from) has finished.
  struct GroupEdge {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    TimePs compute_ps = 0;
  };
  [[nodiscard]] std::span<const GroupEdge> edges() const { return edges_; }

  /// The workload it stands for, as data (sends in order, deps sorted by
  /// (from, to), each pair once with its largest compute).
  [[nodiscard]] WorkloadData expand() const;
  /// Bytes held (shapes, instances, members, edges, labels).
  [[nodiscard]] std::uint64_t memory_bytes() const;

 private:
  std::string name_;
  std::uint32_t accelerators_ = 0;
  std::uint32_t scaleup_size_ = 0;
  double scaleup_gbps_ = 0;
  std::uint64_t num_tasks_ = 0;
  std::uint64_t total_bytes_ = 0;
  std::vector<std::uint64_t> shape_bytes_;  // per shape: its sends' bytes (0 when single)
  std::vector<CollectiveShape> shapes_;
  std::vector<Instance> instances_;
  std::vector<Rank> member_rank_;
  std::vector<std::uint32_t> member_instance_;
  std::vector<TimePs> release_;
  std::vector<TimePs> tail_;
  std::vector<GroupEdge> edges_;
  std::vector<std::string> labels_;
  std::unordered_map<std::string, std::uint32_t> label_index_;
};

/// Its name and counts, as core::facts_of(Workload) (no fold).
WorkloadFacts facts_of(const LazyWorkload& w);

/// Every send's transmission time on `system`, range-checked as
/// core::transmission_times checks a Workload's (the serial horizon counts
/// each group edge's compute once, at most what the expansion's deps add).
/// Throws InputError (field wiring) on a wiring other than full: routes are
/// chosen send by send (core/routes.hpp) on a materialised workload.
std::vector<TimePs> transmission_times(const LazyWorkload& w, const System& system);
/// The checks of transmission_times, without keeping the times (8 B a send):
/// for callers that compute a send's time when they reach it.
void check_transmission_times(const LazyWorkload& w, const System& system);

}  // namespace flux::core
