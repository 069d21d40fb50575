// Scheduling with a packet-switched scale-out fabric beside the OCS
// (System::packet_gbps; docs/model.md, "Routes"): a send no circuit joins
// under a partial wiring goes on core::kPacketSwitch and holds its source's
// packet egress and its destination's packet ingress, one transfer at a time
// per port, R = 0, conflicting with nothing else. Hand-computed instances
// fix the numbers; on tiny random instances flux and flux-milp must equal
// the brute force (tests/brute_force.hpp, two electrical classes), every
// lower bound must lie at or below it, greedy above and ideal below, and
// every schedule must validate and replay to its makespan with the packet
// sends counted; the baselines run and replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/routes.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "sched_test_util.hpp"
#include "wiring_instances.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;
using core::WiringKind;
constexpr TimePs kUs = core::kPsPerUs;

// Rails of `radix` domains of `k` ranks each over `planes` planes, with a
// packet fabric of `gbps` per NIC.
core::System packet_rails(std::uint32_t k, std::uint32_t radix, std::uint32_t planes, TimePs tau,
                          double gbps, TimePs latency = 0, double oversubscription = 1,
                          core::RoutePolicy route = core::RoutePolicy::kForward) {
  core::System s = testing::rails(k, radix, planes, tau);
  s.packet_gbps = gbps;
  s.packet_latency_ps = latency;
  s.packet_oversubscription = oversubscription;
  s.route = route;
  return s;
}

// Any sends between distinct ranks (each routable: a circuit, a forwarder
// or the packet fabric), up to one earlier parent each.
core::Workload any_dag(std::uint64_t seed, std::uint32_t sends, std::uint32_t n) {
  return testing::any_dag(seed, sends, n, "packet-");
}

// Every packet send of `s` (on the routed workload) is on kPacketSwitch and
// every other send off it; returns how many there are.
std::size_t check_packet_switches(const core::Workload& routed, const core::System& sys,
                                  const schedule::Schedule& s) {
  std::size_t packet = 0;
  for (const schedule::TaskAssignment& a : s.tasks) {
    const core::Task& t = routed.task(*routed.find(a.task_id));
    const bool on_packet = sys.fabric(t.src, t.dst) == core::Fabric::kPacket;
    EXPECT_EQ(a.sw == core::kPacketSwitch, on_packet) << "send " << a.task_id;
    packet += on_packet;
  }
  return packet;
}

TEST(PacketSched, PacketSendsShareOnlyTheirOwnEgressAndIngress) {
  // 6 ranks, no domains, pods {0, 1, 2} and {3, 4, 5}; 400 Gb/s NICs, 2 us
  // latency, oversubscription 2 between pods: a 100 kB send across pods
  // takes 2 + 800 kbit / 200 Gb/s = 6 us; the OCS send 1 us.
  const core::System sys = packet_rails(1, 3, 1, kUs, 400, 2 * kUs, 2);
  workload::WorkloadBuilder b("hand", 6);
  b.add_send(Rank(0), Rank(3), testing::kOneUsBytes);  // packet, egress 0
  b.add_send(Rank(0), Rank(4), testing::kOneUsBytes);  // packet, egress 0: after the first
  b.add_send(Rank(0), Rank(1), testing::kOneUsBytes);  // a circuit: beside them
  b.add_send(Rank(3), Rank(0), testing::kOneUsBytes);  // packet, ingress 0: beside them
  const core::Workload w = std::move(b).build();
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  EXPECT_EQ(p, (std::vector<TimePs>{6 * kUs, 6 * kUs, kUs, 6 * kUs}));
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, sys, p, timing);
  EXPECT_EQ(lb.critical_path_ps, 6 * kUs);
  EXPECT_EQ(lb.port_load_ps, 12 * kUs);  // egress 0: 2 p
  EXPECT_EQ(lb.port, Rank(0));
  EXPECT_EQ(lb.port_kind, PortKind::kPacketEgress);
  for (const char* name : {"flux", "greedy", "flux-milp"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = run_scheduler(name, w, sys, testing::exact_options());
    EXPECT_EQ(s.makespan_ps, 12 * kUs);
    EXPECT_EQ(s.lower_bound_ps, 12 * kUs);
    EXPECT_EQ(check_packet_switches(w, sys, s), 3u);
    ASSERT_EQ(s.tasks.size(), 4u);
    EXPECT_EQ(s.tasks[2].start_ps, 0);  // the circuit, at once (its first, no tau)
    EXPECT_EQ(s.tasks[3].start_ps, 0);
    EXPECT_EQ(std::min(s.tasks[0].start_ps, s.tasks[1].start_ps), 0);
    EXPECT_EQ(std::max(s.tasks[0].start_ps, s.tasks[1].start_ps), 6 * kUs);
    const sim::SimResult r = sim::simulate(w, s);
    EXPECT_EQ(r.metrics.iteration_time_ps, 12 * kUs);
    EXPECT_EQ(r.metrics.packet_sends, 3u);
    EXPECT_EQ(r.metrics.packet_bytes, 3 * testing::kOneUsBytes);
  }
  EXPECT_EQ(run_scheduler("ideal", w, sys, SchedulerOptions{}).makespan_ps, 6 * kUs);
}

