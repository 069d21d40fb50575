#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/schedule/timeline.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/builder.hpp"

namespace flux::schedule {
namespace {

using core::Rank;
using core::SwitchId;
using core::TaskIndex;
using core::TimePs;

// 800 Gb/s: 10 ps per byte; tau = 1 ns.
core::System test_system(std::uint32_t switches = 2, TimePs tau = 1000) {
  core::System s;
  s.switches = switches;
  s.link_gbps = 800;
  s.reconfig_delay_ps = tau;
  return s;
}

TimePs makespan_of(const core::Workload& w, const core::System& sys,
                   const std::vector<TaskAssignment>& tasks) {
  TimePs end = 0;
  for (const TaskAssignment& a : tasks) {
    const core::Task& t = w.task(*w.find(a.task_id));
    end = std::max(end, a.start_ps + sys.transmission_ps(t.bytes, t.src, t.dst) + t.tail_ps);
  }
  return end;
}

// A schedule whose timelines and makespan follow from `tasks`.
Schedule make_schedule(const core::Workload& w, const core::System& sys,
                       std::vector<TaskAssignment> tasks) {
  Schedule s;
  s.scheduler = "test";
  s.workload = w.name();
  s.system = sys;
  s.timelines = build_timelines(w, sys, tasks);
  s.makespan_ps = makespan_of(w, sys, tasks);
  s.tasks = std::move(tasks);
  return s;
}

// True when one violation contains every one of `parts`.
bool has_violation(const ValidationReport& r, const std::vector<std::string>& parts) {
  return std::any_of(r.violations.begin(), r.violations.end(), [&](const std::string& v) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](const std::string& p) { return v.find(p) != std::string::npos; });
  });
}

#define EXPECT_VIOLATION(report, ...) \
  EXPECT_TRUE(has_violation(report, {__VA_ARGS__})) << report.to_string()

// n = 4, tau = 1000 ps, p = 10 ps/byte:
//   0: 0->1 10 B (p 100)
//   1: 1->2 10 B, after 0 with 500 ps of compute
//   2: 0->1 10 B (same circuit as 0)
//   3: 2->3 20 B (p 200), release 300, tail 1000
core::Workload base_workload() {
  workload::WorkloadBuilder b("base", 4);
  const auto t0 = b.add_send(Rank(0), Rank(1), 10);
  const auto t1 = b.add_send(Rank(1), Rank(2), 10);
  b.add_send(Rank(0), Rank(1), 10);
  const auto t3 = b.add_send(Rank(2), Rank(3), 20);
  b.add_dep(t0, t1, 500);
  b.raise_release(t3, 300);
  b.raise_tail(t3, 1000);
  return std::move(b).build();
}

// 0 [0,100) sw0; 2 [100,200) sw0 reusing {0->1}; 1 [600,700) sw1;
// 3 [300,500) sw0, ends with its tail at 1500 = the makespan.
std::vector<TaskAssignment> base_tasks() {
  return {{0, SwitchId(0), 0}, {1, SwitchId(1), 600}, {2, SwitchId(0), 100}, {3, SwitchId(0), 300}};
}

TEST(Validator, ValidScheduleHasNoViolation) {
  const auto w = base_workload();
  const Schedule s = make_schedule(w, test_system(), base_tasks());
  EXPECT_EQ(s.makespan_ps, 1500);
  const ValidationReport r = validate(w, s);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.to_string(), "valid");
  EXPECT_NO_THROW(check_schedule(w, s));
}

// infeasible, no_solution and error come with no tasks and no circuits
// (docs/formats.md): a file that says so and still has them is rejected.
TEST(Validator, NoScheduleStatusWithTasksOrCircuits) {
  const auto w = base_workload();
  for (SolveStatus st : {SolveStatus::kInfeasible, SolveStatus::kNoSolution, SolveStatus::kError}) {
    Schedule s = make_schedule(w, test_system(), base_tasks());
    s.status = st;
    const ValidationReport r = validate(w, s);
    EXPECT_VIOLATION(r, "status " + std::string(to_string(st)), "4 task assignments", "3 circuits");
    EXPECT_THROW(check_schedule(w, s), ScheduleError);
    s.tasks.clear();  // circuits alone are as wrong
    EXPECT_VIOLATION(validate(w, s), "0 task assignments", "3 circuits");
    Schedule empty;
    empty.scheduler = "test";
    empty.workload = w.name();
    empty.system = test_system();
    empty.timelines.resize(2);
    empty.status = st;
    const ValidationReport ok = validate(w, empty);
    EXPECT_FALSE(has_violation(ok, {"status"})) << ok.to_string();
  }
}

