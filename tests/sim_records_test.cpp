// The simulator's output pinned send by send: a fingerprint of every send's
// (ready, issue, finish), every NIC's peak, the event count and the metrics,
// for each scheduler's replay (strict, ordered under jitter, VLB, periodic
// calendars, scale-up domains, a packet fabric under rails, a cut). The
// engine's state may be laid out in any way (issue 33: compact state, sends
// expanded as they run); what it computes must not move by a picosecond or
// an event. A changed fingerprint prints the new value: change the pin only
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
  f.add(m.packet_sends);
  f.add(m.packet_bytes);
  f.add(m.events);
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
    0x21ad4015a68a887a, 0xe032022c6e88b35e, 0x65ca803edbf58dcc, 0xccf5ceabd0b6e44e,
    0x0ab2b566bd01330a, 0xf9f7443f85bebe30, 0xeed112df58f6f92f, 0xc7d483a43d0788f9,
    0xc3ceeff40804781a, 0x271804dbac2a0601, 0x66abc768f593eb47, 0x21ad4015a68a887a,
    0xe032022c6e88b35e, 0xa889088f471b985f, 0x6594d1ec39af1ea2, 0xa242ff4f44fcfc5d,
    0xa573cfbed9771829, 0xd342d4d79f4fcbcb, 0x2030c6510f2e38c7, 0xe54425068c4f1ead,
    0x213e01668ab59ef7, 0x62600241a8cd4067, 0xe9fd6f691afd583a, 0x25c71daabb35d821,
    0x8c4b224d3a07bd1d, 0x530af201f46e3274, 0xbe448ed573b94b3e, 0x0c0652ae34ff9910,
    0xf0737e46d17da620, 0x481debb24d43e557, 0x766b2b7575ff5f78, 0xd10731a4ec8f9cc3,
    0x9c5c8e79acf95258, 0xd141f1851942201d, 0xd2cc8e62c97c7976, 0x1ed6f82c52d2a139,
    0x1f621e86cdc720af, 0x098921a01205966e, 0x699ea5e94c276f58, 0x8dbd92a66e767ac3,
    0xb81f4cb7deb43e66, 0xdbf9532c0ab6f130, 0xfc5375b6fdf40878,
};

TEST(SimRecords, EveryReplayIsPinnedSendBySend) {
  const core::Workload paper = llama(1, 4, 2);
  const core::Workload domains = llama(1, 8, 4);
  const core::Workload wide = llama(2, 4, 8);
  const core::Workload any = sched::testing::any_dag(3, 40, 8, "records-");
  core::System scaleup = with_switches(2, 100 * kPsPerUs);
  scaleup.scaleup_size = 8;
  scaleup.scaleup_gbps = 1600;
  core::System packet = sched::testing::rails(2, 2, 1, 5 * kPsPerUs);
  packet.packet_gbps = 400;
  packet.packet_latency_ps = kPsPerUs / 2;
  const std::vector<std::string> all = {"ideal", "greedy", "rotornet", "rotornet-vlb", "bvn"};
  const std::vector<Case> cases = {
      {"paper tau 10us", &paper, with_switches(2, 10 * kPsPerUs), all},
      {"paper tau 1ms", &paper, with_switches(3, 1000 * kPsPerUs), all},
      {"domains of 8", &domains, scaleup, all},
      {"32 ranks, 2 layers", &wide, with_switches(4, 20 * kPsPerUs), {"greedy", "rotornet-vlb"}},
      {"rails and packets", &any, packet, {"ideal", "greedy"}},
  };
  std::vector<std::uint64_t> got;
  for (const Case& c : cases) {
    for (const std::string& name : c.schedulers) {
      SCOPED_TRACE(c.name + ", " + name);
      const schedule::Schedule s = sched::run_scheduler(name, *c.w, c.sys, quick());
      const sim::SimResult r = sim::simulate(*c.w, s);
      got.push_back(fingerprint(r));
      // The same run cut half way, and (task-level plans) ordered under jitter.
      sim::SimOptions cut;
      cut.cut_ps = r.metrics.iteration_time_ps / 2;
      got.push_back(fingerprint(sim::simulate(*c.w, s, cut)));
      if (!s.tasks.empty()) {
        sim::SimOptions jitter;
        jitter.perturbation.compute_jitter = 0.2;
        jitter.perturbation.seed = 11;
        jitter.trials = 3;
        jitter.trace_trial = 2;
        const sim::TrialsResult t = sim::simulate_trials(*c.w, s, jitter);
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

}  // namespace
}  // namespace flux
