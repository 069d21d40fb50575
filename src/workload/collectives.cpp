// Collectives as point-to-point sends. Each algorithm is written as a list of
// steps; within a step the sends are emitted by the sender's group position
// (and, for several sends of one sender, by the receiver's position), so the
// same spec always yields the same tasks in the same order.
//
// Dependencies model what a real implementation must wait for: a send waits
// for the receives that delivered the data it carries (zero-byte sends are
// never emitted, so they are never waited for):
//   ring, direct      the sender's receives of its latest earlier step that
//                     received anything (ring: the previous step's single
//                     receive, which brought exactly the chunk being sent on;
//                     direct all-reduce: all reduce-scatter receives);
//   halving-doubling  all of the sender's earlier receives in the collective:
//                     the half sent at step k was reduced from the receives of
//                     every earlier step, and the blocks sent while doubling
//                     include the rank's own block, final only after the last
//                     halving receive. (Waiting for the step-(k-1) receive
//                     alone would let a step-k send overtake a step-(k-2)
//                     receive whose data it carries.)
#include "flux/workload/collectives.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "flux/core/error.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;

// Builder indices are 32-bit and a workload holds fewer than 2^32 - 1 tasks and deps.
constexpr double kMaxEntries = 4294967295.0;

/// The sizes of `parts` near-equal pieces of `bytes`: piece c has
/// floor(bytes / parts) plus one if c < bytes mod parts.
std::vector<std::uint64_t> split(std::uint64_t bytes, std::uint32_t parts) {
  std::vector<std::uint64_t> sizes(parts, bytes / parts);
  const std::uint64_t rest = bytes % parts;
  for (std::uint64_t c = 0; c < rest; ++c) ++sizes[c];
  return sizes;
}

/// Which of its earlier receives a send waits for.
enum class WaitFor : std::uint8_t {
  kLatestStep,  ///< the receives of the sender's latest step that received anything
  kAllEarlier,  ///< every receive of the sender so far in the collective
};

/// Adds one collective's sends to the builder step by step and remembers them
/// (by group position) to derive the initial and terminal tasks.
class Emitter {
 public:
  Emitter(WorkloadBuilder& builder, const CollectiveSpec& spec, WaitFor wait_for)
      : builder_(builder),
        spec_(spec),
        wait_for_(wait_for),
        first_(static_cast<std::uint32_t>(builder.num_tasks())),
        waits_(spec.group.size()),
        step_receives_(spec.group.size()) {}

  /// A send of `bytes` from group position `from` to position `to` in the
  /// current step; nothing when `bytes` is 0.
  void send(std::uint32_t from, std::uint32_t to, std::uint64_t bytes) {
    if (bytes == 0) return;
    const TaskIndex t = builder_.add_send(spec_.group[from], spec_.group[to], bytes, spec_.label);
    const std::uint32_t local = t.value() - first_;
    for (const TaskIndex w : waits_[from]) {
      builder_.add_dep(w, t, 0);
      edges_.emplace_back(w.value() - first_, local);
    }
    ends_.emplace_back(from, to);
    if (step_receives_[to].empty()) received_.push_back(to);
    step_receives_[to].push_back(t);
  }

  /// Ends the current step: its receives become what later sends wait for.
  void end_step() {
    for (const std::uint32_t pos : received_) {
      std::vector<TaskIndex>& r = step_receives_[pos];
      if (wait_for_ == WaitFor::kLatestStep) {
        waits_[pos].swap(r);
      } else {
        waits_[pos].insert(waits_[pos].end(), r.begin(), r.end());
      }
      r.clear();
    }
    received_.clear();
  }

  [[nodiscard]] CollectiveTasks finish() const;

 private:
  [[nodiscard]] TaskIndex task(std::uint32_t local) const { return TaskIndex(first_ + local); }

  WorkloadBuilder& builder_;
  const CollectiveSpec& spec_;
  WaitFor wait_for_;
  std::uint32_t first_;                        // builder index of the collective's first task
  std::vector<std::vector<TaskIndex>> waits_;  // per position: what its sends wait for
  std::vector<std::vector<TaskIndex>> step_receives_;           // per position: receives this step
  std::vector<std::uint32_t> received_;                         // positions that received this step
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends_;   // per task: (from, to) position
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_;  // deps, as local task numbers
};

