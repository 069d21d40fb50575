// Scheduling under wirings other than full (docs/model.md, "Wiring"): tiny
// instances whose pairs are partly joined by no switch, where flux and
// flux-milp (scheduling on planes) must equal the brute force (choosing
// among the physical switches that have both endpoints), every lower bound
// must lie at or below it, and every schedule must validate and replay to
// its makespan; the baselines' circuits stay inside the groups; tampered
// schedules and unroutable workloads are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/timeline.hpp"
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

using testing::rails;

// A wiring file's content: switches with the given ports.
core::System file_wiring(std::uint32_t n, std::vector<std::vector<Rank>> ports, TimePs tau) {
  core::System s = testing::system_with(tau, 1);
  s.wiring = {WiringKind::kExplicit, "test.json"};
  s.wiring_ports =
      std::make_shared<const core::Wiring>(core::Wiring::from_ports(n, 8, std::move(ports)));
  s.switches = s.wiring_ports->planes();
  return s;
}

// Random sends among n ranks that the system can carry: inside a scale-up
// domain or between ranks a switch joins; up to two earlier parents each.
core::Workload routable_dag(std::uint64_t seed, std::uint32_t sends, std::uint32_t n,
                            const core::System& sys) {
  std::mt19937_64 rng(seed);
  workload::WorkloadBuilder b("wired-" + std::to_string(seed), n);
  for (std::uint32_t v = 0; v < sends; ++v) {
    std::vector<std::uint32_t> peers;
    std::uint32_t src = 0;
    do {
      src = static_cast<std::uint32_t>(rng() % n);
      peers.clear();
      for (std::uint32_t d = 0; d < n; ++d) {
        if (d != src && (sys.fabric(Rank(src), Rank(d)) == core::Fabric::kScaleUp ||
                         sys.joined(Rank(src), Rank(d)))) {
          peers.push_back(d);
        }
      }
    } while (peers.empty());
    const TaskIndex t = b.add_send(Rank(src), Rank(peers[rng() % peers.size()]),
                                   testing::kOneUsBytes * (1 + rng() % 4));
    if (v > 0 && rng() % 3 == 0) {
      b.add_dep(TaskIndex(static_cast<std::uint32_t>(rng() % v)), t,
                static_cast<TimePs>(rng() % 3) * 2 * kUs);
    }
  }
  return std::move(b).build();
}

struct Case {
  std::string name;
  std::uint32_t n;
  core::System sys;
};

std::vector<Case> cases(TimePs tau) {
  return {
      // Pods of 3 ranks (no domains): {0, 1, 2} and {3, 4, 5}, one switch
      // per plane each.
      {"rails k1 radix3 s1", 6, rails(1, 3, 1, tau)},
      {"rails k1 radix3 s2", 6, rails(1, 3, 2, tau)},
      // Domains of 2, pods of 2 domains: groups {0, 2}, {1, 3}, {4, 6},
      // {5, 7}; the rest talk over the scale-up fabric or not at all.
      {"rails k2 radix2 s1", 8, rails(2, 2, 1, tau)},
      // A wiring file: groups {0, 3} and {1, 2, 4}, two planes.
      {"file 2 planes", 5,
       file_wiring(5,
                   {{Rank(0), Rank(3)},
                    {Rank(1), Rank(2), Rank(4)},
                    {Rank(3), Rank(0)},
                    {Rank(4), Rank(1), Rank(2)}},
                   tau)},
  };
}

