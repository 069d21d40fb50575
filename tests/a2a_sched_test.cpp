// All-to-all (mixture-of-experts) instances (a2a_instances.hpp): flux
// against the circuit baselines, its matching schedule, and its bounds
// against the brute force (issue 13).
//
// Where the models are comparable. The task-level model (docs/model.md,
// "The exact scheduler") is half duplex per port and switch: sends a -> b
// and b -> a share both ports, so they never overlap on one switch and a
// reversal costs tau. The simulator gives the circuit-only baselines
// (rotornet, rotornet-vlb, bvn) full-duplex circuits ("Simulator", NIC:
// "at link rate per circuit and direction"): a -> b and b -> a run at once
// on one circuit. An all-to-all moves 2 (p - 1) sends through every port, so
// no task-level schedule ends before the port-load bound
// (2 (p - 1) P + (2 (p - 1) - s) tau) / s, while a rotor's full-duplex
// slots need about (p - 1) max(P / duty, T) / s. Where flux's own lower
// bound exceeds the best baseline's iteration time the models are not
// comparable (no task-level schedule can get there); everywhere else flux
// must be no slower. Both are asserted below, case by case.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "a2a_instances.hpp"
#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::TimePs;
using testing::a2a_workload;
using testing::A2aSpec;
using testing::system_with;

constexpr TimePs kUs = 1'000'000;

TEST(A2aInstances, ShapeAndBytes) {
  A2aSpec spec;
  spec.ranks = 5;
  spec.layers = 2;
  spec.combine = true;
  spec.expert_compute_ps = 3 * kUs;
  const core::Workload w = a2a_workload(spec);
  EXPECT_EQ(w.num_tasks(), 4u * 5 * 4);
  EXPECT_EQ(w.deps().size(), 3u * 5 * 4 * 4);  // every phase after the first: p - 1 parents
  spec.zipf_s = 1.2;
  const auto bytes = testing::a2a_bytes(spec);
  // Zipf keeps each source's total and skews it towards the popular experts.
  for (std::uint32_t i = 0; i < 5; ++i) {
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < 5; ++j) total += bytes[i * 5 + j];
    EXPECT_LE(total, 4 * spec.bytes_per_pair);
    EXPECT_GE(total, 4 * spec.bytes_per_pair - 4);
  }
  // p = 5 is divisible by 5: the popularity order is the identity, expert 0
  // the hottest.
  EXPECT_GT(bytes[1 * 5 + 0], bytes[1 * 5 + 2]);
  EXPECT_GT(bytes[1 * 5 + 2], bytes[1 * 5 + 4]);
  EXPECT_GT(bytes[1 * 5 + 0], 2 * bytes[1 * 5 + 4]);
  EXPECT_EQ(testing::mixtral_pair_bytes(8), 8'388'608u);
}

// The best of the three circuit baselines, simulated (iteration time, ps).
TimePs best_baseline(const core::Workload& w, const core::System& sys) {
  TimePs best = std::numeric_limits<TimePs>::max();
  for (const char* name : {"rotornet", "rotornet-vlb", "bvn"}) {
    const schedule::Schedule s = run_scheduler(name, w, sys, SchedulerOptions{});
    best = std::min(best, sim::simulate(w, s).metrics.iteration_time_ps);
  }
  return best;
}

schedule::Schedule run_flux(const core::Workload& w, const core::System& sys) {
  SchedulerOptions o;
  o.time_limit_s = 10;  // the move and node budgets end the search first
  return run_scheduler("flux", w, sys, o);
}

// A uniform all-to-all (sends of 1 us, released at 0): flux meets the
// port-load bound, which is the optimum of the task-level model: with one
// switch p - 1 rounds of a -> b, tau, b -> a, tau (2 (p - 1) P +
// (2 (p - 1) - 1) tau); with two, both directions side by side ((p - 1) P +
// (p - 2) tau). Its schedule replays to its makespan. Against the
// baselines: with one switch its bound exceeds the best baseline at every
// tau (the duplex difference: not comparable); with two switches and tau >=
// P it is no slower than the best baseline for p = 4 and 8, while for p = 6
// bvn's full-duplex matchings (five over two switches) stay 1 us ahead of
// the task-level optimum; below tau = P rotornet's full-duplex slots win.
TEST(A2aSched, UniformAllToAllAgainstTheBaselines) {
  int comparable = 0;
  for (std::uint32_t p : {4u, 6u, 8u}) {
    A2aSpec spec;
    spec.ranks = p;
    const core::Workload w = a2a_workload(spec);
    for (std::uint32_t s : {1u, 2u}) {
      for (TimePs tau : {kUs / 10, kUs, 10 * kUs}) {
        const core::System sys = system_with(tau, s);
        const schedule::Schedule f = run_flux(w, sys);
        const TimePs optimum =
            s == 1 ? 2 * (p - 1) * kUs + (2 * (p - 1) - 1) * tau : (p - 1) * kUs + (p - 2) * tau;
        SCOPED_TRACE("p " + std::to_string(p) + " s " + std::to_string(s) + " tau " +
                     std::to_string(tau));
        EXPECT_EQ(f.makespan_ps, optimum);
        EXPECT_EQ(f.lower_bound_ps.value_or(0), optimum);
        EXPECT_EQ(sim::simulate(w, f).metrics.iteration_time_ps, f.makespan_ps);
        const TimePs best = best_baseline(w, sys);
        if (optimum > best) {
          // Not comparable: no task-level schedule reaches the baseline.
          EXPECT_TRUE(s == 1 || tau < kUs || p % 4 != 0);
        } else {
          EXPECT_LE(f.makespan_ps, best);
          ++comparable;
        }
      }
    }
  }
  EXPECT_EQ(comparable, 4);
}

