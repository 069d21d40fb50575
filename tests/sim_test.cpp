// The discrete-event simulator: hand-derived cases (RotorNet, multi-switch
// drain, strict replay), replay of task-level schedules to the tick, ideal
// as a lower bound, conservation of bytes, VLB relaying, determinism, and
// the errors for schedules that do not fit.
#include "flux/sim/simulator.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <queue>
#include <sstream>
#include <string>

#include "../src/sim/engine.hpp"  // internal: ChunkQueue, RadixEventQueue
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/chrome_trace.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/llama.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;
using core::Rank;
using core::SwitchId;
using core::TaskIndex;
using core::TimePs;
using sched::testing::llama;

core::Task task(std::uint64_t id, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes,
                TimePs release = 0) {
  core::Task t;
  t.id = id;
  t.src = Rank(src);
  t.dst = Rank(dst);
  t.bytes = bytes;
  t.release_ps = release;
  return t;
}

core::System system(std::uint32_t switches, TimePs tau) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  return s;
}

schedule::CircuitInterval interval(std::uint32_t a, std::uint32_t b, TimePs up, TimePs down,
                                   TimePs tau) {
  return schedule::CircuitInterval{Rank(a), Rank(b), up - tau, up, down};
}

sched::SchedulerOptions quick() {
  sched::SchedulerOptions o;
  o.time_limit_s = 20;
  return o;
}

// n = 3, one switch, tau = 10 us, duty cycle 0.9: slot T = 100 us. The
// round-robin matchings of 3 nodes (a dummy makes 4) are {1,2}, {0,2}, {0,1}
// (baselines_test checks this order), so the circuit {1,2} is up over
// [10, 100) us of every 300 us period, {0,2} over [110, 200), {0,1} over
// [210, 300).
// A: 0 -> 1, 2 MB (20 us at 800 Gb/s), ready at 0. Its NIC takes the bytes at
//    link rate until 20 us and holds all 2,000,000 B until {0,1} comes up at
//    210 us; it drains by 230 us. Peak of NIC 0: 2,000,000 B (no packet term:
//    the buffer only drains once the circuit is up).
// B: 1 -> 2, 1 MB (10 us), after A with 5 us of compute: ready at 235 us,
//    ingested by 245 us, waits for {1,2} at 310 us (next period), done at
//    320 us. Peak of NIC 1: 1,000,000 B.
// Iteration: 320 us. Waits: A 230 - 0 - 20 = 210 us; B 320 - 235 - 10 = 75 us.
// Circuit up time within [0, 320 us): 3 slots of 90 us + [310, 320) = 280 us,
// both directions: 560 us of link time, of which 30 us carried data.
// Reconfigurations: slot starts 0, 100, 200, 300 us < 320 us: 4.
TEST(Simulator, RotorNetByHand) {
  core::WorkloadData d;
  d.name = "hand";
  d.accelerators = 3;
  d.tasks = {task(0, 0, 1, 2'000'000), task(1, 1, 2, 1'000'000)};
  d.deps = {{TaskIndex(0), TaskIndex(1), 5 * kPsPerUs}};
  const core::Workload w(std::move(d));
  const auto s = sched::run_scheduler("rotornet", w, system(1, 10 * kPsPerUs), quick());
  ASSERT_TRUE(s.period_ps.has_value());
  EXPECT_EQ(*s.period_ps, 300 * kPsPerUs);
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.sends[0].issue_ps, 0);
  EXPECT_EQ(r.sends[0].finish_ps, 230 * kPsPerUs);
  EXPECT_EQ(r.sends[1].ready_ps, 235 * kPsPerUs);
  EXPECT_EQ(r.sends[1].finish_ps, 320 * kPsPerUs);
  EXPECT_EQ(r.metrics.iteration_time_ps, 320 * kPsPerUs);
  EXPECT_EQ(r.metrics.nic_peak_bytes, (std::vector<std::uint64_t>{2'000'000, 1'000'000, 0}));
  EXPECT_EQ(r.metrics.peak_nic_bytes, 2'000'000u);
  EXPECT_EQ(r.metrics.wait_total_ps, 285 * kPsPerUs);
  EXPECT_EQ(r.metrics.wait_max_ps, 210 * kPsPerUs);
  EXPECT_EQ(r.metrics.reconfigurations, 4u);
  EXPECT_EQ(r.metrics.circuits_set_up, 4u);
  ASSERT_TRUE(r.metrics.circuit_utilization.has_value());
  EXPECT_DOUBLE_EQ(*r.metrics.circuit_utilization, 30.0 / 560.0);
  EXPECT_EQ(r.metrics.bytes_sent, 3'000'000u);
  EXPECT_EQ(r.metrics.bytes_delivered, 3'000'000u);
}

