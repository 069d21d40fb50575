// One rank's Chakra nodes as a checked DAG, and the matching of
// communication across ranks (rank_graph.hpp). Every check names the file,
// the node id and the field.
#include "rank_graph.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>

#include "flux/core/error.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/workload/compute.hpp"

namespace flux::chakra::detail {
namespace {

using core::InputError;

std::string ordinal(std::size_t k) {
  return "#" + std::to_string(k + 1);
}

/// An attribute the node needs; its absence is an error naming it.
std::int64_t need(const RankGraph& g, std::uint32_t i, const std::optional<std::int64_t>& v,
                  const char* name) {
  if (!v) {
    throw InputError(g.file->source, g.field(i, name), "",
                     "missing: a " + node_type_name(g.file->nodes[i].type) + " node needs it");
  }
  return *v;
}

std::uint32_t rank_value(const RankGraph& g, std::uint32_t i, std::int64_t v, const char* name,
                         std::uint32_t ranks) {
  if (v < 0 || v >= static_cast<std::int64_t>(ranks)) {
    throw InputError(g.file->source, g.field(i, name), std::to_string(v),
                     "out of range: the trace has ranks 0.." + std::to_string(ranks - 1));
  }
  return static_cast<std::uint32_t>(v);
}

std::uint64_t size_value(const RankGraph& g, std::uint32_t i, std::int64_t v, const char* name) {
  if (v < 0) throw InputError(g.file->source, g.field(i, name), std::to_string(v), "negative");
  return static_cast<std::uint64_t>(v);
}

/// A COMP node's time: Flux's exact picoseconds, else duration_micros, else
/// the roofline of num_ops and tensor_size, else 0.
core::TimePs compute_time(const RankGraph& g, std::uint32_t i, const ImportOptions& options,
                          ImportStats& stats) {
  const EtNode& n = g.file->nodes[i];
  if (n.duration_ps) {
    if (*n.duration_ps < 0 || *n.duration_ps > kMaxTimePs) {
      throw InputError(g.file->source, g.field(i, "flux_duration_ps"),
                       std::to_string(*n.duration_ps), "must be between 0 and 10^18 ps (10^6 s)");
    }
    return *n.duration_ps;
  }
  if (n.duration_micros > 0) {
    if (n.duration_micros > static_cast<std::uint64_t>(kMaxTimePs / core::kPsPerUs)) {
      throw InputError(g.file->source, g.field(i, "duration_micros"),
                       std::to_string(n.duration_micros), "above 10^6 s");
    }
    return static_cast<core::TimePs>(n.duration_micros) * core::kPsPerUs;
  }
  if (!n.num_ops && !n.tensor_size) return 0;
  const double ops = static_cast<double>(size_value(g, i, n.num_ops.value_or(0), "num_ops"));
  const double bytes =
      static_cast<double>(size_value(g, i, n.tensor_size.value_or(0), "tensor_size"));
  const double seconds =
      std::max(ops / (options.gpu.peak_flops * options.gpu.gemm_efficiency),
               bytes / (options.gpu.hbm_bytes_per_s * options.gpu.memory_efficiency));
  if (seconds > 1e6) {
    throw InputError(g.file->source, g.field(i, n.num_ops ? "num_ops" : "tensor_size"),
                     std::to_string(n.num_ops ? *n.num_ops : *n.tensor_size),
                     "the roofline time is above 10^6 s");
  }
  ++stats.roofline_nodes;
  return workload::roofline_ps(options.gpu, workload::OpClass::kGemm, {ops, bytes});
}

void classify_p2p(RankGraph& g, std::uint32_t i, std::uint32_t ranks, bool send) {
  const EtNode& n = g.file->nodes[i];
  GraphNode& node = g.nodes[i];
  node.kind = send ? Kind::kSend : Kind::kRecv;
  const char* peer_name = send ? "comm_dst" : "comm_src";
  const char* self_name = send ? "comm_src" : "comm_dst";
  node.peer =
      rank_value(g, i, need(g, i, send ? n.comm_dst : n.comm_src, peer_name), peer_name, ranks);
  if (node.peer == g.rank) {
    throw InputError(g.file->source, g.field(i, peer_name), std::to_string(node.peer),
                     "is this file's own rank: a send needs two different ranks");
  }
  const std::optional<std::int64_t>& self = send ? n.comm_src : n.comm_dst;
  if (self && *self != static_cast<std::int64_t>(g.rank)) {
    throw InputError(g.file->source, g.field(i, self_name), std::to_string(*self),
                     "differs from this file's rank " + std::to_string(g.rank));
  }
  node.bytes = size_value(g, i, need(g, i, n.comm_size, "comm_size"), "comm_size");
  node.tag = n.comm_tag.value_or(0);
}

/// The Flux buffer of a collective node (workload/collectives.hpp) from its
/// comm_size, read as ASTRA-sim reads it: every kind's comm_size is each
/// rank's input, so an ALL_GATHER's gathered output is comm_size times the
/// group size (its ring sends comm_size per step); Flux's own exports give
/// the exact output in flux_gathered_bytes when it is not a multiple.
std::uint64_t collective_bytes(const RankGraph& g, std::uint32_t i, CommType type,
                               std::size_t ranks) {
  const std::uint64_t size = g.nodes[i].bytes;
  if (type != CommType::kAllGather || size == 0) return size;
  const EtNode& n = g.file->nodes[i];
  if (n.gathered_bytes) {
    const auto total = static_cast<std::uint64_t>(*n.gathered_bytes);
    if (*n.gathered_bytes <= 0 || (total + ranks - 1) / ranks != size) {
      throw InputError(g.file->source, g.field(i, "flux_gathered_bytes"),
                       std::to_string(*n.gathered_bytes),
                       "is not the output of an all-gather of comm_size = " + std::to_string(size) +
                           " bytes per rank over " + std::to_string(ranks) + " ranks");
    }
    return total;
  }
  if (size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / ranks) {
    throw InputError(g.file->source, g.field(i, "comm_size"), std::to_string(size),
                     "times the group's " + std::to_string(ranks) +
                         " ranks (the gathered output) is above 2^63-1 bytes");
  }
  return size * ranks;
}

void classify_coll(RankGraph& g, std::uint32_t i) {
  const EtNode& n = g.file->nodes[i];
  const std::int64_t type = need(g, i, n.comm_type, "comm_type");
  switch (static_cast<CommType>(type)) {
    case CommType::kAllReduce:
    case CommType::kAllGather:
    case CommType::kReduceScatter:
    case CommType::kReduceScatterBlock:
    case CommType::kAllToAll:
      g.nodes[i].bytes = size_value(g, i, need(g, i, n.comm_size, "comm_size"), "comm_size");
      break;
    case CommType::kBarrier:
      g.nodes[i].bytes = 0;
      break;
    default:
      throw InputError(g.file->source, g.field(i, "comm_type"), comm_type_name(type),
                       "collective not supported: Flux decomposes ALL_REDUCE, ALL_GATHER, "
                       "REDUCE_SCATTER(_BLOCK), ALL_TO_ALL and BARRIER");
  }
  g.nodes[i].kind = Kind::kColl;
}

void classify(RankGraph& g, std::uint32_t i, std::uint32_t ranks, const ImportOptions& options,
              ImportStats& stats,
              std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>>& others) {
  const EtNode& n = g.file->nodes[i];
  if (!io::is_valid_utf8(n.name)) {
    throw InputError(g.file->source, g.field(i, "name"), "", "not valid UTF-8");
  }
  switch (static_cast<NodeType>(n.type)) {
    case NodeType::kComp:
      g.nodes[i].kind = Kind::kComp;
      g.nodes[i].compute_ps = compute_time(g, i, options, stats);
      ++stats.comp_nodes;
      break;
    case NodeType::kCommSend:
      classify_p2p(g, i, ranks, true);
      ++stats.send_nodes;
      break;
    case NodeType::kCommRecv:
      classify_p2p(g, i, ranks, false);
      ++stats.recv_nodes;
      break;
    case NodeType::kCommColl:
      classify_coll(g, i);
      ++stats.coll_nodes;
      break;
    default: {
      auto [it, inserted] = others.try_emplace(n.type, 0, n.id);
      ++it->second.first;
      ++stats.other_nodes;
      break;
    }
  }
}

/// Throws the error for a cycle among the nodes Kahn's algorithm could not
/// order (indegree still positive): walks predecessors until one repeats.
[[noreturn]] void report_cycle(const RankGraph& g, const std::vector<std::uint32_t>& indegree) {
  std::uint32_t v = 0;
  while (indegree[v] == 0) ++v;
  std::vector<std::uint32_t> seen_at(g.nodes.size(), kNone), path;
  while (seen_at[v] == kNone) {
    seen_at[v] = static_cast<std::uint32_t>(path.size());
    path.push_back(v);
    for (std::uint32_t p : g.nodes[v].preds) {
      if (indegree[p] != 0) {
        v = p;
        break;
      }
    }
  }
  std::string cycle;
  for (std::size_t k = path.size(); k-- > seen_at[v];) {
    cycle += std::to_string(g.file->nodes[path[k]].id) + " -> ";
  }
  cycle += std::to_string(g.file->nodes[path.back()].id);
  throw InputError(g.file->source, "data_deps/ctrl_deps", cycle, "the dependencies form a cycle");
}

void resolve_deps(RankGraph& g, const ImportOptions& options, std::vector<std::string>& warnings) {
  const std::vector<EtNode>& nodes = g.file->nodes;
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  index.reserve(nodes.size());
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    auto [it, inserted] = index.emplace(nodes[i].id, i);
    if (!inserted) {
      throw InputError(g.file->source, g.field(i, "id"), std::to_string(nodes[i].id),
                       "duplicate id (records " + std::to_string(it->second + 1) + " and " +
                           std::to_string(i + 1) + ")");
    }
  }
  std::uint64_t dropped = 0;
  std::string example;
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    std::vector<std::uint32_t>& preds = g.nodes[i].preds;
    for (const auto* deps : {&nodes[i].data_deps, &nodes[i].ctrl_deps}) {
      const char* name = deps == &nodes[i].data_deps ? "data_deps" : "ctrl_deps";
      for (std::uint64_t d : *deps) {
        auto it = index.find(d);
        if (it == index.end()) {
          if (!options.drop_missing_deps) {
            throw InputError(g.file->source, g.field(i, name), std::to_string(d),
                             "no node with this id in the file");
          }
          if (dropped++ == 0) example = g.field(i, name) + " = " + std::to_string(d);
          continue;
        }
        if (it->second == i) {
          throw InputError(g.file->source, "data_deps/ctrl_deps",
                           std::to_string(d) + " -> " + std::to_string(d),
                           "the dependencies form a cycle");
        }
        preds.push_back(it->second);
      }
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  }
  if (dropped > 0) {
    warnings.push_back(g.file->source + ": ignored " + std::to_string(dropped) +
                       " dependencies on ids absent from the file (first: " + example + ")");
  }
}

/// Topological order (Kahn, smallest node id first among the ready ones),
/// then the implicit edges that run COMP nodes one at a time per stream.
void order(RankGraph& g) {
  const auto n = static_cast<std::uint32_t>(g.nodes.size());
  const std::vector<EtNode>& et = g.file->nodes;
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t p : g.nodes[i].preds) g.nodes[p].succs.push_back(i);
  }
  std::vector<std::uint32_t> indegree(n);
  using Item = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < n; ++i) {
    indegree[i] = static_cast<std::uint32_t>(g.nodes[i].preds.size());
    if (indegree[i] == 0) ready.emplace(et[i].id, i);
  }
  g.topo.reserve(n);
  while (!ready.empty()) {
    const std::uint32_t v = ready.top().second;
    ready.pop();
    g.topo.push_back(v);
    for (std::uint32_t s : g.nodes[v].succs) {
      if (--indegree[s] == 0) ready.emplace(et[s].id, s);
    }
  }
  if (g.topo.size() != n) report_cycle(g, indegree);

  std::uint32_t last[2] = {kNone, kNone};  // GPU and CPU streams
  for (std::uint32_t v : g.topo) {
    GraphNode& node = g.nodes[v];
    if (node.kind != Kind::kComp) continue;
    const int stream = et[v].is_cpu_op.value_or(false) ? 1 : 0;
    const std::uint32_t prev = last[stream];
    last[stream] = v;
    if (prev == kNone || std::binary_search(node.preds.begin(), node.preds.end(), prev)) continue;
    node.chain = prev;
    g.nodes[prev].succs.push_back(v);
  }
}

}  // namespace