// The tiniest all-to-alls (p = 3: six sends, every two sharing a port):
// flux's bound never exceeds the brute-force optimum, its exact search
// finds that optimum, and so does the MILP (flux-milp, proven optimal, at
// tau = P / 2).
TEST(A2aSched, BoundsNeverAboveTheBruteForceOptimum) {
  for (double zipf : {0.0, 1.2}) {
    A2aSpec spec;
    spec.ranks = 3;
    spec.zipf_s = zipf;
    const core::Workload w = a2a_workload(spec);
    for (std::uint32_t s : {1u, 2u}) {
      for (TimePs tau : {TimePs{0}, kUs / 2, 2 * kUs}) {
        const core::System sys = system_with(tau, s);
        const TimePs optimum = testing::brute_force(w, sys);
        const schedule::Schedule f = run_flux(w, sys);
        SCOPED_TRACE("zipf " + std::to_string(zipf) + " s " + std::to_string(s) + " tau " +
                     std::to_string(tau));
        EXPECT_EQ(f.makespan_ps, optimum);
        if (tau == kUs / 2) {  // CBC takes about a second each: one tau
          const schedule::Schedule m = run_scheduler("flux-milp", w, sys, testing::exact_options());
          // Optimal, or stopped on its clock (a sanitizer build on a busy
          // machine) with the optimum found and a bound not above it.
          EXPECT_EQ(m.makespan_ps, optimum);
          if (m.lower_bound_ps) {
            EXPECT_LE(*m.lower_bound_ps, optimum);
          }
        }
        ASSERT_TRUE(f.lower_bound_ps.has_value());
        EXPECT_LE(*f.lower_bound_ps, optimum);
        const auto p = core::transmission_times(w, sys);
        EXPECT_LE(lower_bounds(w, sys, p, core::ideal_timing(w, p)).best(), optimum);
      }
    }
  }
}

// Dispatch, expert compute (3 us) and combine, uniform and zipf: every
// schedule replays to its makespan, the bound lies below it, and where the
// models are comparable (flux's bound at most the best baseline) flux is
// no slower than the best baseline, except on the cases counted: a known
// shortfall of flux (its gap to its own bound is open there too), at most
// 20% slower (docs/benchmarks.md, "All-to-all (MoE) against the baselines").
TEST(A2aSched, DispatchAndCombineAgainstTheBaselines) {
  int comparable = 0, behind = 0;
  for (double zipf : {0.0, 1.2}) {
    for (std::uint32_t p : {4u}) {
      A2aSpec spec;
      spec.ranks = p;
      spec.zipf_s = zipf;
      spec.combine = true;
      spec.expert_compute_ps = 3 * kUs;
      const core::Workload w = a2a_workload(spec);
      for (std::uint32_t s : {1u, 2u}) {
        for (TimePs tau : {kUs / 10, kUs, 10 * kUs}) {
          const core::System sys = system_with(tau, s);
          const schedule::Schedule f = run_flux(w, sys);
          SCOPED_TRACE("zipf " + std::to_string(zipf) + " p " + std::to_string(p) + " s " +
                       std::to_string(s) + " tau " + std::to_string(tau));
          EXPECT_EQ(sim::simulate(w, f).metrics.iteration_time_ps, f.makespan_ps);
          ASSERT_TRUE(f.lower_bound_ps.has_value());
          EXPECT_LE(*f.lower_bound_ps, f.makespan_ps);
          const TimePs best = best_baseline(w, sys);
          if (*f.lower_bound_ps > best) continue;
          ++comparable;
          if (f.makespan_ps > best) {
            ++behind;
            EXPECT_LE(static_cast<double>(f.makespan_ps), 1.2 * static_cast<double>(best));
          }
        }
      }
    }
  }
  // Measured: 6 of 12 comparable, flux behind on none. Before the
  // restriction bound's probes, 8 were comparable and flux was behind on 2
  // (two switches, tau = P / 10: 1.14x and 1.15x); the probes proved that no
  // half-duplex schedule reaches the best baseline on those two. At p = 6
  // (not run here: 90 s) 8 of 19 were behind, up to 1.41x. The search may
  // stop on the clock under load, hence the margins.
  EXPECT_GE(comparable, 5);
  EXPECT_LE(behind, 2);
}

}  // namespace
}  // namespace flux::sched
