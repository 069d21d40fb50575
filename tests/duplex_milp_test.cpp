// Full duplex (System::duplex, docs/model.md "Duplex") in flux-milp, its LP
// relaxation and exported model, and every lower bound: against the brute
// force (tests/brute_force.hpp, which drops the reversed pairs) on tiny
// random instances and on hand-worked cases.
//
// The validator (schedule::check_schedule) may still be half duplex, so the
// full-duplex schedules are run through the scheduler itself (not
// run_scheduler, which validates) and checked here by full_duplex_valid().
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "milp_test_util.hpp"
#include "sched/milp/model.hpp"
#include "sched/milp/solver.hpp"
#include "sched/restriction.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;
using testing::brute_force;
using testing::random_instance;

core::System with_duplex(core::System sys, core::Duplex d) {
  sys.duplex = d;
  return sys;
}

// The full-duplex constraints, checked pair by pair
// (testing::pairwise_violation), the task order and the makespan.
::testing::AssertionResult full_duplex_valid(const core::Workload& w, const core::System& sys,
                                             const schedule::Schedule& s) {
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  const auto tasks = w.tasks();
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  if (s.tasks.size() != n) return ::testing::AssertionFailure() << "wrong number of tasks";
  Placement pl;
  TimePs makespan = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (s.tasks[v].task_id != tasks[v].id) return ::testing::AssertionFailure() << "task order";
    pl.sw.push_back(s.tasks[v].sw);
    pl.start_ps.push_back(s.tasks[v].start_ps);
    makespan = std::max(makespan, s.tasks[v].start_ps + p[v] + tasks[v].tail_ps);
  }
  if (const std::string why = testing::pairwise_violation(w, sys, pl); !why.empty()) {
    return ::testing::AssertionFailure() << why;
  }
  if (makespan != s.makespan_ps) {
    return ::testing::AssertionFailure()
           << "makespan " << s.makespan_ps << ", recomputed " << makespan;
  }
  return ::testing::AssertionSuccess();
}

// flux-milp without the validator (see the top), checked in full duplex.
schedule::Schedule milp_full(const core::Workload& w, const core::System& sys,
                             const SchedulerOptions& o) {
  schedule::Schedule s = make_scheduler("flux-milp")->run(w, sys, o);
  EXPECT_TRUE(full_duplex_valid(w, sys, s));
  return s;
}

MilpOptions paper_model() {
  return MilpOptions{false, false, false, false, false, "", ""};
}

// 104 tiny instances: 5 or 6 sends on 2 to 4 accelerators (2 makes reversed
// pairs common), 1 or 2 switches, tau 1 ns and 20 ns.
void for_each_instance(
    const std::function<void(const core::Workload&, const core::System&, std::uint64_t)>& f) {
  for (std::uint64_t seed = 1; seed <= 52; ++seed) {
    const core::Workload w = random_instance(7000 + seed, 5 + seed % 2, 2 + seed % 3);
    for (const TimePs tau : {TimePs{1'000}, TimePs{20'000}}) {
      core::System sys;
      sys.switches = 1 + (seed / 3) % 2;
      sys.reconfig_delay_ps = tau;
      sys.duplex = core::Duplex::kFull;
      f(w, sys, seed);
    }
  }
}

