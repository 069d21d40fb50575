// flux-milp against brute force and hand-computed optima.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "milp_test_util.hpp"
#include "sched/milp/solver.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

using testing::brute_force;
using testing::random_instance;

SchedulerOptions quiet() {
  return testing::exact_options();
}

// The tiny instances the exact tests share: 12 random DAGs of 6 sends on 3
// or 4 accelerators, 1 or 2 switches, tau 1 ns and 20 ns.
void for_each_tiny_instance(
    const std::function<void(const core::Workload&, const core::System&, std::uint64_t)>& f) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const core::Workload w = random_instance(seed, 6, 3 + seed % 2);
    for (TimePs tau : {TimePs{1'000}, TimePs{20'000}}) {
      core::System sys;
      sys.switches = 1 + seed % 2;
      sys.reconfig_delay_ps = tau;
      f(w, sys, seed);
    }
  }
}

TEST(Milp, EqualsBruteForceOnTinyInstances) {
  for_each_tiny_instance([](const core::Workload& w, const core::System& sys, std::uint64_t seed) {
    const TimePs tau = sys.reconfig_delay_ps;
    const TimePs expected = brute_force(w, sys);
    // With the reductions (default) and as the paper writes it (none).
    SchedulerOptions paper = quiet();
    paper.milp = MilpOptions{false, false, false, false, false, "", ""};
    for (const SchedulerOptions& o : {quiet(), paper}) {
      const schedule::Schedule s = run_scheduler("flux-milp", w, sys, o);
      EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal) << "seed " << seed;
      EXPECT_EQ(s.makespan_ps, expected) << "seed " << seed << " tau " << tau;
      EXPECT_LE(s.lower_bound_ps.value(), s.makespan_ps);
    }
  });
}

// The LP relaxation under an incumbent's horizon is a lower bound: never
// above the optimum, and at least the critical path.
TEST(LpRelaxation, BoundsTheOptimumFromBelow) {
  int strictly_above_critical_path = 0;
  for_each_tiny_instance([&](const core::Workload& w, const core::System& sys, std::uint64_t seed) {
    const TimePs tau = sys.reconfig_delay_ps;
    const TimePs optimum = brute_force(w, sys);
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    const TimePs greedy = run_scheduler("greedy", w, sys, quiet()).makespan_ps;
    const auto lp = lp_relaxation_bound(w, sys, p, timing, greedy, 30);
    ASSERT_TRUE(lp.has_value()) << "seed " << seed;
    EXPECT_LE(*lp, optimum) << "seed " << seed << " tau " << tau;
    EXPECT_GE(*lp, timing.makespan - 2) << "seed " << seed << " tau " << tau;
    strictly_above_critical_path += *lp > timing.makespan;
  });
  // Recorded, not required: the big-M relaxation is weak.
  RecordProperty("lp_above_critical_path", strictly_above_critical_path);
}

TEST(Milp, EveryReductionKeepsTheOptimum) {
  for (std::uint64_t seed = 20; seed < 26; ++seed) {
    const core::Workload w = random_instance(seed, 6, 3);
    core::System sys;
    sys.switches = 2;
    sys.reconfig_delay_ps = 15'000;
    const TimePs all_on = run_scheduler("flux-milp", w, sys, quiet()).makespan_ps;
    for (int k = 0; k < 6; ++k) {
      SchedulerOptions o = quiet();
      o.milp.drop_implied_pairs = k != 0;
      o.milp.symmetry_breaking = k != 1;
      o.milp.horizon_big_m = k != 2;
      o.milp.warm_start = k != 3;
      o.milp.bound_rows = k != 4;
      if (k == 5) o.milp = MilpOptions{false, false, false, false, false, "", ""};
      EXPECT_EQ(run_scheduler("flux-milp", w, sys, o).makespan_ps, all_on)
          << "seed " << seed << " off " << k;
    }
  }
}

// Three sends from accelerator 0 with no dependencies, p = 10 ns each (1250
// bytes at 1 Gb/s = 10 us... see sizes): A: 0->1, B: 0->2, C: 0->1.
core::Workload three_from_zero() {
  workload::WorkloadBuilder b("three", 3);
  b.add_send(Rank(0), Rank(1), 1000);  // p = 8 us at 1 Gb/s
  b.add_send(Rank(0), Rank(2), 1000);
  b.add_send(Rank(0), Rank(1), 1000);
  return std::move(b).build();
}

TEST(Milp, ReuseWinsWhenTauIsLarge) {
  core::System sys;
  sys.switches = 1;
  sys.link_gbps = 1;  // 1000 bytes: p = 8 us
  sys.reconfig_delay_ps = 100 * core::kPsPerUs;
  // One switch: A and C back to back on circuit 0->1 (no tau), one change to
  // 0->2: 8 + 8 + 100 + 8 = 124 us. Any order splitting A and C pays 2 tau.
  EXPECT_EQ(run_scheduler("flux-milp", three_from_zero(), sys, quiet()).makespan_ps,
            124 * core::kPsPerUs);
  // Two switches: B alone on the other switch: 8 + 8 = 16 us.
  sys.switches = 2;
  EXPECT_EQ(run_scheduler("flux-milp", three_from_zero(), sys, quiet()).makespan_ps,
            16 * core::kPsPerUs);
}

