// Full duplex circuits (System::duplex == kFull) in the schedule module
// (timelines, validator), the schedule file and the simulator (strict and
// ordered replay): hand-worked tiny schedules with their exact times, and the
// validator against the pairwise definition of (4, 5) on random schedules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../src/sim/ordered.hpp"  // internal: retime
#include "flux/core/error.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/schedule/timeline.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"

namespace flux {
namespace {

using core::Duplex;
using core::Rank;
using core::SwitchId;
using core::TimePs;
using schedule::CircuitInterval;
using schedule::Schedule;
using schedule::TaskAssignment;

constexpr TimePs kUs = core::kPsPerUs;

// 800 Gb/s: 10 ps per byte; tau = 1 ns unless given.
core::System system_of(Duplex duplex, std::uint32_t switches = 1, TimePs tau = 1000) {
  core::System s;
  s.switches = switches;
  s.link_gbps = 800;
  s.reconfig_delay_ps = tau;
  s.duplex = duplex;
  return s;
}

struct Send {
  std::uint32_t src, dst;
  std::uint64_t bytes = 10;
};

// One send per entry (ids 0, 1, ...), no dependencies.
core::Workload sends(std::uint32_t n, const std::vector<Send>& list) {
  workload::WorkloadBuilder b("tiny", n);
  for (const Send& s : list) b.add_send(Rank(s.src), Rank(s.dst), s.bytes);
  return std::move(b).build();
}

// A schedule whose timelines and makespan follow from `tasks`.
Schedule make_schedule(const core::Workload& w, const core::System& sys,
                       std::vector<TaskAssignment> tasks) {
  Schedule s;
  s.scheduler = "test";
  s.workload = w.name();
  s.system = sys;
  s.timelines = schedule::build_timelines(w, sys, tasks);
  for (const TaskAssignment& a : tasks) {
    const core::Task& t = w.task(*w.find(a.task_id));
    s.makespan_ps = std::max(s.makespan_ps, a.start_ps + sys.transmission_ps(t.bytes) + t.tail_ps);
  }
  s.tasks = std::move(tasks);
  return s;
}

// Tasks 0, 1, ... on switch 0 at `starts`.
std::vector<TaskAssignment> at(const std::vector<TimePs>& starts) {
  std::vector<TaskAssignment> tasks;
  for (std::size_t i = 0; i < starts.size(); ++i) tasks.push_back({i, SwitchId(0), starts[i]});
  return tasks;
}

bool has_violation(const schedule::ValidationReport& r, const std::vector<std::string>& parts) {
  return std::any_of(r.violations.begin(), r.violations.end(), [&](const std::string& v) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](const std::string& p) { return v.find(p) != std::string::npos; });
  });
}

#define EXPECT_VIOLATION(report, ...) \
  EXPECT_TRUE(has_violation(report, {__VA_ARGS__})) << report.to_string()

schedule::ValidationReport check(const core::Workload& w, Duplex d,
                                 const std::vector<TimePs>& starts) {
  return schedule::validate(w, make_schedule(w, system_of(d), at(starts)));
}