TEST(DuplexMilp, EqualsBruteForceAndEveryBoundStaysBelow) {
  int instances = 0, below_half = 0, port_load_above_critical_path = 0;
  for_each_instance([&](const core::Workload& w, const core::System& sys, std::uint64_t seed) {
    const std::string where =
        "seed " + std::to_string(seed) + " tau " + std::to_string(sys.reconfig_delay_ps);
    ++instances;
    const TimePs optimum = brute_force(w, sys);
    const TimePs half = brute_force(w, with_duplex(sys, core::Duplex::kHalf));
    ASSERT_LE(optimum, half) << where;
    below_half += optimum < half;

    SchedulerOptions o = testing::exact_options();
    const schedule::Schedule s = milp_full(w, sys, o);
    EXPECT_EQ(s.makespan_ps, optimum) << where;
    EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal) << where;
    EXPECT_LE(s.lower_bound_ps.value(), optimum) << where;
    if (seed % 4 == 0) {  // the paper's model, no reduction, on a quarter
      o.milp = paper_model();
      EXPECT_EQ(milp_full(w, sys, o).makespan_ps, optimum) << where << " (paper model)";
    }

    // Every bound, in full duplex, at most the optimum.
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    const LowerBounds lb = lower_bounds(w, sys, p, timing);
    EXPECT_LE(lb.critical_path_ps, optimum) << where;
    EXPECT_LE(lb.port_load_ps, optimum) << where;
    port_load_above_critical_path += lb.port_load_ps > lb.critical_path_ps;
    const auto lp = lp_relaxation_bound(w, sys, p, timing, s.makespan_ps, 30);
    ASSERT_TRUE(lp.has_value()) << where;
    EXPECT_LE(*lp, optimum) << where;
    RestrictionLimits limits;
    limits.window = 2 + seed % 4;  // small windows, so that several are tried
    EXPECT_LE(restriction_bound(w, sys, p, timing, optimum + 1, limits), optimum) << where;
  });
  EXPECT_GE(instances, 100);
  // Real numbers, not vacuous: reversed pairs make full duplex strictly
  // better on some instances, and the port load beats the critical path on some.
  EXPECT_GT(below_half, 10);
  EXPECT_GT(port_load_above_critical_path, 0);
  RecordProperty("full_below_half", below_half);
  RecordProperty("port_load_above_critical_path", port_load_above_critical_path);
}

// 2 ranks, a -> b and b -> a of 10 us each, 1 switch, tau 5 us: half duplex
// takes turns (10 + 5 + 10 = 25 us); full duplex runs both at once (10 us).
core::Workload reversed_pair() {
  workload::WorkloadBuilder b("reversed", 2);
  b.add_send(Rank(0), Rank(1), 1'000'000);  // 10 us at 800 Gb/s
  b.add_send(Rank(1), Rank(0), 1'000'000);
  return std::move(b).build();
}
core::System reversed_pair_system() {
  core::System half;
  half.switches = 1;
  half.reconfig_delay_ps = 5 * core::kPsPerUs;
  return half;
}

TEST(DuplexMilp, ReversedPairOverlapsInFullDuplex) {
  const core::System half = reversed_pair_system();
  const core::System full = with_duplex(half, core::Duplex::kFull);
  const core::Workload w = reversed_pair();
  EXPECT_EQ(brute_force(w, half), 25 * core::kPsPerUs);
  EXPECT_EQ(brute_force(w, full), 10 * core::kPsPerUs);
  const SchedulerOptions o = testing::exact_options();
  EXPECT_EQ(run_scheduler("flux-milp", w, half, o).makespan_ps, 25 * core::kPsPerUs);
  for (const MilpOptions& mo : {MilpOptions{}, paper_model()}) {
    SchedulerOptions fo = o;
    fo.milp = mo;
    const schedule::Schedule s = milp_full(w, full, fo);
    EXPECT_EQ(s.makespan_ps, 10 * core::kPsPerUs);
    EXPECT_EQ(s.tasks[0].start_ps, 0);
    EXPECT_EQ(s.tasks[1].start_ps, 0);
  }
  // The port-load bound: one serial resource in half duplex (25 us), the
  // larger direction in full duplex (10 us).
  const std::vector<TimePs> p = core::transmission_times(w, full);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  EXPECT_EQ(lower_bounds(w, half, p, timing).port_load_ps, 25 * core::kPsPerUs);
  EXPECT_EQ(lower_bounds(w, full, p, timing).port_load_ps, 10 * core::kPsPerUs);
}

// Accelerator 1 forwards: 0 -> 1 and 1 -> 2 (different partners) take turns
// even in full duplex, so its port bound counts both and one tau (10 + 4 + 10
// us on 1 switch); the sends alone or the receives alone would give 10 us.
TEST(DuplexBounds, PartnersOfOnePortTakeTurns) {
  workload::WorkloadBuilder b("forward", 3);
  b.add_send(Rank(0), Rank(1), 1'000'000);
  b.add_send(Rank(1), Rank(2), 1'000'000);
  const core::Workload w = std::move(b).build();
  core::System sys;
  sys.switches = 1;
  sys.reconfig_delay_ps = 4 * core::kPsPerUs;
  sys.duplex = core::Duplex::kFull;
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  const LowerBounds lb = lower_bounds(w, sys, p, core::ideal_timing(w, p));
  EXPECT_EQ(lb.port_load_ps, 24 * core::kPsPerUs);
  EXPECT_EQ(lb.port, Rank(1));
  EXPECT_EQ(brute_force(w, sys), 24 * core::kPsPerUs);
}

