#pragma once
// Internal to flux::chakra: each rank's nodes as a checked DAG (ids
// resolved, dependencies merged, topological order, the implicit edges that
// run a rank's COMP nodes one at a time), and the matching of COMM_SEND with
// COMM_RECV and of COMM_COLL nodes across ranks. import.cpp walks the result.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flux/chakra/et.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/ids.hpp"
#include "flux/core/time.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::chakra::detail {

inline constexpr std::uint32_t kNone = 0xffffffffu;
/// Largest time Flux accepts anywhere (core::Workload's bound): 10^6 s.
inline constexpr core::TimePs kMaxTimePs = 1'000'000 * core::kPsPerS;

enum class Kind : std::uint8_t { kComp, kSend, kRecv, kColl, kOther };

struct GraphNode {
  Kind kind = Kind::kOther;
  core::TimePs compute_ps = 0;  ///< COMP: its time
  std::uint64_t bytes = 0;      ///< SEND, RECV: comm_size
  std::uint32_t peer = kNone;   ///< SEND/RECV: rank at the other end
  std::int64_t tag = 0;         ///< SEND/RECV: comm_tag (0 when absent)
  std::uint32_t match = kNone;  ///< SEND/RECV: the matching node on `peer`; COLL: its collective
  std::uint32_t position = 0;   ///< COLL: the rank's position in its collective's group
  std::uint32_t chain = kNone;  ///< COMP: the previous COMP of the same stream, if not a pred
  std::vector<std::uint32_t> preds;  ///< explicit dependencies, distinct, as node indices
  std::vector<std::uint32_t> succs;  ///< nodes waiting for this one, the chain included
};

struct RankGraph {
  std::uint32_t rank = 0;
  const EtFile* file = nullptr;
  std::vector<GraphNode> nodes;     ///< same order as file->nodes
  std::vector<std::uint32_t> topo;  ///< topological order, ties by node id
  /// "node 12" with the field appended: "node 12.comm_size".
  [[nodiscard]] std::string field(std::uint32_t i, const char* name) const;
  /// "rank 3 node 12 (COMM_RECV)".
  [[nodiscard]] std::string describe(std::uint32_t i) const;
};

/// COMM_COLL nodes of one call, matched across a group.
struct Collective {
  bool sync_only = false;  ///< BARRIER, zero bytes or one rank: no sends, everyone waits for all
  workload::CollectiveKind kind = workload::CollectiveKind::kAllReduce;
  std::uint64_t bytes = 0;
  std::vector<core::Rank> group;     ///< position = rank within the collective
  std::vector<std::uint32_t> nodes;  ///< node index on group[pos]
  std::string label;                 ///< the first member's node name
  /// The algorithm its nodes name (attribute flux_collective; the same on
  /// every member), if they do.
  std::optional<workload::Algorithm> algorithm;
};

/// Checks and indexes one rank's file. Warnings (dropped dependencies,
/// nodes Flux does not model) go to `warnings`.
RankGraph build_rank_graph(const EtFile& file, std::uint32_t rank, std::uint32_t ranks,
                           const ImportOptions& options, ImportStats& stats,
                           std::vector<std::string>& warnings);

/// Pairs every COMM_SEND with its COMM_RECV (sets `match` on both) and
/// groups COMM_COLL nodes into collectives (sets `match` to the index).
std::vector<Collective> match_ranks(std::vector<RankGraph>& graphs, const ImportOptions& options);

}  // namespace flux::chakra::detail