CollectiveTasks Emitter::finish() const {
  const std::size_t p = spec_.group.size();
  const auto n = static_cast<std::uint32_t>(ends_.size());
  CollectiveTasks out;
  out.initial.resize(p);
  out.terminal.resize(p);

  // Successor lists (CSR) and which tasks have a predecessor.
  std::vector<std::uint32_t> offset(n + 1, 0);
  for (const auto& e : edges_) ++offset[e.first + 1];
  for (std::uint32_t t = 0; t < n; ++t) offset[t + 1] += offset[t];
  std::vector<std::uint32_t> succ(edges_.size());
  std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
  std::vector<bool> has_pred(n, false);
  for (const auto& e : edges_) {
    succ[fill[e.first]++] = e.second;
    has_pred[e.second] = true;
  }

  // terminal_for_src / _dst[t]: no successor of t involves t's source / destination.
  std::vector<bool> terminal_for_src(n, true);
  std::vector<bool> terminal_for_dst(n, true);
  for (std::uint32_t t = 0; t < n; ++t) {
    const auto [s, d] = ends_[t];
    for (std::uint32_t k = offset[t]; k < offset[t + 1]; ++k) {
      const auto [us, ud] = ends_[succ[k]];
      if (us == s || ud == s) terminal_for_src[t] = false;
      if (us == d || ud == d) terminal_for_dst[t] = false;
    }
    if (!has_pred[t]) out.initial[s].push_back(task(t));
    if (terminal_for_src[t]) out.terminal[s].push_back(task(t));
    if (terminal_for_dst[t]) out.terminal[d].push_back(task(t));
  }
  // A member whose every send waits for data from others (the partners of
  // the extra ranks in halving-doubling) still starts only after its own
  // compute: its first send counts as initial.
  for (std::uint32_t t = 0; t < n; ++t) {
    auto& init = out.initial[ends_[t].first];
    if (init.empty()) init.push_back(task(t));
  }
  auto is_terminal_of = [&](std::uint32_t t, std::uint32_t pos) {
    return (ends_[t].first == pos && terminal_for_src[t]) ||
           (ends_[t].second == pos && terminal_for_dst[t]);
  };

  // terminal_follows_initial: for every member with tasks, a depth-first
  // search from its initial sends (each counting as reached) finds one of its
  // terminal tasks. Stops at the first hit.
  out.terminal_follows_initial = true;
  std::vector<std::uint32_t> seen(n, 0);  // position + 1 of the last search that reached t
  std::vector<std::uint32_t> stack;
  for (std::uint32_t pos = 0; pos < p && out.terminal_follows_initial; ++pos) {
    // Members with no sends (receivers only) never replace their frontier:
    // they do not count.
    if (out.terminal[pos].empty() || out.initial[pos].empty()) continue;
    bool found = false;
    stack.clear();
    for (const TaskIndex v : out.initial[pos]) {
      seen[v.value() - first_] = pos + 1;
      stack.push_back(v.value() - first_);
    }
    while (!stack.empty() && !found) {
      const std::uint32_t t = stack.back();
      stack.pop_back();
      if (is_terminal_of(t, pos)) {
        found = true;
        break;
      }
      for (std::uint32_t k = offset[t]; k < offset[t + 1]; ++k) {
        if (seen[succ[k]] != pos + 1) {
          seen[succ[k]] = pos + 1;
          stack.push_back(succ[k]);
        }
      }
    }
    out.terminal_follows_initial = found;
  }
  return out;
}

// --- algorithms --------------------------------------------------------------
// Positions are 0..p-1; `chunks` are the p chunk sizes of the buffer.

/// Ring reduce-scatter: at step j position i sends chunk i-j-1 (mod p) to i+1,
/// so chunk c starts at c+1 and ends, reduced from all p, at position c.
/// `p` positions are emitted; with a folded ring (chunks.size() = ring size
/// r > p, all chunks equal) position i stands for i, i + p, ..., and sends to
/// (i + 1) mod p.
void ring_reduce_scatter(Emitter& e, const std::vector<std::uint64_t>& chunks, std::uint64_t p) {
  const auto r = static_cast<std::uint64_t>(chunks.size());
  for (std::uint64_t j = 0; j + 1 < r; ++j) {
    for (std::uint64_t i = 0; i < p; ++i) {
      e.send(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + 1) % p),
             chunks[(i + r - 1 - j) % r]);
    }
    e.end_step();
  }
}