// A workload whose times do not fit Flux's range is bad input, named, not a
// violation computed with wrapped numbers.
TEST(Validator, TransmissionBeyondTheTimeRange) {
  workload::WorkloadBuilder b("huge", 4);
  b.add_send(Rank(0), Rank(1), 1'000'000'000'000'000'000ULL);  // 1e7 s at 800 Gb/s
  const auto w = std::move(b).build();
  Schedule s;
  s.scheduler = "test";
  s.workload = w.name();
  s.system = test_system();
  s.timelines.resize(2);
  s.tasks = {{0, SwitchId(0), 0}};
  try {
    (void)validate(w, s);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "tasks[0].bytes");
    EXPECT_EQ(e.value(), "1000000000000000000");
    EXPECT_NE(std::string(e.what()).find("takes 1e+07 s, beyond the 9.2e6 s"), std::string::npos)
        << e.what();
  }
}

TEST(Validator, MissingTask) {
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks.erase(tasks.begin() + 2);  // task 2
  const auto r = validate(w, make_schedule(w, test_system(), tasks));
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 2 (0->1)", "not scheduled");
}

TEST(Validator, DuplicateTask) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.tasks.push_back({2, SwitchId(0), 100});
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 2", "more than once", "schedule.tasks[2]", "schedule.tasks[4]");
}

TEST(Validator, UnknownTaskId) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.tasks.push_back({99, SwitchId(0), 5000});
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 99", "not in workload 'base'");
}

TEST(Validator, SwitchOutOfRange) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.tasks[1].sw = SwitchId(2);
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 1 (1->2)", "switch 2", "has 2 switches");
}

TEST(Validator, DependencyViolatedInTheCompute) {
  // Task 1 may start at 100 + 500 = 600 at the earliest.
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks[1].start_ps = 599;
  const auto r = validate(w, make_schedule(w, test_system(), tasks));
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 1 (1->2) starts at 599 ps", "task 0 (0->1) ends at 100 ps",
                   "compute 500 ps", "earliest 600 ps");
}

TEST(Validator, DependencyViolatedBeforeTheParentEnds) {
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks[1].start_ps = 50;
  const auto r = validate(w, make_schedule(w, test_system(), tasks));
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 1", "task 0", "earliest 600 ps");
}

TEST(Validator, ReleaseViolated) {
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks[3].start_ps = 299;
  const auto r = validate(w, make_schedule(w, test_system(), tasks));
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 3 (2->3) starts at 299 ps", "release 300 ps");
}

TEST(Validator, NegativeStart) {
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks[0].start_ps = -1;
  const auto r = validate(w, make_schedule(w, test_system(), tasks));
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 0", "-1 ps", "before time 0");
}

TEST(Validator, WrongMakespan) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.makespan_ps = 1499;
  auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "makespan is 1499 ps", "1500 ps", "task 3");
  ValidationOptions lax;
  lax.check_makespan = false;
  EXPECT_TRUE(validate(w, s, lax).ok());
}

TEST(Validator, LowerBoundAboveMakespan) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.lower_bound_ps = 1500;
  EXPECT_TRUE(validate(w, s).ok());
  s.lower_bound_ps = 1501;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "lower bound 1501 ps", "makespan 1500 ps");
}

TEST(Validator, ScheduleForAnotherWorkload) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.workload = "other";
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "'other'", "'base'");
}

TEST(Validator, InvalidSystemStopsTheChecks) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.system.link_gbps = 0;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "system", "link_gbps");
}

TEST(Validator, TimelinesCountMismatch) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  s.timelines.pop_back();
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "1 timelines for 2 switches");
}

