#pragma once
// The workload of the paper's section 3: one training iteration as a DAG
// G = (V, E). Each vertex is an atomic point-to-point send (src, dst, bytes);
// each edge (u, v) carries the compute time c_{u,v} >= 0 that must elapse
// between the end of u and the start of v.
//
// Extension (docs/model.md): a task may carry `release` (earliest start: the
// compute before its first send) and `tail` (compute after it before the
// iteration ends). Both default to 0, which is exactly the paper's model.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/time.hpp"

namespace flux::core {

inline constexpr std::uint32_t kNoLabel = 0xffffffffu;

struct Task {
  std::uint64_t id = 0;  ///< user-visible id, unique within the workload
  Rank src;
  Rank dst;
  std::uint64_t bytes = 0;
  TimePs release_ps = 0;           ///< earliest start (compute before it), >= 0
  TimePs tail_ps = 0;              ///< compute after it before the iteration ends, >= 0
  std::uint32_t label = kNoLabel;  ///< index into WorkloadData::labels, or kNoLabel
};

/// A dependency edge: `to` may start `compute_ps` after `from` has finished.
struct Dep {
  TaskIndex from;
  TaskIndex to;
  TimePs compute_ps = 0;
};

/// A folded workload (docs/model.md, "Folding"): the accelerators are
/// `blocks = accelerators / block_ranks` blocks of `block_ranks` ranks, and
/// the job it stands for has `copies * blocks` such blocks arranged in a
/// ring. Copy c (0 <= c < copies) holds the sends of the workload with a
/// send from block a to block b moved to blocks a + c * blocks and
/// a + c * blocks + ((b - a) mod blocks) (mod the job's blocks), the ranks
/// within a block kept. A dependency u -> v is lifted within the copy where
/// u touches v's source. A schedule of the folded workload lifts to the job
/// by giving every copy of a send the same switch and start: circuits of
/// different copies share no port, so the lifted schedule is valid and every
/// copy runs exactly as the folded one does. copies == 1: not folded.
struct Fold {
  std::uint32_t copies = 1;
  std::uint32_t block_ranks = 0;  ///< ranks per block; 0 when copies == 1
  [[nodiscard]] bool folded() const { return copies > 1; }
  friend bool operator==(const Fold&, const Fold&) = default;
};

/// One alternative of a choice group: one decomposition of a collective
/// (docs/model.md, "Collective choice").
struct Alternative {
  std::string name;              ///< e.g. "ring"; unique within its group
  std::vector<TaskIndex> tasks;  ///< its sends, by position; in no other alternative
  friend bool operator==(const Alternative&, const Alternative&) = default;
};

/// A collective kept in several decompositions, of which a schedule runs
/// exactly one (`flux generate --collective auto`). The workload holds the
/// sends of every alternative; the tasks of no alternative are always run.
/// Each alternative's sends depend on what precedes the collective and are
/// depended on by what follows it, so that with one alternative kept (and
/// the others' sends and their deps dropped: core::resolve, choice.hpp) the
/// DAG is the job with that decomposition. No dep joins two alternatives of
/// one group.
struct ChoiceGroup {
  std::uint32_t label = kNoLabel;         ///< the collective's label, or kNoLabel
  std::vector<Alternative> alternatives;  ///< 2 to kMaxAlternatives
  friend bool operator==(const ChoiceGroup&, const ChoiceGroup&) = default;
};
inline constexpr std::size_t kMaxAlternatives = 64;

/// Plain data from which a Workload is built (by a reader or a generator).
/// Deps refer to tasks by their position in `tasks`.
struct WorkloadData {
  std::string name;
  std::uint32_t accelerators = 0;
  std::vector<Task> tasks;
  std::vector<Dep> deps;
  std::vector<std::string> labels;  ///< interned label strings
  Fold fold;
  /// The scale-up domain size the job was laid out for (a generator's or a
  /// trace importer's hint; core::System::scaleup_size is what a schedule
  /// uses, and the CLI takes this as its default). 0: not said.
  std::uint32_t scaleup_size = 0;
  /// Its electrical bandwidth per accelerator and direction, Gb/s (a hint
  /// like scaleup_size: the CLI's --scaleup-gbps default). 0: not said.
  double scaleup_gbps = 0;
  /// Collectives kept in several decompositions (ChoiceGroup); empty for a
  /// workload whose every send runs.
  std::vector<ChoiceGroup> choices{};
};

/// What reports say of a workload (formats::write_metrics, the CLI's
/// summary): a Workload's, or a LazyWorkload's (core/lazy_workload.hpp).
struct WorkloadFacts {
  std::string name;
  std::uint64_t sends = 0;
  std::uint32_t accelerators = 0;
  std::uint64_t total_bytes = 0;
  Fold fold;
  /// Accelerators of the job it stands for (accelerators * copies).
  [[nodiscard]] std::uint64_t job_accelerators() const {
    return static_cast<std::uint64_t>(accelerators) * fold.copies;
  }
};

/// Memory a Workload of `tasks` sends and `deps` dependencies takes while it
/// is built, in bytes: about two copies of every send and dep (the data and
/// the Workload with its adjacency). An estimate for refusing, before
/// anything is allocated, a job that would not fit (flux generate, unfold).
std::uint64_t workload_memory_bytes(std::uint64_t tasks, std::uint64_t deps);

/// A validated, immutable workload DAG with adjacency in both directions and
/// a topological order.
class Workload {
 public:
  /// Validates `data` and builds the adjacency. Throws InputError naming the
  /// field and value: duplicate ids, endpoints out of range, src == dst,
  /// bytes == 0, negative or absurd times, deps naming missing tasks, a cycle
  /// (one cycle is reported by task ids), a scaleup_size not dividing the
  /// accelerators.
  explicit Workload(WorkloadData data);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::uint32_t accelerators() const { return accelerators_; }
  [[nodiscard]] std::size_t num_tasks() const { return tasks_.size(); }
  [[nodiscard]] std::size_t num_deps() const { return deps_.size(); }
  [[nodiscard]] std::span<const Task> tasks() const { return tasks_; }
  [[nodiscard]] const Task& task(TaskIndex v) const { return tasks_[v.value()]; }
  [[nodiscard]] std::string_view label(TaskIndex v) const;
  [[nodiscard]] std::span<const std::string> labels() const { return labels_; }
  /// How this workload stands for a larger job (Fold); copies == 1 if not.
  [[nodiscard]] const Fold& fold() const { return fold_; }
  /// The scale-up domain size the job was laid out for; 0: not said
  /// (WorkloadData::scaleup_size).
  [[nodiscard]] std::uint32_t scaleup_size() const { return scaleup_size_; }
  /// The scale-up bandwidth hint, Gb/s; 0: not said (WorkloadData).
  [[nodiscard]] double scaleup_gbps() const { return scaleup_gbps_; }
  /// Accelerators of the job the workload stands for (accelerators() * copies).
  [[nodiscard]] std::uint64_t job_accelerators() const {
    return static_cast<std::uint64_t>(accelerators_) * fold_.copies;
  }

