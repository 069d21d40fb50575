// Chakra execution traces: the file layer (framing, gzip, attributes in any
// integer width, bad input), the mapping of rank graphs to a workload DAG
// (compute one at a time, eager receives, matching, collectives, release and
// tail), and round trips of generated workloads through both encodings.
// Tests on the real traces of ../shared are in chakra_traces_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "chakra_test_util.hpp"
#include "flux/chakra/et.hpp"
#include "flux/chakra/export.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/io/gzip.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/program.hpp"

namespace flux::chakra {
namespace {

namespace fs = std::filesystem;
using core::kPsPerUs;
using core::TimePs;

ImportResult run(const std::vector<EtFile>& files, ImportOptions options = {}) {
  return import_traces(files, options, "t");
}

/// Compute on the dep from -> to (task ids), or -1 without such a dep.
TimePs dep(const core::Workload& w, std::uint64_t from, std::uint64_t to) {
  for (const core::Dep& e : w.deps()) {
    if (w.task(e.from).id == from && w.task(e.to).id == to) return e.compute_ps;
  }
  return -1;
}

/// The message of the InputError `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(stmt, text) \
  EXPECT_NE(error_of([&] { stmt; }).find(text), std::string::npos) << error_of([&] { stmt; })

// --- the file layer ----------------------------------------------------------

TEST(ChakraFile, RoundTripsEveryField) {
  EtFile f;
  f.workload = "w";
  f.collective = "direct";
  EtNode n = coll(7, CommType::kAllGather, 1 << 20, {1, 2}, "3");
  n.ctrl_deps = {9};
  n.duration_micros = 12;
  n.comm_src = 1;
  n.comm_dst = 5000000000LL;  // too wide for int32: written as int64
  n.comm_tag = -4;
  n.num_ops = 1LL << 40;
  n.tensor_size = 1LL << 62;
  n.is_cpu_op = true;
  n.duration_ps = 123;
  n.gathered_bytes = (1 << 22) + 1;
  f.nodes = {n, comp(1, 0), comp(2, 3)};
  for (bool gz : {false, true}) {
    const EtFile g = parse_et(serialize_et(f, gz), "x.et");
    EXPECT_EQ(g.version, "0.0.4");
    EXPECT_EQ(g.workload, "w");
    EXPECT_EQ(g.collective, "direct");
    ASSERT_EQ(g.nodes.size(), 3u);
    const EtNode& m = g.nodes[0];
    EXPECT_EQ(m.id, 7u);
    EXPECT_EQ(m.name, "coll");
    EXPECT_EQ(m.type, 7u);
    EXPECT_EQ(m.data_deps, (std::vector<std::uint64_t>{1, 2}));
    EXPECT_EQ(m.ctrl_deps, (std::vector<std::uint64_t>{9}));
    EXPECT_EQ(m.duration_micros, 12u);
    EXPECT_EQ(m.comm_type, 2);
    EXPECT_EQ(m.comm_size, 1 << 20);
    EXPECT_EQ(m.comm_src, 1);
    EXPECT_EQ(m.comm_dst, 5000000000LL);
    EXPECT_EQ(m.comm_tag, -4);
    EXPECT_EQ(m.pg_name, "3");
    EXPECT_EQ(m.num_ops, 1LL << 40);
    EXPECT_EQ(m.tensor_size, 1LL << 62);
    EXPECT_EQ(m.is_cpu_op, true);
    EXPECT_EQ(m.duration_ps, 123);
    EXPECT_EQ(m.gathered_bytes, (1 << 22) + 1);
    EXPECT_FALSE(g.nodes[1].comm_size.has_value());
  }
}

// A hand-written protobuf encoder, to write attributes in types Flux's own
// writer never uses.
std::string varint(std::uint64_t v) {
  std::string s;
  do {
    s.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
  return s;
}
std::string field(int number, int wire, const std::string& payload) {
  std::string s = varint(static_cast<std::uint64_t>(number) << 3 | wire);
  if (wire == 2) s += varint(payload.size());
  return s + payload;
}
std::string fixed(std::uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}
std::string attr(const std::string& name, int number, int wire, const std::string& value) {
  return field(10, 2, field(1, 2, name) + field(number, wire, value));
}
std::string framed(const std::vector<std::string>& records) {
  std::string s;
  for (const std::string& r : records) s += varint(r.size()) + r;
  return s;
}

TEST(ChakraFile, IntegerAttributesInAnyWidth) {
  const std::string node = field(1, 0, varint(4)) + field(3, 0, varint(5)) +
                           attr("comm_size", 13, 0, varint(1ULL << 40)) +      // uint64
                           attr("comm_dst", 15, 0, varint(6)) +                // sint32 3
                           attr("comm_tag", 19, 5, fixed(77, 4)) +             // fixed32
                           attr("comm_src", 25, 1, fixed(0, 8)) +              // sfixed64
                           attr("num_ops", 17, 0, varint(9)) +                 // sint64 -5
                           attr("tensor_size", 21, 1, fixed(1ULL << 50, 8)) +  // fixed64
                           attr("comm_type", 11, 0, varint(7)) +               // uint32
                           attr("is_cpu_op", 7, 0, varint(1)) +                // int32
                           attr("pg_name", 9, 0, varint(12)) +                 // int64 -> "12"
                           attr("unrelated", 3, 1, fixed(0, 8));               // double: ignored
  const EtFile f = parse_et(framed({"", node}), "w.et");
  ASSERT_EQ(f.nodes.size(), 1u);
  const EtNode& n = f.nodes[0];
  EXPECT_EQ(n.id, 4u);
  EXPECT_EQ(n.comm_size, 1LL << 40);
  EXPECT_EQ(n.comm_dst, 3);
  EXPECT_EQ(n.comm_tag, 77);
  EXPECT_EQ(n.comm_src, 0);
  EXPECT_EQ(n.num_ops, -5);
  EXPECT_EQ(n.tensor_size, 1LL << 50);
  EXPECT_EQ(n.comm_type, 7);
  EXPECT_EQ(n.is_cpu_op, true);
  EXPECT_EQ(n.pg_name, "12");
  // An empty record is a valid (empty) GlobalMetadata; no nodes is a valid rank.
  EXPECT_TRUE(parse_et(framed({""}), "e.et").nodes.empty());
}

TEST(ChakraFile, BadInputNamesFileRecordAndField) {
  EtFile ok;
  ok.nodes = {send(3, 1, 100), comp(4, 1, {3})};
  const std::string bytes = serialize_et(ok);
  EXPECT_ERROR(parse_et("", "a.et"), "a.et: empty file");
  EXPECT_ERROR(parse_et(bytes.substr(0, bytes.size() - 1), "a.et"), "a.et: record 2 at byte");
  EXPECT_ERROR(parse_et(bytes.substr(0, bytes.size() - 1), "a.et"),
               "is 9 bytes, only 8 are left in the file");
  EXPECT_ERROR(parse_et(framed({""}) + "\xff\xff\xff\xff\xff\x01", "b.et"),
               "b.et: record 1 at byte 1: bad varint");
  EXPECT_ERROR(parse_et(framed({""}) + "\x80", "c.et"), "c.et: record 1 at byte 1: truncated");
  // A JSON file, and the messages in the wrong order.
  EXPECT_ERROR(parse_et("{\"format\": \"flux.workload/v1\"}", "w.json"), "w.json: record 0");
  const std::string node = field(1, 0, varint(4)) + field(3, 0, varint(4));
  EXPECT_ERROR(parse_et(framed({node}), "d.et"),
               "d.et: record 0 at byte 0: field 1 has the wrong wire type: not a Chakra "
               "GlobalMetadata");
  EXPECT_ERROR(parse_et(framed({"", field(1, 2, "0.0.4")}), "e.et"),
               "has the wrong wire type: not a Chakra Node");
  // Attributes Flux uses must be integers that fit, and appear once.
  EXPECT_ERROR(parse_et(framed({"", attr("comm_size", 29, 2, "big")}), "f.et"),
               "f.et: node 0.comm_size = string_val: expected an integer attribute");
  EXPECT_ERROR(parse_et(framed({"", attr("num_ops", 13, 0, varint(1ULL << 63))}), "g.et"),
               "node 0.num_ops = 9223372036854775808: too large");
  EXPECT_ERROR(
      parse_et(framed({"", attr("comm_src", 7, 0, varint(1)) + attr("comm_src", 7, 0, varint(2))}),
               "h.et"),
      "node 0.comm_src: attribute given twice");
  // gzip: truncated, corrupt, trailing garbage.
  const std::string gz = serialize_et(ok, true);
  EXPECT_ERROR(parse_et(gz.substr(0, gz.size() - 5), "i.et"), "i.et: truncated gzip stream");
  std::string bad = gz;
  bad[12] = static_cast<char>(bad[12] ^ 0x55);
  bad[13] = static_cast<char>(bad[13] ^ 0x55);
  EXPECT_ERROR(parse_et(bad, "j.et"), "j.et: ");
  EXPECT_ERROR(parse_et(gz + "xyz", "k.et"), "data after the end of the gzip stream");
  // Zeros are empty records: the second empty node repeats id 0 and fails at
  // its record, before the rest is inflated; a length beyond 64 MiB in gzip
  // (where what is left is unknown) is implausible.
  EXPECT_ERROR(parse_et(io::gzip_bytes(std::string(std::size_t{2} << 20, '\0')), "z.et"),
               "z.et: record 2 at byte 2: node 0.id = 0: duplicate id (records 1 and 2)");
  EXPECT_ERROR(parse_et(io::gzip_bytes(framed({""}) + "\xff\xff\xff\xff\x07"), "m.et"),
               "m.et: record 1 at byte 1: implausible: the record's length is 2147483647 bytes");
  EXPECT_ERROR(parse_et(io::gzip_bytes(framed({""}) + "\xe8\x07"
                                                      "abc"),
                        "n.et"),
               "n.et: record 1 at byte 1: truncated: the record's length is 1000 bytes, only 3");
  // Two whole files one after the other: the second GlobalMetadata is no Node.
  EXPECT_ERROR(parse_et(gz + gz, "l.et"), "l.et: record 3 at byte");
}

TEST(ChakraFile, NewerSchemaFieldsAreNotedNotFatal) {
  auto node = [](std::uint64_t id) {
    return field(1, 0, varint(id)) + field(3, 0, varint(4)) + field(11, 2, "storage") +
           field(3, 0, varint(4));
  };
  const EtFile f = parse_et(framed({"", node(1), node(2)}), "n.et");
  ASSERT_EQ(f.warnings.size(), 1u);  // once per file
  EXPECT_NE(f.warnings[0].find("ignored field 11 of Node"), std::string::npos);
}

// --- the mapping -------------------------------------------------------------

TEST(ChakraImport, SendRecvComputeReleaseAndTail) {
  const auto files = ranks({
      {comp(1, 10), send(2, 1, 100, {1}), recv(3, 1, 50, {2}), comp(4, 5, {3})},
      {recv(1, 0, 100), comp(2, 7, {1}), send(3, 0, 50, {2}), comp(4, 3, {3})},
  });
  const ImportResult r = run(files);
  const core::Workload& w = r.workload;
  ASSERT_EQ(w.num_tasks(), 2u);
  EXPECT_EQ(w.name(), "t");
  EXPECT_EQ(w.task(core::TaskIndex(0)).src, core::Rank(0));
  EXPECT_EQ(w.task(core::TaskIndex(0)).bytes, 100u);
  EXPECT_EQ(w.task(core::TaskIndex(0)).release_ps, 10 * kPsPerUs);
  EXPECT_EQ(w.label(core::TaskIndex(0)), "send");
  EXPECT_EQ(dep(w, 0, 1), 7 * kPsPerUs);
  EXPECT_EQ(w.num_deps(), 1u);
  // Rank 0 ends with 5 us after its receive (eager: the receive also waits
  // for the rank's own send); rank 1 with 3 us after its send.
  EXPECT_EQ(w.task(core::TaskIndex(1)).tail_ps, 5 * kPsPerUs);
  EXPECT_EQ(w.task(core::TaskIndex(0)).tail_ps, 5 * kPsPerUs);
  EXPECT_EQ(r.stats.send_nodes, 2u);
  EXPECT_EQ(r.stats.comp_nodes, 4u);
}

TEST(ChakraImport, ComputeRunsOneAtATimePerStream) {
  // Two independent COMP nodes before a send: 10 + 20 us, not max(10, 20).
  auto release = [](std::vector<EtNode> rank0) {
    return run(ranks({std::move(rank0), {recv(9, 0, 8)}}))
        .workload.task(core::TaskIndex(0))
        .release_ps;
  };
  EXPECT_EQ(release({comp(1, 10), comp(2, 20), send(3, 1, 8, {1, 2})}), 30 * kPsPerUs);
  // ... in whatever order the file lists them, forward references included.
  EXPECT_EQ(release({send(3, 1, 8, {2, 1}), comp(2, 20), comp(1, 10)}), 30 * kPsPerUs);
  // A CPU operation runs beside the GPU's.
  EtNode cpu = comp(1, 10);
  cpu.is_cpu_op = true;
  EXPECT_EQ(release({cpu, comp(2, 20), send(3, 1, 8, {1, 2})}), 20 * kPsPerUs);
  // ctrl_deps count like data_deps.
  EtNode s = send(3, 1, 8);
  s.ctrl_deps = {2};
  EXPECT_EQ(release({comp(2, 4), s}), 4 * kPsPerUs);
  // Flux's exact picoseconds win over the rounded microseconds.
  EtNode exact = comp(1, 2);
  exact.duration_ps = 1'500'001;
  EXPECT_EQ(release({exact, send(3, 1, 8, {1})}), 1'500'001);
}

TEST(ChakraImport, RooflineWhenNoDuration) {
  EtNode gemm = comp(1, 0);
  gemm.num_ops = 218'400'000'000;  // 1 ms at 312 TFLOP/s x 0.7
  gemm.tensor_size = 1000;
  EtNode mem = comp(2, 0, {1});
  mem.num_ops = 0;
  mem.tensor_size = 1'631'200'000;  // 1 ms at 2039 GB/s x 0.8
  const auto files = ranks({{gemm, mem, send(3, 1, 8, {2})}, {recv(4, 0, 8)}});
  const ImportResult a100 = run(files);
  EXPECT_EQ(a100.workload.task(core::TaskIndex(0)).release_ps, 2 * core::kPsPerMs);
  EXPECT_EQ(a100.stats.roofline_nodes, 2u);
  ImportOptions h100;
  h100.gpu = workload::GpuSpec::preset("h100");
  const TimePs expect =
      workload::roofline_ps(h100.gpu, workload::OpClass::kGemm, {218'400'000'000.0, 1000.0}) +
      workload::roofline_ps(h100.gpu, workload::OpClass::kGemm, {0.0, 1'631'200'000.0});
  EXPECT_EQ(run(files, h100).workload.task(core::TaskIndex(0)).release_ps, expect);
  EXPECT_LT(expect, 2 * core::kPsPerMs);
}

TEST(ChakraImport, TagsMatchOutOfOrderAndZeroBytesSynchronise) {
  // Rank 1 posts the tag-2 receive first; each pairs with the send of its tag.
  const auto files = ranks({
      {send(1, 1, 100, {}, 1), comp(2, 4, {1}), send(3, 1, 200, {2}, 2)},
      {recv(1, 0, 200, {}, 2), recv(2, 0, 100, {}, 1)},
  });
  const core::Workload w = run(files).workload;
  ASSERT_EQ(w.num_tasks(), 2u);
  EXPECT_EQ(w.task(core::TaskIndex(0)).bytes, 100u);
  EXPECT_EQ(w.task(core::TaskIndex(1)).bytes, 200u);
  EXPECT_EQ(dep(w, 0, 1), 4 * kPsPerUs);
  // A zero-byte message carries no data but its timing: rank 1's send waits
  // for rank 0's 10 us.
  const core::Workload z = run(ranks({{comp(1, 10), send(2, 1, 0, {1}), recv(3, 1, 64)},
                                      {recv(1, 0, 0), send(2, 0, 64, {1})}}))
                               .workload;
  ASSERT_EQ(z.num_tasks(), 1u);
  EXPECT_EQ(z.task(core::TaskIndex(0)).src, core::Rank(1));
  EXPECT_EQ(z.task(core::TaskIndex(0)).release_ps, 10 * kPsPerUs);
}

TEST(ChakraImport, CollectivesByGroupAndOrder) {
  ImportOptions o;
  o.comm_groups = CommGroups{{"7", {2, 0}}, {"8", {1, 3}}};
  // Per rank: a collective on its pair group, then a barrier of everyone.
  std::vector<std::vector<EtNode>> nodes(4);
  for (std::int64_t r = 0; r < 4; ++r) {
    const std::string pg = r == 0 || r == 2 ? "7" : "8";
    nodes[r] = {comp(1, static_cast<std::uint64_t>(10 * (r + 1))),
                coll(2, CommType::kReduceScatter, 4000, {1}, pg),
                coll(3, CommType::kBarrier, 0, {2}, "0"), coll(4, CommType::kAllToAll, 400, {3})};
  }
  const ImportResult r = run(ranks(nodes), o);
  const core::Workload& w = r.workload;
  EXPECT_EQ(r.stats.collectives, 4u);  // two reduce-scatters, a barrier, an all-to-all
  // Ring reduce-scatter on 2 ranks: one send each way of 2000 bytes; group
  // "7" lists rank 2 first.
  ASSERT_EQ(w.num_tasks(), 2u + 2u + 12u);
  std::uint64_t rs_bytes = 0, a2a_bytes = 0;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(core::TaskIndex(v));
    if (t.bytes == 2000) {
      rs_bytes += t.bytes;
      // Each rank's reduce-scatter send follows that rank's compute.
      EXPECT_EQ(t.release_ps, 10 * static_cast<TimePs>(t.src.value() + 1) * kPsPerUs);
    }
    if (t.bytes == 100) {
      a2a_bytes += t.bytes;
      // Through the barrier, every all-to-all send waits for all four
      // reduce-scatter sends (every rank's part of the reduce-scatters).
      std::uint32_t from_rs = 0;
      for (std::uint32_t j : w.in_edge_ids(core::TaskIndex(v))) {
        from_rs += w.task(w.deps()[j].from).bytes == 2000 ? 1 : 0;
      }
      EXPECT_EQ(from_rs, 4u);
      EXPECT_EQ(t.release_ps, 0);
    }
  }
  EXPECT_EQ(rs_bytes, 8000u);
  EXPECT_EQ(a2a_bytes, 1200u);
  EXPECT_EQ(w.task(core::TaskIndex(0)).src, core::Rank(2));  // group "7" = [2, 0], first call
}

TEST(ChakraImport, UnmodelledNodesAreNamedInAWarning) {
  EtNode meta = comp(5, 0);
  meta.type = static_cast<std::uint32_t>(NodeType::kMetadata);
  EtNode mem = comp(6, 0, {5});
  mem.type = static_cast<std::uint32_t>(NodeType::kMemLoad);
  EtNode future = comp(7, 0, {6});
  future.type = 9;  // a type of a newer schema
  const ImportResult r =
      run(ranks({{comp(1, 3), meta, mem, future, send(8, 1, 8, {7, 1})}, {recv(1, 0, 8)}}));
  EXPECT_EQ(r.stats.other_nodes, 3u);
  std::string all;
  for (const std::string& s : r.warnings) all += s + "\n";
  EXPECT_NE(all.find("t.0.et: 1 METADATA node(s) (first: node 5)"), std::string::npos) << all;
  EXPECT_NE(all.find("MEM_LOAD"), std::string::npos);
  EXPECT_NE(all.find("type 9"), std::string::npos);
  EXPECT_EQ(r.workload.task(core::TaskIndex(0)).release_ps, 3 * kPsPerUs);
}

TEST(ChakraImport, BadGraphsNameFileNodeAndField) {
  auto files = [](std::vector<std::vector<EtNode>> n) { return ranks(std::move(n)); };
  EXPECT_ERROR(run(files({{comp(1, 1, {9})}})),
               "t.0.et: node 1.data_deps = 9: no node with this id");
  {
    ImportOptions drop;
    drop.drop_missing_deps = true;
    const ImportResult r =
        run(files({{comp(1, 1, {9}), send(2, 1, 5, {1})}, {recv(1, 0, 5)}}), drop);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("ignored 1 dependencies"), std::string::npos);
    EXPECT_EQ(r.workload.task(core::TaskIndex(0)).release_ps, kPsPerUs);
  }
  EXPECT_ERROR(run(files({{comp(5, 1, {7}), comp(7, 1, {5})}})),
               "t.0.et: data_deps/ctrl_deps = 7 -> 5 -> 7: the dependencies form a cycle");
  EXPECT_ERROR(run(files({{comp(5, 1, {5})}})), "5 -> 5: the dependencies form a cycle");
  EXPECT_ERROR(run(files({{comp(5, 1), comp(5, 2)}})), "node 5.id = 5: duplicate id");
  // Both ranks receive before they send: a deadlock across ranks.
  EXPECT_ERROR(
      run(files({{recv(1, 1, 8), send(2, 1, 8, {1})}, {recv(1, 0, 8), send(2, 0, 8, {1})}})),
      "the ranks wait for each other in a cycle");
  EXPECT_ERROR(run(files({{send(1, 1, 8), send(2, 1, 8)}, {recv(1, 0, 8)}})),
               "t.0.et: node 2.comm_dst = 1: COMM_SEND #2 from rank 0 to rank 1 with comm_tag 0 "
               "has no matching COMM_RECV");
  EXPECT_ERROR(run(files({{send(1, 1, 8)}, {recv(1, 0, 9)}})),
               "t.1.et: node 1.comm_size = 9: differs from its COMM_SEND");
  EXPECT_ERROR(run(files({{send(1, 0, 8)}})), "node 1.comm_dst = 0: is this file's own rank");
  EXPECT_ERROR(run(files({{send(1, 4, 8)}, {}})), "node 1.comm_dst = 4: out of range");
  EXPECT_ERROR(run(files({{send(1, 1, -8)}, {}})), "node 1.comm_size = -8: negative");
  EtNode nodst = send(1, 1, 8);
  nodst.comm_dst.reset();
  EXPECT_ERROR(run(files({{nodst}, {}})), "node 1.comm_dst: missing");
  EtNode badname = comp(1, 1);
  badname.name = "\xff";
  EXPECT_ERROR(run(files({{badname}})), "node 1.name: not valid UTF-8");
  EtNode huge = comp(1, 2'000'000'000'000);
  EXPECT_ERROR(run(files({{huge}})), "node 1.duration_micros = 2000000000000: above 10^6 s");
}

TEST(ChakraImport, CollectivesThatDoNotLineUp) {
  auto two = [](std::vector<EtNode> a, std::vector<EtNode> b) { return ranks({a, b}); };
  EXPECT_ERROR(
      run(two({coll(1, CommType::kAllReduce, 8, {}), coll(2, CommType::kAllReduce, 8, {1})},
              {coll(1, CommType::kAllReduce, 8, {})})),
      "t.0.et: node 2.pg_name = \"\": collectives do not line up: collective #2 of this "
      "group on rank 0 has no counterpart on rank 1");
  EXPECT_ERROR(
      run(two({coll(1, CommType::kAllReduce, 8, {})}, {coll(1, CommType::kAllGather, 8, {})})),
      "t.1.et: node 1.comm_type = ALL_GATHER: collectives do not line up: collective #1 "
      "of group \"\" is ALL_REDUCE on rank 0");
  EXPECT_ERROR(
      run(two({coll(1, CommType::kAllReduce, 8, {})}, {coll(1, CommType::kAllReduce, 16, {})})),
      "node 1.comm_size = 16: collectives do not line up");
  EXPECT_ERROR(run(two({coll(1, CommType::kBroadcast, 8, {})}, {})),
               "node 1.comm_type = BROADCAST: collective not supported");
  EXPECT_ERROR(run(two({coll(1, CommType::kAllReduce, 8, {}, "5")}, {})),
               "node 1.pg_name = \"5\": names a communicator group, but no group file was given");
  ImportOptions o;
  o.comm_groups = CommGroups{{"1", {0}}, {"2", {0, 3}}};
  EXPECT_ERROR(run(two({coll(1, CommType::kAllReduce, 8, {}, "5")}, {}), o),
               "no such communicator group");
  EXPECT_ERROR(run(two({}, {coll(1, CommType::kAllReduce, 8, {}, "1")}), o),
               "t.1.et: node 1.pg_name = \"1\": rank 1 is not in this group");
  EXPECT_ERROR(run(two({coll(1, CommType::kAllReduce, 8, {}, "2")}, {}), o),
               "the group lists rank 3, but the trace has 2 ranks");
  // A collective waiting for a receive whose send waits for the collective.
  EXPECT_ERROR(run(two({recv(1, 1, 8), coll(2, CommType::kAllReduce, 8, {1})},
                       {coll(1, CommType::kAllReduce, 8, {}), send(2, 0, 8, {1})})),
               "the ranks wait for each other in a cycle");
}

TEST(ChakraImport, CommGroupFiles) {
  const CommGroups g = parse_comm_groups(R"({"1": [0, 1], "2": [3, 2]})", "g.json");
  EXPECT_EQ(g.at("2"), (std::vector<std::uint32_t>{3, 2}));
  EXPECT_EQ(parse_comm_groups(comm_groups_json(g), "h.json"), g);
  EXPECT_ERROR(parse_comm_groups("[1]", "g.json"), "g.json: (document) = [...]: must be an object");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0], "1": [1]})", "g.json"),
               "g.json: \"1\": duplicate key");
  EXPECT_ERROR(parse_comm_groups(R"({"1": []})", "g.json"), "\"1\" = []: expected a non-empty");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0, -1]})", "g.json"),
               "\"1\"[1] = -1: must not be negative");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0, 4294967295]})", "g.json"),
               "\"1\"[1] = 4294967295: a rank must be below 2^32-1");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0, 0]})", "g.json"), "\"1\"[1] = 0: rank listed twice");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0.5]})", "g.json"),
               "\"1\"[0] = 0.5: must be an integer");
  EXPECT_ERROR(parse_comm_groups(R"({"1": [0)", "g.json"), "g.json: \"1\"[1]: malformed JSON");
}

