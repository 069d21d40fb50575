// Chakra traces written by other tools (../shared/traces/chakra, described in
// its PROVENANCE.md): ASTRA-sim's ring all-reduce as explicit SEND/RECV
// nodes against the MSCCL XML it was converted from, ASTRA-sim's collective
// microbenchmarks, and a dense LLM written by the Symbolic Tensor Graph
// generator, scheduled and simulated. Skipped when the folder is absent (a
// clone without ../shared); FLUX_CHAKRA_TRACES names another location.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "flux/chakra/import.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::chakra {
namespace {

namespace fs = std::filesystem;
using core::TaskIndex;

fs::path traces_dir() {
  if (const char* env = std::getenv("FLUX_CHAKRA_TRACES")) return env;
  return fs::path(FLUX_SOURCE_DIR) / ".." / "shared" / "traces" / "chakra";
}

#define REQUIRE_TRACES(var)          \
  const fs::path var = traces_dir(); \
  if (!fs::is_directory(var)) GTEST_SKIP() << "no Chakra traces at " << var

// --- the ring all-reduce against its MSCCL XML ----------------------------------

struct Step {
  bool send = false;
  bool reduce = false;  // "rrc": receive, reduce (a COMP node in the trace), copy
};
struct Gpu {
  std::uint32_t send_to = 0, recv_from = 0;
  std::vector<Step> steps;
};

/// The value of the XML attribute `name="..."` in `line` ("" if absent).
std::string xml_attr(const std::string& line, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return line.substr(from, line.find('"', from) - from);
}

/// The XML's GPUs, each one threadblock whose steps run in order.
std::vector<Gpu> read_msccl(const fs::path& file) {
  std::ifstream in(file);
  std::vector<Gpu> gpus;
  for (std::string line; std::getline(in, line);) {
    if (line.find("<gpu ") != std::string::npos) {
      EXPECT_EQ(std::stoul(xml_attr(line, "id")), gpus.size());
      gpus.emplace_back();
    } else if (line.find("<tb ") != std::string::npos) {
      EXPECT_EQ(xml_attr(line, "id"), "0");  // one threadblock per GPU
      gpus.back().send_to = static_cast<std::uint32_t>(std::stoul(xml_attr(line, "send")));
      gpus.back().recv_from = static_cast<std::uint32_t>(std::stoul(xml_attr(line, "recv")));
    } else if (line.find("<step ") != std::string::npos) {
      EXPECT_EQ(std::stoul(xml_attr(line, "s")), gpus.back().steps.size());
      const std::string type = xml_attr(line, "type");
      EXPECT_TRUE(type == "s" || type == "r" || type == "rrc") << type;
      gpus.back().steps.push_back({type == "s", type == "rrc"});
    }
  }
  return gpus;
}

TEST(ChakraTraces, RingAllReduceAsSendRecvMatchesItsXml) {
  REQUIRE_TRACES(dir);
  const fs::path base = dir /
                        "astra-sim/examples/system/custom_collectives/"
                        "custom_ring_allreduce_8npus_1MB";
  const std::vector<Gpu> gpus = read_msccl(base / "custom_allreduce.xml");
  ASSERT_EQ(gpus.size(), 8u);
  const ImportResult r = import_chakra(base / "custom_allreduce", {});
  const core::Workload& w = r.workload;

  // The XML's sends as (src, dst, k-th on that pair); a receive step is the
  // peer's matching send.
  using Send = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
  std::map<Send, TaskIndex> task_of;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> count;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(TaskIndex(v));
    EXPECT_EQ(t.bytes, 131072u);  // 1 MiB in 8 chunks
    task_of[{t.src.value(), t.dst.value(), count[{t.src.value(), t.dst.value()}]++}] = TaskIndex(v);
  }
  // Expected deps: in each GPU's threadblock a send follows the step before
  // it (a receive: the peer's send; with a reduction in between: its 7 us
  // COMP) and the GPU's previous send, which that receive does not imply.
  std::set<std::tuple<std::uint32_t, std::uint32_t, core::TimePs>> expected;
  std::size_t sends = 0;
  for (std::uint32_t g = 0; g < gpus.size(); ++g) {
    std::uint32_t sent = 0, received = 0;
    std::optional<TaskIndex> last_send, last_recv;
    bool after_reduce = false;
    for (const Step& s : gpus[g].steps) {
      if (s.send) {
        const TaskIndex t = task_of.at({g, gpus[g].send_to, sent++});
        const core::TimePs c = after_reduce ? 7 * core::kPsPerUs : 0;
        if (last_recv) expected.emplace(last_recv->value(), t.value(), c);
        if (last_send) expected.emplace(last_send->value(), t.value(), c);
        last_send = t;
        last_recv.reset();
        ++sends;
      } else {
        last_recv = task_of.at({gpus[g].recv_from, g, received++});
        after_reduce = s.reduce;
      }
    }
  }
  EXPECT_EQ(sends, 8u * 14u);
  EXPECT_EQ(w.num_tasks(), sends);
  std::set<std::tuple<std::uint32_t, std::uint32_t, core::TimePs>> got;
  for (const core::Dep& e : w.deps()) got.emplace(e.from.value(), e.to.value(), e.compute_ps);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(w.num_deps(), 8u * 13u * 2u);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.stats.comp_nodes, 8u * 7u);
}

