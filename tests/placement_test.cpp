// What task-level schedulers share (include/flux/sched/placement.hpp): the
// makespan, the left shift and its timing, packing into a Schedule, and the
// one epilogue, finish_schedule, on hand-worked instances.
#include <gtest/gtest.h>

#include <chrono>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/placement.hpp"
#include "flux/schedule/validator.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::kPsPerUs;
using core::Rank;
using core::SwitchId;
using core::TimePs;
using testing::kOneUsBytes;
using testing::system_with;

// a: 0->1, b: 0->2 (same port 0), c: 1->2 after a with 3 us of compute,
// 4 us of tail after c.
core::Workload three() {
  workload::WorkloadBuilder b("three", 3);
  const auto a = b.add_send(Rank(0), Rank(1), kOneUsBytes);
  b.add_send(Rank(0), Rank(2), 2 * kOneUsBytes);
  const auto c = b.add_send(Rank(1), Rank(2), kOneUsBytes);
  b.add_dep(a, c, 3 * kPsPerUs);
  b.raise_tail(c, 4 * kPsPerUs);
  return std::move(b).build();
}

TEST(Placement, MakespanCountsTails) {
  const core::Workload w = three();
  const auto p = core::transmission_times(w, system_with(0, 1));
  const Placement pl{{SwitchId(0), SwitchId(1), SwitchId(0)}, {0, 0, 4 * kPsPerUs}};
  // c ends at 5 us, then 4 us of tail; b ends at 2 us.
  EXPECT_EQ(makespan(w, p, pl), 9 * kPsPerUs);
}

// On one switch with tau = 10 us and the order a, b on port 0: b waits for
// a (1 us) and a reconfiguration; c (port 1 and 2) waits for its compute
// and, on port 2, for b and a reconfiguration.
TEST(Placement, LeftShiftFollowsDagAndPortOrders) {
  const core::Workload w = three();
  const core::System sys = system_with(10 * kPsPerUs, 1);
  const auto p = core::transmission_times(w, sys);
  const std::vector<SwitchId> sw(3, SwitchId(0));
  const std::vector<double> order{0, 1, 2};
  const auto start = left_shift(w, p, sys, sw, order);
  EXPECT_EQ(start, (std::vector<TimePs>{0, 11 * kPsPerUs, 23 * kPsPerUs}));
  const ScheduleTiming t = schedule_timing(w, p, sys, sw, order);
  EXPECT_EQ(t.start_ps, start);
  EXPECT_EQ(t.makespan_ps, 28 * kPsPerUs);
  // Every send is on the critical chain a -> b -> c here.
  for (std::size_t v = 0; v < 3; ++v) EXPECT_EQ(t.start_ps[v] + t.tail_ps[v], t.makespan_ps);
  // Another order of port 0 (b first): a waits 2 us + tau.
  const auto swapped = left_shift(w, p, sys, sw, std::vector<double>{1, 0, 2});
  EXPECT_EQ(swapped[0], 12 * kPsPerUs);
  EXPECT_EQ(swapped[1], 0);
}

TEST(Placement, LeftShiftRefusesPortOrdersAgainstTheDag) {
  const core::Workload w = three();
  const core::System sys = system_with(0, 1);
  const auto p = core::transmission_times(w, sys);
  // a -> c is a dependency; putting c before a on port 1 is a cycle.
  EXPECT_THROW(
      left_shift(w, p, sys, std::vector<SwitchId>(3, SwitchId(0)), std::vector<double>{2, 0, 1}),
      core::Error);
}

TEST(Placement, ToScheduleBuildsValidTimelines) {
  const core::Workload w = three();
  const core::System sys = system_with(10 * kPsPerUs, 2);
  const auto p = core::transmission_times(w, sys);
  const std::vector<SwitchId> sw{SwitchId(0), SwitchId(1), SwitchId(0)};
  const std::vector<double> order{0, 1, 2};
  const Placement pl{sw, left_shift(w, p, sys, sw, order)};
  const schedule::Schedule s = to_schedule(w, sys, p, pl);
  EXPECT_EQ(s.makespan_ps, makespan(w, p, pl));
  ASSERT_EQ(s.timelines.size(), 2u);
  EXPECT_EQ(s.timelines[0].circuits.size(), 2u);  // 0-1 then 1-2
  EXPECT_EQ(s.timelines[1].circuits.size(), 1u);  // 0-2
  ASSERT_EQ(s.tasks.size(), 3u);
  EXPECT_NO_THROW(schedule::check_schedule(w, s));
}

TEST(Placement, FinishScheduleClampsTheBoundAndSetsGapAndStatus) {
  const auto t0 = std::chrono::steady_clock::now();
  schedule::Schedule s;
  s.makespan_ps = 100;
  finish_schedule(s, 80, schedule::SolveStatus::kFeasible, t0);
  EXPECT_EQ(s.lower_bound_ps, 80);
  EXPECT_DOUBLE_EQ(s.gap.value(), 0.25);
  EXPECT_EQ(s.status, schedule::SolveStatus::kFeasible);
  EXPECT_GE(s.solve_time_s.value(), 0.0);
  finish_schedule(s, 150, schedule::SolveStatus::kFeasible, t0);  // a bound above: clamped
  EXPECT_EQ(s.lower_bound_ps, 100);
  EXPECT_EQ(s.gap, 0.0);
  EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal);
  finish_schedule(s, 0, schedule::SolveStatus::kFeasible, t0);
  EXPECT_EQ(s.lower_bound_ps, 0);
  EXPECT_EQ(s.gap, 0.0);  // a zero bound gives no ratio
  EXPECT_EQ(s.status, schedule::SolveStatus::kFeasible);
}

}  // namespace
}  // namespace flux::sched
