// Folded workloads (core::Fold, docs/model.md "Folding"): the fold of a
// generated job lifts exactly to the job generated in full, a schedule of the
// fold lifts to a valid schedule of the job with the same iteration time, and
// everything that would make the lift ambiguous is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/fold.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/fold.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/llama.hpp"

namespace flux {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

// A send named independently of task order: its endpoints and its position
// among the sends of that (src, dst) pair in index order.
using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;

struct Canonical {
  std::map<Key, std::tuple<std::uint64_t, TimePs, TimePs, std::string>> tasks;
  std::vector<std::tuple<Key, Key, TimePs>> deps;
  bool operator==(const Canonical&) const = default;
};

Canonical canonical(const core::Workload& w) {
  Canonical c;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> seen;
  std::vector<Key> key(w.num_tasks());
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const std::uint32_t k = seen[{t.src.value(), t.dst.value()}]++;
    key[v] = Key{t.src.value(), t.dst.value(), k};
    c.tasks[key[v]] = {t.bytes, t.release_ps, t.tail_ps, std::string(w.label(TaskIndex(v)))};
  }
  for (const core::Dep& e : w.deps())
    c.deps.emplace_back(key[e.from.value()], key[e.to.value()], e.compute_ps);
  std::sort(c.deps.begin(), c.deps.end());
  return c;
}

workload::TrainingConfig config(std::uint32_t tp, std::uint32_t dp, std::uint32_t fold) {
  workload::TrainingConfig c;
  c.model.layers = 2;
  c.tp = tp;
  c.dp = dp;
  c.fold_dp = fold;
  return c;
}

TEST(Fold, GeneratedFoldLiftsToTheFullJob) {
  std::vector<workload::TrainingConfig> configs = {config(2, 8, 4), config(4, 16, 4),
                                                   config(1, 8, 4), config(2, 16, 8)};
  configs[1].micro_batches = 2;
  configs[1].embeddings = true;
  configs[1].model.vocab = 128256;
  for (const workload::TrainingConfig& c : configs) {
    SCOPED_TRACE("tp " + std::to_string(c.tp) + " dp " + std::to_string(c.dp) + " fold " +
                 std::to_string(c.fold_dp));
    const core::Workload folded = workload::generate_llama(c);
    ASSERT_EQ(folded.accelerators(), c.tp * c.fold_dp);
    EXPECT_EQ(folded.fold().copies, c.dp / c.fold_dp);
    EXPECT_EQ(folded.fold().block_ranks, c.tp);
    EXPECT_EQ(folded.job_accelerators(), c.tp * c.dp);

    workload::TrainingConfig full_config = c;
    full_config.fold_dp = 0;
    const core::Workload full = workload::generate_llama(full_config);
    const core::Workload lifted = core::unfold(folded);
    EXPECT_FALSE(lifted.fold().folded());
    ASSERT_EQ(lifted.num_tasks(), full.num_tasks());
    ASSERT_EQ(lifted.num_deps(), full.num_deps());
    EXPECT_EQ(lifted.total_bytes(), full.total_bytes());
    EXPECT_TRUE(canonical(lifted) == canonical(full));

    const core::System system{2, 800, 10'000'000};
    const std::vector<TimePs> pf = core::transmission_times(folded, system);
    const std::vector<TimePs> pj = core::transmission_times(full, system);
    EXPECT_EQ(core::ideal_timing(folded, pf).makespan, core::ideal_timing(full, pj).makespan);
    // The bounds of the fold are the job's (docs/model.md, "Folding").
    const sched::LowerBounds bf =
        sched::lower_bounds(folded, system, pf, core::ideal_timing(folded, pf));
    const sched::LowerBounds bj =
        sched::lower_bounds(full, system, pj, core::ideal_timing(full, pj));
    EXPECT_EQ(bf.best(), bj.best());
    EXPECT_EQ(bf.port_load_ps, bj.port_load_ps);
  }
}