// Port conflicts on one switch: n = 3, all sends 10 B (p 100), no deps.
//   0: 0->1   1: 1->2   2: 0->1   3: 1->0
core::Workload port_workload() {
  workload::WorkloadBuilder b("ports", 3);
  b.add_send(Rank(0), Rank(1), 10);
  b.add_send(Rank(1), Rank(2), 10);
  b.add_send(Rank(0), Rank(1), 10);
  b.add_send(Rank(1), Rank(0), 10);
  return std::move(b).build();
}

// Tasks `a` at 0 and `b` at `start_b` on switch 0, the others on switch 1.
Schedule pair_schedule(const core::Workload& w, std::uint64_t a, std::uint64_t b, TimePs start_b) {
  std::vector<TaskAssignment> tasks;
  TimePs other = 0;
  for (std::uint64_t id = 0; id < 4; ++id) {
    if (id == a) {
      tasks.push_back({id, SwitchId(0), 0});
    } else if (id == b) {
      tasks.push_back({id, SwitchId(0), start_b});
    } else {
      tasks.push_back({id, SwitchId(1), other});
      other += 10'000;
    }
  }
  return make_schedule(w, test_system(), tasks);
}

TEST(Validator, OverlapOnASharedPort) {
  const auto w = port_workload();
  const auto r = validate(w, pair_schedule(w, 0, 1, 50));
  EXPECT_VIOLATION(r, "switch 0, port 1", "task 0 (0->1) runs [0 ps, 100 ps)",
                   "task 1 (1->2) starts at 50 ps", "overlap");
}

TEST(Validator, MissingReconfigurationGap) {
  // 1->2 after 0->1 on port 1 needs 100 + tau = 1100.
  const auto w = port_workload();
  EXPECT_TRUE(validate(w, pair_schedule(w, 0, 1, 1100)).ok());
  const auto r = validate(w, pair_schedule(w, 0, 1, 1099));
  EXPECT_VIOLATION(r, "switch 0, port 1", "task 1 (1->2) starts at 1099 ps", "999 ps after",
                   "task 0 (0->1) ends at 100 ps", "changing the circuit needs tau = 1000 ps");
}

TEST(Validator, ReusingTheSameCircuitNeedsNoTau) {
  const auto w = port_workload();
  const auto r = validate(w, pair_schedule(w, 0, 2, 100));
  EXPECT_TRUE(r.ok()) << r.to_string();
  // Overlapping sends on the same circuit still conflict, reported once.
  const auto overlap = validate(w, pair_schedule(w, 0, 2, 99));
  EXPECT_EQ(overlap.violation_count, 1u) << overlap.to_string();
  EXPECT_VIOLATION(overlap, "task 0", "task 2", "overlap");
}

TEST(Validator, ReversedDirectionNeedsTau) {
  const auto w = port_workload();
  const auto r = validate(w, pair_schedule(w, 0, 3, 100));
  // The task pair and the two intervals of {0,1} (overlapping on both of its
  // ports), each reported once.
  EXPECT_EQ(r.violation_count, 2u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 0, port 0", "circuits[0] {0,1}", "circuits[1] {0,1}", "overlap");
  EXPECT_VIOLATION(r, "task 3 (1->0) starts at 100 ps", "task 0 (0->1)",
                   "reversing the circuit needs tau");
  EXPECT_TRUE(validate(w, pair_schedule(w, 0, 3, 1100)).ok());
}

TEST(Validator, TimelineOverlapOnAPort) {
  // Switch 1 holds {1,2} over [-400, 700); an extra {1,3} over [-1000, 100)
  // collides with it on port 1 (port 3 is free there).
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  auto& c = s.timelines[1].circuits;
  ASSERT_EQ(c.size(), 1u);
  c = {CircuitInterval{Rank(1), Rank(3), -1000, 0, 100}, c[0]};
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 1, port 1", "circuits[0] {1,3} [setup -1000 ps",
                   "circuits[1] {1,2} [setup -400 ps", "overlap");
}

TEST(Validator, SendOutsideItsCircuitInterval) {
  // {0,1} on switch 0 goes down at 150: task 2 [100, 200) is cut.
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  ASSERT_EQ(s.timelines[0].circuits[0].down_ps, 200);
  s.timelines[0].circuits[0].down_ps = 150;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "task 2 (0->1) on switch 0 runs [100 ps, 200 ps)", "circuit {0,1}");
}

