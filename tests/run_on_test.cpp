// A plan made for one workload run on another of the same structure
// (sim::simulate_on, docs/model.md "Running a plan on another workload"):
// the structure check and its errors, run-on-itself equals simulate, and the
// bounds ordered execution must respect when sizes shrink or grow. And the
// loop above it (runtime::run_uncertain, "Uncertain routing"): on a copy of
// its own workload the plan and the re-plan agree with the plan's makespan;
// on smaller workloads the plan ends by its makespan; an oblivious rotor
// plans the same either way; errors name what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "flux/core/error.hpp"
#include "flux/runtime/uncertain.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::kPsPerUs;
using sim::Execution;

core::System system(std::uint32_t switches, core::TimePs tau) {
  return sched::testing::system_with(tau, switches);
}

core::Workload llama(std::uint32_t layers) {
  return sched::testing::llama_tp4_dp2(layers);
}

// `w` with every send's bytes scaled by num/den (at least 1 byte) and every
// dependency's compute by the same factor.
core::Workload scaled(const core::Workload& w, std::uint64_t num, std::uint64_t den) {
  core::WorkloadData d = w.data();
  for (core::Task& t : d.tasks) t.bytes = std::max<std::uint64_t>(1, t.bytes * num / den);
  for (core::Dep& e : d.deps) {
    e.compute_ps = static_cast<core::TimePs>(static_cast<std::uint64_t>(e.compute_ps) * num / den);
  }
  d.name += "-scaled";
  return core::Workload(std::move(d));
}

std::string field_of(const core::Workload& a, const core::Workload& b) {
  try {
    sim::check_same_structure(a, b);
  } catch (const core::InputError& e) {
    return e.field();
  }
  return "";
}

TEST(RunOn, StructureCheck) {
  const core::Workload a = llama(2);
  EXPECT_EQ(field_of(a, a), "");
  EXPECT_EQ(field_of(a, scaled(a, 3, 2)), "");  // sizes and compute may differ

  core::WorkloadData d = a.data();
  std::swap(d.tasks[5].dst, d.tasks[5].src);
  EXPECT_EQ(field_of(a, core::Workload(d)),
            "tasks[5] (id " + std::to_string(d.tasks[5].id) + ").src/dst");

  d = a.data();
  d.deps.pop_back();
  EXPECT_EQ(field_of(a, core::Workload(d)), "deps");

  d = a.data();
  d.tasks.pop_back();
  std::erase_if(d.deps, [&](const core::Dep& e) {
    return e.from.value() >= d.tasks.size() || e.to.value() >= d.tasks.size();
  });
  EXPECT_EQ(field_of(a, core::Workload(d)), "tasks");

  EXPECT_EQ(field_of(a, llama(3)), "tasks");
}

TEST(RunOn, OnItselfIsSimulate) {
  const core::Workload a = llama(2);
  const auto s = sched::run_scheduler("flux", a, system(2, 10 * kPsPerUs), {});
  sim::SimOptions o;
  o.execution = Execution::kOrdered;
  const core::Workload copy(a.data());  // another object: the structure is checked
  const sim::SimResult on = sim::simulate_on(a, copy, s, o);
  const sim::SimResult plain = sim::simulate(a, s, o);
  EXPECT_EQ(on.metrics.iteration_time_ps, plain.metrics.iteration_time_ps);
  EXPECT_EQ(on.metrics.iteration_time_ps, s.makespan_ps);
  EXPECT_EQ(on.metrics.peak_nic_bytes, plain.metrics.peak_nic_bytes);
}

// Smaller sends and compute: ordered execution keeps the plan's order and
// its times are longest paths (max-plus in the durations), so every time can
// only move earlier and the iteration ends by the plan's makespan; larger
// ones: no earlier. Proven for task-level plans (flux, greedy); the
// circuit-only baselines are data-driven (no such monotonicity is claimed):
// for them, and for all, every byte of the other workload arrives.
TEST(RunOn, ShrinkAndGrow) {
  const core::Workload a = llama(4);
  for (const core::TimePs tau : {1 * kPsPerUs, 100 * kPsPerUs}) {
    for (const std::string name : {"flux", "greedy", "rotornet", "bvn"}) {
      const auto s = sched::run_scheduler(name, a, system(2, tau), {});
      const core::Workload small = scaled(a, 1, 2);
      const core::Workload big = scaled(a, 2, 1);
      const sim::SimResult rs = sim::simulate_on(a, small, s);
      const sim::SimResult rb = sim::simulate_on(a, big, s);
      EXPECT_EQ(rs.metrics.bytes_delivered, small.total_bytes()) << name;
      EXPECT_EQ(rb.metrics.bytes_delivered, big.total_bytes()) << name;
      const core::TimePs planned = sim::simulate(a, s).metrics.iteration_time_ps;
      if (!s.tasks.empty()) {
        EXPECT_EQ(planned, s.makespan_ps) << name;
        EXPECT_LE(rs.metrics.iteration_time_ps, planned) << name << " tau " << tau;
        EXPECT_GE(rb.metrics.iteration_time_ps, planned) << name << " tau " << tau;
        EXPECT_LT(rs.metrics.iteration_time_ps, rb.metrics.iteration_time_ps) << name;
      }
      // Trials on the other workload: trial 0 is the single run.
      sim::SimOptions o;
      o.trials = 2;
      const sim::TrialsResult t = sim::simulate_trials_on(a, big, s, o);
      EXPECT_EQ(t.trials[0].iteration_time_ps, rb.metrics.iteration_time_ps) << name;
      if (!s.tasks.empty()) {
        EXPECT_EQ(t.execution, Execution::kOrdered) << name;
      }
    }
  }
}

