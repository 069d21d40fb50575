// The lazy import (collectives kept whole, core::LazyWorkload; issue 33)
// against import_traces: the same sends in the same order, the same
// warnings and errors, and, expanded, the same earliest start of every send
// and the same makespan at several link rates (the dependencies may differ
// by redundant ones). On generated jobs in both encodings (collectives as
// COMM_COLL nodes, and as COMM_SEND/COMM_RECV pairs: one-send instances),
// hand-made graphs (compute streams, zero-byte messages, barriers), every
// algorithm, and the real traces of ../shared (skipped when absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "chakra_test_util.hpp"
#include "flux/chakra/et.hpp"
#include "flux/chakra/export.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/program.hpp"
#include "flux/workload/shape.hpp"

namespace flux::chakra {
namespace {

namespace fs = std::filesystem;
using core::TaskIndex;
using core::TimePs;

// Two link rates: one by bytes, one per send and unrelated to its size.
std::vector<std::vector<TimePs>> rates(const core::Workload& w) {
  std::vector<TimePs> by_bytes, arbitrary;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(TaskIndex(v));
    by_bytes.push_back(static_cast<TimePs>(1 + t.bytes / 1000));
    arbitrary.push_back(static_cast<TimePs>((v * 7919u % 1000u + 1) * 1'000'000u));
  }
  return {std::vector<TimePs>(w.num_tasks(), 0), by_bytes, arbitrary};
}

// Both imports of `files`; returns the lazy one's edges over the
// materialised one's deps.
double expect_same(const std::vector<EtFile>& files, const ImportOptions& o) {
  const ImportResult m = import_traces(files, o, "t");
  const LazyImportResult l = import_traces_lazy(files, o, "t");
  EXPECT_EQ(l.warnings, m.warnings);
  EXPECT_EQ(l.stats.collectives, m.stats.collectives);
  EXPECT_EQ(l.workload.num_tasks(), m.workload.num_tasks());
  const core::Workload x(l.workload.expand());
  const core::Workload& w = m.workload;
  EXPECT_EQ(x.name(), w.name());
  EXPECT_EQ(x.scaleup_size(), w.scaleup_size());
  EXPECT_EQ(x.accelerators(), w.accelerators());
  if (x.num_tasks() != w.num_tasks()) return 0;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& a = x.task(TaskIndex(v));
    const core::Task& b = w.task(TaskIndex(v));
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.src, b.src) << v;
    EXPECT_EQ(a.dst, b.dst) << v;
    EXPECT_EQ(a.bytes, b.bytes) << v;
    EXPECT_EQ(x.label(TaskIndex(v)), w.label(TaskIndex(v))) << v;
  }
  const auto p = rates(w);
  for (std::size_t k = 0; k < p.size(); ++k) {
    const core::IdealTiming tx = core::ideal_timing(x, p[k]);
    const core::IdealTiming tw = core::ideal_timing(w, p[k]);
    EXPECT_EQ(tx.makespan, tw.makespan) << "rate " << k;
    std::size_t differ = 0;
    for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
      differ += tx.earliest_start[v] != tw.earliest_start[v] ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u) << "rate " << k;
  }
  return w.num_deps() == 0
             ? 0
             : static_cast<double>(l.workload.num_edges()) / static_cast<double>(w.num_deps());
}

std::vector<EtFile> exported(const workload::TrainingConfig& c, CollectiveEncoding e,
                             ImportOptions& o) {
  workload::Program program;
  const core::Workload w = workload::generate_llama(c, &program);
  const ChakraTrace t = to_chakra(w, program, e);
  std::vector<EtFile> files;
  for (const EtFile& f : t.ranks) files.push_back(parse_et(serialize_et(f), f.source));
  if (!t.groups.empty()) o.comm_groups = t.groups;
  return files;
}

TEST(ChakraLazy, GeneratedJobsInBothEncodings) {
  using workload::Algorithm;
  std::vector<workload::TrainingConfig> configs = small_jobs();
  configs.push_back(small(1, 5, Algorithm::kRing));
  // Pipeline sends, ring attention, sharded data parallelism, interleaving.
  for (const workload::TrainingConfig& c : pipeline_jobs()) configs.push_back(c);
  // Hierarchical collectives across 4-GPU domains.
  workload::TrainingConfig hier = small(2, 4, Algorithm::kHierarchical);
  hier.scaleup_size = 4;
  configs.push_back(hier);
  for (const auto& c : configs) {
    for (auto e : {CollectiveEncoding::kCommColl, CollectiveEncoding::kSendRecv}) {
      SCOPED_TRACE(std::to_string(c.tp) + "x" + std::to_string(c.dp) + " pp " +
                   std::to_string(c.pp) + " " + std::string(to_string(c.collective)) +
                   (e == CollectiveEncoding::kCommColl ? " comm-coll" : " send-recv"));
      ImportOptions o;
      const std::vector<EtFile> files = exported(c, e, o);
      expect_same(files, o);
    }
  }
}