TEST(Validator, SendOnTheWrongSwitchTimeline) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  std::swap(s.timelines[0], s.timelines[1]);
  const auto r = validate(w, s);
  EXPECT_VIOLATION(r, "task 1 (1->2) on switch 1", "outside");
  EXPECT_VIOLATION(r, "task 0 (0->1) on switch 0", "outside");
}

TEST(Validator, MalformedIntervals) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  auto& c = s.timelines[1].circuits;  // {1,2} [-400, 600, 700)
  ASSERT_EQ(c.size(), 1u);
  c[0].setup_ps = 0;
  auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 1: circuits[0] {1,2}", "up - setup = 600 ps", "tau = 1000 ps");
  c[0].setup_ps = 800;
  EXPECT_VIOLATION(validate(w, s), "needs setup <= up <= down");
  c[0] = {Rank(2), Rank(1), -400, 600, 700};
  EXPECT_VIOLATION(validate(w, s), "{2,1}", "needs a < b");
  c[0] = {Rank(1), Rank(4), -400, 600, 700};
  EXPECT_VIOLATION(validate(w, s), "{1,4}", "accelerator out of range");
}

TEST(Validator, UnsortedTimeline) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  auto& c = s.timelines[0].circuits;  // {0,1} up 0, {2,3} up 300
  ASSERT_EQ(c.size(), 2u);
  std::swap(c[0], c[1]);
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "circuits[1] {0,1}", "sorted by (up, a, b)");
}

TEST(Validator, CircuitOnlyScheduleGetsTimelineChecksOnly) {
  const auto w = base_workload();
  Schedule s;
  s.workload = w.name();
  s.system = test_system();
  s.makespan_ps = 123;  // not checked without task assignments
  s.timelines.resize(2);
  s.timelines[0].circuits = {{Rank(0), Rank(1), -1000, 0, 5000},
                             {Rank(2), Rank(3), -1000, 0, 5000}};
  s.timelines[1].circuits = {{Rank(1), Rank(2), 0, 1000, 2000}};
  EXPECT_TRUE(validate(w, s).ok()) << validate(w, s).to_string();
  s.timelines[1].circuits.push_back({Rank(0), Rank(2), 1500, 2500, 3000});
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 1, port 2", "overlap");
}

// A RotorNet-like cycle of period 4000 ps (tau = 1000 ps, two slots of
// 2000 ps) on n = 4: switch 0 matches {0,1},{2,3} then {0,2},{1,3}; switch 1
// matches {0,3},{1,2} in its first slot only. Every interval lies in [0, 4000).
Schedule periodic_schedule(const core::Workload& w) {
  Schedule s;
  s.scheduler = "rotor";
  s.workload = w.name();
  s.system = test_system();
  s.period_ps = 4000;
  s.timelines.resize(2);
  s.timelines[0].circuits = {{Rank(0), Rank(1), 0, 1000, 2000},
                             {Rank(2), Rank(3), 0, 1000, 2000},
                             {Rank(0), Rank(2), 2000, 3000, 4000},
                             {Rank(1), Rank(3), 2000, 3000, 4000}};
  s.timelines[1].circuits = {{Rank(0), Rank(3), 0, 1000, 2000}, {Rank(1), Rank(2), 0, 1000, 2000}};
  return s;
}

TEST(Validator, PeriodicScheduleIsValid) {
  const auto w = base_workload();
  Schedule s = periodic_schedule(w);
  EXPECT_TRUE(validate(w, s).ok()) << validate(w, s).to_string();
  s.routing = Routing::kVlb;
  EXPECT_TRUE(validate(w, s).ok()) << validate(w, s).to_string();
  // A port overlap inside the cycle is still caught.
  s.timelines[1].circuits.push_back({Rank(0), Rank(1), 1500, 2500, 3000});
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 2u) << r.to_string();  // ports 0 and 1
  EXPECT_VIOLATION(r, "switch 1, port 1", "circuits[1] {1,2}", "circuits[2] {0,1}", "overlap");
}

