#pragma once
// A scheduler run as a front end asks for one (`flux schedule`, `flux
// simulate`, `flux evaluate`, flux.schedule): the scheduler's name, its
// options (sched::kSchedulerOptions, sched::kMilpOptions) and robust
// planning (--robust-jitter), resolved and run.
#include <string>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/workload/robust.hpp"

namespace flux::frontend {

/// The options of a scheduler run.
struct SchedulerRun {
  std::string scheduler = "flux";
  sched::SchedulerOptions sched;
  /// --robust-jitter as given ("" : plan for the mean compute).
  std::string robust_jitter;
  /// Other schedulers the options also go to (simulate's --replan-scheduler).
  std::vector<std::string> also_for;

  /// Validates, and refuses an option that neither `scheduler` nor
  /// `also_for` reads (sched::check_options_read; not checked when both are
  /// empty); throws core::InputError naming the option.
  [[nodiscard]] sched::SchedulerOptions resolve() const;
  /// --robust-jitter (workload::kRobustPlanningOptions), validated; throws
  /// core::InputError naming the option.
  [[nodiscard]] workload::RobustPlanning robust_planning() const;
  /// The scheduler's schedule of `w`, planned on
  /// workload::robust_plan_workload(w, robust_planning()) and adopted for
  /// `w` (sched::adopt_plan) when --robust-jitter is given.
  [[nodiscard]] schedule::Schedule run(const core::Workload& w, const core::System& system) const;
};

/// sched::run_scheduler, with an unknown scheduler reported as the option.
schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options);

}  // namespace flux::frontend
