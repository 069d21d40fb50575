// The `flux` scheduler: valid schedules (run_scheduler validates), never
// worse than the greedy list schedule, equal to the MILP's proven optimum on
// the paper's instances and never below it on small random ones, the bound
// and gap it reports, and determinism for a seed.
#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/random.hpp"
#include "sched/heuristic/list_scheduler.hpp"

namespace flux::sched {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;
using core::TimePs;

core::System system_with(TimePs tau, std::uint32_t switches = 2) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  return s;
}

SchedulerOptions options() {
  SchedulerOptions o;
  o.time_limit_s = 60;
  o.search_moves = 2000;
  return o;
}

core::Workload paper(std::uint32_t layers, const char* gpu = "a100") {
  workload::TrainingConfig c;
  c.model.layers = layers;
  c.tp = 4;
  c.dp = 2;
  c.gpu = workload::GpuSpec::preset(gpu);
  return workload::generate_llama(c);
}

// Random small DAG: n sends among `ranks` accelerators, each with up to two
// parents among the earlier ones, compute 0-50 us, 10-200 kB.
core::Workload random_workload(std::uint64_t seed, std::uint32_t n, std::uint32_t ranks) {
  std::mt19937_64 rng(seed);
  core::WorkloadData d;
  d.name = "random";
  d.accelerators = ranks;
  for (std::uint32_t v = 0; v < n; ++v) {
    core::Task t;
    t.id = v;
    t.src = core::Rank(static_cast<std::uint32_t>(rng() % ranks));
    t.dst =
        core::Rank(static_cast<std::uint32_t>((t.src.value() + 1 + rng() % (ranks - 1)) % ranks));
    t.bytes = 10'000 + rng() % 190'000;
    d.tasks.push_back(t);
    for (int k = 0; k < 2 && v > 0; ++k) {
      if (rng() % 3 == 0) continue;
      const auto u = static_cast<std::uint32_t>(rng() % v);
      if (!d.deps.empty() && d.deps.back().from.value() == u && d.deps.back().to.value() == v) {
        continue;
      }
      d.deps.push_back(
          {core::TaskIndex(u), core::TaskIndex(v), static_cast<TimePs>(rng() % 50) * kPsPerUs});
    }
  }
  return core::Workload(std::move(d));
}

// The MILP benchmark's instances that flux-milp proves optimal: flux finds
// the same makespan (docs/benchmarks.md: all of them at 1-16 layers).
TEST(FluxScheduler, EqualsTheMilpOptimumOnThePapersInstances) {
  for (std::uint32_t layers : {1u, 2u}) {
    const core::Workload w = paper(layers);
    for (TimePs tau : {kPsPerUs, 10 * kPsPerUs, 100 * kPsPerUs, kPsPerMs}) {
      SCOPED_TRACE(std::to_string(layers) + " layers, tau " + core::format_duration(tau));
      const auto milp = run_scheduler("flux-milp", w, system_with(tau), options());
      ASSERT_EQ(milp.status, schedule::SolveStatus::kOptimal);
      const auto flux = run_scheduler("flux", w, system_with(tau), options());
      EXPECT_EQ(flux.makespan_ps, milp.makespan_ps);
      EXPECT_EQ(flux.status, schedule::SolveStatus::kOptimal);
      EXPECT_EQ(flux.gap.value_or(-1), 0.0);
    }
  }
}

// Small random instances: never below the proven optimum, never above the
// greedy schedule, and a bound that is a true lower bound.
TEST(FluxScheduler, BetweenOptimumAndGreedyOnRandomInstances) {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const core::Workload w = random_workload(seed, 9, 4);
    for (TimePs tau : {5 * kPsPerUs, 100 * kPsPerUs}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", tau " + core::format_duration(tau));
      const auto sys = system_with(tau);
      const auto flux = run_scheduler("flux", w, sys, options());
      const auto greedy = run_scheduler("greedy", w, sys, options());
      const auto milp = run_scheduler("flux-milp", w, sys, options());
      EXPECT_LE(flux.makespan_ps, greedy.makespan_ps);
      ASSERT_TRUE(flux.lower_bound_ps.has_value());
      if (milp.status == schedule::SolveStatus::kOptimal) {
        ++compared;
        EXPECT_GE(flux.makespan_ps, milp.makespan_ps);
        EXPECT_LE(*flux.lower_bound_ps, milp.makespan_ps);
      }
      if (flux.status == schedule::SolveStatus::kOptimal) {
        EXPECT_EQ(flux.makespan_ps, *flux.lower_bound_ps);
      }
    }
  }
  EXPECT_GT(compared, 12);
}