TEST(WiringSched, FluxEqualsTheBruteForceOnPartialWirings) {
  int instances = 0, greedy_missed = 0;
  for (TimePs tau : {TimePs{0}, kUs, 5 * kUs}) {
    for (const Case& c : cases(tau)) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const core::Workload w = routable_dag(seed, 7, c.n, c.sys);
        SCOPED_TRACE(c.name + " tau " + std::to_string(tau) + " seed " + std::to_string(seed));
        const TimePs optimum = testing::brute_force(w, c.sys);
        const schedule::Schedule f = run_scheduler("flux", w, c.sys, testing::exact_options());
        EXPECT_EQ(f.makespan_ps, optimum);
        ASSERT_TRUE(f.lower_bound_ps.has_value());
        EXPECT_LE(*f.lower_bound_ps, optimum);
        const auto p = core::transmission_times(w, c.sys);
        EXPECT_LE(lower_bounds(w, c.sys, p, core::ideal_timing(w, p)).best(), optimum);
        for (const char* name : {"flux", "greedy", "ideal"}) {
          const schedule::Schedule s = run_scheduler(name, w, c.sys, testing::exact_options());
          EXPECT_GE(s.makespan_ps, std::string(name) == "ideal" ? 0 : optimum) << name;
          greedy_missed += std::string(name) == "greedy" && s.makespan_ps > optimum;
          EXPECT_EQ(sim::simulate(w, s).metrics.iteration_time_ps, s.makespan_ps) << name;
        }
        ++instances;
      }
    }
  }
  EXPECT_EQ(instances, 72);
  EXPECT_GE(greedy_missed, 5);  // not all trivial
}

// The MILP on one instance per wiring where the greedy schedule misses the
// optimum (flux-milp solves nothing when the greedy one meets a bound), so
// CBC's model, switch columns on planes, does the work.
TEST(WiringSched, FluxMilpEqualsTheBruteForce) {
  int solved = 0;
  for (const Case& c : cases(kUs)) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const core::Workload w = routable_dag(seed, 7, c.n, c.sys);
      const TimePs optimum = testing::brute_force(w, c.sys);
      if (run_scheduler("greedy", w, c.sys, SchedulerOptions{}).makespan_ps == optimum) continue;
      SCOPED_TRACE(c.name + " seed " + std::to_string(seed));
      const schedule::Schedule m = run_scheduler("flux-milp", w, c.sys, testing::exact_options());
      EXPECT_EQ(m.makespan_ps, optimum);
      if (m.lower_bound_ps) {
        EXPECT_LE(*m.lower_bound_ps, optimum);
      }
      ++solved;
      break;
    }
  }
  EXPECT_GE(solved, 3);
}

// The baselines' circuits join only ranks of one group (the validator in
// run_scheduler checks; here also directly), and they replay.
TEST(WiringSched, BaselinesKeepTheirCircuitsInsideGroups) {
  for (const Case& c : cases(2 * kUs)) {
    const core::Workload w = routable_dag(5, 8, c.n, c.sys);
    for (const char* name : {"rotornet", "rotornet-vlb", "bvn"}) {
      SCOPED_TRACE(c.name + " " + name);
      const schedule::Schedule s = run_scheduler(name, w, c.sys, SchedulerOptions{});
      std::size_t circuits = 0;
      for (const schedule::SwitchTimeline& tl : s.timelines) {
        for (const schedule::CircuitInterval& iv : tl.circuits) {
          EXPECT_TRUE(c.sys.joined(iv.a, iv.b)) << iv.a.value() << "-" << iv.b.value();
          ++circuits;
        }
      }
      EXPECT_GT(circuits, 0u);
      EXPECT_GT(sim::simulate(w, s).metrics.iteration_time_ps, 0);
    }
  }
}

TEST(WiringSched, UnroutableSendsAreRefusedNamingTheSend) {
  const core::System sys = rails(2, 2, 1, kUs);  // 8 ranks: pods {0..3} and {4..7}
  workload::WorkloadBuilder b("cross", 8);
  b.add_send(Rank(0), Rank(2), testing::kOneUsBytes);  // rail 0, one pod: joined
  b.add_send(Rank(0), Rank(3), testing::kOneUsBytes);  // rails 0 and 1: forwarded by rank 1
  b.add_send(Rank(0), Rank(5), testing::kOneUsBytes);  // another pod: no route
  const core::Workload w = std::move(b).build();
  try {
    (void)run_scheduler("greedy", w, sys, SchedulerOptions{});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "tasks[2]");
    EXPECT_EQ(std::string(e.what()),
              "tasks[2] = send 2: no route from rank 0 (rail 0, pod 0) to rank 5 (rail 1, pod 1): "
              "no switch joins them under --wiring rails, nor one of the source's scale-up domain "
              "(pods of 2 domains), and there is no packet fabric (--packet-gbps)");
  }
  // A library caller handing the unrouted workload to a bound is told so.
  workload::WorkloadBuilder b2("fwd", 8);
  b2.add_send(Rank(0), Rank(3), testing::kOneUsBytes);
  try {
    (void)core::transmission_times(std::move(b2).build(), sys);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("goes through rank 1 over the scale-up fabric"),
              std::string::npos)
        << e.what();
  }
}