// One 2 MB send 0 -> 1 issued at 0, and two switches that both bring the
// circuit {0,1} up at `up` (tau = 5 us) and keep it for 1 ms.
struct OneSendTwoSwitches {
  core::Workload w;
  schedule::Schedule s;
  explicit OneSendTwoSwitches(TimePs up) : w(make()) {
    s.scheduler = "hand";
    s.workload = "one";
    s.system = system(2, 5 * kPsPerUs);
    s.timelines.resize(2);
    for (auto& tl : s.timelines) tl.circuits = {interval(0, 1, up, kPsPerMs, 5 * kPsPerUs)};
  }
  static core::Workload make() {
    core::WorkloadData d;
    d.name = "one";
    d.accelerators = 2;
    d.tasks = {task(0, 0, 1, 2'000'000)};
    return core::Workload(std::move(d));
  }
};

// Both circuits up at 20 us, when all 2 MB wait in the NIC: they leave over
// both links at once and drain in 10 us; a circuit-only schedule may use
// every switch.
TEST(Simulator, BufferDrainsOverEverySwitch) {
  const OneSendTwoSwitches c(20 * kPsPerUs);
  const sim::SimResult r = sim::simulate(c.w, c.s);
  EXPECT_EQ(r.metrics.iteration_time_ps, 30 * kPsPerUs);
  EXPECT_EQ(r.metrics.peak_nic_bytes, 2'000'000u);
  // Up from 20 us to the end at 30 us on 2 switches, 2 directions: 40 us of
  // link time; 20 us carried data.
  EXPECT_DOUBLE_EQ(*r.metrics.circuit_utilization, 0.5);
  EXPECT_EQ(r.metrics.reconfigurations, 2u);
}

// Up from 5 us: 5 us of data (500 kB) wait, then the NIC sends at 2 links
// while still taking bytes at 1: the backlog empties after another 5 us,
// then it streams on one link. 2 MB: 20 us of ingestion; finished at 20 us
// exactly, when the last byte comes in.
TEST(Simulator, BacklogThenStreaming) {
  const OneSendTwoSwitches c(5 * kPsPerUs);
  sim::SimOptions o;
  o.mtu_bytes = 1000;
  const sim::SimResult r = sim::simulate(c.w, c.s, o);
  EXPECT_EQ(r.metrics.iteration_time_ps, 20 * kPsPerUs);
  // Peak at 5 us: 500,000 B waiting, plus the packet on the wire while bytes
  // still arrive: 501,000 B.
  EXPECT_EQ(r.metrics.peak_nic_bytes, 501'000u);
}

// A task-level schedule: the host holds a send until its scheduled start
// (here 50 us after it is ready), then streams it: one packet in memory. The
// second send reuses the circuit (same src and dst): no tau between them.
TEST(Simulator, TaskLevelStartsAtTheScheduledTime) {
  core::WorkloadData d;
  d.name = "strict";
  d.accelerators = 2;
  d.tasks = {task(7, 0, 1, 1'000'000), task(8, 0, 1, 1'000'000)};
  d.deps = {{TaskIndex(0), TaskIndex(1), 2 * kPsPerUs}};
  const core::Workload w(std::move(d));
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = "strict";
  s.system = system(1, 10 * kPsPerUs);
  s.tasks = {{7, SwitchId(0), 50 * kPsPerUs}, {8, SwitchId(0), 62 * kPsPerUs}};
  s.makespan_ps = 72 * kPsPerUs;
  s.timelines.resize(1);
  s.timelines[0].circuits = {interval(0, 1, 50 * kPsPerUs, 72 * kPsPerUs, 10 * kPsPerUs)};
  schedule::check_schedule(w, s);
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.sends[0].ready_ps, 0);
  EXPECT_EQ(r.sends[0].issue_ps, 50 * kPsPerUs);
  EXPECT_EQ(r.sends[0].finish_ps, 60 * kPsPerUs);
  EXPECT_EQ(r.sends[1].issue_ps, 62 * kPsPerUs);
  EXPECT_EQ(r.metrics.iteration_time_ps, 72 * kPsPerUs);
  EXPECT_EQ(r.metrics.peak_nic_bytes, 4096u);
  EXPECT_EQ(r.metrics.wait_total_ps, 50 * kPsPerUs);
  EXPECT_EQ(r.metrics.reconfigurations, 1u);
}