// A hard instance (H100 compute, tau = 1 ms: reconfiguration cannot hide):
// a positive gap, reported consistently, and the same schedule for the same
// seed with a move budget.
TEST(FluxScheduler, GapAndDeterminism) {
  const core::Workload w = paper(2, "h100");
  const auto sys = system_with(kPsPerMs);
  const auto a = run_scheduler("flux", w, sys, options());
  const auto b = run_scheduler("flux", w, sys, options());
  ASSERT_TRUE(a.lower_bound_ps && a.gap);
  EXPECT_EQ(a.status, schedule::SolveStatus::kFeasible);
  EXPECT_GT(*a.gap, 0.0);
  EXPECT_DOUBLE_EQ(*a.gap, static_cast<double>(a.makespan_ps - *a.lower_bound_ps) /
                               static_cast<double>(*a.lower_bound_ps));
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    EXPECT_EQ(a.tasks[i].sw, b.tasks[i].sw);
    EXPECT_EQ(a.tasks[i].start_ps, b.tasks[i].start_ps);
  }
  const auto greedy = run_scheduler("greedy", w, sys, options());
  EXPECT_LE(a.makespan_ps, greedy.makespan_ps);
}

// SchedulerOptions::stop (the Python bindings' Ctrl-C): raised before the
// run, flux searches nothing and returns its first list schedule, the greedy
// one, where otherwise its search (here unbounded in moves, 10 minutes of
// time) improves on it (a random DAG of 200 sends, ranks 8, seed 1).
TEST(FluxScheduler, StopFlagEndsTheSearch) {
  workload::RandomOptions random;
  random.sends = 200;
  const core::Workload w = workload::generate_random(random);
  const auto sys = system_with(10 * kPsPerUs);
  const auto greedy = run_scheduler("greedy", w, sys, options());
  EXPECT_LT(run_scheduler("flux", w, sys, options()).makespan_ps, greedy.makespan_ps);
  SchedulerOptions o = options();
  o.time_limit_s = 600;
  o.search_moves = 0;
  std::atomic<bool> stop{true};
  o.stop = &stop;
  const auto stopped = run_scheduler("flux", w, sys, o);
  EXPECT_EQ(stopped.makespan_ps, greedy.makespan_ps);
  ASSERT_EQ(stopped.tasks.size(), greedy.tasks.size());
  for (std::size_t i = 0; i < stopped.tasks.size(); ++i) {
    EXPECT_EQ(stopped.tasks[i].sw, greedy.tasks[i].sw);
    EXPECT_EQ(stopped.tasks[i].start_ps, greedy.tasks[i].start_ps);
  }
  ASSERT_TRUE(stopped.solve_time_s);
  EXPECT_LT(*stopped.solve_time_s, 300.0);  // not the 600 s limit
}

TEST(FluxScheduler, ListVariantsAreValid) {
  const core::Workload w = paper(1, "h100");
  const auto sys = system_with(kPsPerMs);
  const auto p = core::transmission_times(w, sys);
  const auto timing = core::ideal_timing(w, p);
  const Placement plain = list_schedule(w, sys, p, timing);
  const Placement sticky = list_schedule(w, sys, p, timing, ListOptions{kPsPerMs, 0});
  const Placement seeded = list_schedule(w, sys, p, timing, ListOptions{0, 7});
  for (const Placement* pl : {&plain, &sticky, &seeded}) {
    EXPECT_GE(makespan(w, p, *pl), lower_bounds(w, sys, p, timing).best());
    schedule::Schedule s = to_schedule(w, sys, p, *pl);
    s.scheduler = "list";
    EXPECT_TRUE(schedule::validate(w, s).ok()) << schedule::validate(w, s).to_string();
    // List schedules are already left-shifted: re-timing them changes nothing.
    const std::vector<double> keys(pl->start_ps.begin(), pl->start_ps.end());
    EXPECT_EQ(left_shift(w, p, sys, pl->sw, keys), pl->start_ps);
  }
}

}  // namespace
}  // namespace flux::sched