TEST(RunOn, StrictIsRefused) {
  const core::Workload a = llama(2);
  const auto s = sched::run_scheduler("flux", a, system(2, 10 * kPsPerUs), {});
  sim::SimOptions o;
  o.execution = Execution::kStrict;
  try {
    (void)sim::simulate_on(a, scaled(a, 2, 1), s, o);
    FAIL() << "strict on another workload ran";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "execution");
  }
}

TEST(Uncertain, PlanAndReplan) {
  const core::Workload a = llama(2);
  std::vector<core::Workload> actual;
  actual.emplace_back(a.data());  // A itself
  actual.push_back(scaled(a, 1, 2));
  actual.push_back(scaled(a, 3, 2));
  sched::SchedulerOptions quick;
  quick.time_limit_s = 30;  // a move budget (the default) decides, not the clock
  const auto r = runtime::run_uncertain(a, actual, system(2, 10 * kPsPerUs), "flux", quick);
  ASSERT_EQ(r.iterations.size(), 3u);
  EXPECT_TRUE(r.all_delivered);
  EXPECT_EQ(r.scheduler, "flux");
  // On A: the plan runs to its makespan, and re-planning makes the same plan.
  EXPECT_EQ(r.iterations[0].planned.iteration_time_ps, r.plan.makespan_ps);
  EXPECT_EQ(r.iterations[0].replanned.iteration_time_ps, r.plan.makespan_ps);
  EXPECT_EQ(r.iterations[0].replan_makespan_ps, r.plan.makespan_ps);
  // Smaller: by the makespan; larger: no earlier.
  EXPECT_LE(r.iterations[1].planned.iteration_time_ps, r.plan.makespan_ps);
  EXPECT_GE(r.iterations[2].planned.iteration_time_ps, r.plan.makespan_ps);
  // A re-plan for B runs to its own makespan (strict replay).
  for (const auto& it : r.iterations) {
    EXPECT_EQ(it.replanned.iteration_time_ps, it.replan_makespan_ps);
    EXPECT_GE(it.replan_wall_time_s, 0);
  }
  EXPECT_EQ(r.planned_iteration_ps.max, r.iterations[2].planned.iteration_time_ps);
  EXPECT_EQ(r.replanned_iteration_ps.max, r.iterations[2].replanned.iteration_time_ps);
  EXPECT_GT(r.mean_planned_over_replanned, 0.5);
  EXPECT_LT(r.mean_planned_over_replanned, 2.0);
}

// RotorNet's rotation does not look at the traffic: planning for A or for
// B gives the same circuits, so the two runs on B are the same.
TEST(Uncertain, ObliviousRotorPlansTheSame) {
  const core::Workload a = llama(2);
  std::vector<core::Workload> actual;
  actual.push_back(scaled(a, 1, 3));
  actual.push_back(scaled(a, 5, 2));
  const auto r = runtime::run_uncertain(a, actual, system(2, 10 * kPsPerUs), "rotornet", {});
  for (const auto& it : r.iterations) {
    EXPECT_EQ(it.planned.iteration_time_ps, it.replanned.iteration_time_ps);
    EXPECT_EQ(it.planned.peak_nic_bytes, it.replanned.peak_nic_bytes);
  }
  EXPECT_DOUBLE_EQ(r.mean_planned_over_replanned, 1.0);
}

TEST(Uncertain, Errors) {
  const core::Workload a = llama(2);
  auto field = [&](std::span<const core::Workload> actual, std::string_view scheduler,
                   const sim::SimOptions& o) -> std::string {
    try {
      (void)runtime::run_uncertain(a, actual, system(2, 10 * kPsPerUs), scheduler, {}, o);
    } catch (const core::InputError& e) {
      return e.field();
    }
    return "";
  };
  EXPECT_EQ(field({}, "flux", {}), "actual");
  const std::vector<core::Workload> other{llama(3)};
  EXPECT_EQ(field(other, "flux", {}), "tasks");
  const std::vector<core::Workload> same{core::Workload(a.data())};
  EXPECT_EQ(field(same, "nonesuch", {}), "scheduler");
  sim::SimOptions jitter;
  jitter.perturbation.compute_jitter = 0.05;
  EXPECT_EQ(field(same, "flux", jitter), "trials");
}

}  // namespace
}  // namespace flux