// Replaying every task-level scheduler's schedule gives its makespan to the
// picosecond; ideal is the critical path and a lower bound for everyone;
// every byte sent arrives.
TEST(Simulator, ReplayAndIdealBound) {
  const core::Workload w = llama(1, 4, 2);
  for (TimePs tau : {kPsPerUs, 100 * kPsPerUs, kPsPerMs}) {
    const core::System sys = system(2, tau);
    const auto ideal = sim::simulate(w, sched::run_scheduler("ideal", w, sys, quick()));
    const auto p = core::transmission_times(w, sys);
    EXPECT_EQ(ideal.metrics.iteration_time_ps, core::ideal_timing(w, p).makespan);
    EXPECT_EQ(ideal.metrics.wait_total_ps, 0);
    for (const char* name : {"flux-milp", "greedy", "rotornet", "rotornet-vlb", "bvn"}) {
      SCOPED_TRACE(std::string(name) + " tau " + core::format_duration(tau));
      const auto s = sched::run_scheduler(name, w, sys, quick());
      const auto r = sim::simulate(w, s);
      if (!s.tasks.empty()) {
        EXPECT_EQ(r.metrics.iteration_time_ps, s.makespan_ps);
      }
      EXPECT_GE(r.metrics.iteration_time_ps, ideal.metrics.iteration_time_ps);
      EXPECT_EQ(r.metrics.bytes_sent, w.total_bytes());
      EXPECT_EQ(r.metrics.bytes_delivered, w.total_bytes());
      for (std::size_t v = 0; v < w.num_tasks(); ++v) {
        EXPECT_GE(r.sends[v].finish_ps - r.sends[v].issue_ps, p[v]);
      }
      if (std::string(name) != "rotornet-vlb") {
        EXPECT_EQ(r.metrics.bytes_relayed, 0u);
      }
      ASSERT_TRUE(r.metrics.circuit_utilization.has_value());
      EXPECT_GT(*r.metrics.circuit_utilization, 0.0);
      EXPECT_LE(*r.metrics.circuit_utilization, 1.0);
    }
  }
}

// VLB relays through one intermediate: on the paper's TP4 x DP2 layer at
// tau = 10 us some bytes take two hops, all arrive, and VLB helps RotorNet.
TEST(Simulator, VlbRelaysAndDelivers) {
  const core::Workload w = llama(1, 4, 2);
  const core::System sys = system(2, 10 * kPsPerUs);
  const auto direct = sim::simulate(w, sched::run_scheduler("rotornet", w, sys, quick()));
  const auto vlb = sim::simulate(w, sched::run_scheduler("rotornet-vlb", w, sys, quick()));
  EXPECT_GT(vlb.metrics.bytes_relayed, 0u);
  EXPECT_LT(vlb.metrics.bytes_relayed, w.total_bytes());
  EXPECT_EQ(vlb.metrics.bytes_delivered, w.total_bytes());
  EXPECT_LT(vlb.metrics.iteration_time_ps, direct.metrics.iteration_time_ps);
}

