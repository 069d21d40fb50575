#pragma once
// A sweep point's configuration, built axis by axis in axis_table() order
// (setup.cpp): what spec.cpp checks a value with and expands points into.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "flux/core/system.hpp"
#include "flux/core/wiring.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::sweep::detail {

/// Wiring files read while a sweep's points are built, by path: each file
/// is read once, whatever the number of points naming it.
using WiringFiles = std::map<std::filesystem::path, std::shared_ptr<const core::Wiring>>;

/// A point's configuration, built axis by axis (axis_table() order).
struct EvalSetup {
  eval::EvalJob job;
  std::string job_name;  ///< a job axis's name; else "L<layers>"
  core::System system;
  core::TimePs tau_ps = core::System{}.reconfig_delay_ps;
  std::string scheduler;
  sched::SchedulerOptions sched;
  sim::SimOptions sim;
  std::uint32_t trials = 0;                      ///< 0: no trials axis (one simulation)
  std::uint32_t routing_iterations = 0;          ///< uncertain routing (EvalPoint's)
  eval::PlanRouting plan_routing{};              ///< EvalPoint's
  double routing_replan_limit_s = 0;             ///< EvalPoint's
  std::optional<runtime::OnlineOptions> online;  ///< EvalPoint's (decision_budget)
  runtime::DecisionLatency latency = runtime::DecisionLatency::kModelled;  ///< decision_latency
  core::TimePs reserve_ps = 0;  ///< decision_reserve (measured points)
  std::uint32_t channels = 1;   ///< EvalPoint's
  /// A robustness point's straggler, failure and re-planning.
  eval::RobustPoint robust;
  bool failure = false;  ///< fail_at > 0
  /// What a relative `file:` routing path is relative to (SweepSpec::base).
  std::filesystem::path base;
  /// Where a `file:` wiring is read into (null: the value is only
  /// checked, the file is not read).
  WiringFiles* wiring_files = nullptr;
  bool switches_given = false;  ///< a switches axis was applied

  /// Sets `axis` to `v` (checked by the file reader's type first); throws
  /// core::InputError for an unknown model, gpu, job or scheduler.
  void apply(std::string_view axis, const std::string& v);
  [[nodiscard]] eval::EvalPoint config() const;
  /// The point as a robustness point (SweepSpec::robust()).
  [[nodiscard]] eval::RobustPoint robust_point() const;
  /// The job's name: a job axis's (a MoE job's with its routing appended),
  /// else "L<layers>" (robust: "L<layers>-<gpu>").
  [[nodiscard]] std::string name(bool robust) const;
};

}  // namespace flux::sweep::detail