// Any sends between distinct ranks, forwarded where no switch joins them
// (rails, one pod: another rail goes through the source's domain-mate).
using testing::any_dag;

// The routed workload by its definition (core/routes.hpp): two hops per
// forwarded send, ids, bytes, release, tail and edges where they belong.
TEST(WiringRoutes, ForwardedSendsBecomeTwoHops) {
  const core::System sys = rails(2, 4, 1, kUs);  // 8 ranks, 4 domains, one pod
  workload::WorkloadBuilder b("fwd", 8);
  const TaskIndex a = b.add_send(Rank(0), Rank(2), 100);  // rail 0 to rail 0: a circuit
  const TaskIndex x = b.add_send(Rank(0), Rank(3), 200);  // rail 0 to rail 1: via rank 1
  const TaskIndex c = b.add_send(Rank(3), Rank(4), 300);  // rail 1 to rail 0: via rank 2
  b.raise_release(x, 5);
  b.raise_tail(x, 7);
  b.add_dep(a, x, 11);
  b.add_dep(x, c, 13);
  const core::Workload w = std::move(b).build();
  const core::Routed r(w, sys);
  EXPECT_EQ(r.forwarded_sends(), 2u);
  EXPECT_EQ(r.forwarded_bytes(), 500u);
  const core::Workload& rw = r.workload();
  ASSERT_EQ(rw.num_tasks(), 5u);
  const auto t = rw.tasks();
  // a; x's hops (0 -> 1 scale-up, 1 -> 3 circuit); c's hops (3 -> 2, 2 -> 4).
  EXPECT_EQ(t[1].id, w.task(x).id);
  EXPECT_EQ(t[1].dst, Rank(1));
  EXPECT_EQ(t[1].release_ps, 5);
  EXPECT_EQ(t[1].tail_ps, 0);
  EXPECT_EQ(t[2].src, Rank(1));
  EXPECT_EQ(t[2].dst, Rank(3));
  EXPECT_EQ(t[2].tail_ps, 7);
  EXPECT_EQ(t[2].id, 3u);  // above every id (0, 1, 2), in send order
  EXPECT_EQ(t[4].id, 4u);
  EXPECT_EQ(t[3].dst, Rank(2));
  EXPECT_EQ(sys.fabric(t[1].src, t[1].dst), core::Fabric::kScaleUp);
  EXPECT_TRUE(sys.joined(t[2].src, t[2].dst));
  std::vector<std::tuple<std::uint32_t, std::uint32_t, TimePs>> deps;
  for (const core::Dep& e : rw.deps())
    deps.emplace_back(e.from.value(), e.to.value(), e.compute_ps);
  std::sort(deps.begin(), deps.end());
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, TimePs>> want = {
      {0, 1, 11}, {1, 2, 0}, {2, 3, 13}, {3, 4, 0}};
  EXPECT_EQ(deps, want);
  // A full wiring routes nothing: the workload itself.
  EXPECT_EQ(&core::Routed(w, testing::system_with(kUs, 1)).workload(), &w);
  // Without domains nothing forwards: refused by name.
  try {
    (void)core::Routed(w, rails(1, 4, 1, kUs));
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("send 2: no route from rank 3 (rail 0, pod 0) to rank 4 "
                                         "(rail 0, pod 1)"),
              std::string::npos)
        << e.what();
  }
}