/// Ring all-gather: at step j position i sends chunk i-j (mod p) to i+1: its
/// own chunk first, then the one it received at step j-1.
/// A folded ring as in ring_reduce_scatter.
void ring_all_gather(Emitter& e, const std::vector<std::uint64_t>& chunks, std::uint64_t p) {
  const auto r = static_cast<std::uint64_t>(chunks.size());
  for (std::uint64_t j = 0; j + 1 < r; ++j) {
    for (std::uint64_t i = 0; i < p; ++i) {
      e.send(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + 1) % p),
             chunks[(i + r - j) % r]);
    }
    e.end_step();
  }
}

/// One step in which position i sends chunk j to every j != i (direct
/// reduce-scatter, and all-to-all).
void direct_scatter(Emitter& e, const std::vector<std::uint64_t>& chunks) {
  const auto p = static_cast<std::uint32_t>(chunks.size());
  for (std::uint32_t i = 0; i < p; ++i) {
    for (std::uint32_t j = 0; j < p; ++j) {
      if (j != i) e.send(i, j, chunks[j]);
    }
  }
  e.end_step();
}

/// One step in which position i sends its chunk i to every j != i.
void direct_all_gather(Emitter& e, const std::vector<std::uint64_t>& chunks) {
  const auto p = static_cast<std::uint32_t>(chunks.size());
  for (std::uint32_t i = 0; i < p; ++i) {
    for (std::uint32_t j = 0; j < p; ++j) {
      if (j != i) e.send(i, j, chunks[i]);
    }
  }
  e.end_step();
}

/// Rabenseifner on q = 2^k of the p positions; the r = p - q extra positions
/// q+x (x < r) are folded into position x before and served after.
///
/// The buffer is seen as q blocks, block v ending at position v:
///   all-reduce                  the buffer cut into q pieces (balanced halves);
///   reduce-scatter, all-gather  chunk v plus, for v < r, chunk q+v, so every
///                               position still ends with (or starts from)
///                               exactly its own chunk.
/// Halving at distance d = q/2, ..., 1: position v keeps the half of its
/// current 2d blocks that contains block v and sends the other half to v^d.
/// Doubling at d = 1, ..., q/2: v sends the d blocks it holds to v^d.
/// Extra position q+x sends, before: all-reduce and reduce-scatter its whole
/// buffer, all-gather its chunk; and receives, after: all-reduce the whole
/// buffer, reduce-scatter its reduced chunk, all-gather every other chunk.
void halving_doubling(Emitter& e, CollectiveKind kind, std::uint64_t bytes, std::uint32_t p) {
  const std::uint32_t q = std::bit_floor(p);
  const std::uint32_t r = p - q;
  const std::vector<std::uint64_t> chunks = split(bytes, p);
  std::vector<std::uint64_t> blocks;
  if (kind == CollectiveKind::kAllReduce) {
    blocks = split(bytes, q);
  } else {
    blocks.assign(chunks.begin(), chunks.begin() + q);
    for (std::uint32_t x = 0; x < r; ++x) blocks[x] += chunks[q + x];
  }
  std::vector<std::uint64_t> prefix(q + 1, 0);
  for (std::uint32_t v = 0; v < q; ++v) prefix[v + 1] = prefix[v] + blocks[v];
  auto blocks_bytes = [&](std::uint32_t lo, std::uint32_t count) {
    return prefix[lo + count] - prefix[lo];
  };

  if (r > 0) {
    for (std::uint32_t x = 0; x < r; ++x) {
      e.send(q + x, x, kind == CollectiveKind::kAllGather ? chunks[q + x] : bytes);
    }
    e.end_step();
  }
  if (kind != CollectiveKind::kAllGather) {
    for (std::uint32_t d = q / 2; d >= 1; d /= 2) {
      for (std::uint32_t v = 0; v < q; ++v) {
        const std::uint32_t w = v ^ d;
        e.send(v, w, blocks_bytes(w & ~(d - 1), d));
      }
      e.end_step();
    }
  }
  if (kind != CollectiveKind::kReduceScatter) {
    for (std::uint32_t d = 1; d < q; d *= 2) {
      for (std::uint32_t v = 0; v < q; ++v) e.send(v, v ^ d, blocks_bytes(v & ~(d - 1), d));
      e.end_step();
    }
  }
  if (r > 0) {
    for (std::uint32_t x = 0; x < r; ++x) {
      std::uint64_t back = bytes;
      if (kind == CollectiveKind::kReduceScatter) back = chunks[q + x];
      if (kind == CollectiveKind::kAllGather) back = bytes - chunks[q + x];
      e.send(x, q + x, back);
    }
    e.end_step();
  }
}

