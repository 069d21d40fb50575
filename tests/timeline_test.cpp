#include <gtest/gtest.h>

#include <vector>

#include "flux/core/error.hpp"
#include "flux/schedule/timeline.hpp"
#include "flux/workload/builder.hpp"

namespace flux::schedule {
namespace {

using core::Rank;
using core::SwitchId;
using core::TimePs;

// 800 Gb/s: 10 ps per byte, so a 10-byte send takes p = 100 ps; tau = 1 ns.
constexpr TimePs kTau = 1000;

core::System system_with(std::uint32_t switches, TimePs tau = kTau) {
  core::System s;
  s.switches = switches;
  s.link_gbps = 800;
  s.reconfig_delay_ps = tau;
  return s;
}

struct Send {
  std::uint32_t src, dst;
};

// One 10-byte send per entry (ids 0, 1, ...), no dependencies.
core::Workload sends(std::uint32_t n, const std::vector<Send>& list) {
  workload::WorkloadBuilder b("t", n);
  for (const Send& s : list) b.add_send(Rank(s.src), Rank(s.dst), 10);
  return std::move(b).build();
}

CircuitInterval iv(std::uint32_t a, std::uint32_t b, TimePs setup, TimePs up, TimePs down) {
  return CircuitInterval{Rank(a), Rank(b), setup, up, down};
}

void expect_intervals(const SwitchTimeline& t, const std::vector<CircuitInterval>& want) {
  ASSERT_EQ(t.circuits.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t.circuits[i].a, want[i].a);
    EXPECT_EQ(t.circuits[i].b, want[i].b);
    EXPECT_EQ(t.circuits[i].setup_ps, want[i].setup_ps);
    EXPECT_EQ(t.circuits[i].up_ps, want[i].up_ps);
    EXPECT_EQ(t.circuits[i].down_ps, want[i].down_ps);
  }
}

TEST(BuildTimelines, ReuseOfACircuitMergesIntoOneInterval) {
  // 0->1 at 0 and again at 150 on switch 0; 2->3 at 50 (disjoint ports) and
  // 1->2 at 120 on switch 1 (other switch): neither splits {0,1}.
  const auto w = sends(4, {{0, 1}, {0, 1}, {2, 3}, {1, 2}});
  const std::vector<TaskAssignment> a = {
      {0, SwitchId(0), 0}, {1, SwitchId(0), 150}, {2, SwitchId(0), 50}, {3, SwitchId(1), 120}};
  const auto t = build_timelines(w, system_with(2), a);
  ASSERT_EQ(t.size(), 2u);
  expect_intervals(t[0], {iv(0, 1, -1000, 0, 250), iv(2, 3, -950, 50, 150)});
  expect_intervals(t[1], {iv(1, 2, -880, 120, 220)});
}

TEST(BuildTimelines, InterveningSendOnASharedPortSplitsTheCircuit) {
  // 0->1 [0,100); 1->2 [1100,1200) after tau on port 1; 0->1 [2200,2300)
  // after tau again: three intervals, {0,1} set up twice.
  const auto w = sends(3, {{0, 1}, {1, 2}, {0, 1}});
  const std::vector<TaskAssignment> a = {
      {2, SwitchId(0), 2200}, {0, SwitchId(0), 0}, {1, SwitchId(0), 1100}};
  const auto t = build_timelines(w, system_with(1), a);
  ASSERT_EQ(t.size(), 1u);
  expect_intervals(
      t[0], {iv(0, 1, -1000, 0, 100), iv(1, 2, 100, 1100, 1200), iv(0, 1, 1200, 2200, 2300)});
}

TEST(BuildTimelines, InterveningSendOnTheOtherPortAlsoSplits) {
  // 0->1 [0,100); 2->0 on port 0 [1100,1200); 0->1 again [2200,2300).
  const auto w = sends(3, {{0, 1}, {2, 0}, {0, 1}});
  const std::vector<TaskAssignment> a = {
      {0, SwitchId(0), 0}, {1, SwitchId(0), 1100}, {2, SwitchId(0), 2200}};
  const auto t = build_timelines(w, system_with(1), a);
  expect_intervals(
      t[0], {iv(0, 1, -1000, 0, 100), iv(0, 2, 100, 1100, 1200), iv(0, 1, 1200, 2200, 2300)});
}

TEST(BuildTimelines, ReversedDirectionNeedsItsOwnInterval) {
  // 0->1 [0,100), then 1->0: R = tau, so [1100,1200) in a new interval.
  const auto w = sends(2, {{0, 1}, {1, 0}});
  const std::vector<TaskAssignment> a = {{0, SwitchId(0), 0}, {1, SwitchId(0), 1100}};
  const auto t = build_timelines(w, system_with(1), a);
  expect_intervals(t[0], {iv(0, 1, -1000, 0, 100), iv(0, 1, 100, 1100, 1200)});
}

TEST(BuildTimelines, SetupIsNegativeOnlyForCircuitsUsedBeforeTau) {
  // First circuit at 0: configured during [-tau, 0), before the iteration.
  // A circuit first used at 5000 is set up during [4000, 5000).
  const auto w = sends(4, {{0, 1}, {2, 3}});
  const std::vector<TaskAssignment> a = {{0, SwitchId(0), 0}, {1, SwitchId(0), 5000}};
  const auto t = build_timelines(w, system_with(1), a);
  expect_intervals(t[0], {iv(0, 1, -1000, 0, 100), iv(2, 3, 4000, 5000, 5100)});
}

TEST(BuildTimelines, EmptyScheduleGivesOneEmptyTimelinePerSwitch) {
  const auto w = sends(2, {{0, 1}});
  const auto t = build_timelines(w, system_with(3), {});
  ASSERT_EQ(t.size(), 3u);
  for (const auto& s : t) EXPECT_TRUE(s.circuits.empty());
}

TEST(BuildTimelines, RejectsUnknownTaskAndSwitchOutOfRange) {
  const auto w = sends(2, {{0, 1}});
  const std::vector<TaskAssignment> unknown = {{7, SwitchId(0), 0}};
  EXPECT_THROW((void)build_timelines(w, system_with(1), unknown), core::InputError);
  const std::vector<TaskAssignment> far = {{0, SwitchId(1), 0}};
  try {
    (void)build_timelines(w, system_with(1), far);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "tasks[0].switch");
    EXPECT_EQ(e.value(), "1");
  }
}