void expect_intervals(const schedule::SwitchTimeline& t, const std::vector<CircuitInterval>& want) {
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

CircuitInterval iv(std::uint32_t a, std::uint32_t b, TimePs setup, TimePs up, TimePs down) {
  return CircuitInterval{Rank(a), Rank(b), setup, up, down};
}

// --- timelines -------------------------------------------------------------

TEST(DuplexTimeline, BothDirectionsShareOneIntervalDownAtTheLatestEnd) {
  // 0->1 20 B [0, 200); 1->0 10 B [50, 150) (ends first); 0->1 [200, 300).
  const auto w = sends(2, {{0, 1, 20}, {1, 0}, {0, 1}});
  const auto full = schedule::build_timelines(w, system_of(Duplex::kFull), at({0, 50, 200}));
  expect_intervals(full[0], {iv(0, 1, -1000, 0, 300)});
  // 0->1 20 B [0, 200) and 1->0 [50, 150): down is the max end, 200.
  const auto two = schedule::build_timelines(w, system_of(Duplex::kFull), at({0, 50, 5000}));
  expect_intervals(two[0], {iv(0, 1, -1000, 0, 5100)});
  const auto w2 = sends(2, {{0, 1, 20}, {1, 0}});
  const auto max_end = schedule::build_timelines(w2, system_of(Duplex::kFull), at({0, 50}));
  expect_intervals(max_end[0], {iv(0, 1, -1000, 0, 200)});
  // Half duplex: each direction change opens an interval (the schedule is
  // invalid there; the timeline is still built).
  const auto half = schedule::build_timelines(w, system_of(Duplex::kHalf), at({0, 50, 200}));
  expect_intervals(half[0],
                   {iv(0, 1, -1000, 0, 200), iv(0, 1, -950, 50, 150), iv(0, 1, -800, 200, 300)});
}

TEST(DuplexTimeline, ASendOfAnotherCircuitOnAPortStillSplits) {
  // 0->1 [0, 100); 1->2 [1100, 1200) on port 1; 1->0 [2200, 2300): three
  // intervals in full duplex too.
  const auto w = sends(3, {{0, 1}, {1, 2}, {1, 0}});
  const auto t = schedule::build_timelines(w, system_of(Duplex::kFull), at({0, 1100, 2200}));
  expect_intervals(
      t[0], {iv(0, 1, -1000, 0, 100), iv(1, 2, 100, 1100, 1200), iv(0, 1, 1200, 2200, 2300)});
}

// --- validator -------------------------------------------------------------

TEST(DuplexValidator, OverlappingReversedPairIsValidOnlyInFullDuplex) {
  // 0->1 [0, 100) and 1->0 [50, 150) on one circuit.
  const auto w = sends(2, {{0, 1}, {1, 0}});
  const auto full = check(w, Duplex::kFull, {0, 50});
  EXPECT_TRUE(full.ok()) << full.to_string();
  const auto half = check(w, Duplex::kHalf, {0, 50});
  EXPECT_FALSE(half.ok());
  EXPECT_VIOLATION(half, "switch 0, port 0", "task 0 (0->1) runs [0 ps, 100 ps)",
                   "task 1 (1->0) starts at 50 ps", "sends sharing a port overlap",
                   "reversing the circuit needs tau = 1000 ps");
  // Reversed after a gap shorter than tau: the half duplex message as before.
  EXPECT_TRUE(check(w, Duplex::kFull, {0, 600}).ok());
  const auto gap = check(w, Duplex::kHalf, {0, 600});
  EXPECT_VIOLATION(gap, "task 1 (1->0) starts at 600 ps", "500 ps after",
                   "reversing the circuit needs tau = 1000 ps");
}

TEST(DuplexValidator, ChangingTheCircuitNeedsTauInBothModes) {
  // 0->1 [0, 100), then 0->2 at 600 (gap 500 < tau) or 1100 (= tau).
  const auto w = sends(3, {{0, 1}, {0, 2}});
  for (const Duplex d : {Duplex::kHalf, Duplex::kFull}) {
    SCOPED_TRACE(core::to_string(d));
    EXPECT_TRUE(check(w, d, {0, 1100}).ok()) << check(w, d, {0, 1100}).to_string();
    const auto r = check(w, d, {0, 600});
    EXPECT_VIOLATION(r, "switch 0, port 0", "task 1 (0->2) starts at 600 ps", "500 ps after",
                     "task 0 (0->1) ends at 100 ps", "changing the circuit needs tau = 1000 ps");
    const auto overlap = check(w, d, {0, 50});
    EXPECT_VIOLATION(overlap, "switch 0, port 0", "task 1 (0->2) starts at 50 ps", "overlap");
  }
  EXPECT_VIOLATION(check(w, Duplex::kFull, {0, 600}), "(full duplex)");
  EXPECT_VIOLATION(check(w, Duplex::kFull, {0, 50}),
                   "sends on different circuits sharing a port overlap (full duplex)");
}

TEST(DuplexValidator, AReversedSendBetweenTwoConflictingSendsIsNoCover) {
  // Port 0: 0->1 100 B [0, 1000); 1->0 [10, 110); 0->2 at 1200. Consecutive
  // pairs alone pass (1200 >= 110 + tau), but 0->2 needs 1000 + tau = 2000.
  const auto w = sends(3, {{0, 1, 100}, {1, 0}, {0, 2}});
  const auto r = check(w, Duplex::kFull, {0, 10, 1200});
  // The port conflict, and the timeline's intervals of {0,1} and {0,2}.
  EXPECT_EQ(r.violation_count, 2u) << r.to_string();
  EXPECT_VIOLATION(r, "circuits[0] {0,1}", "circuits[1] {0,2}", "overlap");
  EXPECT_VIOLATION(r, "switch 0, port 0", "task 2 (0->2) starts at 1200 ps", "200 ps after",
                   "task 0 (0->1) ends at 1000 ps", "changing the circuit needs tau",
                   "full duplex");
  EXPECT_TRUE(check(w, Duplex::kFull, {0, 10, 2000}).ok());
  // The reverse is the long one: 1->0 100 B [10, 1010), 0->2 needs 2010.
  const auto w2 = sends(3, {{0, 1}, {1, 0, 100}, {0, 2}});
  EXPECT_VIOLATION(check(w2, Duplex::kFull, {0, 10, 2009}), "task 2 (0->2) starts at 2009 ps",
                   "task 1 (1->0) ends at 1010 ps");
  EXPECT_TRUE(check(w2, Duplex::kFull, {0, 10, 2010}).ok());
}

TEST(DuplexValidator, OneDirectionOfACircuitStillTakesTurns) {
  // 0->1 [0, 100); 1->0 [10, 110); 0->1 again at 50: the two 0->1 overlap,
  // reported once although they share both ports; at 100 it is valid.
  const auto w = sends(2, {{0, 1}, {1, 0}, {0, 1}});
  const auto r = check(w, Duplex::kFull, {0, 10, 50});
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 0 (0->1) runs [0 ps, 100 ps)", "task 2 (0->1) starts at 50 ps",
                   "sends in one direction of a circuit overlap (full duplex");
  EXPECT_TRUE(check(w, Duplex::kFull, {0, 10, 100}).ok());
}