TEST(PacketSched, ScaleUpAndPacketPortsAreSeparate) {
  // 8 ranks, domains of 2, pods of 2 domains ({0..3}, {4..7}); --route
  // packet, 400 Gb/s, 1 us latency, oversubscription 4. 0 -> 1 is inside a
  // domain (scale-up), 0 -> 3 within pod 0 on another rail (packet at
  // 400: 1 + 2 = 3 us), 0 -> 5 across pods (packet at 100: 1 + 8 = 9 us).
  const core::System sys = packet_rails(2, 2, 1, kUs, 400, kUs, 4, core::RoutePolicy::kPacket);
  workload::WorkloadBuilder b("hand2", 8);
  b.add_send(Rank(0), Rank(1), testing::kOneUsBytes);  // scale-up egress 0
  b.add_send(Rank(0), Rank(3), testing::kOneUsBytes);  // packet egress 0
  b.add_send(Rank(0), Rank(5), testing::kOneUsBytes);  // packet egress 0: after the other
  b.add_send(Rank(2), Rank(1), testing::kOneUsBytes);  // packet ingress 1, within pod 0
  const core::Workload w = std::move(b).build();
  EXPECT_EQ(sys.fabric(Rank(0), Rank(1)), core::Fabric::kScaleUp);
  EXPECT_EQ(sys.fabric(Rank(2), Rank(1)), core::Fabric::kPacket);
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  EXPECT_EQ(p[1], 3 * kUs);
  EXPECT_EQ(p[2], 9 * kUs);
  EXPECT_EQ(p[3], 3 * kUs);
  EXPECT_EQ(p[0], 333'334);  // NVLink 3 (2,400 Gb/s): 800 kbit in 333.33 ns, rounded up
  for (const char* name : {"flux", "greedy", "flux-milp"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = run_scheduler(name, w, sys, testing::exact_options());
    // The two packet sends from 0 back to back; the scale-up send and the
    // packet send into 1 (ingress 1, not 0's) beside them.
    EXPECT_EQ(s.makespan_ps, 12 * kUs);
    EXPECT_EQ(s.lower_bound_ps, 12 * kUs);
    EXPECT_EQ(s.tasks[0].sw, core::kScaleUpSwitch);
    EXPECT_EQ(s.tasks[0].start_ps, 0);
    EXPECT_EQ(s.tasks[3].start_ps, 0);
    EXPECT_EQ(check_packet_switches(w, sys, s), 3u);
    const sim::SimResult r = sim::simulate(w, s);
    EXPECT_EQ(r.metrics.iteration_time_ps, 12 * kUs);
    EXPECT_EQ(r.metrics.packet_sends, 3u);
    EXPECT_EQ(r.metrics.scaleup_sends, 1u);
  }
}

struct Case {
  std::string name;
  std::uint32_t n;
  core::System sys;
};

std::vector<Case> cases(TimePs tau) {
  core::System full = packet_rails(1, 3, 1, tau, 400);
  full.duplex = core::Duplex::kFull;
  return {
      // Pods {0, 1, 2} and {3, 4, 5}: every send across pods is a packet.
      {"rails k1 radix3 s1", 6, packet_rails(1, 3, 1, tau, 400)},
      {"rails k1 radix3 s2 latency oversub", 6, packet_rails(1, 3, 2, tau, 400, kUs / 2, 2)},
      {"rails k1 radix3 s1 full duplex", 6, full},
      // Domains of 2, pods {0..3} and {4..7}: another rail of the pod is
      // forwarded (or a packet under --route packet), another pod a packet.
      {"rails k2 radix2 s1 route packet", 8,
       packet_rails(2, 2, 1, tau, 400, kUs / 2, 1, core::RoutePolicy::kPacket)},
      {"rails k2 radix2 s1 forward oversub", 8, packet_rails(2, 2, 1, tau, 800, 0, 2)},
  };
}

TEST(PacketSched, FluxEqualsTheBruteForceWithAPacketFabric) {
  int instances = 0, greedy_missed = 0;
  std::uint64_t packet_sends = 0, forwarded = 0;
  for (TimePs tau : {TimePs{0}, kUs, 5 * kUs}) {
    for (const Case& c : cases(tau)) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const core::Workload w = any_dag(seed, 6, c.n);
        const core::Routed routed(w, c.sys);
        const core::Workload& rw = routed.workload();
        if (rw.num_tasks() > 8) continue;  // the brute force's reach
        SCOPED_TRACE(c.name + " tau " + std::to_string(tau) + " seed " + std::to_string(seed));
        packet_sends += routed.packet_sends();
        forwarded += routed.forwarded_sends();
        const TimePs optimum = testing::brute_force(rw, c.sys);
        const auto p = core::transmission_times(rw, c.sys);
        EXPECT_LE(lower_bounds(rw, c.sys, p, core::ideal_timing(rw, p)).best(), optimum);
        for (const char* name : {"flux", "greedy", "ideal"}) {
          const std::string sched(name);
          const schedule::Schedule s = run_scheduler(name, w, c.sys, testing::exact_options());
          if (sched == "flux") {
            EXPECT_EQ(s.makespan_ps, optimum);
            ASSERT_TRUE(s.lower_bound_ps.has_value());
            EXPECT_LE(*s.lower_bound_ps, optimum);
          } else if (sched == "greedy") {
            EXPECT_GE(s.makespan_ps, optimum);
            EXPECT_LE(*s.lower_bound_ps, optimum);
            greedy_missed += s.makespan_ps > optimum;
          } else {
            EXPECT_LE(s.makespan_ps, optimum);
          }
          if (sched != "ideal") {
            EXPECT_EQ(check_packet_switches(rw, c.sys, s), routed.packet_sends()) << name;
          }
          const sim::SimResult r = sim::simulate(w, s);
          EXPECT_EQ(r.metrics.iteration_time_ps, s.makespan_ps) << name;
          EXPECT_EQ(r.metrics.packet_sends, routed.packet_sends()) << name;
        }
        ++instances;
      }
    }
  }
  EXPECT_EQ(instances, 90);
  EXPECT_EQ(packet_sends, 318u);
  EXPECT_EQ(forwarded, 18u);
  EXPECT_GE(greedy_missed, 5);  // not all trivial
}