TEST(Validator, PeriodicIntervalBeforeTheCycle) {
  const auto w = base_workload();
  Schedule s = periodic_schedule(w);
  // {0,3} preset before t = 0: fine for one iteration, not for a cycle.
  s.timelines[1].circuits[0] = {Rank(0), Rank(3), -1000, 0, 2000};
  s.period_ps.reset();
  EXPECT_TRUE(validate(w, s).ok()) << validate(w, s).to_string();
  s.period_ps = 4000;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 1: circuits[0] {0,3} [setup -1000 ps (-1 ns), up 0 ps, down 2000 ps",
                   "outside the cycle [0, period 4000 ps (4 ns))", "0 <= setup");
}

TEST(Validator, PeriodicIntervalPastTheCycle) {
  const auto w = base_workload();
  Schedule s = periodic_schedule(w);
  s.timelines[0].circuits[3].down_ps = 4001;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 0: circuits[3] {1,3} [setup 2000 ps", "down 4001 ps",
                   "outside the cycle [0, period 4000 ps", "down <= period");
  // A shorter period cuts off the whole second slot of switch 0.
  s.timelines[0].circuits[3].down_ps = 4000;
  s.period_ps = 2000;
  const auto shorter = validate(w, s);
  EXPECT_EQ(shorter.violation_count, 2u) << shorter.to_string();
  EXPECT_VIOLATION(shorter, "switch 0: circuits[2] {0,2}", "period 2000 ps");
  EXPECT_VIOLATION(shorter, "switch 0: circuits[3] {1,3}", "period 2000 ps");
}

TEST(Validator, PeriodMustBePositive) {
  const auto w = base_workload();
  Schedule s = periodic_schedule(w);
  for (auto& t : s.timelines) t.circuits.clear();
  s.period_ps = 0;
  auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "period 0 ps is not positive");
  s.period_ps = -5;
  EXPECT_VIOLATION(validate(w, s), "period -5 ps is not positive");
}

TEST(Validator, PeriodicScheduleWithTasks) {
  const auto w = base_workload();
  Schedule s = periodic_schedule(w);
  s.tasks = {{0, SwitchId(0), 1000}};
  const auto r = validate(w, s);
  // Only the assignment is reported: task-level checks do not apply (the
  // other three tasks are not reported missing).
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "a periodic schedule (period 4000 ps", "has no task assignments",
                   "has 1 (first: task 0)");
}

TEST(Validator, VlbNeedsTimelinesWithoutTasks) {
  const auto w = base_workload();
  Schedule s = make_schedule(w, test_system(), base_tasks());
  ASSERT_TRUE(validate(w, s).ok());
  s.routing = Routing::kVlb;
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "routing vlb has no task assignments, but the schedule has 4");
}

// The `ideal` reference: no circuits, every pair always connected.
Schedule all_connected_schedule(const core::Workload& w) {
  Schedule s;
  s.scheduler = "ideal";
  s.workload = w.name();
  s.system = test_system();
  s.circuit_model = CircuitModel::kAllConnected;
  s.timelines.resize(2);
  return s;
}

TEST(Validator, AllConnectedWithEmptyTimelinesIsValid) {
  const auto w = base_workload();
  const Schedule s = all_connected_schedule(w);
  EXPECT_TRUE(validate(w, s).ok()) << validate(w, s).to_string();
}

TEST(Validator, AllConnectedWithCircuitsRejected) {
  const auto w = base_workload();
  Schedule s = all_connected_schedule(w);
  s.timelines[1].circuits = {{Rank(1), Rank(2), 0, 1000, 2000}};
  const auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "switch 1: 1 circuit (first circuits[0] {1,2} [setup 0 ps",
                   "circuit model all_connected has empty timelines");
}

TEST(Validator, AllConnectedWithPeriodVlbOrTasksRejected) {
  const auto w = base_workload();
  Schedule s = all_connected_schedule(w);
  s.period_ps = 4000;
  auto r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "all_connected has no period", "period 4000 ps");

  s = all_connected_schedule(w);
  s.routing = Routing::kVlb;
  r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "routing vlb needs circuit model timeline, not all_connected");

  s = all_connected_schedule(w);
  s.tasks = base_tasks();
  s.makespan_ps = 1500;
  r = validate(w, s);
  EXPECT_EQ(r.violation_count, 1u) << r.to_string();
  EXPECT_VIOLATION(r, "circuit model all_connected has no task assignments",
                   "the schedule has 4 (first: task 0)");
}