// The pairwise definition of (4, 5): every pair on one switch sharing an
// accelerator that must take turns (System::take_turns) is separated by R in
// one order or the other.
bool pairwise_valid(const core::Workload& w, const core::System& sys,
                    const std::vector<TaskAssignment>& tasks) {
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    for (std::size_t j = i + 1; j < tasks.size(); ++j) {
      const core::Task& u = w.task(core::TaskIndex(i));
      const core::Task& v = w.task(core::TaskIndex(j));
      if (tasks[i].sw != tasks[j].sw) continue;
      if (u.src != v.src && u.src != v.dst && u.dst != v.src && u.dst != v.dst) continue;
      if (!sys.take_turns(u.src, u.dst, v.src, v.dst)) continue;
      const TimePs r = u.src == v.src && u.dst == v.dst ? 0 : sys.reconfig_delay_ps;
      const TimePs tu = tasks[i].start_ps, tv = tasks[j].start_ps;
      if (tv < tu + sys.transmission_ps(u.bytes) + r &&
          tu < tv + sys.transmission_ps(v.bytes) + r) {
        return false;
      }
    }
  }
  return true;
}

TEST(DuplexValidator, AgreesWithThePairwiseDefinitionOnRandomSchedules) {
  // 3 or 4 ranks, 2 switches, 5 sends of 10 or 20 B, starts on a 50 ps grid
  // (tau = 300 ps) over [0, 2 ns): many near misses. The timelines come from
  // build_timelines, so a valid schedule must also give disjoint intervals.
  std::mt19937 rng(12345);
  std::size_t valid[2] = {0, 0};
  for (int trial = 0; trial < 4000; ++trial) {
    const std::uint32_t n = 3 + trial % 2;
    std::vector<Send> list;
    std::vector<TaskAssignment> tasks;
    for (std::uint64_t id = 0; id < 5; ++id) {
      const auto src = static_cast<std::uint32_t>(rng() % n);
      const auto dst = static_cast<std::uint32_t>((src + 1 + rng() % (n - 1)) % n);
      list.push_back({src, dst, 10 * (1 + rng() % 2)});
      tasks.push_back({id, SwitchId(static_cast<std::uint32_t>(rng() % 2)),
                       static_cast<TimePs>(50 * (rng() % 40))});
    }
    const auto w = sends(n, list);
    for (const Duplex d : {Duplex::kHalf, Duplex::kFull}) {
      const core::System sys = system_of(d, 2, 300);
      const bool want = pairwise_valid(w, sys, tasks);
      const auto r = schedule::validate(w, make_schedule(w, sys, tasks));
      ASSERT_EQ(r.ok(), want) << "trial " << trial << ", " << core::to_string(d) << ": "
                              << r.to_string();
      valid[d == Duplex::kFull] += want ? 1 : 0;
    }
  }
  // Both outcomes occur, and full duplex admits strictly more schedules.
  EXPECT_GT(valid[0], 300u);  // 565 and 829 of 4000 with this seed
  EXPECT_GT(valid[1], valid[0]);
  EXPECT_LT(valid[1], 3900u);
}

