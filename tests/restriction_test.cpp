// Restriction relaxations (src/sched/restriction.hpp): the restricted
// instance keeps what every schedule must respect, so its optimum never
// exceeds the full optimum; and on one port it sees reconfigurations that
// the port-load bound cannot.
#include "sched/restriction.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "sched/heuristic/list_scheduler.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;
using testing::kOneUsBytes;
using testing::system_with;

TimePs optimum(const core::Workload& w, const core::System& sys) {
  const schedule::Schedule s = run_scheduler("flux-milp", w, sys, testing::exact_options());
  EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal) << w.name();
  return s.makespan_ps;
}

core::Workload restrict_to(const core::Workload& w, const core::System& sys,
                           const std::vector<TaskIndex>& subset) {
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  return restrict_workload(w, p, core::ideal_timing(w, p), subset);
}

// Port 0 carries A = 0->1, then B = 0->2, then A again, each 1 us and each
// needing the previous through a chain of 2 us of compute; port 3 -> 4
// carries unrelated traffic. On one switch with tau = 10 us the port must
// change circuit twice: 1 + 10 + 1 + 10 + 1 = 23 us. The port-load bound
// counts two distinct pairs, one change: at best {a1, B} then 2 us after
// them, 0 + (2 + 10) + 2 = 14 us.
TEST(Restriction, SeesTheChangesOfOnePortThatThePortLoadBoundMisses) {
  workload::WorkloadBuilder b("aba", 5);
  const TaskIndex a1 = b.add_send(Rank(0), Rank(1), kOneUsBytes);
  const TaskIndex bb = b.add_send(Rank(0), Rank(2), kOneUsBytes);
  const TaskIndex a2 = b.add_send(Rank(0), Rank(1), kOneUsBytes);
  const TaskIndex o1 = b.add_send(Rank(3), Rank(4), kOneUsBytes);
  const TaskIndex o2 = b.add_send(Rank(3), Rank(4), kOneUsBytes);
  b.add_dep(a1, o1, 0);
  b.add_dep(o1, bb, 0);  // a1 -> o1 -> bb: L(a1, bb) = 1 us
  b.add_dep(bb, o2, 0);
  b.add_dep(o2, a2, 0);
  const core::Workload w = std::move(b).build();
  const core::System sys = system_with(10'000'000, 1);
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  EXPECT_EQ(lower_bounds(w, sys, p, timing).best(), 14'000'000);

  const core::Workload r = restrict_workload(w, p, timing, std::vector{a2, a1, bb});
  ASSERT_EQ(r.num_tasks(), 3u);
  // Topological order, the ideal heads and tails, the distances as edges
  // (a1 -> a2 is implied through bb and left out).
  EXPECT_EQ(r.tasks()[0].id, 0u);
  EXPECT_EQ(r.tasks()[1].id, 1u);
  EXPECT_EQ(r.tasks()[2].id, 2u);
  EXPECT_EQ(r.tasks()[1].release_ps, 2'000'000);
  EXPECT_EQ(r.tasks()[0].tail_ps, 4'000'000);
  ASSERT_EQ(r.num_deps(), 2u);
  EXPECT_EQ(r.deps()[0].compute_ps, 1'000'000);
  EXPECT_EQ(r.deps()[1].compute_ps, 1'000'000);
  // 1 + 10 + 1 + 10 + 1: the changes cannot hide behind 1 us of compute.
  EXPECT_EQ(optimum(r, sys), 23'000'000);
  EXPECT_EQ(optimum(w, sys), 23'000'000);
}

// On random tiny DAGs, every port's windows {v touching x : head_v >= a}
// and random subsets: the restricted optimum never exceeds the optimum.
TEST(Restriction, NeverAboveTheOptimum) {
  int strictly_above_port_load = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const core::Workload w = testing::random_dag(seed, 6, 3 + seed % 2);
    for (const TimePs tau : {TimePs{2'000'000}, TimePs{20'000'000}}) {
      const core::System sys = system_with(tau, 1 + seed % 2);
      const std::vector<TimePs> p = core::transmission_times(w, sys);
      const core::IdealTiming timing = core::ideal_timing(w, p);
      const TimePs full = optimum(w, sys);
      const TimePs port_load = lower_bounds(w, sys, p, timing).best();
      std::vector<std::vector<TaskIndex>> subsets;
      for (std::uint32_t x = 0; x < w.accelerators(); ++x) {
        for (std::uint32_t a = 0; a < w.num_tasks(); ++a) {
          std::vector<TaskIndex> s;
          for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
            const core::Task& t = w.tasks()[v];
            if ((t.src.value() == x || t.dst.value() == x) &&
                timing.earliest_start[v] >= timing.earliest_start[a]) {
              s.emplace_back(v);
            }
          }
          if (!s.empty()) subsets.push_back(std::move(s));
        }
      }
      for (std::uint32_t mask = 1; mask < 64; mask += 7) {
        std::vector<TaskIndex> s;
        for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
          if ((mask >> v) & 1) s.emplace_back(v);
        }
        subsets.push_back(std::move(s));
      }
      TimePs best = 0;
      for (const auto& s : subsets) {
        const TimePs r = optimum(restrict_to(w, sys, s), sys);
        EXPECT_LE(r, full) << "seed " << seed << " tau " << tau;
        best = std::max(best, r);
      }
      strictly_above_port_load += best > port_load;
    }
  }
  // The relaxation is worth computing: it beats the combinatorial bounds on
  // some of these instances (8 of 16 when written).
  EXPECT_GT(strictly_above_port_load, 0);
}

