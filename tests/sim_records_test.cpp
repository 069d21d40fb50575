// The simulator's output pinned send by send: a fingerprint of every send's
// (ready, issue, finish), every NIC's peak, the event count, the metrics and
// the plan as executed, for each scheduler's replay (strict, ordered under
// jitter, VLB, periodic calendars, scale-up domains, a packet fabric under
// rails, a cut). The engine's state may be laid out in any way (issue 33:
// compact state, sends expanded as they run); what it computes must not move
// by a picosecond or an event. The pins were computed by this file's first
// test built against the simulator as it was before its state was compacted
// (a451f38). A changed fingerprint prints the new value: change the pin only
// with a model change that docs/model.md explains.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "flux/core/hash.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "sched_test_util.hpp"
#include "wiring_instances.hpp"

namespace flux {
namespace {

using core::kPsPerUs;
using core::TimePs;
using sched::testing::llama;

struct Fingerprint {
  std::uint64_t h = 0x243f6a8885a308d3;
  void add(std::uint64_t x) { h = core::splitmix64(h ^ x); }
  void add_signed(std::int64_t x) { add(static_cast<std::uint64_t>(x)); }
};

void add_metrics(Fingerprint& f, const sim::Metrics& m) {
  f.add_signed(m.iteration_time_ps);
  f.add(m.peak_nic_bytes);
  for (const std::uint64_t b : m.nic_peak_bytes) f.add(b);
  f.add(m.reconfigurations);
  f.add(m.circuits_set_up);
  f.add(m.circuit_utilization ? std::bit_cast<std::uint64_t>(*m.circuit_utilization) : 1);
  f.add_signed(m.wait_total_ps);
  f.add_signed(m.wait_max_ps);
  f.add(m.bytes_sent);
  f.add(m.bytes_delivered);
  f.add(m.bytes_relayed);
  f.add(m.scaleup_sends);
  f.add(m.scaleup_bytes);
  f.add_signed(m.scaleup_wait_total_ps);
  f.add_signed(m.scaleup_wait_max_ps);
  f.add(m.packet_sends);
  f.add(m.packet_bytes);
  f.add(m.events);
}

std::uint64_t metrics_fingerprint(const sim::Metrics& m) {
  Fingerprint f;
  add_metrics(f, m);
  return f.h;
}

std::uint64_t fingerprint(const sim::SimResult& r) {
  Fingerprint f;
  for (const sim::SendRecord& s : r.sends) {
    f.add_signed(s.ready_ps);
    f.add_signed(s.issue_ps);
    f.add_signed(s.finish_ps);
  }
  add_metrics(f, r.metrics);
  if (r.at_cut) add_metrics(f, *r.at_cut);
  if (r.executed) {  // ordered execution: the plan as it ran
    for (const schedule::TaskAssignment& a : r.executed->tasks) {
      f.add(a.task_id);
      f.add(a.sw.value());
      f.add_signed(a.start_ps);
    }
    for (const schedule::SwitchTimeline& tl : r.executed->timelines) {
      for (const schedule::CircuitInterval& c : tl.circuits) {
        f.add((std::uint64_t{c.a.value()} << 32) | c.b.value());
        f.add_signed(c.setup_ps);
        f.add_signed(c.up_ps);
        f.add_signed(c.down_ps);
      }
    }
  }
  return f.h;
}

core::System with_switches(std::uint32_t switches, TimePs tau) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  return s;
}

sched::SchedulerOptions quick() {
  sched::SchedulerOptions o;
  o.time_limit_s = 20;
  return o;
}

struct Case {
  std::string name;
  const core::Workload* w;
  core::System sys;
  std::vector<std::string> schedulers;
};

// Pins: one line per (case, scheduler), in the order the loops visit them.
const std::vector<std::uint64_t> kPins = {
    0x6c236bb800b6141e, 0x66e36f05dc100d53, 0x1de19fdf540c1b6e, 0x1f2f26cbc45c3635,
    0xe5c2bc7b553e5584, 0x681555174639fac9, 0xfc7a72948187b077, 0x6afa45c10729deab,
    0x7f26b4c88510459f, 0xfd1ce6955de09a21, 0x1a17996b0d0ef918, 0x6c236bb800b6141e,
    0x66e36f05dc100d53, 0x81c44de6a8cbc3fd, 0x758eec12e84c8232, 0xc96d7371eb3a178e,
    0xdcd9535df20e20d3, 0x5bc0a9c031ca843a, 0x344436ad1b04c906, 0xf9b0e1389fd799d3,
    0xf4e11cd351f69f68, 0x36ee40c5d9ed5a2d, 0x2503067172d67035, 0xe755e9d0a11b2af2,
    0x9146bd6ba0468cd9, 0x4dc03cb2188ab44e, 0xcb1a6583f62daafd, 0xb6b64b7cfd9a9e66,
    0x534207938ef56abe, 0x1e04ed0444194a05, 0x8f1207541f1221cb, 0x866f221cfafd7873,
    0xe79832110394fc81, 0x6bfb51598480cd66, 0xf7d0144c76b2f706, 0x603eb8997ca4a742,
    0xbc87e6e67f98c452, 0x90d3143be2a1c720, 0xb88e21d5d7d42e17, 0x25a15e71f1ff7b71,
    0xafa9470126a671a7, 0x65e51d8f95635e47, 0x88794b264b8b94c9,
};

// The replays the pins are of: workloads, systems and schedulers.
struct Instances {
  core::Workload paper = llama(1, 4, 2);
  core::Workload domains = llama(1, 8, 4);
  core::Workload wide = llama(2, 4, 8);
  core::Workload any = sched::testing::any_dag(3, 40, 8, "records-");
  std::vector<Case> cases;
  Instances() {
    core::System scaleup = with_switches(2, 100 * kPsPerUs);
    scaleup.scaleup_size = 8;
    scaleup.scaleup_gbps = 1600;
    core::System packet = sched::testing::rails(2, 2, 1, 5 * kPsPerUs);
    packet.packet_gbps = 400;
    packet.packet_latency_ps = kPsPerUs / 2;
    const std::vector<std::string> all = {"ideal", "greedy", "rotornet", "rotornet-vlb", "bvn"};
    cases = {
        {"paper tau 10us", &paper, with_switches(2, 10 * kPsPerUs), all},
        {"paper tau 1ms", &paper, with_switches(3, 1000 * kPsPerUs), all},
        {"domains of 8", &domains, scaleup, all},
        {"32 ranks, 2 layers", &wide, with_switches(4, 20 * kPsPerUs), {"greedy", "rotornet-vlb"}},
        {"rails and packets", &any, packet, {"ideal", "greedy"}},
    };
  }
};

// Compute jitter over 3 trials, the last one's records kept.
sim::SimOptions jittered() {
  sim::SimOptions o;
  o.perturbation.compute_jitter = 0.2;
  o.perturbation.seed = 11;
  o.trials = 3;
  o.trace_trial = 2;
  return o;
}

TEST(SimRecords, EveryReplayIsPinnedSendBySend) {
  const Instances in;
  std::vector<std::uint64_t> got;
  for (const Case& c : in.cases) {
    for (const std::string& name : c.schedulers) {
      SCOPED_TRACE(c.name + ", " + name);
      const schedule::Schedule s = sched::run_scheduler(name, *c.w, c.sys, quick());
      const sim::SimResult r = sim::simulate(*c.w, s);
      ASSERT_FALSE(r.sends.empty());  // (of the routed workload: forwarded sends are hops)
      got.push_back(fingerprint(r));
      // The same run cut half way, and (task-level plans) ordered under jitter.
      sim::SimOptions cut;
      cut.cut_ps = r.metrics.iteration_time_ps / 2;
      got.push_back(fingerprint(sim::simulate(*c.w, s, cut)));
      if (!s.tasks.empty()) {
        const sim::TrialsResult t = sim::simulate_trials(*c.w, s, jittered());
        EXPECT_EQ(t.chosen.sends.size(), r.sends.size());  // the trace trial's
        Fingerprint f;
        f.add(fingerprint(t.chosen));
        for (const sim::Metrics& m : t.trials) add_metrics(f, m);
        got.push_back(f.h);
      }
    }
  }
  std::string listing;
  for (const std::uint64_t h : got) {
    char line[32];
    std::snprintf(line, sizeof line, "0x%016llx,\n", static_cast<unsigned long long>(h));
    listing += line;
  }
  EXPECT_EQ(got, kPins) << "the fingerprints now:\n" << listing;
}

// SimOptions::keep_records off: no records, and the same metrics (summed as
// each send finishes either way), cut and per trial included.
TEST(SimRecords, MetricsWithoutRecordsAreTheSame) {
  const Instances in;
  for (const Case& c : in.cases) {
    for (const std::string& name : c.schedulers) {
      SCOPED_TRACE(c.name + ", " + name);
      const schedule::Schedule s = sched::run_scheduler(name, *c.w, c.sys, quick());
      sim::SimOptions cut;
      cut.cut_ps = sim::simulate(*c.w, s).metrics.iteration_time_ps / 2;
      const sim::SimResult kept = sim::simulate(*c.w, s, cut);
      cut.keep_records = false;
      const sim::SimResult bare = sim::simulate(*c.w, s, cut);
      EXPECT_FALSE(kept.sends.empty());
      EXPECT_TRUE(bare.sends.empty());
      ASSERT_TRUE(kept.at_cut && bare.at_cut);
      EXPECT_EQ(metrics_fingerprint(bare.metrics), metrics_fingerprint(kept.metrics));
      EXPECT_EQ(metrics_fingerprint(*bare.at_cut), metrics_fingerprint(*kept.at_cut));
      if (s.tasks.empty()) continue;
      sim::SimOptions jitter = jittered();
      const sim::TrialsResult t = sim::simulate_trials(*c.w, s, jitter);
      jitter.keep_records = false;
      const sim::TrialsResult b = sim::simulate_trials(*c.w, s, jitter);
      EXPECT_TRUE(b.chosen.sends.empty());
      ASSERT_EQ(b.trials.size(), t.trials.size());
      for (std::size_t k = 0; k < t.trials.size(); ++k) {
        EXPECT_EQ(metrics_fingerprint(b.trials[k]), metrics_fingerprint(t.trials[k]));
      }
    }
  }
}

}  // namespace
}  // namespace flux