// --- schedule file ---------------------------------------------------------

TEST(DuplexScheduleJson, FullRoundTripsAndABadValueNamesTheField) {
  const auto w = sends(2, {{0, 1}, {1, 0}});
  const Schedule s = make_schedule(w, system_of(Duplex::kFull), at({0, 50}));
  std::ostringstream out;
  formats::write_schedule(out, s);
  const std::string text = out.str();
  EXPECT_NE(text.find("\"duplex\": \"full\""), std::string::npos) << text;
  const Schedule back = formats::parse_schedule(text, "s.json");
  EXPECT_EQ(back.system.duplex, Duplex::kFull);
  ASSERT_EQ(back.timelines.size(), 1u);
  expect_intervals(back.timelines[0], {iv(0, 1, -1000, 0, 150)});
  EXPECT_TRUE(schedule::validate(w, back).ok());

  std::string bad = text;
  bad.replace(bad.find("\"full\""), 6, "\"quarter\"");
  try {
    formats::parse_schedule(bad, "s.json");
    FAIL() << "a duplex of quarter was accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "system.duplex");
    EXPECT_NE(std::string(e.what()).find("quarter"), std::string::npos) << e.what();
  }
  // Half duplex writes no duplex at all (files as before).
  std::ostringstream half;
  formats::write_schedule(half, make_schedule(w, system_of(Duplex::kHalf), at({0, 1100})));
  EXPECT_EQ(half.str().find("\"duplex\""), std::string::npos) << half.str();
}

// --- simulator -------------------------------------------------------------

// 1 MB at 800 Gb/s takes 10 us; tau = 10 us. Tasks: 0: 0->1, 1: 1->0,
// 2: 0->1, all 1 MB, no dependencies.
constexpr std::uint64_t kMB = 1'000'000;
core::Workload three_megabytes() {
  return sends(2, {{0, 1, kMB}, {1, 0, kMB}, {0, 1, kMB}});
}

sim::SimOptions with(sim::Execution e) {
  sim::SimOptions o;
  o.execution = e;
  return o;
}

TEST(DuplexSim, OppositeDirectionsRunAtOnceAtLinkRateEach) {
  const auto w = sends(2, {{0, 1, kMB}, {1, 0, kMB}});
  const core::System sys = system_of(Duplex::kFull, 1, 10 * kUs);
  const Schedule s = make_schedule(w, sys, at({0, 0}));
  EXPECT_EQ(s.makespan_ps, 10 * kUs);
  for (const sim::Execution e :
       {sim::Execution::kStrict, sim::Execution::kOrdered, sim::Execution::kOrderedNoEarly}) {
    SCOPED_TRACE(sim::to_string(e));
    const sim::SimResult r = sim::simulate(w, s, with(e));
    EXPECT_EQ(r.metrics.iteration_time_ps, 10 * kUs);  // not 20 us
    ASSERT_EQ(r.sends.size(), 2u);
    for (const sim::SendRecord& rec : r.sends) {
      EXPECT_EQ(rec.issue_ps, 0);
      EXPECT_EQ(rec.finish_ps, 10 * kUs);
    }
  }
  // The same plan in half duplex is refused before it runs.
  Schedule half = s;
  half.system.duplex = Duplex::kHalf;
  EXPECT_THROW(sim::simulate(w, half), schedule::ScheduleError);
}