TEST(ChakraLazy, CollectivesTakeAFractionOfTheEdges) {
  // TP-4 ring all-reduces between the layers' compute: each member's
  // terminal set is its 6 sends and its last receive, which the
  // materialised import joins to the next collective's initial sends one
  // by one, the lazy one by a group edge per member.
  workload::TrainingConfig c = small(4, 4, workload::Algorithm::kRing);
  c.model.layers = 4;
  ImportOptions o;
  const std::vector<EtFile> files = exported(c, CollectiveEncoding::kCommColl, o);
  const double ratio = expect_same(files, o);
  EXPECT_GT(ratio, 0.0);
  EXPECT_LT(ratio, 0.15);
}

TEST(ChakraLazy, ChoicesAreLeftToTheMaterialisedImport) {
  ImportOptions o;
  const std::vector<EtFile> files =
      exported(small(1, 4, workload::Algorithm::kRing), CollectiveEncoding::kCommColl, o);
  o.collective = workload::Algorithm::kAuto;
  EXPECT_THROW(import_traces_lazy(files, o, "t"), std::invalid_argument);
  // Where only one decomposition applies there is nothing to choose.
  const std::vector<EtFile> two =
      exported(small(1, 2, workload::Algorithm::kRing), CollectiveEncoding::kCommColl, o);
  o.collective = workload::Algorithm::kAuto;
  expect_same(two, o);
}

// --- hand-made graphs ------------------------------------------------------------

TEST(ChakraLazy, ComputeStreamsMessagesAndBarriers) {
  // Three ranks: compute streams that run into collectives and out of them
  // again (the implied entries), a zero-byte message, a barrier, a
  // collective of 5 bytes on 3 ranks (members whose chunks are empty), and
  // compute at the end that no send follows (the tails and a warning).
  std::vector<std::vector<EtNode>> g(3);
  for (std::int64_t r = 0; r < 3; ++r) {
    auto& n = g[static_cast<std::size_t>(r)];
    n.push_back(comp(1, 5 + static_cast<std::uint64_t>(r)));
    n.push_back(coll(2, CommType::kAllReduce, 3000, {1}));
    n.push_back(comp(3, 7, {2}));
    n.push_back(comp(4, 2));
    n.push_back(coll(5, CommType::kAllGather, 5, {3}));
    n.push_back(coll(6, CommType::kBarrier, 0, {4}));
    n.push_back(comp(7, 3, {5, 6}));
    n.push_back(coll(8, CommType::kReduceScatter, 6000, {7}));
    n.push_back(comp(9, 11, {8}));
  }
  g[0].push_back(p2p(NodeType::kCommSend, 10, 1, 4096, {9}));
  g[1].push_back(p2p(NodeType::kCommRecv, 10, 0, 4096, {}));
  g[1].push_back(comp(11, 4, {10}));
  g[1].push_back(p2p(NodeType::kCommSend, 12, 2, 0, {11}));
  g[2].push_back(p2p(NodeType::kCommRecv, 10, 1, 0, {}));
  g[2].push_back(comp(11, 9, {10}));
  g[2].push_back(comp(12, 1000));  // no send before or after: a warning
  for (const auto a : {workload::Algorithm::kRing, workload::Algorithm::kDirect,
                       workload::Algorithm::kHalvingDoubling}) {
    SCOPED_TRACE(std::string(to_string(a)));
    ImportOptions o;
    o.collective = a;
    expect_same(ranks(g), o);
  }
}

TEST(ChakraLazy, ErrorsAreTheMaterialisedImports) {
  // A cycle across ranks: each waits for the other's send.
  std::vector<std::vector<EtNode>> g(2);
  g[0] = {p2p(NodeType::kCommRecv, 1, 1, 64), p2p(NodeType::kCommSend, 2, 1, 64, {1})};
  g[1] = {p2p(NodeType::kCommRecv, 1, 0, 64), p2p(NodeType::kCommSend, 2, 0, 64, {1})};
  const std::vector<EtFile> files = ranks(g);
  std::string m, l;
  try {
    import_traces(files, {}, "t");
  } catch (const core::InputError& e) {
    m = e.what();
  }
  try {
    import_traces_lazy(files, {}, "t");
  } catch (const core::InputError& e) {
    l = e.what();
  }
  EXPECT_NE(m.find("cycle"), std::string::npos) << m;
  EXPECT_EQ(l, m);
}