// --- the microbenchmarks: one collective per rank, 1 MiB ------------------------

TEST(ChakraTraces, MicrobenchmarksMoveTheBytesTheirCollectivesImply) {
  REQUIRE_TRACES(dir);
  const std::uint64_t mib = 1 << 20;
  for (const std::string c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
    for (const std::uint32_t p : {4u, 8u, 16u}) {
      for (const auto a : {workload::Algorithm::kRing, workload::Algorithm::kDirect,
                           workload::Algorithm::kHalvingDoubling}) {
        SCOPED_TRACE(c + " " + std::to_string(p) + " " + std::string(to_string(a)));
        ImportOptions o;
        o.collective = a;
        const fs::path prefix = dir / "astra-sim/examples/workload/microbenchmarks" / c /
                                (std::to_string(p) + "npus_1MB") / c;
        const ImportResult r = import_chakra(prefix, o);
        EXPECT_EQ(r.stats.ranks, p);
        EXPECT_EQ(r.stats.collectives, 1u);
        // comm_size is each rank's input, as ASTRA-sim reads it: every rank
        // sends (p-1)/p of its buffer, twice for an all-reduce (reduce-scatter,
        // then all-gather), and p-1 times its whole input for an all-gather
        // (the gathered output is p MiB), whatever the algorithm.
        const std::uint64_t per_rank = c == "all_reduce"   ? 2 * (p - 1) * mib / p
                                       : c == "all_gather" ? (p - 1) * mib
                                                           : (p - 1) * mib / p;
        EXPECT_EQ(r.workload.total_bytes(), p * per_rank);
        std::vector<std::uint64_t> out(p, 0);
        for (const core::Task& t : r.workload.tasks()) out[t.src.value()] += t.bytes;
        for (std::uint32_t s = 0; s < p; ++s) EXPECT_EQ(out[s], per_rank);
        // Ring and direct move one chunk per send: p(p-1) sends per phase.
        if (a != workload::Algorithm::kHalvingDoubling || c == "all_to_all") {
          const std::uint64_t phases = c == "all_reduce" ? 2 : 1;
          EXPECT_EQ(r.workload.num_tasks(), phases * p * (p - 1));
          for (const core::Task& t : r.workload.tasks()) {
            EXPECT_EQ(t.bytes, c == "all_gather" ? mib : mib / p);
          }
        }
      }
    }
  }
}

// --- the Symbolic Tensor Graph dense model, DP2 x TP2 ----------------------------