TEST(Simulator, Deterministic) {
  const core::Workload w = llama(1, 4, 2);
  const auto s = sched::run_scheduler("rotornet-vlb", w, system(2, 10 * kPsPerUs), quick());
  const auto a = sim::simulate(w, s);
  const auto b = sim::simulate(w, s);
  ASSERT_EQ(a.sends.size(), b.sends.size());
  for (std::size_t v = 0; v < a.sends.size(); ++v) {
    EXPECT_EQ(a.sends[v].finish_ps, b.sends[v].finish_ps);
  }
  EXPECT_EQ(a.metrics.nic_peak_bytes, b.metrics.nic_peak_bytes);
  EXPECT_EQ(a.metrics.events, b.metrics.events);
}

// SimOptions::stop: a raised flag ends a run that reaches the
// kStopCheckEvents-th event, and a multi-trial run before its next trial;
// a run of fewer events completes.
TEST(Simulator, StopFlagEndsTheRun) {
  const core::Workload w = llama(1, 4, 2);
  const auto s = sched::run_scheduler("rotornet-vlb", w, system(2, 10 * kPsPerUs), quick());
  const std::atomic<bool> stop{true};
  sim::SimOptions o;
  const std::uint64_t events = sim::simulate(w, s, o).metrics.events;
  ASSERT_GE(events, sim::kStopCheckEvents);
  o.stop = &stop;
  EXPECT_THROW(sim::simulate(w, s, o), core::Stopped);
  o.trials = 3;
  EXPECT_THROW(sim::simulate_trials(w, s, o), core::Stopped);
  const std::atomic<bool> not_raised{false};
  o.stop = &not_raised;
  EXPECT_EQ(sim::simulate_trials(w, s, o).chosen.metrics.events, events);

  const core::Workload small = llama(1, 2, 1);
  const auto t = sched::run_scheduler("ideal", small, system(2, 10 * kPsPerUs), quick());
  o = sim::SimOptions{};
  const sim::SimResult whole = sim::simulate(small, t, o);
  ASSERT_LT(whole.metrics.events, sim::kStopCheckEvents);
  o.stop = &stop;
  EXPECT_EQ(sim::simulate(small, t, o).metrics.iteration_time_ps, whole.metrics.iteration_time_ps);
}

core::Workload pair_workload() {
  core::WorkloadData d;
  d.name = "pair";
  d.accelerators = 3;
  d.tasks = {task(0, 0, 1, 1000), task(1, 1, 2, 1000)};
  return core::Workload(std::move(d));
}

schedule::Schedule pair_schedule() {
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = "pair";
  s.system = system(1, kPsPerUs);
  s.timelines.resize(1);
  s.timelines[0].circuits = {interval(0, 1, kPsPerUs, 5 * kPsPerUs, kPsPerUs),
                             interval(1, 2, 7 * kPsPerUs, 9 * kPsPerUs, kPsPerUs)};
  return s;
}

TEST(Simulator, RejectsSchedulesThatDoNotFit) {
  const core::Workload w = pair_workload();
  EXPECT_NO_THROW(sim::simulate(w, pair_schedule()));

  auto overlap = pair_schedule();  // port 1 in two circuits at once
  overlap.timelines[0].circuits[1] = interval(1, 2, 3 * kPsPerUs, 9 * kPsPerUs, kPsPerUs);
  EXPECT_THROW(sim::simulate(w, overlap), schedule::ScheduleError);

  auto other = pair_schedule();
  other.workload = "another";
  try {
    sim::simulate(w, other);
    FAIL() << "accepted a schedule for another workload";
  } catch (const schedule::ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find("another"), std::string::npos) << e.what();
  }

  auto unknown_switch = pair_schedule();  // a task on switch 3 of 1
  unknown_switch.tasks = {{0, SwitchId(3), kPsPerUs}, {1, SwitchId(0), 7 * kPsPerUs}};
  EXPECT_THROW(sim::simulate(w, unknown_switch), schedule::ScheduleError);

  auto never = pair_schedule();  // nothing ever joins 1 and 2
  never.timelines[0].circuits.pop_back();
  try {
    sim::simulate(w, never);
    FAIL() << "simulated a send no circuit serves";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("never connects accelerators 1 and 2"), std::string::npos)
        << e.what();
  }
}

TEST(Simulator, BadOptions) {
  sim::SimOptions o;
  o.mtu_bytes = 0;
  EXPECT_THROW(sim::simulate(pair_workload(), pair_schedule(), o), core::InputError);
}

