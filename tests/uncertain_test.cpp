// A plan executed on workloads it was not made for (runtime::run_uncertain,
// docs/model.md "Uncertain routing"): on a copy of its own workload the plan
// and the re-plan agree with the plan's makespan; on smaller workloads the
// plan ends by its makespan (ordered execution is monotone); an oblivious
// rotor plans the same either way; errors name what is wrong.
#include <gtest/gtest.h>

#include <vector>

#include "flux/core/error.hpp"
#include "flux/runtime/uncertain.hpp"
#include "flux/workload/llama.hpp"

namespace flux {
namespace {

using core::kPsPerUs;

core::Workload llama(std::uint32_t layers) {
  workload::TrainingConfig c;
  c.model.layers = layers;
  c.tp = 4;
  c.dp = 2;
  return workload::generate_llama(c);
}

// `w` with every send's bytes and every dependency's compute scaled by
// num/den (at least 1 byte), renamed.
core::Workload scaled(const core::Workload& w, std::uint64_t num, std::uint64_t den) {
  core::WorkloadData d = w.data();
  for (core::Task& t : d.tasks) t.bytes = std::max<std::uint64_t>(1, t.bytes * num / den);
  for (core::Dep& e : d.deps) {
    e.compute_ps = static_cast<core::TimePs>(static_cast<std::uint64_t>(e.compute_ps) * num / den);
  }
  d.name += "-x" + std::to_string(num) + "/" + std::to_string(den);
  return core::Workload(std::move(d));
}

core::System system(core::TimePs tau) {
  core::System s;
  s.switches = 2;
  s.reconfig_delay_ps = tau;
  return s;
}

TEST(Uncertain, PlanAndReplan) {
  const core::Workload a = llama(2);
  std::vector<core::Workload> actual;
  actual.emplace_back(a.data());  // A itself
  actual.push_back(scaled(a, 1, 2));
  actual.push_back(scaled(a, 3, 2));
  sched::SchedulerOptions quick;
  quick.time_limit_s = 30;  // a move budget (the default) decides, not the clock
  const auto r = runtime::run_uncertain(a, actual, system(10 * kPsPerUs), "flux", quick);
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
  const auto r = runtime::run_uncertain(a, actual, system(10 * kPsPerUs), "rotornet", {});
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
      (void)runtime::run_uncertain(a, actual, system(10 * kPsPerUs), scheduler, {}, o);
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
