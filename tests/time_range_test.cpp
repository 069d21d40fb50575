// Times that do not fit Flux's range (core::kMaxTimePs, 9.2e6 s) are bad
// input, named by field and value, wherever a workload meets a system: never
// a wrapped number, a "bug" message or an invalid schedule.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/summary.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/compute.hpp"
#include "flux/workload/llama.hpp"

namespace flux {
namespace {

using core::Rank;
using core::TimePs;

// Expects an InputError whose field is `field` and whose message contains
// `part`.
template <class F>
void expect_range_error(F&& f, const std::string& field, const std::string& part) {
  try {
    f();
    FAIL() << "no error; expected " << field;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

core::Workload one_send(std::uint64_t bytes) {
  workload::WorkloadBuilder b("one", 4);
  b.add_send(Rank(0), Rank(1), bytes);
  return std::move(b).build();
}

TEST(TimeRange, TransmissionAtTheLimit) {
  const core::System sys;  // 800 Gb/s: 10 ps per byte
  EXPECT_EQ(sys.transmission_ps(core::kMaxTimePs / 10), core::kMaxTimePs);
  expect_range_error([&] { (void)sys.transmission_ps(core::kMaxTimePs / 10 + 1); }, "bytes",
                     "beyond the 9.2e6 s Flux can represent");
  // The largest byte count the formats allow.
  expect_range_error([&] { (void)sys.transmission_ps(0x7fff'ffff'ffff'ffffULL); }, "bytes",
                     "transmission at 800 Gb/s takes 9.22e+07 s");
}

TEST(TimeRange, HugeSendNamesTaskAndValue) {
  const core::Workload w = one_send(1'000'000'000'000'000'000ULL);
  try {
    (void)core::transmission_times(w, core::System{});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "tasks[0].bytes = 1000000000000000000: transmission at 800 Gb/s takes 1e+07 s, "
              "beyond the 9.2e6 s Flux can represent");
  }
}

TEST(TimeRange, TinyLinkRate) {
  const core::Workload w = one_send(32 << 20);  // 32 MiB
  core::System sys;
  sys.link_gbps = 1e-9;  // 1 bit/s
  sys.validate();
  expect_range_error([&] { (void)core::transmission_times(w, sys); }, "tasks[0].bytes",
                     "transmission at 1e-09 Gb/s takes 2.68e+08 s");
  sys.link_gbps = 1e-3;  // 1 Mb/s: 268 s, fine
  EXPECT_EQ(core::transmission_times(w, sys)[0], 268'435'456 * core::kPsPerUs);
}

// Every send fits alone; one after another they do not.
TEST(TimeRange, LongChainWhoseSumOverflows) {
  workload::WorkloadBuilder b("chain", 2);
  constexpr std::uint64_t kBytes = 100'000'000'000'000'000ULL;  // 1e6 s each at 800 Gb/s
  core::TaskIndex prev = b.add_send(Rank(0), Rank(1), kBytes);
  for (int i = 1; i < 10; ++i) {
    const core::TaskIndex v = b.add_send(Rank(i % 2), Rank((i + 1) % 2), kBytes);
    b.add_dep(prev, v, core::kPsPerS);
    prev = v;
  }
  const core::Workload w = std::move(b).build();
  expect_range_error([&] { (void)core::transmission_times(w, core::System{}); }, "tasks",
                     "one after another at 800 Gb/s (with all compute and a reconfiguration "
                     "each) takes 1e+07 s");
  expect_range_error([&] { (void)core::summarize(w, core::System{}); }, "tasks", "1e+07 s");
  // Nine of them fit: the critical path is computed exactly.
  workload::WorkloadBuilder b9("chain9", 2);
  prev = b9.add_send(Rank(0), Rank(1), kBytes);
  for (int i = 1; i < 9; ++i) {
    const core::TaskIndex v = b9.add_send(Rank(i % 2), Rank((i + 1) % 2), kBytes);
    b9.add_dep(prev, v, core::kPsPerS);
    prev = v;
  }
  const core::Workload w9 = std::move(b9).build();
  EXPECT_EQ(core::summarize(w9, core::System{}).critical_path_ps,
            9 * 1'000'000 * core::kPsPerS + 8 * core::kPsPerS);
}

// Every scheduler refuses, with the same error, before computing anything.
TEST(TimeRange, EverySchedulerRefusesHugeBytes) {
  const core::Workload w = one_send(1'000'000'000'000'000'000ULL);
  for (std::string_view name : sched::scheduler_names()) {
    SCOPED_TRACE(name);
    expect_range_error([&] { (void)sched::run_scheduler(name, w, core::System{}, {}); },
                       "tasks[0].bytes", "beyond the 9.2e6 s Flux can represent");
  }
}

TEST(TimeRange, SimulatorRefusesHugeBytes) {
  const core::Workload ok = one_send(1000);
  const schedule::Schedule s = sched::run_scheduler("ideal", ok, core::System{}, {});
  const core::Workload w = one_send(1'000'000'000'000'000'000ULL);
  schedule::Schedule huge = s;
  huge.workload = w.name();
  expect_range_error([&] { (void)sim::simulate(w, huge); }, "tasks[0].bytes", "1e+07 s");
}

TEST(TimeRange, RooflineBeyondTheRange) {
  const workload::GpuSpec a100 = workload::GpuSpec::preset("a100");
  expect_range_error(
      [&] {
        (void)workload::roofline_ps(a100, workload::OpClass::kGemm,
                                    workload::gemm_cost(1e12, 1e12, 1e12));
      },
      "compute", "on a100, its roofline takes");
}

TEST(TimeRange, GeneratorComputeBeyondTheRange) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 2;
  c.seq = 1ULL << 24;    // the longest sequence allowed, on a GPU of 1 FLOP/s and 1 byte/s:
  c.gpu.peak_flops = 1;  // one layer takes ages
  c.gpu.hbm_bytes_per_s = 1;
  expect_range_error([&] { (void)workload::generate_llama(c); }, "compute", "beyond the 9.2e6 s");
}

TEST(TimeRange, OneLimitForSwitches) {
  core::System sys;
  sys.switches = core::kMaxSwitches;
  EXPECT_NO_THROW(sys.validate());
  sys.switches = core::kMaxSwitches + 1;
  expect_range_error([&] { sys.validate(); }, "switches", "between 1 and 1048576");
}

// The traffic matrix is sparse: three sends among 2^32 - 2 ranks.
TEST(TrafficPairs, SparseOnHugeRankCounts) {
  workload::WorkloadBuilder b("sparse", 0xffff'fffeu);
  b.add_send(Rank(0xffff'fffdu), Rank(0), 5);
  b.add_send(Rank(7), Rank(3), 2);
  b.add_send(Rank(0xffff'fffdu), Rank(0), 6);
  const core::Workload w = std::move(b).build();
  const auto pairs = core::traffic_pairs(w);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].src, Rank(7));
  EXPECT_EQ(pairs[0].dst, Rank(3));
  EXPECT_EQ(pairs[0].bytes, 2u);
  EXPECT_EQ(pairs[1].src, Rank(0xffff'fffdu));
  EXPECT_EQ(pairs[1].bytes, 11u);
  const core::WorkloadSummary s = core::summarize(w, core::System{});
  EXPECT_EQ(s.pairs, 2u);
  EXPECT_EQ(s.critical_path_ps, 60);  // independent sends: the longer one
}

}  // namespace
}  // namespace flux
