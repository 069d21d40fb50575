#pragma once
// Internal: the concrete schedulers the registry knows.
#include "flux/sched/scheduler.hpp"

namespace flux::sched {

class GreedyScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "greedy"; }
  std::string_view description() const override {
    return "greedy list schedule: earliest start first, circuit reuse on ties";
  }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

class MilpScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "flux-milp"; }
  std::string_view description() const override {
    return "the paper's MILP solved exactly by COIN-OR CBC";
  }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

}  // namespace flux::sched