// --- validation ----------------------------------------------------------------

void validate_group(const WorkloadBuilder& builder, const std::vector<Rank>& group) {
  if (group.empty())
    throw core::InputError("", "group", "[]", "a collective needs at least one rank");
  const std::uint32_t n = builder.accelerators();
  for (const Rank r : group) {
    if (r.value() >= n) {
      throw core::InputError("", "group", std::to_string(r.value()),
                             "rank out of range: accelerators are 0.." + std::to_string(n - 1));
    }
  }
  std::vector<Rank> sorted = group;
  std::sort(sorted.begin(), sorted.end());
  const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    throw core::InputError("", "group", std::to_string(dup->value()),
                           "rank appears more than once in the group");
  }
}

/// The ring's true size: ring_size, or the group's when not folded.
std::uint32_t ring_size(const CollectiveSpec& spec) {
  return spec.ring_size != 0 ? spec.ring_size : static_cast<std::uint32_t>(spec.group.size());
}

void validate_ring_size(const CollectiveSpec& spec) {
  if (spec.ring_size == 0) return;
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  const std::string value = std::to_string(spec.ring_size);
  if (spec.algorithm != Algorithm::kRing || spec.kind == CollectiveKind::kAllToAll ||
      spec.kind == CollectiveKind::kSend || spec.kind == CollectiveKind::kShift) {
    throw core::InputError("", "ring_size", value,
                           "only a ring all-reduce, reduce-scatter or all-gather folds (this is " +
                               std::string(to_string(spec.algorithm)) + " " +
                               std::string(to_string(spec.kind)) + ")");
  }
  if (p < 2 || spec.ring_size % p != 0) {
    throw core::InputError(
        "", "ring_size", value,
        "must be a multiple of the group size (" + std::to_string(p) + ", at least 2 positions)");
  }
  if (spec.bytes % spec.ring_size != 0) {
    throw core::InputError(
        "", "ring_size", value,
        "the fold is exact only with equal chunks: " + std::to_string(spec.bytes) +
            " bytes do not split into " + value + " equal chunks");
  }
}

/// Refuses a collective whose sends or deps (upper bounds) would not fit the
/// workload's 32-bit indices, before anything is added.
void check_size(const WorkloadBuilder& builder, const CollectiveSpec& spec) {
  const auto p = static_cast<double>(spec.group.size());
  // Nonzero chunks: every send of ring, direct and all-to-all carries one chunk.
  const double m = std::min(p, static_cast<double>(spec.bytes));
  const double phases = spec.kind == CollectiveKind::kAllReduce ? 2 : 1;
  double tasks = phases * (spec.pair_bytes.empty() ? m : p) * (p - 1);
  if (spec.ring_size != 0) tasks = phases * p * (static_cast<double>(spec.ring_size) - 1);
  double deps = tasks;
  if (spec.kind == CollectiveKind::kAllToAll) {
    deps = 0;
  } else if (spec.algorithm == Algorithm::kDirect) {
    deps = spec.kind == CollectiveKind::kAllReduce ? m * (p - 1) * (p - 1) : 0;
  } else if (spec.algorithm == Algorithm::kHalvingDoubling) {
    const auto p32 = static_cast<std::uint32_t>(spec.group.size());
    const auto q = static_cast<double>(std::bit_floor(p32));
    const auto steps = static_cast<double>(std::bit_width(std::bit_floor(p32)) - 1);
    tasks = phases * q * steps + 2 * (p - q);
    deps = tasks * (2 * steps + 1);
  }
  if (static_cast<double>(builder.num_tasks()) + tasks >= kMaxEntries ||
      static_cast<double>(builder.num_deps()) + deps >= kMaxEntries) {
    throw core::InputError("", "group", std::to_string(spec.group.size()) + " ranks",
                           "the " + std::string(to_string(spec.kind)) + " (" +
                               std::string(to_string(spec.algorithm)) +
                               ") would exceed the 2^32-1 sends or deps a workload holds");
  }
}

}  // namespace