TEST(Fold, PipelineContextAndShardedJobsLiftToTheFullJob) {
  // A DP replica of tp * cp * pp consecutive ranks (order tp-cp-pp-dp): the
  // pipeline sends, ring-attention steps and TP collectives stay inside a
  // replica, the DP x CP rings fold by their rotation.
  for (const auto sharding : {workload::DpSharding::kOptimizer, workload::DpSharding::kFull}) {
    workload::TrainingConfig c = config(2, 8, 4);
    c.pp = 2;
    c.cp = 2;
    c.order = workload::RankOrder::kTpCpPpDp;
    c.sequence_parallel = true;
    c.dp_sharding = sharding;
    c.embeddings = true;
    c.micro_batches = 3;
    if (sharding == workload::DpSharding::kOptimizer) {  // and interleaved
      c.model.layers = 4;
      c.vpp = 2;
      c.micro_batches = 4;
    }
    SCOPED_TRACE(std::string(workload::to_string(sharding)));
    const core::Workload folded = workload::generate_llama(c);
    EXPECT_EQ(folded.accelerators(), 2u * 2 * 2 * 4);
    EXPECT_EQ(folded.fold().block_ranks, 8u);
    EXPECT_EQ(folded.fold().copies, 2u);
    workload::TrainingConfig full_config = c;
    full_config.fold_dp = 0;
    const core::Workload full = workload::generate_llama(full_config);
    const core::Workload lifted = core::unfold(folded);
    ASSERT_EQ(lifted.num_tasks(), full.num_tasks());
    ASSERT_EQ(lifted.num_deps(), full.num_deps());
    EXPECT_TRUE(canonical(lifted) == canonical(full));
  }
}