std::string RankGraph::field(std::uint32_t i, const char* name) const {
  return "node " + std::to_string(file->nodes[i].id) + "." + name;
}

std::string RankGraph::describe(std::uint32_t i) const {
  return "rank " + std::to_string(rank) + " node " + std::to_string(file->nodes[i].id) + " (" +
         node_type_name(file->nodes[i].type) + ")";
}

RankGraph build_rank_graph(const EtFile& file, std::uint32_t rank, std::uint32_t ranks,
                           const ImportOptions& options, ImportStats& stats,
                           std::vector<std::string>& warnings) {
  if (file.nodes.size() >= kNone) {
    throw InputError(file.source, "nodes", std::to_string(file.nodes.size()), "too many nodes");
  }
  RankGraph g;
  g.rank = rank;
  g.file = &file;
  g.nodes.resize(file.nodes.size());
  resolve_deps(g, options, warnings);
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> others;  // type -> count, id
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) classify(g, i, ranks, options, stats, others);
  stats.nodes += g.nodes.size();
  for (const auto& [type, seen] : others) {
    warnings.push_back(file.source + ": " + std::to_string(seen.first) + " " +
                       node_type_name(type) + " node(s) (first: node " +
                       std::to_string(seen.second) +
                       ") taken as instantaneous: Flux models compute and network traffic only");
  }
  order(g);
  return g;
}