TEST(ChakraTraces, DenseSymbolicTensorGraphTraceSchedulesAndSimulates) {
  REQUIRE_TRACES(dir);
  const fs::path base = dir / "astra-sim-artifacts/examples/multitenancy/inputs/denseA";
  ImportOptions o;
  try {
    import_chakra(base / "denseA", o);
    ADD_FAILURE() << "imported without its communicator groups";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pg_name = \"1\": names a communicator group"),
              std::string::npos)
        << e.what();
  }
  o.comm_groups = read_comm_groups(base / "denseA.json");
  const ImportResult r = import_chakra(base / "denseA", o);
  const core::Workload& w = r.workload;
  EXPECT_EQ(w.accelerators(), 4u);
  EXPECT_EQ(w.name(), "denseA");
  EXPECT_EQ(r.stats.comp_nodes, 4u * 43u);
  EXPECT_EQ(r.stats.roofline_nodes, 4u * 43u);  // STG writes num_ops and tensor_size
  EXPECT_EQ(r.stats.coll_nodes, 4u * 15u);
  EXPECT_EQ(r.stats.collectives, 30u);  // 15 per rank, two ranks per group
  EXPECT_TRUE(r.warnings.empty());

  // The bytes the trace's collectives imply under ring: on two ranks an
  // all-gather of comm_size B (each rank's input) moves 2B, a reduce-scatter
  // of B moves B, an all-reduce 2B. Per TP group 6 all-gathers of 256 B, 4
  // reduce-scatters of 512 B and 2 all-reduces of 1 KiB; per DP group
  // all-reduces of 1 KiB, 1 KiB and 4 KiB.
  const std::uint64_t tp = 6 * 2 * 256 + 4 * 512 + 2 * 2 * 1024;
  const std::uint64_t dp = 2 * (1024 + 1024 + 4096);
  EXPECT_EQ(w.total_bytes(), 2 * tp + 2 * dp);
  EXPECT_EQ(w.num_tasks(), 2u * (6 * 2 + 4 * 2 + 2 * 4) + 2u * 3 * 4);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> pairs;
  for (const core::Task& t : w.tasks()) pairs[{t.src.value(), t.dst.value()}] += t.bytes;
  // denseA.json: TP groups {0, 2} and {1, 3}, DP groups {0, 1} and {2, 3}.
  EXPECT_EQ(pairs.size(), 8u);
  EXPECT_EQ((pairs[{0, 2}]), tp / 2);
  EXPECT_EQ((pairs[{0, 1}]), dp / 2);
  // Roofline compute sits before, between and after the sends.
  core::System system;
  system.switches = 2;
  system.reconfig_delay_ps = core::kPsPerUs;
  const core::IdealTiming ideal = core::ideal_timing(w, core::transmission_times(w, system));
  core::TimePs compute = 0;
  for (const core::Task& t : w.tasks()) compute += t.release_ps + t.tail_ps;
  for (const core::Dep& e : w.deps()) compute += e.compute_ps;
  EXPECT_GT(compute, 0);

  // Scheduling and simulating it works: every schedule validated, and the
  // replay of a task-level schedule ends at its makespan.
  sched::SchedulerOptions so;
  so.time_limit_s = 2;  // flux-milp: a feasible schedule is enough here
  for (const char* name : {"greedy", "flux-milp", "rotornet", "bvn"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = sched::run_scheduler(name, w, system, so);
    const sim::SimResult m = sim::simulate(w, s);
    EXPECT_GE(m.metrics.iteration_time_ps, ideal.makespan);
    EXPECT_EQ(m.metrics.bytes_delivered, w.total_bytes());
    if (std::string(name) == "greedy" || std::string(name) == "flux-milp") {
      EXPECT_EQ(m.metrics.iteration_time_ps, s.makespan_ps);
    }
  }
}

}  // namespace
}  // namespace flux::chakra