TEST(Validator, EmptyWorkloadNeedsMakespanZero) {
  const core::Workload w(core::WorkloadData{"empty", 2, {}, {}, {}, {}});
  Schedule s = make_schedule(w, test_system(1), {});
  EXPECT_TRUE(validate(w, s).ok());
  s.makespan_ps = 5;
  EXPECT_VIOLATION(validate(w, s), "makespan is 5 ps");
}

TEST(Validator, ReportKeepsTheFirstViolationsAndCountsAll) {
  const auto w = base_workload();
  const Schedule s = make_schedule(w, test_system(), {{0, SwitchId(0), 0}});  // 1, 2, 3 missing
  ValidationOptions o;
  o.max_violations = 2;
  const auto r = validate(w, s, o);
  EXPECT_EQ(r.violation_count, 3u);
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_NE(r.to_string().find("... and 1 more"), std::string::npos) << r.to_string();
  o.max_violations = 0;
  EXPECT_THROW((void)validate(w, s, o), core::InputError);
}

TEST(Validator, CheckScheduleThrowsScheduleError) {
  const auto w = base_workload();
  auto tasks = base_tasks();
  tasks[1].start_ps = 599;
  const Schedule s = make_schedule(w, test_system(), tasks);
  try {
    check_schedule(w, s);
    FAIL() << "no error";
  } catch (const ScheduleError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("invalid schedule from test for workload 'base': 1 violation"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("task 1 (1->2) starts at 599 ps"), std::string::npos) << what;
    EXPECT_EQ(e.violation_count(), 1u);
    ASSERT_EQ(e.violations().size(), 1u);
  }
  EXPECT_THROW(check_schedule(w, s), core::Error);
}

// ---- Property: greedy schedules pass; moving a tight start 1 ps earlier fails.

// Small deterministic generator (portable, unlike std distributions).
struct Lcg {
  std::uint64_t s;
  std::uint32_t next(std::uint32_t bound) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((s >> 33) % bound);
  }
};

// Random DAG on few accelerators (many shared ports), edges from lower to
// higher index, random sizes, compute, releases and tails.
core::Workload random_workload(Lcg& rng) {
  const std::uint32_t n = 3 + rng.next(3);
  const std::uint32_t tasks = 4 + rng.next(10);
  workload::WorkloadBuilder b("random", n);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const std::uint32_t src = rng.next(n);
    const std::uint32_t dst = (src + 1 + rng.next(n - 1)) % n;
    const auto v = b.add_send(Rank(src), Rank(dst), 1 + rng.next(30));
    if (rng.next(4) == 0) b.raise_release(v, rng.next(400));
    if (rng.next(4) == 0) b.raise_tail(v, rng.next(400));
  }
  for (std::uint32_t u = 0; u < tasks; ++u) {
    for (std::uint32_t v = u + 1; v < tasks; ++v) {
      if (rng.next(100) < 15) b.add_dep(TaskIndex(u), TaskIndex(v), rng.next(3) * 100);
    }
  }
  return std::move(b).build();
}

bool share_port(const core::Task& x, const core::Task& y) {
  return x.src == y.src || x.src == y.dst || x.dst == y.src || x.dst == y.dst;
}

TimePs penalty(const core::Task& x, const core::Task& y, TimePs tau) {
  return x.src == y.src && x.dst == y.dst ? 0 : tau;
}

struct Greedy {
  std::vector<std::uint32_t> sw;
  std::vector<TimePs> start;
};

// Earliest start of v from releases and parents (the DAG part).
TimePs dag_bound(const core::Workload& w, const core::System& sys, const Greedy& g, TaskIndex v) {
  TimePs t = w.task(v).release_ps;
  for (std::uint32_t e : w.in_edge_ids(v)) {
    const core::Dep& d = w.deps()[e];
    const TimePs end = g.start[d.from.value()] + sys.transmission_ps(w.task(d.from).bytes);
    t = std::max(t, end + d.compute_ps);
  }
  return t;
}