TEST(Fold, ScheduleOfTheFoldLiftsToAValidScheduleOfTheJob) {
  const core::Workload folded = workload::generate_llama(config(2, 8, 4));
  const core::Workload job = core::unfold(folded);
  for (const TimePs tau : {TimePs{1'000'000}, TimePs{1'000'000'000}}) {
    for (const char* name : {"flux", "greedy", "ideal"}) {
      SCOPED_TRACE(std::string(name) + " tau " + std::to_string(tau));
      const core::System system{2, 800, tau};
      sched::SchedulerOptions options;
      options.time_limit_s = 10;
      const schedule::Schedule s = sched::run_scheduler(name, folded, system, options);
      const schedule::Schedule lifted = schedule::unfold(folded, s);
      ASSERT_EQ(lifted.tasks.size(), 2 * s.tasks.size());
      EXPECT_NO_THROW(schedule::check_schedule(job, lifted));
      const sim::SimResult rf = sim::simulate(folded, s);
      const sim::SimResult rj = sim::simulate(job, lifted);
      EXPECT_EQ(rf.metrics.iteration_time_ps, rj.metrics.iteration_time_ps);
      EXPECT_EQ(rf.metrics.peak_nic_bytes, rj.metrics.peak_nic_bytes);
      EXPECT_EQ(rf.metrics.reconfigurations, rj.metrics.reconfigurations);
      EXPECT_EQ(2 * rf.metrics.circuits_set_up, rj.metrics.circuits_set_up);
      EXPECT_EQ(2 * rf.metrics.bytes_delivered, rj.metrics.bytes_delivered);
      if (!s.tasks.empty()) {
        EXPECT_EQ(rf.metrics.iteration_time_ps, s.makespan_ps);
      }
    }
  }
}

TEST(Fold, FoldedRingEmitsOnePeriod) {
  using workload::CollectiveKind;
  for (const CollectiveKind kind :
       {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather}) {
    SCOPED_TRACE(std::string(workload::to_string(kind)));
    workload::WorkloadBuilder b("ring", 3);
    workload::CollectiveSpec spec;
    spec.kind = kind;
    spec.group = {Rank(0), Rank(1), Rank(2)};
    spec.bytes = 600;
    spec.ring_size = 6;
    workload::emit_collective(b, spec);
    b.set_fold(core::Fold{2, 1});
    const core::Workload w = std::move(b).build();
    // (phases) x (6 - 1) steps x 3 positions
    const std::size_t phases = kind == CollectiveKind::kAllReduce ? 2 : 1;
    EXPECT_EQ(w.num_tasks(), phases * 5 * 3);
    for (const core::Task& t : w.tasks()) {
      EXPECT_EQ(t.bytes, 100u);
      EXPECT_EQ(t.dst.value(), (t.src.value() + 1) % 3);
    }
    // Lifted: the ring of 6 ranks, each step a full rotation.
    const core::Workload job = core::unfold(w);
    workload::WorkloadBuilder full("ring", 6);
    spec.group = {Rank(0), Rank(1), Rank(2), Rank(3), Rank(4), Rank(5)};
    spec.ring_size = 0;
    workload::emit_collective(full, spec);
    EXPECT_TRUE(canonical(job) == canonical(std::move(full).build()));
  }
}

// A fold's exact optimum covers the schedules in which every copy runs
// alike; the job can do better, so flux-milp must not call it optimal.
// Three sends around a triangle stand for a ring of six: on one switch the
// fold needs three circuits one after the other, the job two matchings.
TEST(Fold, ExactSchedulersCertifyOnlyWhatHoldsForTheJob) {
  core::WorkloadData d;
  d.name = "triangle";
  d.accelerators = 3;
  for (std::uint32_t i = 0; i < 3; ++i)
    d.tasks.push_back(core::Task{i, Rank(i), Rank((i + 1) % 3), 1'000'000});
  d.fold = core::Fold{2, 1};
  const core::Workload fold(d);
  const core::Workload job = core::unfold(fold);
  const core::System system{1, 800, 10'000'000};  // tau 10 us; a send takes 10 us
  const schedule::Schedule job_best = sched::run_scheduler("flux-milp", job, system, {});
  ASSERT_EQ(job_best.status, schedule::SolveStatus::kOptimal);
  EXPECT_EQ(job_best.makespan_ps, 30'000'000);  // send, reconfigure, send
  for (const char* name : {"flux-milp", "flux"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = sched::run_scheduler(name, fold, system, {});
    EXPECT_EQ(s.makespan_ps, 50'000'000);  // three circuits in turn
    EXPECT_EQ(s.status, schedule::SolveStatus::kFeasible);
    EXPECT_LE(s.lower_bound_ps.value(), job_best.makespan_ps);
  }
}

// A random folded workload: 3-5 blocks of 1-2 ranks, 2-3 copies, 5-6 sends
// (none half the ring away) with releases, tails and deps that touch their
// target's source.
core::Workload random_fold(std::uint64_t seed) {
  std::uint64_t state = seed;
  auto next = [&state](std::uint32_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((state >> 33) % bound);
  };
  const std::uint32_t blocks = 3 + next(3), block = 1 + next(2), copies = 2 + next(2);
  const std::uint32_t n = blocks * block, sends = 5 + next(2);
  workload::WorkloadBuilder b("fold" + std::to_string(seed), n);
  for (std::uint32_t i = 0; i < sends; ++i) {
    std::uint32_t src = 0, dst = 0;
    do {
      src = next(n);
      dst = next(n);
    } while (src == dst || (src / block != dst / block &&
                            2 * ((dst / block + blocks - src / block) % blocks) == blocks));
    const TaskIndex v = b.add_send(Rank(src), Rank(dst), 1000 * (1 + next(5)));
    if (next(4) == 0) b.raise_release(v, next(3) * 5000);
    if (next(4) == 0) b.raise_tail(v, next(3) * 5000);
    for (std::uint32_t u = 0; u < i; ++u) {
      const core::Task& t = b.task(TaskIndex(u));
      if ((t.dst.value() == src || t.src.value() == src) && next(2) == 0)
        b.add_dep(TaskIndex(u), v, next(3) * 4000);
    }
  }
  b.set_fold(core::Fold{copies, block});
  return std::move(b).build();
}

// Random folds: the lifted schedules of every scheduler that takes folds are
// valid for the job, and no bound they report exceeds the job's optimum.
TEST(Fold, RandomFoldsLiftAndTheirBoundsHoldForTheJob) {
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const core::Workload fold = random_fold(seed);
    const core::Workload job = core::unfold(fold);
    core::System system;
    system.switches = 1 + seed % 2;
    system.reconfig_delay_ps = seed % 3 == 0 ? 100'000 : 20'000;
    sched::SchedulerOptions options;
    options.relative_gap = 0;
    const schedule::Schedule best = sched::run_scheduler("flux-milp", job, system, options);
    ASSERT_EQ(best.status, schedule::SolveStatus::kOptimal) << "seed " << seed;
    for (const char* name : {"flux", "flux-milp", "greedy"}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      const schedule::Schedule s = sched::run_scheduler(name, fold, system, options);
      EXPECT_NO_THROW(schedule::check_schedule(job, schedule::unfold(fold, s)));
      EXPECT_GE(s.makespan_ps, best.makespan_ps);
      EXPECT_LE(s.lower_bound_ps.value_or(0), best.makespan_ps);
    }
  }
}

void expect_error(const auto& f, const std::string& field, const std::string& words) {
  try {
    f();
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Fold, RefusesWhatWouldNotBeExact) {
  expect_error([] { workload::generate_llama(config(2, 8, 2)); }, "fold_dp", "at least 3");
  expect_error([] { workload::generate_llama(config(2, 8, 3)); }, "fold_dp", "divide dp");
  auto direct = config(2, 8, 4);
  direct.collective = workload::Algorithm::kHalvingDoubling;
  expect_error([&] { workload::generate_llama(direct); }, "fold_dp", "ring");
  // 8B's layer gradient (218,120,192 = 2^14 * 13313 bytes at tp 2) is not a
  // multiple of 12.
  expect_error([] { workload::generate_llama(config(2, 12, 4)); }, "fold_dp", "equal chunks");
  // An even ring folded onto an odd cycle.
  expect_error([] { workload::generate_llama(config(2, 12, 3)); }, "fold_dp", "must be even");

  workload::WorkloadBuilder b("x", 3);
  workload::CollectiveSpec spec;
  spec.group = {Rank(0), Rank(1), Rank(2)};
  spec.bytes = 601;
  spec.ring_size = 6;
  expect_error([&] { workload::emit_collective(b, spec); }, "ring_size", "equal chunks");
  spec.bytes = 600;
  spec.ring_size = 7;
  expect_error([&] { workload::emit_collective(b, spec); }, "ring_size", "multiple");
  spec.ring_size = 6;
  spec.algorithm = workload::Algorithm::kDirect;
  expect_error([&] { workload::emit_collective(b, spec); }, "ring_size", "only a ring");

  const core::Workload folded = workload::generate_llama(config(2, 8, 4));
  for (const char* name : {"rotornet", "rotornet-vlb", "bvn"}) {
    expect_error(
        [&] {
          (void)sched::run_scheduler(name, folded, core::System{2, 800, 1000}, {});
        },
        "scheduler", "folded");
  }
}

core::WorkloadData two_blocks() {
  core::WorkloadData d;
  d.name = "x";
  d.accelerators = 4;
  d.tasks = {core::Task{0, Rank(0), Rank(2), 10}, core::Task{1, Rank(2), Rank(3), 10}};
  d.fold = core::Fold{3, 2};
  return d;
}

TEST(Fold, WorkloadChecksItsFold) {
  // Block 0 to block 1 of 2: half the ring away.
  expect_error([] { core::Workload w(two_blocks()); }, "tasks[0].dst", "half the ring");
  core::WorkloadData d = two_blocks();
  d.accelerators = 6;                                   // three blocks: fine
  d.deps = {core::Dep{TaskIndex(0), TaskIndex(1), 0}};  // 0 -> 2 then 2 -> 3: touches v's source
  EXPECT_NO_THROW(core::Workload w(d));
  d.tasks[1] = core::Task{1, Rank(4), Rank(5), 10};
  expect_error([&] { core::Workload w(d); }, "deps[0].from", "target's source");
  d = two_blocks();
  d.fold.block_ranks = 3;
  expect_error([&] { core::Workload w(d); }, "fold.block_ranks", "divide");
  d.fold = core::Fold{0, 2};
  expect_error([&] { core::Workload w(d); }, "fold.copies", "at least 1");
  // The job's ranks must fit: 2^32 - 1 accelerators at most.
  d = two_blocks();
  d.tasks = {core::Task{0, Rank(0), Rank(1), 10}};
  d.accelerators = 1u << 31;
  d.fold = core::Fold{2, 1u << 29};
  expect_error([&] { core::Workload w(d); }, "fold.copies", "2^32-1");
  d.accelerators = 1431655765;  // (2^32 - 1) / 3, five blocks
  d.fold = core::Fold{3, 286331153};
  EXPECT_EQ(core::Workload(d).job_accelerators(), 0xffffffffu);
  // A job with more sends than a workload holds is refused before anything
  // is allocated.
  core::WorkloadData tri;
  tri.name = "triangle";
  tri.accelerators = 3;
  for (std::uint32_t i = 0; i < 3; ++i)
    tri.tasks.push_back(core::Task{i, Rank(i), Rank((i + 1) % 3), 10});
  tri.fold = core::Fold{1431655765, 1};
  expect_error([&] { (void)core::unfold(core::Workload(tri)); }, "fold.copies",
               "more than a workload holds");
}

TEST(Fold, JsonRoundTripKeepsTheFold) {
  const core::Workload w = workload::generate_llama(config(2, 8, 4));
  std::ostringstream out;
  formats::write_workload(out, w);
  EXPECT_NE(out.str().find("\"fold\""), std::string::npos);
  const core::Workload back = formats::parse_workload(out.str(), "mem");
  EXPECT_EQ(back.fold(), w.fold());
  EXPECT_TRUE(canonical(back) == canonical(w));
  expect_error(
      [] {
        formats::parse_workload(
            R"({"format": "flux.workload/v1", "name": "x", "accelerators": 4,
                "fold": {"copies": 2, "block_ranks": 3}, "tasks": [], "deps": []})",
            "mem");
      },
      "fold.block_ranks", "divide");
}

}  // namespace
}  // namespace flux
