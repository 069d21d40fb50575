// The branch and bound (sched/exact) and `flux` against the brute force of
// brute_force.hpp (the paper's constraints, every switch assignment and pair
// orientation) on tiny instances: equal optima to the picosecond, bounds
// never above the optimum, determinism.
#include <gtest/gtest.h>

#include <functional>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "sched/exact/branch_and_bound.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::TimePs;
using testing::brute_force;
using testing::random_instance;

struct Tiny {
  core::Workload w;
  core::System sys;
  std::string name;
};

// 1-3 switches, 3-5 accelerators, 3-6 sends (5 with three switches, where
// the brute force is slowest), tau from 0 to ten times a send.
void for_each_tiny(std::uint64_t seeds, const std::function<void(const Tiny&)>& f) {
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    const std::uint32_t switches = 1 + static_cast<std::uint32_t>(seed % 3);
    const std::uint32_t n = switches == 3 ? 3 + seed % 3 : 3 + seed % 4;
    const core::Workload w = random_instance(1000 + seed, n, 3 + seed % 3);
    for (TimePs tau : {TimePs{0}, TimePs{5'000}, TimePs{40'000}, TimePs{400'000}}) {
      core::System sys;
      sys.switches = switches;
      sys.reconfig_delay_ps = tau;
      f(Tiny{w, sys,
             "seed " + std::to_string(seed) + " n " + std::to_string(n) + " switches " +
                 std::to_string(switches) + " tau " + std::to_string(tau)});
    }
  }
}

ExactResult solve(const Tiny& t, const Placement* incumbent, const ExactLimits& limits = {}) {
  const std::vector<TimePs> p = core::transmission_times(t.w, t.sys);
  const core::IdealTiming timing = core::ideal_timing(t.w, p);
  return branch_and_bound(t.w, p, t.sys.reconfig_delay_ps, t.sys.switches, timing, incumbent,
                          limits);
}

TEST(BranchAndBound, EqualsBruteForceWithoutIncumbent) {
  for_each_tiny(36, [](const Tiny& t) {
    const TimePs optimum = brute_force(t.w, t.sys);
    const ExactResult r = solve(t, nullptr);
    ASSERT_TRUE(r.complete) << t.name;
    EXPECT_EQ(r.makespan_ps, optimum) << t.name;
    // A real schedule: valid, its makespan the one reported, left shifted.
    const std::vector<TimePs> p = core::transmission_times(t.w, t.sys);
    const schedule::Schedule s = to_schedule(t.w, t.sys, p, r.best);
    EXPECT_TRUE(schedule::validate(t.w, s).ok()) << t.name;
    EXPECT_EQ(s.makespan_ps, optimum) << t.name;
    const std::vector<double> keys(r.best.start_ps.begin(), r.best.start_ps.end());
    EXPECT_EQ(left_shift(t.w, p, t.sys.reconfig_delay_ps, r.best.sw, keys), r.best.start_ps)
        << t.name;
    // The root bound is a lower bound, and at least the critical path.
    const core::IdealTiming timing = core::ideal_timing(t.w, p);
    EXPECT_LE(r.root_bound_ps, optimum) << t.name;
    EXPECT_GE(r.root_bound_ps, timing.makespan) << t.name;
    EXPECT_EQ(r.root_bound_ps,
              exact_root_bound(t.w, p, t.sys.reconfig_delay_ps, t.sys.switches, timing));
  });
}

TEST(BranchAndBound, KeepsAnOptimalIncumbentAndImprovesAPoorOne) {
  int improved = 0;
  for_each_tiny(12, [&](const Tiny& t) {
    const ExactResult first = solve(t, nullptr);
    ASSERT_TRUE(first.complete);
    const ExactResult again = solve(t, &first.best);
    EXPECT_TRUE(again.complete) << t.name;
    EXPECT_FALSE(again.improved) << t.name;
    EXPECT_EQ(again.makespan_ps, first.makespan_ps) << t.name;
    EXPECT_EQ(again.best.start_ps, first.best.start_ps) << t.name;
    // Every send serial on switch 0 in index order: a poor but valid start.
    const std::vector<TimePs> p = core::transmission_times(t.w, t.sys);
    Placement serial;
    serial.sw.assign(t.w.num_tasks(), core::SwitchId(0));
    std::vector<double> keys(t.w.num_tasks());
    for (std::uint32_t v = 0; v < t.w.num_tasks(); ++v) {
      keys[v] = static_cast<double>(t.w.topo_position(core::TaskIndex(v)));
    }
    serial.start_ps = left_shift(t.w, p, t.sys.reconfig_delay_ps, serial.sw, keys);
    const ExactResult from_serial = solve(t, &serial);
    EXPECT_TRUE(from_serial.complete) << t.name;
    EXPECT_EQ(from_serial.makespan_ps, first.makespan_ps) << t.name;
    improved += from_serial.improved;
  });
  EXPECT_GT(improved, 0);  // the serial schedule is not always optimal
}

TEST(BranchAndBound, NodeBudgetStopsTheSearchDeterministically) {
  const core::Workload w = random_instance(77, 9, 4);
  const Tiny t{w, testing::system_with(40'000, 2), "nine sends"};
  const ExactResult full = solve(t, nullptr);
  ASSERT_TRUE(full.complete);
  ASSERT_GT(full.nodes, 40u);
  const ExactResult a = solve(t, nullptr, ExactLimits{full.nodes / 4, 1e9});
  const ExactResult b = solve(t, nullptr, ExactLimits{full.nodes / 4, 1e9});
  EXPECT_FALSE(a.complete);
  EXPECT_EQ(a.nodes, full.nodes / 4);
  EXPECT_EQ(a.makespan_ps, b.makespan_ps);
  EXPECT_EQ(a.best.start_ps, b.best.start_ps);
  EXPECT_GE(a.makespan_ps, full.makespan_ps);
}

TEST(FluxScheduler, FindsTheBruteForceOptimumAndProvesIt) {
  for_each_tiny(24, [](const Tiny& t) {
    const TimePs optimum = brute_force(t.w, t.sys);
    SchedulerOptions o;
    o.lp_bound = false;  // the proof must come from the exact search
    const schedule::Schedule s = run_scheduler("flux", t.w, t.sys, o);
    EXPECT_EQ(s.makespan_ps, optimum) << t.name;
    EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal) << t.name;
    ASSERT_TRUE(s.lower_bound_ps.has_value());
    EXPECT_EQ(*s.lower_bound_ps, optimum) << t.name;
    // Same seed, same schedule.
    const schedule::Schedule again = run_scheduler("flux", t.w, t.sys, o);
    ASSERT_EQ(again.tasks.size(), s.tasks.size());
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      EXPECT_EQ(again.tasks[i].sw, s.tasks[i].sw) << t.name;
      EXPECT_EQ(again.tasks[i].start_ps, s.tasks[i].start_ps) << t.name;
    }
  });
}

}  // namespace
}  // namespace flux::sched