TEST(DuplexSim, StrictReplaysThePlanOrderedWaitsOnlyForItsOwnDirection) {
  // Plan: 0->1 [0, 10); 1->0 [5, 15) overlapping it; 0->1 again [12, 22)
  // (us), one interval {0,1} up [0, 22).
  const auto w = three_megabytes();
  const core::System sys = system_of(Duplex::kFull, 1, 10 * kUs);
  const Schedule s = make_schedule(w, sys, at({0, 5 * kUs, 12 * kUs}));
  ASSERT_TRUE(schedule::validate(w, s).ok()) << schedule::validate(w, s).to_string();
  expect_intervals(s.timelines[0], {iv(0, 1, -10 * kUs, 0, 22 * kUs)});
  EXPECT_EQ(s.makespan_ps, 22 * kUs);

  const sim::SimResult strict = sim::simulate(w, s, with(sim::Execution::kStrict));
  EXPECT_EQ(strict.metrics.iteration_time_ps, 22 * kUs);
  EXPECT_EQ(strict.sends[0].finish_ps, 10 * kUs);
  EXPECT_EQ(strict.sends[1].issue_ps, 5 * kUs);
  EXPECT_EQ(strict.sends[1].finish_ps, 15 * kUs);
  EXPECT_EQ(strict.sends[2].finish_ps, 22 * kUs);

  // Ordered: 1->0 does not wait for 0->1 (other direction): [0, 10); the
  // second 0->1 waits for the first: [10, 20).
  const sim::SimResult ordered = sim::simulate(w, s, with(sim::Execution::kOrdered));
  EXPECT_EQ(ordered.metrics.iteration_time_ps, 20 * kUs);
  EXPECT_EQ(ordered.sends[1].issue_ps, 0);
  EXPECT_EQ(ordered.sends[1].finish_ps, 10 * kUs);
  EXPECT_EQ(ordered.sends[2].issue_ps, 10 * kUs);
  EXPECT_EQ(ordered.sends[2].finish_ps, 20 * kUs);
  // The retimed plan is itself a valid full-duplex schedule.
  const Schedule retimed = sim::detail::retime(w, s, false);
  const auto report = schedule::validate(w, retimed);
  EXPECT_TRUE(report.ok()) << report.to_string();
  EXPECT_EQ(retimed.makespan_ps, 20 * kUs);

  // ordered-no-early reproduces the plan.
  EXPECT_EQ(sim::simulate(w, s, with(sim::Execution::kOrderedNoEarly)).metrics.iteration_time_ps,
            22 * kUs);
}

TEST(DuplexSim, OrderedWaitsForTheCircuitAndTauOnAnotherCircuit) {
  // 0->1 [0, 10); 1->0 [3, 13); 0->2 planned at 40 (us). Ordered, both
  // {0,1} sends run [0, 10), the circuit is released at 10 and {0,2} is up
  // at 10 + tau = 20.
  const auto w = sends(3, {{0, 1, kMB}, {1, 0, kMB}, {0, 2, kMB}});
  const core::System sys = system_of(Duplex::kFull, 1, 10 * kUs);
  const Schedule s = make_schedule(w, sys, at({0, 3 * kUs, 40 * kUs}));
  ASSERT_TRUE(schedule::validate(w, s).ok()) << schedule::validate(w, s).to_string();
  const sim::SimResult ordered = sim::simulate(w, s, with(sim::Execution::kOrdered));
  EXPECT_EQ(ordered.sends[1].issue_ps, 0);
  EXPECT_EQ(ordered.sends[2].issue_ps, 20 * kUs);
  EXPECT_EQ(ordered.metrics.iteration_time_ps, 30 * kUs);
  const Schedule retimed = sim::detail::retime(w, s, false);
  EXPECT_TRUE(schedule::validate(w, retimed).ok()) << schedule::validate(w, retimed).to_string();
}

}  // namespace
}  // namespace flux