TEST(Simulator, WritesMetricsAndTrace) {
  const core::Workload w = pair_workload();
  const auto s = pair_schedule();
  const auto r = sim::simulate(w, s);
  std::ostringstream m;
  formats::write_metrics(m, w, s, {}, r.metrics);
  EXPECT_NE(m.str().find("\"format\": \"flux.metrics/v1\""), std::string::npos) << m.str();
  EXPECT_NE(m.str().find("\"iteration_time_s\": 7.01e-06"), std::string::npos) << m.str();
  std::ostringstream t;
  formats::write_chrome_trace(t, w, s, r);
  EXPECT_NE(t.str().find("\"name\": \"reconfigure 1-2\""), std::string::npos) << t.str();
  EXPECT_NE(t.str().find("\"name\": \"OCS 0\""), std::string::npos) << t.str();
}

// VLB's relay store: first in, first out, across the compaction that keeps
// a long-lived queue from growing without bound.
TEST(ChunkQueue, IsFifoAcrossCompaction) {
  sim::detail::ChunkQueue q;
  EXPECT_TRUE(q.empty());
  std::uint32_t pushed = 0, popped = 0;
  for (int round = 0; round < 5; ++round) {
    for (int k = 0; k < 150; ++k) q.push_back(sim::detail::Chunk{pushed++, 7});
    for (int k = 0; k < 120; ++k) {
      ASSERT_FALSE(q.empty());
      EXPECT_EQ(q.front().send, popped++);
      q.pop_front();
    }
  }
  while (!q.empty()) {
    EXPECT_EQ(q.front().send, popped++);
    q.pop_front();
  }
  EXPECT_EQ(popped, pushed);
}

// The engine's event queue pops by (t, key) exactly as a binary heap of
// Event::operator> does, with pushes at or after the time last popped
// (many at the same time, as a ring step's sends end together), and a look
// at the first event followed by a push before it (the engine looks ahead
// at the end of an instant, then starts scale-up sends).
TEST(RadixEventQueue, PopsInTheOrderOfABinaryHeap) {
  using sim::detail::Event;
  using sim::detail::EventKind;
  sim::detail::RadixEventQueue<Event> radix;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap;
  std::uint64_t x = 88172645463325252ull;  // xorshift64
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  TimePs now = 0;
  std::uint64_t popped = 0;
  for (int step = 0; step < 20000; ++step) {
    const std::uint64_t r = next();
    if (r % 3 != 0 || heap.empty()) {
      // A gap of 0 (now), a few ps, or up to about 2^40 ps.
      const TimePs gap = r % 5 == 0
                             ? 0
                             : (r % 5 == 1 ? static_cast<TimePs>(r >> 60)
                                           : static_cast<TimePs>((r >> 8) % (1ull << (r % 41))));
      const Event e(now + gap, static_cast<EventKind>((r >> 3) % 7),
                    static_cast<std::uint32_t>(r >> 32) % 50,
                    static_cast<std::uint32_t>(r >> 20) % 4, 0);
      radix.push(e);
      heap.push(e);
    } else {
      ASSERT_EQ(radix.top().t, heap.top().t);
      ASSERT_EQ(radix.top().key, heap.top().key);
      if (r % 7 == 0) {  // looked at, then an event before it
        const Event e(now + static_cast<TimePs>((r >> 9) % 3), EventKind::kReady, 1, 0, 0);
        radix.push(e);
        heap.push(e);
        ASSERT_EQ(radix.top().t, heap.top().t);
        ASSERT_EQ(radix.top().key, heap.top().key);
      }
      now = heap.top().t;
      radix.pop();
      heap.pop();
      ++popped;
    }
    ASSERT_EQ(radix.size(), heap.size());
  }
  while (!heap.empty()) {
    ASSERT_EQ(radix.top().t, heap.top().t);
    ASSERT_EQ(radix.top().key, heap.top().key);
    radix.pop();
    heap.pop();
    ++popped;
  }
  EXPECT_TRUE(radix.empty());
  EXPECT_GT(popped, 10000u);
}

}  // namespace
}  // namespace flux
