#pragma once
// Collectives decomposed into point-to-point sends by a named algorithm.
//
// Sizes: `bytes` is the per-rank buffer of the collective:
//   all-reduce      every rank holds a vector of `bytes`; all end with the sum
//   reduce-scatter  every rank holds `bytes`; each ends with its reduced 1/p
//   all-gather      every rank ends with `bytes` (it starts with its 1/p)
//   all-to-all      every rank sends bytes/p to each other rank; with
//                   pair_bytes (all-to-all-v, the MoE token exchange) rank i
//                   sends pair_bytes[i * p + j] to rank j != i instead
//   send            point to point: group[0] sends `bytes` to group[1]
//   shift           one ring step: position i sends `bytes` to (i + 1) mod p
//                   (context parallelism's K/V exchange)
// A buffer of B bytes on p ranks is cut into p chunks; chunk c has
// floor(B/p) bytes plus one if c < B mod p. Chunks of 0 bytes send nothing.
//
// Algorithms (p = group size):
//   ring    reduce-scatter and all-gather: p-1 steps each; at step j rank i
//           sends one chunk to rank i+1. All-reduce = reduce-scatter then
//           all-gather: 2(p-1) steps of B/p. A rank's step-j send waits for
//           its step-(j-1) receive.
//   direct  reduce-scatter: every rank sends chunk j to rank j (one step);
//           all-gather: every rank sends its chunk to every other rank.
//           All-reduce = both; a rank's all-gather sends wait for all its
//           reduce-scatter receives. All-to-all: one step of p(p-1) sends.
//   halving-doubling  (Rabenseifner) reduce-scatter by recursive halving
//           (log2 p steps, partner i xor p/2, p/4, ..., sizes B/2, B/4, ...),
//           all-gather by recursive doubling (sizes reversed). For p not a
//           power of two, the r = p - 2^k extra ranks first send their whole
//           buffer to a partner among the first r ranks and get the result
//           back at the end (all-reduce halves the buffer cut into 2^k
//           pieces; reduce-scatter and all-gather halve blocks of one or two
//           chunks so each rank still ends with its own chunk). A send waits
//           for all of the rank's earlier receives in the collective: the
//           data it carries was reduced from every one of them.
//   bruck   all-to-all only (any other kind is refused): ceil(log2 p)
//           rounds; at round k position i sends to i + 2^k (mod p), in one
//           send, every block it holds whose distance d = (dest - origin)
//           mod p has bit k set. Block (s, t) thus hops 2^k for each set bit
//           k of d, in increasing k: at round k it sits at s + (d mod 2^k).
//           A send carries the sum of its blocks' bytes (pair_bytes[s*p+t],
//           or chunk t of `bytes`) and waits for exactly the sender's
//           receives that delivered one of its blocks (of nonzero bytes).
//           Each rank sends at most once per round, fewer sends than direct
//           (p ceil(log2 p) against p(p-1)) for more bytes: a block crosses
//           popcount(d) links (uniform p = 8: 12 B/8 per rank against 7 B/8).
//   hierarchical  all-reduce, reduce-scatter and all-gather over scale-up
//           domains (domain_size; all-to-all, send and shift keep their
//           pattern). The group must span D >= 2 domains with m members in
//           each; a member's local index j is its order of appearance within
//           its domain in `group`, domains are ordered by first appearance.
//           Layout: chunk c (of p, as above) is position c's own; shard j
//           is the D chunks of the members with local index j. Reduce-scatter:
//           (a) in every domain a ring reduce-scatter of the m shards (m - 1
//           steps; member j ends with shard j reduced over its domain), then
//           (b) for every j a ring reduce-scatter of shard j's D chunks among
//           the members with local index j (D - 1 steps; each ends with its
//           own chunk reduced over all p). All-gather: (b) then (a) as ring
//           all-gathers (own chunk, then own shard). All-reduce: reduce-scatter
//           then all-gather, 2(m-1) + 2(D-1) steps, intra-domain traffic
//           2(m-1) B/m per rank and inter-domain 2(D-1) B/p. With m = 1 the
//           intra-domain rings are empty. Every phase's step j runs on all
//           rings at once (sends by sender position). Dependencies follow
//           the data: a reducing send waits for its previous receive in the
//           ring and for what delivered the rank's own share of the piece
//           before the phase; a gathering send for its previous receive,
//           or at the phase's first step for what delivered its own piece.
//           So at the phase boundaries a rank's first send waits for:
//           inter reduce-scatter, the last intra reduce-scatter receive (its
//           shard, which every inter reduce-scatter send of it carries too);
//           inter all-gather, that and its last inter reduce-scatter receive
//           (its chunk); intra all-gather, those and every inter all-gather
//           receive (the other chunks of its shard).
//   All-to-all is the direct pattern whatever the algorithm but bruck; send
//   and shift have one pattern whatever the algorithm.
// Zero-byte sends are not emitted; a send then waits for the receives that
// did happen, so dependencies stay transitive.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/workload/builder.hpp"