// Does v at time t conflict with task x (same switch, shared port)?
bool conflicts(const core::Workload& w, const core::System& sys, const Greedy& g, TaskIndex v,
               TimePs t, TaskIndex x) {
  const core::Task& tv = w.task(v);
  const core::Task& tx = w.task(x);
  if (g.sw[v.value()] != g.sw[x.value()] || !share_port(tv, tx)) return false;
  const TimePs tx_start = g.start[x.value()];
  const TimePs r = penalty(tv, tx, sys.reconfig_delay_ps);
  const bool after = t >= tx_start + sys.transmission_ps(tx.bytes) + r;
  const bool before = t + sys.transmission_ps(tv.bytes) + r <= tx_start;
  return !after && !before;
}

// Topological order; switch by the LCG; start at the earliest time (after an
// occasional random delay) that satisfies every constraint against the
// tasks placed so far, possibly in a gap before them.
Greedy greedy_schedule(const core::Workload& w, const core::System& sys, Lcg& rng) {
  Greedy g{std::vector<std::uint32_t>(w.num_tasks()), std::vector<TimePs>(w.num_tasks())};
  std::vector<TaskIndex> placed;
  for (TaskIndex v : w.topo_order()) {
    g.sw[v.value()] = rng.next(sys.switches);
    const TimePs lo = dag_bound(w, sys, g, v) + (rng.next(4) == 0 ? rng.next(300) : 0);
    std::vector<TimePs> candidates = {lo};
    for (TaskIndex x : placed) {
      const TimePs after = g.start[x.value()] + sys.transmission_ps(w.task(x).bytes) +
                           penalty(w.task(x), w.task(v), sys.reconfig_delay_ps);
      if (after > lo) candidates.push_back(after);
    }
    std::sort(candidates.begin(), candidates.end());
    const auto ok = [&](TimePs t) {
      return std::none_of(placed.begin(), placed.end(),
                          [&](TaskIndex x) { return conflicts(w, sys, g, v, t, x); });
    };
    g.start[v.value()] = *std::find_if(candidates.begin(), candidates.end(), ok);
    placed.push_back(v);
  }
  return g;
}

Schedule to_schedule(const core::Workload& w, const core::System& sys, const Greedy& g) {
  std::vector<TaskAssignment> tasks;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    tasks.push_back({w.task(TaskIndex(i)).id, SwitchId(g.sw[i]), g.start[i]});
  }
  Schedule s = make_schedule(w, sys, std::move(tasks));
  s.workload = w.name();
  return s;
}

TEST(ValidatorProperty, GreedySchedulesPassAndTightStartsCannotMoveEarlier) {
  Lcg rng{12345};
  const TimePs taus[] = {0, 50, 300, 1000};
  std::size_t tight_count = 0;
  std::size_t slack_count = 0;
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE(round);
    const auto w = random_workload(rng);
    const core::System sys = test_system(1 + rng.next(3), taus[rng.next(4)]);
    const Greedy g = greedy_schedule(w, sys, rng);
    const ValidationReport r = validate(w, to_schedule(w, sys, g));
    ASSERT_TRUE(r.ok()) << r.to_string();
    for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
      const TaskIndex v(i);
      Greedy moved = g;
      const TimePs t = --moved.start[i];
      bool tight = t < 0 || t < dag_bound(w, sys, moved, v);
      for (std::uint32_t x = 0; x < w.num_tasks(); ++x) {
        if (x != i && conflicts(w, sys, moved, v, t, TaskIndex(x))) tight = true;
      }
      (tight ? tight_count : slack_count) += 1;
      // Timelines and makespan follow the moved start: only the task-level
      // constraints can fail.
      const ValidationReport moved_report = validate(w, to_schedule(w, sys, moved));
      EXPECT_EQ(moved_report.ok(), !tight) << "task " << i << ": " << moved_report.to_string();
      if (tight) {
        std::string name = "task ";
        name.append(std::to_string(w.task(v).id)).append(" (");
        EXPECT_TRUE(has_violation(moved_report, {name})) << moved_report.to_string();
      }
    }
  }
  EXPECT_GT(tight_count, 500u);
  EXPECT_GT(slack_count, 100u);
}