TEST(ChakraLazy, ShapesStandForTheirSends) {
  // A shape is emit_collective's sends by position: its reach relation is
  // what the sends' dependencies say, and instances share it.
  workload::CollectiveSpec spec;
  spec.kind = workload::CollectiveKind::kAllReduce;
  spec.algorithm = workload::Algorithm::kRing;
  spec.bytes = 4000;
  for (std::uint32_t i = 0; i < 4; ++i) spec.group.emplace_back(10 + i);
  const core::CollectiveShape s = workload::collective_shape(spec);
  EXPECT_EQ(s.sends.size(), 24u);      // 2 (p - 1) steps of p sends
  EXPECT_EQ(s.terminal_count[0], 7u);  // its 6 sends and its last receive
  for (std::uint32_t m = 0; m < 4; ++m) {
    for (std::uint32_t q = 0; q < 4; ++q) EXPECT_TRUE(s.reaches(m, q));
  }
  // Direct all-to-all: one step, nothing waits, each member reaches only
  // the members its sends involve (all of them, here).
  spec.kind = workload::CollectiveKind::kAllToAll;
  const core::CollectiveShape a = workload::collective_shape(spec);
  EXPECT_EQ(a.sends.size(), 12u);
  EXPECT_EQ(a.terminal_count[1], 6u);
  // A point-to-point send: the receiver's member starts nothing.
  core::LazyWorkload w("w", 20);
  workload::ShapeCache cache(w);
  EXPECT_EQ(cache.shape_for(spec), cache.shape_for(spec));
  spec.group[0] = core::Rank(19);
  EXPECT_EQ(cache.shape_for(spec), 0u);  // the ranks do not matter
  spec.bytes = 4001;
  EXPECT_EQ(cache.shape_for(spec), 1u);
  const core::CollectiveShape one = core::single_send_shape();
  EXPECT_TRUE(one.reaches(0, 1));
  EXPECT_FALSE(one.reaches(1, 0));
  // Bytes past 2^64-1 in all are refused where the sum passes, as a
  // Workload refuses them: a ring all-reduce of 2^63 bytes on 3 ranks moves
  // 4 x 2^63 (its shape's sum saturates).
  workload::CollectiveSpec big;
  big.kind = workload::CollectiveKind::kAllReduce;
  big.bytes = std::uint64_t{1} << 63;
  for (std::uint32_t i = 0; i < 3; ++i) big.group.emplace_back(i);
  core::LazyWorkload huge("huge", 3);
  workload::ShapeCache shapes(huge);
  const std::uint32_t x = shapes.shape_for(big);
  try {
    (void)huge.add_instance(x, big.group, core::kNoLabel);
    ADD_FAILURE() << "accepted 2^65 bytes";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the bytes of all sends up to this one pass 2^64-1"),
              std::string::npos)
        << e.what();
  }
}

// --- the real traces ----------------------------------------------------------------

fs::path traces_dir() {
  if (const char* env = std::getenv("FLUX_CHAKRA_TRACES")) return env;
  return fs::path(FLUX_SOURCE_DIR) / ".." / "shared" / "traces" / "chakra";
}

std::vector<EtFile> read_prefix(const fs::path& prefix) {
  std::vector<EtFile> files;
  for (const fs::path& f : rank_files(prefix)) files.push_back(read_et_file(f));
  return files;
}

TEST(ChakraLazy, TracesOfOtherTools) {
  const fs::path dir = traces_dir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Chakra traces at " << dir;
  expect_same(read_prefix(dir / "astra-sim/examples/system/custom_collectives/"
                                "custom_ring_allreduce_8npus_1MB/custom_allreduce"),
              {});
  for (const std::string c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
    SCOPED_TRACE(c);
    ImportOptions o;
    o.collective = workload::Algorithm::kHalvingDoubling;
    expect_same(
        read_prefix(dir / "astra-sim/examples/workload/microbenchmarks" / c / "8npus_1MB" / c), o);
  }
  const fs::path dense = dir / "astra-sim-artifacts/examples/multitenancy/inputs/denseA";
  ImportOptions o;
  o.comm_groups = read_comm_groups(dense / "denseA.json");
  expect_same(read_prefix(dense / "denseA"), o);
}

}  // namespace
}  // namespace flux::chakra