Circuit c(std::uint32_t a, std::uint32_t b) {
  return Circuit{Rank(a), Rank(b)};
}

void expect_state(const TimelineState& s, TimePs at, const std::vector<Circuit>& up,
                  const std::vector<Circuit>& reconf) {
  SCOPED_TRACE(at);
  EXPECT_EQ(s.at_ps, at);
  EXPECT_EQ(s.up, up);
  EXPECT_EQ(s.reconfiguring, reconf);
}

TEST(TimelineStates, SmallCaseWrittenOutByHand) {
  // The split case plus 3->4 [500,600) on disjoint ports (tau = 1000):
  //   {0,1} [-1000, 0, 100), {3,4} [-500, 500, 600), {1,2} [100, 1100, 1200),
  //   {0,1} [1200, 2200, 2300).
  const auto w = sends(5, {{0, 1}, {1, 2}, {0, 1}, {3, 4}});
  const std::vector<TaskAssignment> a = {
      {0, SwitchId(0), 0}, {1, SwitchId(0), 1100}, {2, SwitchId(0), 2200}, {3, SwitchId(0), 500}};
  const auto t = build_timelines(w, system_with(1), a);
  const auto s = timeline_states(t[0]);
  ASSERT_EQ(s.size(), 10u);
  expect_state(s[0], -1000, {}, {c(0, 1)});
  expect_state(s[1], -500, {}, {c(0, 1), c(3, 4)});
  expect_state(s[2], 0, {c(0, 1)}, {c(3, 4)});
  expect_state(s[3], 100, {}, {c(1, 2), c(3, 4)});  // {0,1} down, {1,2} setup
  expect_state(s[4], 500, {c(3, 4)}, {c(1, 2)});
  expect_state(s[5], 600, {}, {c(1, 2)});
  expect_state(s[6], 1100, {c(1, 2)}, {});
  expect_state(s[7], 1200, {}, {c(0, 1)});
  expect_state(s[8], 2200, {c(0, 1)}, {});
  expect_state(s[9], 2300, {}, {});
}

TEST(TimelineStates, ZeroTauMergesBackToBackUseOfOneCircuit) {
  // tau = 0: 0->1 [0,100) then 1->0 [100,200) are two intervals of {0,1},
  // but the switch state does not change at 100.
  const auto w = sends(2, {{0, 1}, {1, 0}});
  const std::vector<TaskAssignment> a = {{0, SwitchId(0), 0}, {1, SwitchId(0), 100}};
  const auto t = build_timelines(w, system_with(1, 0), a);
  expect_intervals(t[0], {iv(0, 1, 0, 0, 100), iv(0, 1, 100, 100, 200)});
  const auto s = timeline_states(t[0]);
  ASSERT_EQ(s.size(), 2u);
  expect_state(s[0], 0, {c(0, 1)}, {});
  expect_state(s[1], 200, {}, {});
}

TEST(TimelineStates, EmptyTimelineHasNoStates) {
  EXPECT_TRUE(timeline_states(SwitchTimeline{}).empty());
}

}  // namespace
}  // namespace flux::schedule