std::vector<Collective> match_ranks(std::vector<RankGraph>& graphs, const ImportOptions& options) {
  const auto ranks = static_cast<std::uint32_t>(graphs.size());

  // Point to point: the k-th COMM_SEND from s to d with tag t (in s's
  // order) pairs with the k-th such COMM_RECV on d.
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::int64_t>;
  std::map<Key, std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>> p2p;
  for (RankGraph& g : graphs) {
    for (std::uint32_t v : g.topo) {
      const GraphNode& n = g.nodes[v];
      if (n.kind == Kind::kSend) p2p[{g.rank, n.peer, n.tag}].first.push_back(v);
      if (n.kind == Kind::kRecv) p2p[{n.peer, g.rank, n.tag}].second.push_back(v);
    }
  }
  for (const auto& [key, lists] : p2p) {
    const auto& [src, dst, tag] = key;
    RankGraph& gs = graphs[src];
    RankGraph& gd = graphs[dst];
    const auto& [sends, recvs] = lists;
    const std::size_t k = std::min(sends.size(), recvs.size());
    for (std::size_t j = 0; j < k; ++j) {
      GraphNode& s = gs.nodes[sends[j]];
      GraphNode& r = gd.nodes[recvs[j]];
      if (s.bytes != r.bytes) {
        throw InputError(gd.file->source, gd.field(recvs[j], "comm_size"), std::to_string(r.bytes),
                         "differs from its COMM_SEND (" + gs.file->source + " node " +
                             std::to_string(gs.file->nodes[sends[j]].id) +
                             ", comm_size = " + std::to_string(s.bytes) + ")");
      }
      s.match = recvs[j];
      r.match = sends[j];
    }
    if (sends.size() == recvs.size()) continue;
    const bool extra_send = sends.size() > recvs.size();
    const RankGraph& g = extra_send ? gs : gd;
    const std::uint32_t v = extra_send ? sends[k] : recvs[k];
    const RankGraph& other = extra_send ? gd : gs;
    throw InputError(g.file->source, g.field(v, extra_send ? "comm_dst" : "comm_src"),
                     std::to_string(extra_send ? dst : src),
                     std::string(extra_send ? "COMM_SEND " : "COMM_RECV ") + ordinal(k) +
                         " from rank " + std::to_string(src) + " to rank " + std::to_string(dst) +
                         " with comm_tag " + std::to_string(tag) + " has no matching " +
                         (extra_send ? "COMM_RECV" : "COMM_SEND") + ": " + other.file->source +
                         " posts " + std::to_string(k));
  }

  // Collectives: per group, the k-th COMM_COLL of every member is one call.
  std::map<std::string, std::vector<std::vector<std::uint32_t>>> by_group;
  for (RankGraph& g : graphs) {
    for (std::uint32_t v : g.topo) {
      if (g.nodes[v].kind != Kind::kColl) continue;
      std::string pg = g.file->nodes[v].pg_name.value_or("");
      if (pg == "0") pg.clear();
      auto& lists = by_group[pg];
      lists.resize(ranks);
      lists[g.rank].push_back(v);
    }
  }
  std::vector<Collective> out;
  for (const auto& [pg, lists] : by_group) {
    // The first node naming the group, for errors about the group itself.
    std::uint32_t first_rank = 0;
    while (lists[first_rank].empty()) ++first_rank;
    const RankGraph& fg = graphs[first_rank];
    const std::uint32_t fv = lists[first_rank][0];
    const std::string quoted_pg = "\"" + pg + "\"";
    std::vector<std::uint32_t> members;
    if (pg.empty()) {
      for (std::uint32_t r = 0; r < ranks; ++r) members.push_back(r);
    } else {
      if (!options.comm_groups) {
        throw InputError(fg.file->source, fg.field(fv, "pg_name"), quoted_pg,
                         "names a communicator group, but no group file was given "
                         "(--comm-groups FILE)");
      }
      auto it = options.comm_groups->find(pg);
      if (it == options.comm_groups->end()) {
        throw InputError(fg.file->source, fg.field(fv, "pg_name"), quoted_pg,
                         "no such communicator group in the group file");
      }
      members = it->second;
      for (std::uint32_t r : members) {
        if (r >= ranks) {
          throw InputError(fg.file->source, fg.field(fv, "pg_name"), quoted_pg,
                           "the group lists rank " + std::to_string(r) + ", but the trace has " +
                               std::to_string(ranks) + " ranks");
        }
      }
    }
    std::vector<bool> member(ranks, false);
    for (std::uint32_t r : members) member[r] = true;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      if (!member[r] && !lists[r].empty()) {
        throw InputError(graphs[r].file->source, graphs[r].field(lists[r][0], "pg_name"), quoted_pg,
                         "rank " + std::to_string(r) + " is not in this group");
      }
    }
    // Every member must issue as many calls as the busiest one.
    std::uint32_t most = members[0];
    for (std::uint32_t r : members) {
      if (lists[r].size() > lists[most].size()) most = r;
    }
    for (std::uint32_t r : members) {
      if (lists[r].size() == lists[most].size()) continue;
      const std::size_t k = lists[r].size();
      throw InputError(
          graphs[most].file->source, graphs[most].field(lists[most][k], "pg_name"), quoted_pg,
          "collectives do not line up: collective " + ordinal(k) + " of this group on rank " +
              std::to_string(most) + " has no counterpart on rank " + std::to_string(r) + " (" +
              graphs[r].file->source + " issues " + std::to_string(k) + ")");
    }
    for (std::size_t k = 0; k < lists[most].size(); ++k) {
      const RankGraph& rg = graphs[members[0]];
      const std::uint32_t rv = lists[members[0]][k];
      const EtNode& ref = rg.file->nodes[rv];
      Collective c;
      for (std::uint32_t r : members) {
        RankGraph& g = graphs[r];
        const std::uint32_t v = lists[r][k];
        const EtNode& n = g.file->nodes[v];
        const bool type = n.comm_type != ref.comm_type;
        if (n.collective != ref.collective) {
          throw InputError(g.file->source, g.field(v, "flux_collective"),
                           n.collective.value_or("(none)"),
                           "collectives do not line up: collective " + ordinal(k) + " of group " +
                               quoted_pg + " names " + ref.collective.value_or("no algorithm") +
                               " on rank " + std::to_string(members[0]) + " (" + rg.file->source +
                               " node " + std::to_string(ref.id) + ")");
        }
        if (type || g.nodes[v].bytes != rg.nodes[rv].bytes) {
          throw InputError(g.file->source, g.field(v, type ? "comm_type" : "comm_size"),
                           type ? comm_type_name(*n.comm_type) : std::to_string(g.nodes[v].bytes),
                           "collectives do not line up: collective " + ordinal(k) + " of group " +
                               quoted_pg + " is " +
                               (type ? comm_type_name(*ref.comm_type)
                                     : std::to_string(rg.nodes[rv].bytes) + " bytes") +
                               " on rank " + std::to_string(members[0]) + " (" + rg.file->source +
                               " node " + std::to_string(ref.id) + ")");
        }
        g.nodes[v].match = static_cast<std::uint32_t>(out.size());
        g.nodes[v].position = static_cast<std::uint32_t>(c.group.size());
        c.group.emplace_back(r);
        c.nodes.push_back(v);
      }
      const auto type = static_cast<CommType>(*ref.comm_type);
      c.bytes = collective_bytes(rg, rv, type, members.size());
      c.sync_only = type == CommType::kBarrier || c.bytes == 0 || members.size() < 2;
      c.kind = type == CommType::kAllGather   ? workload::CollectiveKind::kAllGather
               : type == CommType::kAllToAll  ? workload::CollectiveKind::kAllToAll
               : type == CommType::kAllReduce ? workload::CollectiveKind::kAllReduce
                                              : workload::CollectiveKind::kReduceScatter;
      c.label = ref.name;
      if (ref.collective) {
        try {
          c.algorithm = workload::algorithm_from_string(*ref.collective);
        } catch (const InputError& e) {
          throw InputError(rg.file->source, rg.field(rv, "flux_collective"), *ref.collective,
                           e.problem());
        }
        if (*c.algorithm == workload::Algorithm::kAuto) {
          throw InputError(rg.file->source, rg.field(rv, "flux_collective"), *ref.collective,
                           "a trace runs one algorithm per collective");
        }
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace flux::chakra::detail
