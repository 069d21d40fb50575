#pragma once
// Building Chakra traces in tests: nodes of each kind, ranks through the
// file encoding, small generated jobs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flux/chakra/et.hpp"
#include "flux/chakra/export.hpp"
#include "flux/workload/llama.hpp"

namespace flux::chakra {

inline EtNode comp(std::uint64_t id, std::uint64_t micros, std::vector<std::uint64_t> deps = {}) {
  EtNode n;
  n.id = id;
  n.type = static_cast<std::uint32_t>(NodeType::kComp);
  n.duration_micros = micros;
  n.data_deps = std::move(deps);
  return n;
}

inline EtNode p2p(NodeType type, std::uint64_t id, std::int64_t peer, std::int64_t bytes,
                  std::vector<std::uint64_t> deps = {}, std::int64_t tag = 0) {
  EtNode n;
  n.id = id;
  n.name = type == NodeType::kCommSend ? "send" : "recv";
  n.type = static_cast<std::uint32_t>(type);
  (type == NodeType::kCommSend ? n.comm_dst : n.comm_src) = peer;
  n.comm_size = bytes;
  n.comm_tag = tag;
  n.data_deps = std::move(deps);
  return n;
}
inline EtNode send(std::uint64_t id, std::int64_t dst, std::int64_t bytes,
                   std::vector<std::uint64_t> deps = {}, std::int64_t tag = 0) {
  return p2p(NodeType::kCommSend, id, dst, bytes, std::move(deps), tag);
}
inline EtNode recv(std::uint64_t id, std::int64_t src, std::int64_t bytes,
                   std::vector<std::uint64_t> deps = {}, std::int64_t tag = 0) {
  return p2p(NodeType::kCommRecv, id, src, bytes, std::move(deps), tag);
}

inline EtNode coll(std::uint64_t id, CommType type, std::int64_t bytes,
                   std::vector<std::uint64_t> deps, std::optional<std::string> pg = std::nullopt) {
  EtNode n;
  n.id = id;
  n.name = "coll";
  n.type = static_cast<std::uint32_t>(NodeType::kCommColl);
  n.comm_type = static_cast<std::int64_t>(type);
  n.comm_size = bytes;
  n.pg_name = std::move(pg);
  n.data_deps = std::move(deps);
  return n;
}

// Each rank through serialize_et and parse_et, as a reader would see it.
inline std::vector<EtFile> ranks(std::vector<std::vector<EtNode>> nodes) {
  std::vector<EtFile> out;
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    EtFile f;
    f.nodes = std::move(nodes[r]);
    const std::string name = "t." + std::to_string(r) + ".et";
    out.push_back(parse_et(serialize_et(f), name));
  }
  return out;
}

inline workload::TrainingConfig small(std::uint32_t tp, std::uint32_t dp, workload::Algorithm a) {
  workload::TrainingConfig c;
  c.model.layers = 2;
  c.tp = tp;
  c.dp = dp;
  c.collective = a;
  return c;
}

/// Five small jobs: TP x DP of 4x2 ring, 2x3 halving-doubling (embeddings,
/// 2 micro-batches), 4x1 direct and 1x4 ring (no optimizer), 8x3
/// halving-doubling (3 micro-batches, embeddings).
inline std::vector<workload::TrainingConfig> small_jobs() {
  using workload::Algorithm;
  std::vector<workload::TrainingConfig> configs = {
      small(4, 2, Algorithm::kRing), small(2, 3, Algorithm::kHalvingDoubling),
      small(4, 1, Algorithm::kDirect), small(1, 4, Algorithm::kRing),
      small(8, 3, Algorithm::kHalvingDoubling)};
  configs[1].embeddings = true;
  configs[1].micro_batches = 2;
  configs[2].optimizer = false;
  configs[3].optimizer = false;
  configs[4].micro_batches = 3;
  configs[4].embeddings = true;
  return configs;
}