  /// All edges, sorted by (from, to): children of u are a contiguous range.
  [[nodiscard]] std::span<const Dep> deps() const { return deps_; }
  /// Outgoing edges of u (each Dep has from == u).
  [[nodiscard]] std::span<const Dep> out_edges(TaskIndex u) const;
  /// Incoming edges of v, as indices into deps().
  [[nodiscard]] std::span<const std::uint32_t> in_edge_ids(TaskIndex v) const;
  /// Tasks in a topological order (parents before children), ties by index.
  [[nodiscard]] std::span<const TaskIndex> topo_order() const { return topo_; }
  /// Position of v in topo_order().
  [[nodiscard]] std::uint32_t topo_position(TaskIndex v) const { return topo_pos_[v.value()]; }

  /// Task with the given user id, if any.
  [[nodiscard]] std::optional<TaskIndex> find(std::uint64_t id) const;
  [[nodiscard]] std::uint64_t total_bytes() const;

  /// Collectives in several decompositions (ChoiceGroup); a schedule picks
  /// one alternative of each (core::resolve).
  [[nodiscard]] std::span<const ChoiceGroup> choices() const { return choices_; }
  [[nodiscard]] bool has_choices() const { return !choices_.empty(); }
  /// Where task v is an alternative's send: its group and alternative
  /// indices; nullopt for a send every schedule runs.
  [[nodiscard]] std::optional<std::pair<std::uint32_t, std::uint32_t>> alternative_of(
      TaskIndex v) const;

  /// Gives the plain data back (e.g. to modify and rebuild).
  [[nodiscard]] WorkloadData data() const;

 private:
  void index_choices();

  std::string name_;
  std::uint32_t accelerators_ = 0;
  std::vector<Task> tasks_;
  std::vector<Dep> deps_;
  std::vector<std::string> labels_;
  Fold fold_;
  std::uint32_t scaleup_size_ = 0;
  double scaleup_gbps_ = 0;
  std::vector<ChoiceGroup> choices_;
  // Per task, when choices_ is not empty: (group, alternative), or
  // (kNoLabel, 0) for a send of no alternative.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> alternative_of_;
  std::vector<std::uint32_t> out_offsets_;  // deps_[out_offsets_[u] .. out_offsets_[u+1])
  std::vector<std::uint32_t> in_offsets_;
  std::vector<std::uint32_t> in_edges_;
  std::vector<TaskIndex> topo_;
  std::vector<std::uint32_t> topo_pos_;
  bool dense_ids_ = true;  // task i has id i: find() needs no map
  std::vector<std::pair<std::uint64_t, std::uint32_t>> id_index_;  // sorted, when !dense_ids_
};

WorkloadFacts facts_of(const Workload& w);

}  // namespace flux::core