// The model drops exactly the pairs of a send and its reverse: sends
// A 0->1, B 1->0, C 0->1, D 1->2, no dependencies, 2 switches, no reduction.
// Reversed pairs: {A, B}, {B, C}, both incomparable: 2 rows per switch and
// one y each. {B, D} shares accelerator 1 but is no reversed pair.
TEST(DuplexMilp, RowCountDropsByTheReversedPairs) {
  workload::WorkloadBuilder b("rows", 3);
  b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(1), Rank(0), 1000);
  b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(1), Rank(2), 1000);
  const core::Workload w = std::move(b).build();
  core::System half;
  half.switches = 2;
  const core::System full = with_duplex(half, core::Duplex::kFull);
  const std::vector<TimePs> p = core::transmission_times(w, half);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const MilpInputs in{p, &timing, std::nullopt, std::nullopt};
  const MilpModel mh = build_milp(w, half, in, paper_model());
  const MilpModel mf = build_milp(w, full, in, paper_model());
  EXPECT_EQ(mh.conflicting_pairs, 6u);  // every two share accelerator 0 or 1
  EXPECT_EQ(mf.conflicting_pairs, 4u);
  EXPECT_EQ(mh.reversed_pairs, 0u);
  EXPECT_EQ(mf.reversed_pairs, 2u);
  EXPECT_EQ(mh.num_rows() - mf.num_rows(), 2u * 2 * half.switches);
  EXPECT_EQ(mh.num_cols() - mf.num_cols(), 2u);
  // The size estimate: still an upper estimate, and it drops the reversed
  // pairs too (each counted at both of its ports).
  const MilpSize eh = estimate_milp_size(w, half), ef = estimate_milp_size(w, full);
  EXPECT_EQ(eh.pairs - ef.pairs, 4u);
  EXPECT_EQ(eh.rows - ef.rows, 4u * 2 * half.switches);
  EXPECT_GE(ef.rows, mf.num_rows());
  EXPECT_GE(ef.cols, mf.num_cols());
  EXPECT_GE(ef.nonzeros, mf.row_col.size());
}

// The size estimate bounds the built model in full duplex on random instances.
TEST(DuplexMilp, SizeEstimateIsAnUpperBound) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const core::Workload w = random_instance(9100 + seed, 30, 2 + seed % 4);
    core::System sys;
    sys.switches = 1 + seed % 3;
    sys.duplex = core::Duplex::kFull;
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    MilpOptions off = paper_model();
    const MilpModel m = build_milp(w, sys, MilpInputs{p, &timing, std::nullopt, std::nullopt}, off);
    const MilpSize est = estimate_milp_size(w, sys);
    EXPECT_GE(est.pairs, m.conflicting_pairs) << "seed " << seed;
    EXPECT_GE(est.rows, m.num_rows()) << "seed " << seed;
    EXPECT_GE(est.cols, m.num_cols()) << "seed " << seed;
    EXPECT_GE(est.nonzeros, m.row_col.size()) << "seed " << seed;
    EXPECT_LE(est.pairs, estimate_milp_size(w, with_duplex(sys, core::Duplex::kHalf)).pairs);
  }
}

// The exported full-duplex model, solved afresh by CBC, has the full-duplex
// optimum (10 us; the half-duplex export has 25 us).
TEST(DuplexMilp, ExportedModelHasTheFullDuplexOptimum) {
  const core::System half = reversed_pair_system();
  const core::System full = with_duplex(half, core::Duplex::kFull);
  const core::Workload w = reversed_pair();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("flux_duplex_milp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* ext : {".lp", ".mps"}) {
    for (const bool is_full : {false, true}) {
      const std::string path = (dir / (std::string(is_full ? "full" : "half") + ext)).string();
      SchedulerOptions o = testing::exact_options();
      o.milp = paper_model();
      o.milp.export_path = path;
      (void)make_scheduler("flux-milp")->run(w, is_full ? full : half, o);
      const auto optimum = testing::solve_model_file(path);
      ASSERT_TRUE(optimum.has_value()) << path;
      EXPECT_NEAR(*optimum, is_full ? 10.0 : 25.0, 1e-6) << path;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace flux::sched