// Scale-up domains {0, 1} and {2, 3} at 1600 Gb/s (5 ps per byte), OCS links
// at 800 Gb/s (10 ps per byte), tau = 1000 ps:
//   0: 0->1 100 B  scale-up, p 500
//   1: 0->2 10 B   OCS, p 100
//   2: 0->1 100 B  scale-up, shares 0's egress and ingress
//   3: 1->0 100 B  scale-up, the reverse of 0: other egress, other ingress
core::Workload scaleup_workload() {
  workload::WorkloadBuilder b("scaleup", 4);
  b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(0), Rank(2), 10);
  b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(1), Rank(0), 100);
  return std::move(b).build();
}

core::System scaleup_system() {
  core::System s = test_system(1);
  s.scaleup_size = 2;
  s.scaleup_gbps = 1600;
  return s;
}

std::vector<TaskAssignment> scaleup_tasks(TimePs second_start) {
  const SwitchId su = core::kScaleUpSwitch;
  return {{0, su, 0}, {1, SwitchId(0), 0}, {2, su, second_start}, {3, su, 0}};
}

TEST(Validator, ScaleUpSendsUseFullDuplexPortsWithoutTau) {
  const core::Workload w = scaleup_workload();
  const core::System sys = scaleup_system();
  // 0 and 3 run at once (egress 0 + ingress 1, egress 1 + ingress 0), 2
  // right after 0 with no tau, 1 on the OCS meanwhile from the same GPU.
  const Schedule s = make_schedule(w, sys, scaleup_tasks(500));
  EXPECT_EQ(s.makespan_ps, 1000);
  ASSERT_EQ(s.timelines.size(), 1u);
  ASSERT_EQ(s.timelines[0].circuits.size(), 1u);  // only 0->2 needs a circuit
  EXPECT_EQ(s.timelines[0].circuits[0].b, Rank(2));
  const ValidationReport r = validate(w, s);
  EXPECT_TRUE(r.ok()) << r.to_string();
}

TEST(Validator, ScaleUpSendsSharingAPortMustNotOverlap) {
  const core::Workload w = scaleup_workload();
  const ValidationReport r = validate(w, make_schedule(w, scaleup_system(), scaleup_tasks(499)));
  EXPECT_EQ(r.violation_count, 2u) << r.to_string();  // its egress and its ingress
  EXPECT_VIOLATION(r, "scale-up egress of accelerator 0", "task 0 (0->1)", "task 2 (0->1)");
  EXPECT_VIOLATION(r, "scale-up ingress of accelerator 1");
}

TEST(Validator, EachSendOnTheFabricItsDomainsDictate) {
  const core::Workload w = scaleup_workload();
  std::vector<TaskAssignment> tasks = scaleup_tasks(500);
  tasks[0].sw = SwitchId(0);           // inside a domain, on an OCS
  tasks[1].sw = core::kScaleUpSwitch;  // across domains, on the scale-up fabric
  const ValidationReport r = validate(w, make_schedule(w, scaleup_system(), tasks));
  EXPECT_VIOLATION(r, "task 0 (0->1) is on switch 0", "in one scale-up domain (size 2)",
                   "must use the scale-up fabric");
  EXPECT_VIOLATION(r, "task 1 (0->2) is on the scale-up fabric", "in different scale-up domains",
                   "must use an optical switch");
  // The OCS circuit {0, 1} that task 0's timeline now holds joins one domain.
  EXPECT_VIOLATION(r, "switch 0", "joins two accelerators of one scale-up domain");
}

TEST(Validator, ScaleUpDomainsMustTileTheAccelerators) {
  const core::Workload w = scaleup_workload();
  core::System sys = scaleup_system();
  Schedule s = make_schedule(w, sys, scaleup_tasks(500));
  s.system.scaleup_size = 3;
  const ValidationReport r = validate(w, s);
  EXPECT_VIOLATION(r, "system:", "scaleup_size", "must divide the 4 accelerators");
  // The paper's model (no domains): every send is on an OCS.
  s.system.scaleup_size = 1;
  EXPECT_VIOLATION(validate(w, s), "task 0 (0->1) is on the scale-up fabric");
}

}  // namespace
}  // namespace flux::schedule
