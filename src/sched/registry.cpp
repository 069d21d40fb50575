// The registry of schedulers by name, and run_scheduler(): validate inputs,
// run, check the result with the independent validator.
#include <chrono>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/list_scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "schedulers.hpp"

namespace flux::sched {
namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<Scheduler> (*make)();
};

template <class T>
std::unique_ptr<Scheduler> make() {
  return std::make_unique<T>();
}

constexpr Entry kSchedulers[] = {
    {"flux", make<FluxScheduler>},
    {"flux-milp", make<MilpScheduler>},
    {"greedy", make<GreedyScheduler>},
    {"rotornet", make<RotorNetScheduler>},
    {"rotornet-vlb",
     []() -> std::unique_ptr<Scheduler> {
       return std::make_unique<RotorNetScheduler>(schedule::Routing::kVlb);
     }},
    {"bvn", make<BvnScheduler>},
    {"ideal", make<IdealScheduler>},
};

}  // namespace

void SchedulerOptions::validate() const {
  if (!(time_limit_s >= 0) || time_limit_s > 1e7) {
    throw core::InputError("", "time_limit", std::to_string(time_limit_s) + " s",
                           "must be between 0 and 1e7 s");
  }
  if (!(relative_gap >= 0) || relative_gap >= 1) {
    throw core::InputError("", "gap", std::to_string(relative_gap), "must be in [0, 1)");
  }
  if (!(duty_cycle > 0) || !(duty_cycle < 1)) {
    throw core::InputError("", "duty_cycle", std::to_string(duty_cycle), "must be in (0, 1)");
  }
  if (threads < 1 || threads > 256) {
    throw core::InputError("", "threads", std::to_string(threads), "must be between 1 and 256");
  }
}

std::vector<std::string_view> scheduler_names() {
  std::vector<std::string_view> names;
  for (const Entry& e : kSchedulers) names.push_back(e.name);
  return names;
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  std::string known;
  for (const Entry& e : kSchedulers) {
    if (e.name == name) return e.make();
    if (!known.empty()) known.append(", ");
    known.append(e.name);
  }
  throw core::InputError("", "scheduler", std::string(name),
                         "unknown scheduler (known: " + known + ")");
}

schedule::Schedule run_scheduler(std::string_view name, const core::Workload& w,
                                 const core::System& system, const SchedulerOptions& options) {
  system.validate();
  options.validate();
  // Where the workload meets the system: every time any scheduler computes
  // is checked here, once (core::transmission_times).
  (void)core::transmission_times(w, system);
  const auto scheduler = make_scheduler(name);
  if (w.fold().folded() && !scheduler->schedules_folded()) {
    throw core::InputError("", "scheduler", std::string(name),
                           "cannot schedule a folded workload (" + std::to_string(w.fold().copies) +
                               " copies): its circuits depend on the number of accelerators, so "
                               "a schedule of the fold does not lift to the job; generate the "
                               "workload without folding");
  }
  schedule::Schedule s = scheduler->run(w, system, options);
  s.scheduler = std::string(scheduler->name());
  if (scheduler->task_level() && s.tasks.size() != w.num_tasks()) {
    throw core::Error(std::string(scheduler->name()) + ": placed " +
                      std::to_string(s.tasks.size()) + " of " + std::to_string(w.num_tasks()) +
                      " sends (a bug)");
  }
  schedule::check_schedule(w, s);
  return s;
}

schedule::Schedule GreedyScheduler::run(const core::Workload& w, const core::System& system,
                                        const SchedulerOptions&) const {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<core::TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  schedule::Schedule s = to_schedule(w, system, p, list_schedule(w, system, p, timing));
  const core::TimePs bound = std::min(lower_bounds(w, system, p, timing).best(), s.makespan_ps);
  s.lower_bound_ps = bound;
  s.gap = bound > 0 ? static_cast<double>(s.makespan_ps - bound) / static_cast<double>(bound) : 0.0;
  s.status =
      bound == s.makespan_ps ? schedule::SolveStatus::kOptimal : schedule::SolveStatus::kFeasible;
  s.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace flux::sched
