// The registry of schedulers by name, and run_scheduler(): validate inputs,
// run, check the result with the independent validator; adopt_plan(): a
// schedule made for other compute durations, as one of the real workload.
#include <algorithm>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
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
  core::check_options(kSchedulerOptions, *this);
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

bool honoured_by_all(std::string_view flag) {
  // Limits (a scheduler that needs less stays within them) and progress.
  return flag == "--time-limit" || flag == "--threads" || flag == "-v,--verbose";
}

void check_options_read(std::span<const std::string> schedulers, const SchedulerOptions& options) {
  std::vector<std::unique_ptr<Scheduler>> chosen;
  for (const std::string& name : schedulers) {
    for (const Entry& e : kSchedulers) {
      if (e.name == name) chosen.push_back(e.make());
    }
  }
  const auto reads = [](const Scheduler& s, std::string_view flag) {
    const auto read = s.options_read();
    return std::find(read.begin(), read.end(), flag) != read.end();
  };
  const auto check = [&](std::string_view flag, bool set, const std::string& value) {
    if (!set || chosen.empty()) return;
    std::string readers, names;
    for (const auto& s : chosen) {
      if (reads(*s, flag)) return;
      names += (names.empty() ? "" : ", ") + std::string(s->name());
    }
    for (const Entry& e : kSchedulers) {
      if (!reads(*e.make(), flag)) continue;
      readers += (readers.empty() ? "" : ", ") + std::string(e.name);
    }
    throw core::InputError("", std::string(flag), value,
                           "applies to --scheduler " + readers + " only (not " + names + ")");
  };
  const auto check_table = [&](const auto& table, const auto& set, const auto& defaults) {
    core::for_each_option(table, [&](const auto& option) {
      if (honoured_by_all(option.flag)) return;
      const auto v = set.*option.member;
      if constexpr (requires { option.min; }) {
        check(option.flag, v != defaults.*option.member, option.show(v));
      } else {
        check(option.flag, v != defaults.*option.member, "");
      }
    });
  };
  const SchedulerOptions defaults;
  check_table(kSchedulerOptions, options, defaults);
  check_table(kMilpOptions, options.milp, defaults.milp);
  check("--export-milp", !options.milp.export_path.empty(), options.milp.export_path);
  check("--solution", !options.milp.solution_path.empty(), options.milp.solution_path);
}

schedule::Schedule run_scheduler(std::string_view name, const core::Workload& unrouted,
                                 const core::System& system, const SchedulerOptions& options) {
  system.validate();
  options.validate();
  // Sends no switch joins go through a forwarder (core/routes.hpp): the
  // routed workload is the one scheduled.
  const core::Routed routed(unrouted, system);
  const core::Workload& w = routed.workload();
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

schedule::Schedule adopt_plan(schedule::Schedule s, const core::Workload& unrouted) {
  const core::Routed routed(unrouted, s.system);  // the plan names the hops
  const core::Workload& w = routed.workload();
  if (!s.tasks.empty()) {
    const std::vector<core::TimePs> p = core::transmission_times(w, s.system);
    core::TimePs end = 0;
    for (const schedule::TaskAssignment& a : s.tasks) {
      const auto v = w.find(a.task_id);
      if (!v) break;  // the validator names the unknown send
      const core::TimePs finish = core::add_time(a.start_ps, p[v->value()], "start");
      end = std::max(end, core::add_time(finish, w.task(*v).tail_ps, "tail"));
    }
    s.makespan_ps = end;
  }
  s.lower_bound_ps.reset();
  s.gap.reset();
  s.status = schedule::SolveStatus::kFeasible;
  schedule::check_schedule(w, s);
  return s;
}

}  // namespace flux::sched
