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
//   bruck             exactly the sender's receives that brought one of the
//                     (nonzero) blocks it forwards: a block holds still
//                     between hops, so an earlier receive whose blocks all
//                     left is not waited for;
//   hierarchical      its previous receive in the ring, and the receives of
//                     earlier phases that delivered the rank's share of what
//                     it sends (ring_phase's `held`): a rank's partial sums
//                     came from its own domain's ring, not from the ring it
//                     forwards them along, so the previous receive alone
//                     would not order them.
// Bruck and hierarchical track this themselves (Emitter::send_after); the
// step lists of the others let the Emitter derive it (WaitFor).
#include "flux/workload/collectives.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

#include "flux/core/error.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;

// Every algorithm, in the order algorithm_from_string's error lists them.
constexpr Algorithm kAlgorithms[] = {
    Algorithm::kRing,  Algorithm::kDirect,       Algorithm::kHalvingDoubling,
    Algorithm::kBruck, Algorithm::kHierarchical, Algorithm::kAuto};

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
  /// current step, waiting as `wait_for` says; nothing when `bytes` is 0.
  void send(std::uint32_t from, std::uint32_t to, std::uint64_t bytes) {
    const TaskIndex t = send_after(from, to, bytes, waits_[from]);
    if (!t.valid()) return;
    if (step_receives_[to].empty()) received_.push_back(to);
    step_receives_[to].push_back(t);
  }

  /// A send of `bytes` from `from` to `to` that waits for exactly `waits`
  /// (tasks of this collective), outside the steps: for algorithms that
  /// track what each send carries (bruck, hierarchical). Returns the task,
  /// or an invalid index when `bytes` is 0 (nothing is added).
  TaskIndex send_after(std::uint32_t from, std::uint32_t to, std::uint64_t bytes,
                       std::span<const TaskIndex> waits) {
    if (bytes == 0) return TaskIndex{};
    const TaskIndex t = builder_.add_send(spec_.group[from], spec_.group[to], bytes, spec_.label);
    const std::uint32_t local = t.value() - first_;
    for (const TaskIndex w : waits) {
      builder_.add_dep(w, t, 0);
      edges_.emplace_back(w.value() - first_, local);
    }
    ends_.emplace_back(from, to);
    return t;
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

/// Bruck all-to-all on p positions, ceil(log2 p) rounds. Block (s, t) (from
/// s to t, `block_bytes(s, t)` bytes) at distance d = (t - s) mod p hops 2^k
/// at round k for every set bit k of d, in increasing k: at round k it sits
/// at s + (d mod 2^k). Round k: position i sends to i + 2^k, in one send,
/// every block it holds whose d has bit k set; the send waits for the
/// receives that brought those blocks to i (blocks of 0 bytes count for
/// nothing: they are neither carried nor waited for).
template <class BlockBytes>
void bruck(Emitter& e, std::uint32_t p, const BlockBytes& block_bytes) {
  // sent[k * p + i]: position i's round-k send (invalid when it carried
  // nothing). A block at i with a = d mod 2^k != 0 came by the round-b send
  // of i - 2^b, b the highest set bit of a: that round moved it from
  // s + (a - 2^b) to s + a = i.
  std::vector<TaskIndex> sent;
  std::vector<TaskIndex> waits;
  for (std::uint64_t hop = 1; hop < p; hop *= 2) {
    for (std::uint32_t i = 0; i < p; ++i) {
      std::uint64_t bytes = 0;
      waits.clear();
      // The blocks at i: from s = i - a with d mod hop = a; those to send
      // have d = a + hop + 2 hop u.
      for (std::uint32_t a = 0; a < hop; ++a) {
        const std::uint32_t s = (i + p - a) % p;
        std::uint64_t from_s = 0;
        for (std::uint64_t d = a + hop; d < p; d += 2 * hop) {
          from_s += block_bytes(s, static_cast<std::uint32_t>((s + d) % p));
        }
        bytes += from_s;
        if (from_s != 0 && a != 0) {  // that send carried these blocks: it exists
          const auto b = static_cast<std::uint32_t>(std::bit_width(a) - 1);
          waits.push_back(sent[std::size_t{b} * p + (i + p - (1u << b)) % p]);
        }
      }
      std::sort(waits.begin(), waits.end());
      waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
      sent.push_back(e.send_after(i, static_cast<std::uint32_t>((i + hop) % p), bytes, waits));
    }
  }
}

/// Per group position: the receives (of this collective) that delivered data
/// it holds, as hierarchical's phases hand it on.
using Held = std::vector<std::vector<TaskIndex>>;

/// Disjoint rings of equal size k over the positions, run side by side.
struct Rings {
  std::vector<std::vector<std::uint32_t>> members;  ///< per ring: its positions, by slot
  std::vector<std::vector<std::uint64_t>> pieces;   ///< per ring: bytes of piece c, c < k
};

/// One ring reduce-scatter (`reduce`) or all-gather on every ring at once,
/// k - 1 steps; within a step the sends go by sender position. At step j
/// slot i sends piece i-j-1 (reducing) or i-j (gathering) mod k to slot i+1:
/// piece c ends at, or starts from, slot c. A reducing send waits for the
/// step-(j-1) receive and for held[pos] (what delivered the position's own
/// contribution to the piece, before the phase); a gathering send for
/// held[pos] at step 0 (its own piece), then for the step-(j-1) receive.
/// Afterwards held[pos] also has the receive that completed the position's
/// piece (reduce-scatter: the last one) or every receive of the phase
/// (all-gather: each brought a piece it now holds).
void ring_phase(Emitter& e, const Rings& rings, bool reduce, Held& held) {
  const auto p = static_cast<std::uint32_t>(held.size());
  const auto k = static_cast<std::uint32_t>(rings.members.front().size());
  if (k < 2) return;
  std::vector<std::uint32_t> ring(p), slot(p);
  for (std::uint32_t r = 0; r < rings.members.size(); ++r) {
    for (std::uint32_t i = 0; i < k; ++i) {
      ring[rings.members[r][i]] = r;
      slot[rings.members[r][i]] = i;
    }
  }
  std::vector<TaskIndex> previous(p), current(p), waits;
  Held received(p);
  for (std::uint32_t j = 0; j + 1 < k; ++j) {
    std::fill(current.begin(), current.end(), TaskIndex{});
    for (std::uint32_t pos = 0; pos < p; ++pos) {
      const std::uint32_t r = ring[pos], i = slot[pos];
      waits.clear();
      if (j > 0 && previous[pos].valid()) waits.push_back(previous[pos]);
      if (reduce || j == 0) waits.insert(waits.end(), held[pos].begin(), held[pos].end());
      const std::uint32_t to = rings.members[r][(i + 1) % k];
      const TaskIndex t =
          e.send_after(pos, to, rings.pieces[r][(i + 2 * k - j - (reduce ? 1 : 0)) % k], waits);
      if (!t.valid()) continue;
      current[to] = t;
      received[to].push_back(t);
    }
    previous.swap(current);
  }
  for (std::uint32_t pos = 0; pos < p; ++pos) {
    if (reduce && previous[pos].valid()) held[pos].push_back(previous[pos]);
    if (!reduce) held[pos].insert(held[pos].end(), received[pos].begin(), received[pos].end());
  }
}

/// The group's scale-up domains (CollectiveSpec::domain_size): D domains in
/// order of first appearance in the group, m members each, members[d][j] the
/// position of domain d's j-th member in the group's order (its local index).
struct Domains {
  std::vector<std::vector<std::uint32_t>> members;
};

/// Hierarchical reduce-scatter and/or all-gather over the domains (all-reduce
/// does both). Chunk c (of p, by the header's rule) is position c's; shard j
/// gathers the chunks of the D members with local index j. Reduce-scatter:
/// inside each domain a ring over the m shards (member j ends with shard j
/// reduced over its domain), then for each j a ring over the D chunks of
/// shard j among the members with local index j (each ends with its own
/// chunk reduced over all). All-gather: the same rings in reverse order.
void hierarchical(Emitter& e, const Domains& dom, const std::vector<std::uint64_t>& chunks,
                  bool reduce, bool gather) {
  const auto num_domains = static_cast<std::uint32_t>(dom.members.size());
  const auto m = static_cast<std::uint32_t>(dom.members.front().size());
  Rings intra{dom.members, {}};
  std::vector<std::uint64_t> shard(m, 0);
  for (std::uint32_t j = 0; j < m; ++j) {
    for (std::uint32_t d = 0; d < num_domains; ++d) shard[j] += chunks[dom.members[d][j]];
  }
  intra.pieces.assign(num_domains, shard);
  Rings inter;
  for (std::uint32_t j = 0; j < m; ++j) {
    inter.members.emplace_back();
    inter.pieces.emplace_back();
    for (std::uint32_t d = 0; d < num_domains; ++d) {
      inter.members.back().push_back(dom.members[d][j]);
      inter.pieces.back().push_back(chunks[dom.members[d][j]]);
    }
  }
  Held held(chunks.size());
  if (reduce) {
    ring_phase(e, intra, true, held);
    ring_phase(e, inter, true, held);
  }
  if (gather) {
    ring_phase(e, inter, false, held);
    ring_phase(e, intra, false, held);
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

/// Bruck decomposes only an all-to-all, whose sends it sums: their total
/// must fit in 64 bits.
void validate_bruck(const CollectiveSpec& spec) {
  if (spec.kind != CollectiveKind::kAllToAll) {
    throw core::InputError("", "collective", "bruck",
                           "the bruck algorithm decomposes only an all-to-all (this is " +
                               std::string(to_string(spec.kind)) + ")");
  }
  std::uint64_t total = 0;
  const std::size_t p = spec.group.size();
  for (std::size_t k = 0; k < spec.pair_bytes.size(); ++k) {
    const std::uint64_t b = k / p == k % p ? 0 : spec.pair_bytes[k];  // the diagonal stays
    if (__builtin_add_overflow(total, b, &total)) {
      throw core::InputError("", "pair_bytes", std::to_string(b),
                             "the all-to-all's bytes add up past 2^64-1: bruck's sends carry "
                             "several of them");
    }
  }
}

/// The domains of a hierarchical all-reduce, reduce-scatter or all-gather,
/// checked: domain_size >= 1, at least two domains, as many members in each.
Domains make_domains(const CollectiveSpec& spec) {
  if (spec.domain_size == 0) {
    throw core::InputError("", "domain_size", "0",
                           "the hierarchical algorithm needs the scale-up domain size (>= 1)");
  }
  Domains dom;
  std::unordered_map<std::uint32_t, std::uint32_t> index;  // domain id -> d (looked up only)
  for (std::uint32_t pos = 0; pos < spec.group.size(); ++pos) {
    const auto [it, fresh] = index.emplace(spec.group[pos].value() / spec.domain_size,
                                           static_cast<std::uint32_t>(dom.members.size()));
    if (fresh) dom.members.emplace_back();
    dom.members[it->second].push_back(pos);
  }
  const std::string value = std::to_string(spec.domain_size);
  if (dom.members.size() < 2) {
    throw core::InputError("", "domain_size", value,
                           "a hierarchical " + std::string(to_string(spec.kind)) +
                               " needs a group spread over at least two scale-up domains (this "
                               "one is inside one domain)");
  }
  for (std::size_t d = 1; d < dom.members.size(); ++d) {
    if (dom.members[d].size() != dom.members[0].size()) {
      throw core::InputError(
          "", "domain_size", value,
          "a hierarchical " + std::string(to_string(spec.kind)) +
              " needs as many group members in every scale-up domain: the domain of rank " +
              std::to_string(spec.group[dom.members[0][0]].value()) + " has " +
              std::to_string(dom.members[0].size()) + ", that of rank " +
              std::to_string(spec.group[dom.members[d][0]].value()) + " has " +
              std::to_string(dom.members[d].size()));
    }
  }
  return dom;
}

/// Refuses a collective whose sends or deps (upper bounds) would not fit the
/// workload's 32-bit indices, before anything is added.
void check_size(const WorkloadBuilder& builder, const CollectiveSpec& spec, const Domains& dom) {
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
  } else if (spec.algorithm == Algorithm::kHierarchical && !dom.members.empty()) {
    // Rings of m - 1 and D - 1 steps per phase; a send waits for at most the
    // previous receive, the receives of the inter-domain all-gather (D - 1)
    // and two of the reduce-scatter.
    const auto domains = static_cast<double>(dom.members.size());
    const auto members = static_cast<double>(dom.members.front().size());
    tasks = phases * p * (members - 1 + domains - 1);
    deps = tasks * (domains + 2);
  }
  if (spec.algorithm == Algorithm::kBruck) {
    // ceil(log2 p) rounds of p sends; a round-k send waits for at most one
    // receive per earlier round.
    const auto rounds =
        static_cast<double>(std::bit_width(static_cast<std::uint32_t>(spec.group.size()) - 1));
    tasks = p * rounds;
    deps = tasks * rounds;
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
    case Algorithm::kBruck:
      return "bruck";
    case Algorithm::kHierarchical:
      return "hierarchical";
    case Algorithm::kAuto:
      return "auto";
  }
  return "unknown";
}

Algorithm algorithm_from_string(std::string_view name) {
  std::string names;
  for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
    if (name == to_string(kAlgorithms[i])) return kAlgorithms[i];
    names += i == 0 ? "" : i + 1 == std::size(kAlgorithms) ? " or " : ", ";
    names += to_string(kAlgorithms[i]);
  }
  throw core::InputError("", "collective", std::string(name),
                         "unknown collective algorithm (use " + names + ")");
}

std::vector<Algorithm> alternatives_of(const CollectiveSpec& spec) {
  const std::size_t p = spec.group.size();
  if (spec.kind == CollectiveKind::kAllToAll) {
    if (p < 3) return {Algorithm::kDirect};  // Bruck's one round is the direct exchange
    return {Algorithm::kDirect, Algorithm::kBruck};
  }
  const bool reduces = spec.kind == CollectiveKind::kAllReduce ||
                       spec.kind == CollectiveKind::kReduceScatter ||
                       spec.kind == CollectiveKind::kAllGather;
  if (!reduces || spec.ring_size != 0 || p < 3 || spec.bytes < p) return {Algorithm::kRing};
  std::vector<Algorithm> out = {Algorithm::kRing, Algorithm::kDirect, Algorithm::kHalvingDoubling};
  // Hierarchical where the group spans scale-up domains with the same number
  // m >= 2 of members in each (m == 1 would be the ring itself).
  if (spec.domain_size != 0) {
    std::unordered_map<std::uint32_t, std::uint32_t> members;  // domain -> members in the group
    for (const core::Rank r : spec.group) ++members[r.value() / spec.domain_size];
    const std::uint32_t m = members.begin()->second;
    const bool even =
        std::all_of(members.begin(), members.end(), [m](const auto& d) { return d.second == m; });
    if (members.size() >= 2 && m >= 2 && even) out.push_back(Algorithm::kHierarchical);
  }
  return out;
}

Algorithm applied_algorithm(const CollectiveSpec& spec) {
  if (spec.algorithm != Algorithm::kBruck && spec.algorithm != Algorithm::kHierarchical) {
    return spec.algorithm;
  }
  const std::vector<Algorithm> apply = alternatives_of(spec);
  return std::find(apply.begin(), apply.end(), spec.algorithm) == apply.end() ? Algorithm::kRing
                                                                              : spec.algorithm;
}

CollectiveTasks emit_collective(WorkloadBuilder& builder, const CollectiveSpec& spec) {
  if (spec.algorithm == Algorithm::kAuto) {
    throw core::InputError("", "collective", "auto",
                           "a choice of algorithms, lowered by the generator (alternatives_of); "
                           "one collective's sends take one algorithm");
  }
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
  if (spec.algorithm == Algorithm::kBruck) validate_bruck(spec);
  const bool by_domains =
      spec.algorithm == Algorithm::kHierarchical &&
      (spec.kind == CollectiveKind::kAllReduce || spec.kind == CollectiveKind::kReduceScatter ||
       spec.kind == CollectiveKind::kAllGather);
  const Domains dom = by_domains ? make_domains(spec) : Domains{};
  check_size(builder, spec, dom);
  const WaitFor wait_for =
      spec.algorithm == Algorithm::kHalvingDoubling ? WaitFor::kAllEarlier : WaitFor::kLatestStep;
  Emitter e(builder, spec, wait_for);
  if (spec.algorithm == Algorithm::kBruck) {
    if (!spec.pair_bytes.empty()) {
      bruck(e, p, [&](std::uint32_t s, std::uint32_t t) {
        return spec.pair_bytes[std::size_t{s} * p + t];
      });
    } else if (spec.bytes != 0) {
      const std::vector<std::uint64_t> chunks = split(spec.bytes, p);
      bruck(e, p, [&](std::uint32_t, std::uint32_t t) { return chunks[t]; });
    }
    return e.finish();
  }
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
    case Algorithm::kHierarchical:
      hierarchical(e, dom, chunks, reduce, gather);
      break;
    case Algorithm::kBruck:  // all-to-all only, emitted above
    case Algorithm::kAuto:   // refused above
      break;
  }
  return e.finish();
}

}  // namespace flux::workload