std::string_view to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kReduceScatter:
      return "reduce-scatter";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kAllToAll:
      return "all-to-all";
    case CollectiveKind::kSend:
      return "send";
    case CollectiveKind::kShift:
      return "shift";
  }
  return "unknown";
}

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::kRing:
      return "ring";
    case Algorithm::kDirect:
      return "direct";
    case Algorithm::kHalvingDoubling:
      return "halving-doubling";
  }
  return "unknown";
}

Algorithm algorithm_from_string(std::string_view name) {
  for (const Algorithm a : {Algorithm::kRing, Algorithm::kDirect, Algorithm::kHalvingDoubling}) {
    if (name == to_string(a)) return a;
  }
  throw core::InputError("", "collective", std::string(name),
                         "unknown collective algorithm (use ring, direct or halving-doubling)");
}

CollectiveTasks emit_collective(WorkloadBuilder& builder, const CollectiveSpec& spec) {
  validate_group(builder, spec.group);
  if (spec.kind == CollectiveKind::kSend && spec.group.size() != 2) {
    throw core::InputError("", "group", std::to_string(spec.group.size()) + " ranks",
                           "a point-to-point send needs exactly two ranks (source, destination)");
  }
  validate_ring_size(spec);
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  if (!spec.pair_bytes.empty() &&
      (spec.kind != CollectiveKind::kAllToAll || spec.pair_bytes.size() != std::size_t{p} * p)) {
    throw core::InputError(
        "", "pair_bytes", std::to_string(spec.pair_bytes.size()) + " entries",
        "only an all-to-all has them, one per ordered pair of its " + std::to_string(p) + " ranks");
  }
  check_size(builder, spec);
  const WaitFor wait_for =
      spec.algorithm == Algorithm::kHalvingDoubling ? WaitFor::kAllEarlier : WaitFor::kLatestStep;
  Emitter e(builder, spec, wait_for);
  if (!spec.pair_bytes.empty()) {
    for (std::uint32_t i = 0; i < p; ++i) {
      for (std::uint32_t j = 0; j < p; ++j) {
        if (j != i) e.send(i, j, spec.pair_bytes[std::size_t{i} * p + j]);
      }
    }
    e.end_step();
    return e.finish();
  }
  if (p < 2 || spec.bytes == 0) return e.finish();

  if (spec.kind == CollectiveKind::kSend) {
    e.send(0, 1, spec.bytes);
    return e.finish();
  }
  if (spec.kind == CollectiveKind::kShift) {
    for (std::uint32_t i = 0; i < p; ++i) e.send(i, (i + 1) % p, spec.bytes);
    return e.finish();
  }
  const std::vector<std::uint64_t> chunks = split(spec.bytes, ring_size(spec));
  if (spec.kind == CollectiveKind::kAllToAll) {
    // Every rank sends each other rank its own piece directly, whatever the
    // algorithm: there is nothing to reduce or forward.
    direct_scatter(e, chunks);
    return e.finish();
  }
  const bool reduce = spec.kind != CollectiveKind::kAllGather;
  const bool gather = spec.kind != CollectiveKind::kReduceScatter;
  switch (spec.algorithm) {
    case Algorithm::kRing:
      if (reduce) ring_reduce_scatter(e, chunks, p);
      if (gather) ring_all_gather(e, chunks, p);
      break;
    case Algorithm::kDirect:
      if (reduce) direct_scatter(e, chunks);
      if (gather) direct_all_gather(e, chunks);
      break;
    case Algorithm::kHalvingDoubling:
      halving_doubling(e, spec.kind, spec.bytes, p);
      break;
  }
  return e.finish();
}

}  // namespace flux::workload