namespace flux::workload {

enum class CollectiveKind : std::uint8_t {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kSend,   ///< point to point, group {source, destination}
  kShift,  ///< one ring step of `bytes` per position
};
/// kAuto: every algorithm that applies, as alternatives of a choice group
/// (core::ChoiceGroup; alternatives_of), for the scheduler to choose; the
/// generator lowers it (emit_collective takes a single algorithm).
enum class Algorithm : std::uint8_t {
  kRing,
  kDirect,
  kHalvingDoubling,
  kBruck,
  kHierarchical,
  kAuto,
};

std::string_view to_string(CollectiveKind k);
std::string_view to_string(Algorithm a);
/// "ring", "direct", "halving-doubling", "bruck", "hierarchical", "auto";
/// throws core::InputError (listing them) otherwise.
Algorithm algorithm_from_string(std::string_view name);

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  std::vector<core::Rank> group;  ///< distinct ranks; position = rank within the group
  std::uint64_t bytes = 0;        ///< per-rank buffer, see above
  std::uint32_t label = core::kNoLabel;
  /// Ring only: the group is one period of a ring of `ring_size` ranks that
  /// repeats it ring_size / group.size() times (a folded workload,
  /// core::Fold). The buffer is cut into ring_size chunks, the ring has
  /// ring_size - 1 steps per phase and position i sends to (i + 1) mod p, so
  /// each send stands for one send of every period. Exact only when all
  /// chunks are equal: bytes must be a multiple of ring_size. 0: the group
  /// is the whole ring.
  std::uint32_t ring_size = 0;
  /// All-to-all only: the bytes position i sends to position j at
  /// [i * p + j] (the diagonal is ignored: nothing leaves the rank), `bytes`
  /// then unused. Empty: bytes / p to every other position.
  std::vector<std::uint64_t> pair_bytes{};
  /// Hierarchical only (other algorithms ignore it): ranks r and q share a
  /// scale-up domain iff r / domain_size == q / domain_size. Must be >= 1.
  std::uint32_t domain_size = 0;
};

/// The sends one collective added, seen from each member (same order as
/// spec.group).
struct CollectiveTasks {
  /// Sends of member i that depend on nothing else in the collective: they
  /// wait only for what came before the collective on that rank. A member
  /// all of whose sends wait for others' data (halving-doubling partners of
  /// the extra ranks) gets its first send here, so that its participation
  /// still follows its own compute. The caller connects the rank's preceding
  /// compute to these sends only: later sends of the rank wait for the data
  /// they carry, as in the paper's DAG (compute on edges between a rank's
  /// consecutive sends); docs/model.md discusses what this leaves out.
  std::vector<std::vector<core::TaskIndex>> initial;
  /// Tasks involving member i (as source or destination) with no successor
  /// involving member i in the collective: when all have finished, member i
  /// is done with the collective.
  std::vector<std::vector<core::TaskIndex>> terminal;
  /// True when every member's terminal tasks include a descendant of one of
  /// its initial sends (lets a caller drop frontier entries they dominate).
  /// Exactly: for every member with at least one task, some terminal task of
  /// the member is one of its initial sends or is reachable from one along
  /// the collective's dependencies. Members without sends do not count (so a
  /// collective with no tasks gives true, and a point-to-point send's
  /// sender replaces its frontier while its receiver adds to it).
  bool terminal_follows_initial = false;

  /// True when member i, by waiting for its terminal tasks, also waits for
  /// everything its compute had waited for before the collective: its
  /// initial sends waited for that, and a terminal task follows one of them.
  /// A generator (or importer) keeping a frontier may then drop the older
  /// entries (docs/model.md, "From a program to a DAG").
  [[nodiscard]] bool replaces_frontier(std::size_t i) const {
    return terminal_follows_initial && !initial[i].empty();
  }
};

/// The decompositions `spec` (algorithm kAuto) is kept in: ring, direct and
/// halving-doubling for an all-reduce, reduce-scatter or all-gather of at
/// least 3 ranks (not a folded ring: ring_size != 0) whose buffer has at
/// least one byte per rank (so each of them sends), and hierarchical too
/// when domain_size is set and the group spans at least two scale-up
/// domains with the same number (at least 2) of members in each; direct and
/// Bruck for an all-to-all of at least 3 ranks; one algorithm where there is
/// nothing to choose (send and shift, a group of 2, a folded ring).
std::vector<Algorithm> alternatives_of(const CollectiveSpec& spec);

/// The algorithm a fixed choice runs on `spec`, as the generator and the
/// Chakra importer lower it: bruck and hierarchical where alternatives_of
/// offers them, the ring elsewhere (`--collective bruck` is Bruck
/// all-to-alls and ring all-reduces); any other algorithm as it is.
Algorithm applied_algorithm(const CollectiveSpec& spec);

/// A collective as the generator lowers it, appended to `builder`: one
/// algorithm (applied_algorithm), or with kAuto every alternative of
/// alternatives_of, each connected like the collective (its initial and
/// terminal tasks in the union returned), and their choice group added to
/// the builder when two or more have sends. `replaces[pos]`: whether member
/// pos's frontier is replaced by its terminal tasks when it joins
/// (CollectiveTasks::replaces_frontier; with alternatives, only where every
/// one's would be). `lowered`: the spec as emitted (the algorithm run, kAuto
/// when a group was made). The generator (lowering.hpp) and the Chakra
/// importer (`--collective auto`) both lower collectives so.
CollectiveTasks lower_collective(WorkloadBuilder& builder, const CollectiveSpec& spec,
                                 std::vector<bool>& replaces, CollectiveSpec& lowered);

/// Appends the collective's sends and their dependencies to `builder`.
/// Throws core::InputError on an empty or repeated group, a rank out of range,
/// algorithm kAuto,
/// a send whose group is not two ranks,
/// or a ring_size that is not a multiple of the group size (>= 2 positions),
/// used with another algorithm or kind than a ring all-reduce, reduce-scatter
/// or all-gather, or with bytes not a multiple of it; on bruck for another
/// kind than all-to-all (or pair_bytes summing past 2^64-1); on a
/// hierarchical all-reduce, reduce-scatter or all-gather with domain_size 0,
/// a group inside one domain, or domains with unequal numbers of members.
CollectiveTasks emit_collective(WorkloadBuilder& builder, const CollectiveSpec& spec);

}  // namespace flux::workload