// Forwarding on tiny instances: flux schedules the routed workload at the
// brute force's optimum of it; bounds below it; every schedule replays.
TEST(WiringRoutes, FluxEqualsTheBruteForceWithForwarding) {
  int forwarded = 0;
  for (TimePs tau : {TimePs{0}, 2 * kUs}) {
    for (std::uint32_t planes : {1u, 2u}) {
      const core::System sys = rails(2, 4, planes, tau);  // 6 ranks in 3 domains
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const core::Workload w = any_dag(seed, 5, 6);
        const core::Routed r(w, sys);
        if (r.workload().num_tasks() > 8) continue;  // the brute force's reach
        SCOPED_TRACE("planes " + std::to_string(planes) + " tau " + std::to_string(tau) + " seed " +
                     std::to_string(seed));
        forwarded += r.forwarded_sends() > 0;
        const TimePs optimum = testing::brute_force(r.workload(), sys);
        const schedule::Schedule f = run_scheduler("flux", w, sys, testing::exact_options());
        EXPECT_EQ(f.makespan_ps, optimum);
        ASSERT_TRUE(f.lower_bound_ps.has_value());
        EXPECT_LE(*f.lower_bound_ps, optimum);
        EXPECT_TRUE(schedule::validate(w, f).ok());
        EXPECT_EQ(sim::simulate(w, f).metrics.iteration_time_ps, f.makespan_ps);
        for (const char* name : {"greedy", "rotornet", "bvn", "ideal"}) {
          if (tau == 0 && std::string(name) == "rotornet") continue;  // no slot without tau
          const schedule::Schedule s = run_scheduler(name, w, sys, SchedulerOptions{});
          EXPECT_GT(sim::simulate(w, s).metrics.iteration_time_ps, 0) << name;
        }
      }
    }
  }
  EXPECT_GE(forwarded, 10);
}

// Tampered: a forwarded send's second hop starting before its first ends.
TEST(WiringRoutes, ASecondHopBeforeTheFirstEndsIsRejected) {
  const core::System sys = rails(2, 4, 1, kUs);
  workload::WorkloadBuilder b("hop", 8);
  b.add_send(Rank(0), Rank(3), testing::kOneUsBytes);
  const core::Workload w = std::move(b).build();
  schedule::Schedule s = run_scheduler("flux", w, sys, testing::exact_options());
  ASSERT_EQ(s.tasks.size(), 2u);
  ASSERT_TRUE(schedule::validate(w, s).ok());
  for (schedule::TaskAssignment& a : s.tasks) {
    if (a.task_id == 1) a.start_ps = 0;  // the circuit hop, at once
  }
  s.timelines = schedule::build_timelines(core::Routed(w, sys).workload(), s.system, s.tasks);
  const auto report = schedule::validate(w, s);
  EXPECT_FALSE(report.ok());
}

// Tampered: a circuit between two groups; a schedule claiming a smaller
// radix than its sends need.
TEST(WiringSched, TamperedSchedulesAreRejected) {
  const core::System sys = rails(2, 2, 1, kUs);
  const core::Workload w = routable_dag(7, 8, 8, sys);
  const schedule::Schedule good = run_scheduler("flux", w, sys, testing::exact_options());
  schedule::Schedule across = good;
  across.timelines[0].circuits.push_back({Rank(0), Rank(3), 0, kUs, 2 * kUs});
  const auto report = schedule::validate(w, across);
  ASSERT_FALSE(report.ok());
  bool named = false;
  for (const std::string& v : report.violations) {
    named = named || v.find("no switch of this plane has both") != std::string::npos;
  }
  EXPECT_TRUE(named);
  schedule::Schedule narrow = good;
  narrow.system.ocs_radix = 1;  // not even a switch
  EXPECT_FALSE(schedule::validate(w, narrow).ok());
  schedule::Schedule pods = good;
  pods.system.scaleup_size = 1;  // ranks 0 and 2 now in different pods of radix 2
  EXPECT_FALSE(schedule::validate(w, pods).ok());
}

// Folding under rails: exact when each rail is one switch per plane, refused
// otherwise; never under a wiring file.
TEST(WiringSched, FoldedWorkloadsOnlyWhereTheLiftIsExact) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 2;
  c.dp = 8;
  c.fold_dp = 4;
  const core::Workload folded = workload::generate_llama(c);
  ASSERT_TRUE(folded.fold().folded());
  const core::System one_pod = rails(2, 8, 1, kUs);  // 8 domains, radix 8
  EXPECT_NO_THROW((void)run_scheduler("flux", folded, one_pod, SchedulerOptions{}));
  const core::System two_pods = rails(2, 4, 1, kUs);
  try {
    (void)run_scheduler("flux", folded, two_pods, SchedulerOptions{});
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "fold");
  }
}

}  // namespace
}  // namespace flux::sched
