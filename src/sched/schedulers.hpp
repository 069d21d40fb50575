#pragma once
// Internal: the concrete schedulers the registry knows.
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::sched {

class GreedyScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "greedy"; }
  std::string_view description() const override {
    return "greedy list schedule: earliest start first, circuit reuse on ties";
  }
  bool schedules_folded() const override { return true; }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

class FluxScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "flux"; }
  std::string_view description() const override {
    return "list schedules, local search and exact search on small instances, anytime, with a "
           "certified gap";
  }
  bool schedules_folded() const override { return true; }
  std::span<const std::string_view> options_read() const override {
    static constexpr std::string_view kRead[] = {"--seed", "--moves", "--no-lp-bound"};
    return kRead;
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
  bool schedules_folded() const override { return true; }
  std::span<const std::string_view> options_read() const override {
    static constexpr std::string_view kRead[] = {
        "--gap",        "--seed",          "--moves",    "--no-implied-pairs", "--no-symmetry",
        "--no-horizon", "--no-warm-start", "--no-bound", "--export-milp",      "--solution"};
    return kRead;
  }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

/// rotornet and rotornet-vlb (rotornet.cpp): circuit-only, demand-oblivious.
class RotorNetScheduler final : public Scheduler {
 public:
  explicit RotorNetScheduler(schedule::Routing routing = schedule::Routing::kDirect)
      : routing_(routing) {}
  std::string_view name() const override {
    return routing_ == schedule::Routing::kVlb ? "rotornet-vlb" : "rotornet";
  }
  std::string_view description() const override {
    return routing_ == schedule::Routing::kVlb
               ? "RotorNet round-robin matchings, Valiant load balancing (two hops)"
               : "RotorNet round-robin matchings, single-hop";
  }
  bool task_level() const override { return false; }
  std::span<const std::string_view> options_read() const override {
    static constexpr std::string_view kRead[] = {"--duty-cycle"};
    return kRead;
  }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;

 private:
  schedule::Routing routing_;
};

/// bvn (bvn.cpp): circuit-only, Birkhoff-von Neumann decomposition of the
/// iteration's traffic matrix.
class BvnScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "bvn"; }
  std::string_view description() const override {
    return "Birkhoff-von Neumann decomposition of the traffic matrix, slots by weight";
  }
  bool task_level() const override { return false; }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

/// ideal (ideal.cpp): every pair always connected, no reconfiguration; its
/// makespan is the critical path, a lower bound for every scheduler.
class IdealScheduler final : public Scheduler {
 public:
  std::string_view name() const override { return "ideal"; }
  std::string_view description() const override {
    return "reference: every pair always connected, no reconfiguration (critical path)";
  }
  bool task_level() const override { return false; }
  bool schedules_folded() const override { return true; }
  schedule::Schedule run(const core::Workload& w, const core::System& system,
                         const SchedulerOptions& options) const override;
};

}  // namespace flux::sched