/// Pipeline, context and sharded data parallelism: PP2 x CP2 x TP2 x DP2 of
/// 3 layers, 3 micro-batches, unsharded (no optimizer), optimizer-sharded
/// (sequence parallel) and fully sharded (another rank order); PP4 x CP3
/// halving-doubling of 5 micro-batches; an interleaved pipeline (VPP 2).
inline std::vector<workload::TrainingConfig> pipeline_jobs() {
  std::vector<workload::TrainingConfig> configs;
  for (const auto sharding : {workload::DpSharding::kNone, workload::DpSharding::kOptimizer,
                              workload::DpSharding::kFull}) {
    workload::TrainingConfig c = small(2, 2, workload::Algorithm::kRing);
    c.model.layers = 3;
    c.pp = 2;
    c.cp = 2;
    c.micro_batches = 3;
    c.dp_sharding = sharding;
    c.embeddings = sharding != workload::DpSharding::kNone;
    c.sequence_parallel = sharding == workload::DpSharding::kOptimizer;
    c.order = sharding == workload::DpSharding::kFull ? workload::RankOrder::kTpCpPpDp
                                                      : workload::RankOrder::kTpCpDpPp;
    configs.push_back(c);
  }
  configs[0].optimizer = false;
  workload::TrainingConfig deep = small(1, 1, workload::Algorithm::kHalvingDoubling);
  deep.model.layers = 4;
  deep.pp = 4;
  deep.cp = 3;
  deep.seq = 4098;
  deep.micro_batches = 5;
  configs.push_back(deep);
  workload::TrainingConfig interleaved = small(2, 2, workload::Algorithm::kRing);
  interleaved.model.layers = 4;
  interleaved.pp = 2;
  interleaved.vpp = 2;
  interleaved.micro_batches = 4;
  interleaved.embeddings = true;
  configs.push_back(interleaved);
  return configs;
}

/// The trace of `c`'s workload equals, file for file and byte for byte,
/// the trace of its program alone (its sends made again where written)
/// and of the program generate_llama_program writes without sends; that
/// program equals the recorded one but for the sends it does not hold.
inline void expect_same_trace_from_program(const workload::TrainingConfig& c,
                                           CollectiveEncoding encoding) {
  workload::Program program;
  const core::Workload w = workload::generate_llama(c, &program);
  const workload::Program bare = workload::generate_llama_program(c);
  EXPECT_FALSE(program.without_sends);
  EXPECT_TRUE(bare.without_sends);
  EXPECT_EQ(bare.name, w.name());
  EXPECT_TRUE(std::ranges::equal(bare.labels, w.labels()));
  EXPECT_EQ(bare.num_tasks, w.num_tasks());
  EXPECT_EQ(program.num_tasks, w.num_tasks());
  EXPECT_EQ(bare.scaleup_size, w.scaleup_size());
  EXPECT_EQ(bare.ops.size(), program.ops.size());
  ASSERT_EQ(bare.collectives.size(), program.collectives.size());
  for (std::size_t i = 0; i < bare.collectives.size(); ++i) {
    const workload::ProgramCollective& x = bare.collectives[i];
    const workload::ProgramCollective& y = program.collectives[i];
    EXPECT_EQ(x.first_task, y.first_task);
    EXPECT_EQ(x.num_tasks, y.num_tasks);
    EXPECT_EQ(x.spec.group, y.spec.group);
    EXPECT_EQ(x.spec.algorithm, y.spec.algorithm);
    EXPECT_EQ(x.spec.bytes, y.spec.bytes);
    for (std::size_t pos = 0; pos < x.spec.group.size(); ++pos) {
      EXPECT_EQ(x.replaced(pos), y.replaced(pos)) << "collective " << i << " member " << pos;
    }
  }
  const ChakraTrace want = to_chakra(w, program, encoding);
  for (const workload::Program* p : std::vector<const workload::Program*>{&program, &bare}) {
    const ChakraTrace got = to_chakra(*p, encoding);
    ASSERT_EQ(got.ranks.size(), want.ranks.size());
    for (std::size_t r = 0; r < want.ranks.size(); ++r) {
      EXPECT_EQ(serialize_et(got.ranks[r]), serialize_et(want.ranks[r])) << "rank " << r;
    }
    EXPECT_EQ(comm_groups_json(got.groups), comm_groups_json(want.groups));
  }
}

}  // namespace flux::chakra