TEST(Milp, ComputeHidesTau) {
  // A: 0->1, then 50 us of compute, then B: 0->2. One switch, tau = 30 us:
  // the reconfiguration hides behind the compute: 8 + 50 + 8 = 66 us. With
  // tau = 80 us it cannot: 8 + 80 + 8 = 96 us.
  workload::WorkloadBuilder b("hide", 3);
  const TaskIndex a = b.add_send(Rank(0), Rank(1), 1000);
  const TaskIndex c = b.add_send(Rank(0), Rank(2), 1000);
  b.add_dep(a, c, 50 * core::kPsPerUs);
  const core::Workload w = std::move(b).build();
  core::System sys;
  sys.switches = 1;
  sys.link_gbps = 1;
  sys.reconfig_delay_ps = 30 * core::kPsPerUs;
  EXPECT_EQ(run_scheduler("flux-milp", w, sys, quiet()).makespan_ps, 66 * core::kPsPerUs);
  sys.reconfig_delay_ps = 80 * core::kPsPerUs;
  EXPECT_EQ(run_scheduler("flux-milp", w, sys, quiet()).makespan_ps, 96 * core::kPsPerUs);
}

TEST(Milp, ExportedModelsSolveToTheSameOptimum) {
  const core::Workload w = random_instance(7, 6, 3);
  core::System sys;
  sys.switches = 2;
  sys.reconfig_delay_ps = 12'000;
  const auto dir = std::filesystem::temp_directory_path() / "flux_milp_test";
  std::filesystem::create_directories(dir);
  for (const char* ext : {".lp", ".mps"}) {
    SchedulerOptions o = quiet();
    o.milp.export_path = (dir / (std::string("model") + ext)).string();
    const schedule::Schedule s = run_scheduler("flux-milp", w, sys, o);
    const std::optional<double> optimum = testing::solve_model_file(o.milp.export_path);
    ASSERT_TRUE(optimum.has_value()) << ext;
    // Objective in microseconds; the schedule's makespan in picoseconds.
    EXPECT_NEAR(*optimum * 1e6, static_cast<double>(s.makespan_ps), 1.0) << ext;
  }
  std::filesystem::remove_all(dir);
}

TEST(Milp, SolutionFileDecodes) {
  const core::Workload w = three_from_zero();
  core::System sys;
  sys.switches = 1;
  sys.link_gbps = 1;
  sys.reconfig_delay_ps = 100 * core::kPsPerUs;
  const auto dir = std::filesystem::temp_directory_path() / "flux_milp_sol";
  std::filesystem::create_directories(dir);
  // A Gurobi-style .sol: the order A, C, B written by hand.
  const auto sol = dir / "x.sol";
  {
    std::ofstream f(sol);
    f << "# Objective value = 124\nt_0 0\nt_2 8\nt_1 116\nx_0_0 1\nx_1_0 1\nx_2_0 1\nC 124\n";
  }
  SchedulerOptions o = quiet();
  o.milp.solution_path = sol.string();
  const schedule::Schedule s = run_scheduler("flux-milp", w, sys, o);
  EXPECT_EQ(s.makespan_ps, 124 * core::kPsPerUs);
  EXPECT_EQ(s.tasks[1].start_ps, 116 * core::kPsPerUs);
  std::filesystem::remove_all(dir);
}

TEST(Greedy, IsFeasibleAndNeverBelowTheOptimum) {
  for (std::uint64_t seed = 40; seed < 48; ++seed) {
    const core::Workload w = random_instance(seed, 6, 3);
    core::System sys;
    sys.reconfig_delay_ps = 9'000;
    const auto g = run_scheduler("greedy", w, sys, quiet());
    EXPECT_GE(g.makespan_ps, brute_force(w, sys));
    EXPECT_GE(g.makespan_ps, g.lower_bound_ps.value());
  }
}

}  // namespace
}  // namespace flux::sched

namespace flux::sched {
namespace {

// The size estimate is an upper bound of the model build_milp makes.
TEST(Milp, SizeEstimateBoundsTheModel) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const core::Workload w = random_instance(seed, 8, 4);
    core::System sys;
    sys.switches = 2;
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    MilpOptions off{false, false, false, false, false, "", ""};  // nothing dropped
    const MilpModel m = build_milp(w, sys, MilpInputs{p, &timing, std::nullopt, std::nullopt}, off);
    const MilpSize est = estimate_milp_size(w, sys);
    EXPECT_GE(est.pairs, m.conflicting_pairs) << seed;
    EXPECT_GE(est.rows, static_cast<std::uint64_t>(m.num_rows())) << seed;
    EXPECT_GE(est.cols, static_cast<std::uint64_t>(m.num_cols())) << seed;
    EXPECT_GE(est.nonzeros, m.row_col.size()) << seed;
  }
}

// A model beyond the memory budget is not built: the warm start is the
// answer, with its bound, as when CBC finds nothing better; exporting it is
// refused by name.
TEST(Milp, ModelBeyondTheBudgetReportsTheWarmStart) {
  core::System sys;
  sys.switches = 1;
  sys.link_gbps = 1;
  sys.reconfig_delay_ps = 100 * core::kPsPerUs;
  SchedulerOptions o = quiet();
  o.milp.max_model_bytes = 1;
  const schedule::Schedule s = run_scheduler("flux-milp", three_from_zero(), sys, o);
  EXPECT_GE(s.makespan_ps, 124 * core::kPsPerUs);  // never below the optimum
  EXPECT_EQ(s.status, s.lower_bound_ps == s.makespan_ps ? schedule::SolveStatus::kOptimal
                                                        : schedule::SolveStatus::kFeasible);
  const auto never = std::filesystem::temp_directory_path() / "flux_milp_never_written.lp";
  std::filesystem::remove(never);
  o.milp.export_path = never.string();
  try {
    (void)run_scheduler("flux-milp", three_from_zero(), sys, o);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "export_milp");
    EXPECT_NE(std::string(e.what()).find("beyond its 1 B budget"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(never));
}

}  // namespace
}  // namespace flux::sched