// The MILP on instances where the greedy schedule misses the optimum (so
// CBC does the work): pairs on the packet egress and ingress get ordering
// binaries, packet sends no switch columns.
TEST(PacketSched, FluxMilpEqualsTheBruteForce) {
  int solved = 0;
  for (const Case& c : cases(kUs)) {
    int here = 0;
    for (std::uint64_t seed = 1; seed <= 40 && here < 2; ++seed) {
      const core::Workload w = any_dag(seed, 6, c.n);
      const core::Routed routed(w, c.sys);
      if (routed.workload().num_tasks() > 8 || routed.packet_sends() == 0) continue;
      const TimePs optimum = testing::brute_force(routed.workload(), c.sys);
      if (run_scheduler("greedy", w, c.sys, SchedulerOptions{}).makespan_ps == optimum) continue;
      SCOPED_TRACE(c.name + " seed " + std::to_string(seed));
      const schedule::Schedule m = run_scheduler("flux-milp", w, c.sys, testing::exact_options());
      EXPECT_EQ(m.makespan_ps, optimum);
      ASSERT_TRUE(m.lower_bound_ps.has_value());
      EXPECT_LE(*m.lower_bound_ps, optimum);
      EXPECT_EQ(check_packet_switches(routed.workload(), c.sys, m), routed.packet_sends());
      const sim::SimResult r = sim::simulate(w, m);
      EXPECT_EQ(r.metrics.iteration_time_ps, m.makespan_ps);
      EXPECT_EQ(r.metrics.packet_sends, routed.packet_sends());
      ++here;
      ++solved;
    }
  }
  EXPECT_GE(solved, 5);
}

// The baselines build circuits for the OCS traffic only (inside the
// groups); the simulator runs the packet sends on their ports.
TEST(PacketSched, BaselinesRunWithAPacketFabric) {
  for (const Case& c : cases(2 * kUs)) {
    const core::Workload w = any_dag(5, 10, c.n);
    const core::Routed routed(w, c.sys);
    ASSERT_GT(routed.packet_sends(), 0u) << c.name;
    for (const char* name : {"rotornet", "rotornet-vlb", "bvn"}) {
      SCOPED_TRACE(c.name + " " + name);
      const schedule::Schedule s = run_scheduler(name, w, c.sys, SchedulerOptions{});
      for (const schedule::SwitchTimeline& tl : s.timelines) {
        for (const schedule::CircuitInterval& iv : tl.circuits) {
          EXPECT_TRUE(c.sys.joined(iv.a, iv.b)) << iv.a.value() << "-" << iv.b.value();
        }
      }
      const sim::SimResult r = sim::simulate(w, s);
      EXPECT_GT(r.metrics.iteration_time_ps, 0);
      EXPECT_EQ(r.metrics.packet_sends, routed.packet_sends());
    }
  }
}

}  // namespace
}  // namespace flux::sched
