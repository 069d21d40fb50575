// A scheduler run as a front end asks for one
// (include/flux/frontend/scheduler_run.hpp).
#include "flux/frontend/scheduler_run.hpp"

#include <algorithm>
#include <string_view>

#include "flux/core/error.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/sched/baselines.hpp"

namespace flux::frontend {

workload::RobustPlanning SchedulerRun::robust_planning() const {
  workload::RobustPlanning r;
  if (robust_jitter.empty()) return r;
  r.jitter = parse_value(std::get<0>(workload::kRobustPlanningOptions), robust_jitter);
  if (!r.any() || scheduler.empty()) return r;
  const std::vector<std::string_view> names = sched::scheduler_names();
  // An unknown name is the scheduler run's to report.
  if (std::find(names.begin(), names.end(), scheduler) != names.end() &&
      !sched::make_scheduler(scheduler)->task_level()) {
    std::string planners;  // the schedulers that place sends by their compute
    for (std::string_view n : names) {
      if (!sched::make_scheduler(n)->task_level()) continue;
      planners += (planners.empty() ? "" : ", ") + std::string(n);
    }
    throw core::InputError("", "--robust-jitter", robust_jitter,
                           scheduler +
                               " plans circuits from the traffic alone, not the compute, and "
                               "would ignore it (it applies to " +
                               planners + ")");
  }
  return r;
}

schedule::Schedule SchedulerRun::run(const core::Workload& w, const core::System& system) const {
  const workload::RobustPlanning r = robust_planning();
  if (scheduler.starts_with("rotornet")) {  // its period holds every pair: sized up front
    refuse_if_too_large(
        sched::rotornet_memory_bytes(w.accelerators(), system),
        core::InputError("", "accelerators", std::to_string(w.accelerators()),
                         "rotornet connects every pair each period: use fewer accelerators or "
                         "bvn"));
  }
  if (!r.any()) return run_named_scheduler(scheduler, w, system, resolve());
  const core::Workload planned = workload::robust_plan_workload(w, r);
  return sched::adopt_plan(run_named_scheduler(scheduler, planned, system, resolve()), w);
}

sched::SchedulerOptions SchedulerRun::resolve() const {
  try {
    sched.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, sched::kSchedulerOptions);
  }
  std::vector<std::string> readers = also_for;
  if (!scheduler.empty()) readers.push_back(scheduler);
  sched::check_options_read(readers, sched);
  return sched;
}

schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options) {
  try {
    return sched::run_scheduler(name, w, system, options);
  } catch (const core::InputError& e) {
    if (e.field() == "scheduler") throw option_error(e, sched::kSchedulerOptions);
    throw;
  }
}

}  // namespace flux::frontend