TEST(ChakraImport, RankFilesOfAPrefix) {
  const fs::path dir =
      fs::temp_directory_path() / ("flux_chakra_files_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_ERROR(rank_files(dir / "p"), "p.0.et: no such file");
  EtFile f;
  for (int r : {0, 1, 3}) {
    std::ofstream(dir / ("p." + std::to_string(r) + ".et"), std::ios::binary) << serialize_et(f);
  }
  EXPECT_ERROR(rank_files(dir / "p"), "p.2.et: no such file, but p.3.et exists");
  fs::remove(dir / "p.3.et");
  EXPECT_EQ(rank_files(dir / "p").size(), 2u);
  fs::remove_all(dir);
}

TEST(ChakraExport, SavingIsAllOrNothing) {
  const fs::path dir =
      fs::temp_directory_path() / ("flux_chakra_save_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "x.0.et") << "keep";
  ChakraTrace t;
  t.ranks.resize(2);
  t.groups = CommGroups{{"1", {0, 1}}};
  // The group file cannot be written (its name is a directory): no file changes.
  fs::create_directories(dir / "x.json");
  EXPECT_ERROR(save_chakra(dir / "x", t), "x.json");
  std::ifstream in(dir / "x.0.et");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "keep");
  EXPECT_FALSE(fs::exists(dir / "x.1.et"));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().filename() != "x.json";
  EXPECT_EQ(files, 1u);  // no temporary file left behind
  fs::remove(dir / "x.json");
  EXPECT_EQ(save_chakra(dir / "x", t).size(), 3u);
  EXPECT_EQ(read_comm_groups(dir / "x.json"), t.groups);
  EXPECT_TRUE(read_et_file(dir / "x.0.et").nodes.empty());
  fs::remove_all(dir);
}

// --- what comm_size means, as ASTRA-sim reads it ----------------------------------

std::vector<std::uint64_t> sent_per_rank(const core::Workload& w) {
  std::vector<std::uint64_t> out(w.accelerators(), 0);
  for (const core::Task& t : w.tasks()) out[t.src.value()] += t.bytes;
  return out;
}

// ASTRA-sim's ring (astra-sim/system/collective/Ring.cc) sends comm_size per
// step for an ALL_GATHER (the gathered output is p times it) and comm_size / p
// for a REDUCE_SCATTER: comm_size is each rank's input for both.
TEST(ChakraConvention, CommSizeIsEachRanksInput) {
  constexpr std::uint32_t kRanks = 4;
  for (const auto& [type, bytes, per_send] :
       {std::tuple{CommType::kAllGather, 1000, 1000u}, std::tuple{CommType::kAllGather, 7, 7u},
        std::tuple{CommType::kReduceScatter, 4000, 1000u}}) {
    SCOPED_TRACE(comm_type_name(static_cast<std::int64_t>(type)) + " " + std::to_string(bytes));
    const ImportResult r =
        run(ranks(std::vector<std::vector<EtNode>>(kRanks, {coll(1, type, bytes, {})})));
    const core::Workload& w = r.workload;
    // Ring: p - 1 steps, every rank sends one chunk per step.
    ASSERT_EQ(w.num_tasks(), kRanks * (kRanks - 1));
    for (const core::Task& t : w.tasks()) EXPECT_EQ(t.bytes, per_send);
    EXPECT_EQ(sent_per_rank(w), std::vector<std::uint64_t>(kRanks, (kRanks - 1) * per_send));
  }
  // The gathered output must fit in 63 bits.
  EXPECT_ERROR(run(ranks(std::vector<std::vector<EtNode>>(
                   kRanks, {coll(1, CommType::kAllGather, std::int64_t{1} << 62, {})}))),
               "t.0.et: node 1.comm_size = 4611686018427387904: times the group's 4 ranks");
}

TEST(ChakraConvention, ExportWritesEachRanksInputAndRoundTrips) {
  constexpr std::uint32_t kRanks = 4;
  for (const auto kind :
       {workload::CollectiveKind::kAllGather, workload::CollectiveKind::kReduceScatter}) {
    for (const std::uint64_t bytes : {4000u, 4001u}) {
      const bool gather = kind == workload::CollectiveKind::kAllGather;
      SCOPED_TRACE(std::string(to_string(kind)) + " " + std::to_string(bytes));
      workload::WorkloadBuilder b("one", kRanks);
      workload::Program program;
      program.ranks = kRanks;
      workload::ProgramCollective& pc = program.collectives.emplace_back();
      pc.spec.kind = kind;
      for (std::uint32_t i = 0; i < kRanks; ++i) pc.spec.group.emplace_back(i);
      pc.spec.bytes = bytes;
      pc.tasks = workload::emit_collective(b, pc.spec);
      pc.num_tasks = static_cast<std::uint32_t>(b.num_tasks());
      workload::ProgramOp& op = program.ops.emplace_back();
      op.type = workload::ProgramOp::Type::kLaunch;
      op.collectives = {0};
      const core::Workload w = std::move(b).build();
      const ChakraTrace t = to_chakra(w, program, CollectiveEncoding::kCommColl);
      std::vector<EtFile> files;
      for (const EtFile& f : t.ranks) {
        ASSERT_EQ(f.nodes.size(), 1u);
        // All-gather: each rank's input, rounded up, and the exact output
        // beside it when it is no multiple; reduce-scatter: the input.
        const std::uint64_t size = gather ? (bytes + kRanks - 1) / kRanks : bytes;
        EXPECT_EQ(f.nodes[0].comm_size, static_cast<std::int64_t>(size));
        EXPECT_EQ(f.nodes[0].gathered_bytes.has_value(), gather && bytes % kRanks != 0);
        files.push_back(parse_et(serialize_et(f), f.source));
      }
      ImportOptions o;
      o.comm_groups = t.groups;
      const ImportResult r = import_traces(files, o, "unused");
      std::ostringstream a, back;
      formats::write_workload(a, w);
      formats::write_workload(back, r.workload);
      EXPECT_EQ(a.str(), back.str());
    }
  }
  // A flux_gathered_bytes that is not the output of comm_size per rank.
  EtNode bad = coll(1, CommType::kAllGather, 1000, {});
  bad.gathered_bytes = 4001;
  EXPECT_ERROR(run(ranks(std::vector<std::vector<EtNode>>(kRanks, {bad}))),
               "node 1.flux_gathered_bytes = 4001: is not the output of an all-gather of "
               "comm_size = 1000 bytes per rank over 4 ranks");
}

// --- round trips ---------------------------------------------------------------

// "Reproduces" means: the workload files are identical byte for byte (same
// name, tasks in the same order with the same ids, endpoints, bytes, labels,
// releases and tails, and the same deps with the same compute).
void expect_round_trip(const workload::TrainingConfig& c, CollectiveEncoding encoding, bool gzip) {
  workload::Program program;
  const core::Workload w = workload::generate_llama(c, &program);
  const ChakraTrace t = to_chakra(w, program, encoding);
  std::vector<EtFile> files;
  for (const EtFile& f : t.ranks) files.push_back(parse_et(serialize_et(f, gzip), f.source));
  ImportOptions o;
  if (!t.groups.empty()) o.comm_groups = parse_comm_groups(comm_groups_json(t.groups), "g.json");
  const ImportResult r = import_traces(files, o, "unused");
  EXPECT_TRUE(r.warnings.empty());
  std::ostringstream a, b;
  formats::write_workload(a, w);
  formats::write_workload(b, r.workload);
  EXPECT_EQ(a.str(), b.str()) << w.name();
  EXPECT_EQ(r.workload.num_deps(), w.num_deps());
  expect_same_trace_from_program(c, encoding);
}

TEST(ChakraRoundTrip, GeneratedWorkloadsComeBackExactly) {
  for (const auto& c : small_jobs()) {
    for (auto e : {CollectiveEncoding::kCommColl, CollectiveEncoding::kSendRecv}) {
      SCOPED_TRACE(std::to_string(c.tp) + "x" + std::to_string(c.dp) + " " +
                   (e == CollectiveEncoding::kCommColl ? "comm-coll" : "send-recv"));
      expect_round_trip(c, e, c.dp == 3);
    }
  }
}

TEST(ChakraRoundTrip, PipelineContextAndShardedJobsComeBackExactly) {
  // Programs per stage: pipeline sends and ring-attention steps as
  // COMM_SEND/COMM_RECV pairs in either encoding, joined later by their
  // receivers; FSDP prefetches joined later; the distributed optimizer's
  // gathers after the optimizer step.
  const std::vector<workload::TrainingConfig> configs = pipeline_jobs();
  for (const auto& c : configs) {
    for (auto e : {CollectiveEncoding::kCommColl, CollectiveEncoding::kSendRecv}) {
      SCOPED_TRACE(std::string(to_string(c.dp_sharding)) + " pp " + std::to_string(c.pp) + " " +
                   (e == CollectiveEncoding::kCommColl ? "comm-coll" : "send-recv"));
      expect_round_trip(c, e, false);
    }
  }
  // The pipeline sends are point-to-point nodes with the pipeline's bytes.
  workload::Program program;
  const core::Workload w = workload::generate_llama(configs[0], &program);
  const ChakraTrace t = to_chakra(w, program, CollectiveEncoding::kCommColl);
  std::uint64_t sends = 0;
  for (const EtFile& f : t.ranks) {
    for (const EtNode& n : f.nodes) {
      if (n.type == static_cast<std::uint32_t>(NodeType::kCommSend) && n.name.ends_with(".pp")) {
        ++sends;
        EXPECT_EQ(*n.comm_size,
                  static_cast<std::int64_t>(workload::pipeline_send_bytes(configs[0])));
      }
    }
  }
  EXPECT_EQ(sends, 2u * 3 * 1 * 2 * 2 * 2);  // directions, micro-batches, boundary, tp, cp, dp
}

TEST(ChakraRoundTrip, ThroughFilesAndWhatTheFilesHold) {
  const fs::path dir = fs::temp_directory_path() / ("flux_chakra_rt_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  workload::Program program;
  const workload::TrainingConfig c = small(2, 2, workload::Algorithm::kDirect);
  const core::Workload w = workload::generate_llama(c, &program);
  const auto written = save_chakra(dir / "x", to_chakra(w, program, CollectiveEncoding::kCommColl));
  ASSERT_EQ(written.size(), 5u);  // 4 ranks and the groups
  ImportOptions o;
  o.comm_groups = read_comm_groups(dir / "x.json");
  EXPECT_EQ(o.comm_groups->size(), 4u);  // two TP groups, two DP groups
  const ImportResult r = import_chakra(dir / "x", o);
  EXPECT_EQ(r.workload.num_tasks(), w.num_tasks());
  EXPECT_EQ(r.workload.name(), w.name());
  // What ASTRA-sim reads: COMP durations in microseconds, one COMM_COLL per
  // collective with comm_type, comm_size and pg_name, is_cpu_op set.
  const EtFile f = read_et_file(dir / "x.0.et");
  EXPECT_EQ(f.version, "0.0.4");
  EXPECT_EQ(f.collective, "direct");
  std::uint64_t colls = 0, comps = 0;
  for (const EtNode& n : f.nodes) {
    EXPECT_EQ(n.is_cpu_op, false);
    if (n.type == static_cast<std::uint32_t>(NodeType::kCommColl)) {
      ++colls;
      EXPECT_EQ(n.comm_type, 0);
      EXPECT_TRUE(n.pg_name.has_value());
      EXPECT_GT(*n.comm_size, 0);
    } else {
      ++comps;
      EXPECT_EQ(n.duration_micros, static_cast<std::uint64_t>(
                                       std::llround(static_cast<double>(*n.duration_ps) / 1e6)));
    }
  }
  EXPECT_EQ(colls, 2u * 4u + 2u);  // 4 TP all-reduces per layer, a DP all-reduce per layer
  EXPECT_GT(comps, 0u);
  // The program must describe the workload it is exported with.
  workload::Program other;
  workload::generate_llama(small(2, 2, workload::Algorithm::kRing), &other);
  other.collectives.pop_back();
  EXPECT_ERROR(to_chakra(w, other, CollectiveEncoding::kSendRecv), "the program describes");
  fs::remove_all(dir);
  // A choice of decompositions needs the sends: written without them, the
  // job is refused, and so is its trace from a program that holds them.
  workload::TrainingConfig any = small(4, 4, workload::Algorithm::kAuto);
  EXPECT_ERROR(workload::generate_llama_program(any), "runs one algorithm per collective");
  workload::Program with_choice;
  workload::generate_llama(any, &with_choice);
  EXPECT_ERROR(to_chakra(with_choice, CollectiveEncoding::kCommColl),
               "a Chakra trace holds one algorithm per collective");
}

}  // namespace
}  // namespace flux::chakra