// What every check of restriction_bound() needs: the transmission times,
// the ideal timing and the brute-force optimum.
struct Solved {
  std::vector<TimePs> p;
  core::IdealTiming timing;
  TimePs optimum;
};
Solved solved(const core::Workload& w, const core::System& sys) {
  std::vector<TimePs> p = core::transmission_times(w, sys);
  core::IdealTiming timing = core::ideal_timing(w, p);
  return Solved{std::move(p), std::move(timing), testing::brute_force(w, sys)};
}

// restriction_bound(), as flux calls it, on the brute force's instances:
// never above the optimum, and it stops at the target.
TEST(Restriction, BoundOfOnePortWindowsNeverAboveTheOptimum) {
  int above_port_load = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Workload w = testing::random_instance(300 + seed, 4 + seed % 3, 3 + seed % 2);
    for (const TimePs tau : {TimePs{0}, TimePs{8'000}, TimePs{60'000}}) {
      const core::System sys = system_with(tau, 1 + seed % 2);
      const auto [p, timing, optimum] = solved(w, sys);
      RestrictionLimits limits;
      limits.window = 2 + seed % 4;  // small windows, so that several are tried
      const TimePs b = restriction_bound(w, sys, p, timing, optimum + 1, limits);
      EXPECT_LE(b, optimum) << "seed " << seed << " tau " << tau;
      above_port_load += b > lower_bounds(w, sys, p, timing).best();
      EXPECT_LE(restriction_bound(w, sys, p, timing, 0, limits), 0);
    }
  }
  EXPECT_GT(above_port_load, 0);
}

// Destructive probes on windows whose search does not finish (a few nodes
// per search): every value they prove is at most the optimum, and they
// prove more than the root bounds alone on some instances.
TEST(Restriction, ProbesNeverProveAboveTheOptimum) {
  int raised = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Workload w = testing::random_instance(500 + seed, 6 + seed % 2, 3 + seed % 2);
    for (const TimePs tau : {TimePs{8'000}, TimePs{60'000}}) {
      const core::System sys = system_with(tau, 1 + seed % 2);
      const auto [p, timing, optimum] = solved(w, sys);
      RestrictionLimits limits;
      limits.window_nodes = limits.port_nodes = 3 + seed % 5;
      limits.probes = 0;
      const TimePs roots = restriction_bound(w, sys, p, timing, optimum + 1, limits);
      limits.probes = 8;
      limits.port_nodes = 40 + 30 * (seed % 4);
      const TimePs probed = restriction_bound(w, sys, p, timing, optimum + 1, limits);
      EXPECT_LE(probed, optimum) << "seed " << seed << " tau " << tau;
      EXPECT_GE(probed, roots) << "seed " << seed << " tau " << tau;
      raised += probed > roots;
    }
  }
  EXPECT_GT(raised, 0);
}

// From a poor schedule (the list schedule), the whole instance's probes
// find better schedules: each is valid in the pairwise model, below the
// target and at or above the optimum, and the bound stays below it; in
// half and full duplex.
TEST(Restriction, WholeInstanceProbesFindValidSchedules) {
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const core::Workload w = testing::random_instance(700 + seed, 5 + seed % 3, 3 + seed % 2);
    for (const bool full : {false, true}) {
      core::System sys = system_with(20'000 + 10'000 * (seed % 3), 1 + seed % 2);
      if (full) sys = testing::full_duplex(sys);
      const auto [p, timing, optimum] = solved(w, sys);
      const TimePs target = makespan(w, p, list_schedule(w, sys, p, timing));
      Placement better;
      RestrictionLimits limits;
      limits.total_nodes = 0;  // no windows: the whole instance's probes only
      const TimePs b = restriction_bound(w, sys, p, timing, target, limits, 0, &better);
      const std::string where = "seed " + std::to_string(seed) + (full ? " full" : " half");
      EXPECT_LE(b, optimum) << where;
      if (better.sw.empty()) continue;
      ++found;
      EXPECT_EQ(testing::pairwise_violation(w, sys, better), "") << where;
      EXPECT_LT(makespan(w, p, better), target) << where;
      EXPECT_GE(makespan(w, p, better), optimum) << where;
    }
  }
  EXPECT_GT(found, 0);
}

// The windows are timed on the system's own links: at 3,200 Gb/s a send of
// 100 kB takes 250 ns, not the 1 us of 800 Gb/s.
TEST(Restriction, BoundUsesTheSystemsLinkRate) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const core::Workload w = testing::random_dag(seed, 6, 3);
    core::System sys = system_with(2'000'000, 1);
    sys.link_gbps = 3200;
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    const TimePs optimum = testing::brute_force(w, sys);
    EXPECT_LE(restriction_bound(w, sys, p, timing, optimum + 1, {}), optimum) << "seed " << seed;
  }
}

}  // namespace
}  // namespace flux::sched
