// The registry of schedulers by name, and run_scheduler(): validate inputs,
// run, check the result with the independent validator; adopt_plan(): a
// schedule made for other compute durations, as one of the real workload.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>

#include "choice/choose.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/time.hpp"
#include "flux/sched/bounds.hpp"
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

namespace {

// How run_resolved checks its schedule.
enum class Check : std::uint8_t {
  kValidate,  ///< by the validator, against the workload it was given
  kCaller,    ///< the caller validates what it keeps (run_choosing: with the choice)
};

// What a workload's choice groups choose between.
enum class Groups : std::uint8_t {
  kCollectives,  ///< decompositions (Schedule::choice)
  kRoutes,       ///< routes of sends, under --route auto (Schedule::routes)
};

schedule::Schedule run_choosing(const Scheduler& scheduler, const core::Workload& w,
                                const core::System& system, const SchedulerOptions& options,
                                Groups groups);

// run_scheduler on a workload without choice groups (resolved), the result
// validated against it unless the caller does.
schedule::Schedule run_resolved(const Scheduler& scheduler, const core::Workload& unrouted,
                                const core::System& system, const SchedulerOptions& options,
                                Check check = Check::kValidate) {
  // Under --route auto the routes of the sends that have several are a
  // choice of their own (core::route_choices), made as a collective's is.
  if (std::optional<core::Workload> routes = core::route_choices(unrouted, system)) {
    SchedulerOptions route_options = options;
    route_options.collective.clear();
    schedule::Schedule s = run_choosing(scheduler, *routes, core::chosen_routes(system),
                                        route_options, Groups::kRoutes);
    s.routes = std::move(s.choice);
    s.choice.clear();
    s.system = system;
    if (check == Check::kValidate) schedule::check_schedule(unrouted, s);
    return s;
  }
  // Sends no switch joins go through a forwarder (core/routes.hpp): the
  // routed workload is the one scheduled.
  const core::Routed routed(unrouted, system);
  const core::Workload& w = routed.workload();
  // Where the workload meets the system: every time any scheduler computes
  // is checked here, once (core::transmission_times).
  (void)core::transmission_times(w, system);
  if (w.fold().folded() && !scheduler.schedules_folded()) {
    throw core::InputError("", "scheduler", std::string(scheduler.name()),
                           "cannot schedule a folded workload (" + std::to_string(w.fold().copies) +
                               " copies): its circuits depend on the number of accelerators, so "
                               "a schedule of the fold does not lift to the job; generate the "
                               "workload without folding");
  }
  schedule::Schedule s = scheduler.run(w, system, options);
  s.scheduler = std::string(scheduler.name());
  if (scheduler.task_level() && s.tasks.size() != w.num_tasks()) {
    throw core::Error(std::string(scheduler.name()) + ": placed " + std::to_string(s.tasks.size()) +
                      " of " + std::to_string(w.num_tasks()) + " sends (a bug)");
  }
  if (check == Check::kValidate) {
    schedule::ValidationOptions as_routed;
    as_routed.routed = true;
    schedule::check_schedule(w, s, as_routed);
  }
  return s;
}

// The bound `bound_ps` for `s`, with its gap and status.
void rebound(schedule::Schedule& s, std::optional<core::TimePs> bound_ps) {
  s.lower_bound_ps = bound_ps ? std::optional(std::min(*bound_ps, s.makespan_ps)) : std::nullopt;
  s.gap.reset();
  if (!bound_ps || s.makespan_ps == 0) return;
  if (*s.lower_bound_ps > 0) {
    s.gap = static_cast<double>(s.makespan_ps - *s.lower_bound_ps) /
            static_cast<double>(*s.lower_bound_ps);
  }
  s.status = *s.lower_bound_ps == s.makespan_ps ? schedule::SolveStatus::kOptimal
                                                : schedule::SolveStatus::kFeasible;
}

// A bound on every choice's optimum: the bounds of what every choice runs
// (core::common_part) and choice::choice_lower_bound where every send of
// `w` runs as it is: wired in full, or `w` a route choice workload
// (`groups`; every alternative's sends already routed).
core::TimePs lower_bound_over_choices(const core::Workload& w, const core::System& system,
                                      Groups groups) {
  core::Workload common = core::common_part(w);
  // Under --route auto, the sends whose routes are chosen are left out too.
  core::System fixed = system;
  if (std::optional<core::Workload> routes = core::route_choices(common, system)) {
    common = core::common_part(*routes);
    fixed = core::chosen_routes(system);
  }
  const core::Routed routed(common, fixed);
  const std::vector<core::TimePs> p = core::transmission_times(routed.workload(), system);
  const core::IdealTiming timing = core::ideal_timing(routed.workload(), p);
  core::TimePs bound = lower_bounds(routed.workload(), fixed, p, timing).best();
  if (system.wiring.kind == core::WiringKind::kFull || groups == Groups::kRoutes) {
    bound = std::max(bound, choice::choice_lower_bound(w, system));
  }
  return bound;
}

// run_scheduler on a workload with choice groups (see scheduler.hpp): the
// schedule with its choice, validated against `w` (collectives), or for the
// caller to validate with its routes (Groups::kRoutes: `w` is
// core::route_choices' workload, `system` core::chosen_routes').
schedule::Schedule run_choosing(const Scheduler& scheduler, const core::Workload& w,
                                const core::System& system, const SchedulerOptions& options,
                                Groups groups) {
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const auto finish = [&](schedule::Schedule s, const core::Choice& c) {
    s.choice = core::choice_names(w, c);
    s.solve_time_s = elapsed();
    if (groups == Groups::kCollectives) schedule::check_schedule(w, s);
    return s;
  };
  const char* const what = groups == Groups::kCollectives ? "choice: " : "routes: ";
  if (!options.collective.empty()) {
    const std::vector<std::string> names = core::alternative_names(w);
    if (std::find(names.begin(), names.end(), options.collective) == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      throw core::InputError(
          "", "collective", options.collective,
          "no collective of the workload has this alternative (it has " + known + ")");
    }
    const core::Choice c = core::uniform_choice(w, options.collective);
    return finish(run_resolved(scheduler, core::resolve(w, c), system, options, Check::kCaller), c);
  }
  const std::uint64_t count = core::choice_count(w);
  if (scheduler.task_level() && count <= kExhaustiveChoices && w.num_tasks() <= kExhaustiveSends) {
    // Every choice, each in its share of the time limit; the best kept (the
    // first of equals), the least bound bounds them all.
    SchedulerOptions each = options;
    each.time_limit_s = options.time_limit_s / static_cast<double>(count);
    std::optional<schedule::Schedule> best;
    core::Choice best_choice;
    std::optional<core::TimePs> bound;
    bool bounded = true;
    for (std::uint64_t i = 0; i < count; ++i) {
      const core::Choice c = choice::nth_choice(w, i);
      schedule::Schedule s =
          run_resolved(scheduler, core::resolve(w, c), system, each, Check::kCaller);
      bounded = bounded && s.lower_bound_ps.has_value();
      if (s.lower_bound_ps) bound = std::min(bound.value_or(*s.lower_bound_ps), *s.lower_bound_ps);
      if (!best || s.makespan_ps < best->makespan_ps) {
        best = std::move(s);
        best_choice = c;
      }
    }
    rebound(*best, bounded ? bound : std::nullopt);
    return finish(std::move(*best), best_choice);
  }
  // A search scored by an estimate, then the scheduler on its choice in the
  // time left; the bound of what every choice runs.
  choice::SearchLimits limits;
  limits.time_limit_s = kChoiceShare * options.time_limit_s;
  limits.stop = options.stop;
  limits.balanced = groups == Groups::kRoutes;
  // A fixed route policy falls back to packets (core/routes.hpp).
  if (groups == Groups::kRoutes) limits.fallback = core::to_string(core::Route::kPacket);
  const choice::SearchResult found = choice::search(
      w, system,
      scheduler.task_level() ? choice::Estimate::kListSchedule : choice::Estimate::kCriticalPath,
      limits);
  if (options.verbose) {
    std::cerr << what << found.evaluations << " choices estimated, best "
              << core::format_duration(found.estimate_ps) << " ("
              << core::describe_choice(w, found.choice) << "), " << elapsed() << " s\n";
  }
  // The scheduler on the search's choice with all the time left; then, in
  // the time it leaves, on each uniform choice (a fixed algorithm where the
  // collective offers it) not run yet, each in an equal share of what is
  // left: the estimate ranks choices less finely than the scheduler, and so
  // auto is never behind a fixed algorithm that the scheduler finishes in
  // time. The best makespan kept (the first of equals); a run that meets
  // the bound over every choice ends it.
  std::vector<core::Choice> candidates = {found.choice};
  for (const std::string& name : core::alternative_names(w)) {
    core::Choice c = core::uniform_choice(w, name, limits.fallback);
    if (std::find(candidates.begin(), candidates.end(), c) == candidates.end()) {
      candidates.push_back(std::move(c));
    }
  }
  const core::TimePs bound = lower_bound_over_choices(w, system, groups);
  if (options.verbose) {
    std::cerr << what << "bound over every choice " << core::format_duration(bound) << ", "
              << elapsed() << " s\n";
  }
  std::optional<schedule::Schedule> best;
  std::size_t best_index = 0;
  bool bounded = true;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const double left = options.time_limit_s - elapsed();
    if (i > 0 && (left <= 0 || stop_requested(options.stop) || best->makespan_ps <= bound)) break;
    // The first run has at least the scheduler's share of the limit, even
    // when the search's estimates overran theirs (a huge job): a schedule
    // starved of time would waste a good choice.
    SchedulerOptions share = options;
    share.time_limit_s = i == 0 ? std::max(left, (1 - kChoiceShare) * options.time_limit_s)
                                : std::max(0.0, left) / static_cast<double>(candidates.size() - i);
    schedule::Schedule s =
        run_resolved(scheduler, core::resolve(w, candidates[i]), system, share, Check::kCaller);
    bounded = bounded && s.lower_bound_ps.has_value();
    if (options.verbose) {
      std::cerr << what << (i == 0 ? "the search's" : "uniform") << " choice ("
                << core::describe_choice(w, candidates[i]) << ") scheduled in "
                << core::format_duration(s.makespan_ps) << ", " << elapsed() << " s\n";
    }
    if (!best || s.makespan_ps < best->makespan_ps) {
      best = std::move(s);
      best_index = i;
    }
  }
  rebound(*best, bounded ? std::optional(bound) : std::nullopt);
  return finish(std::move(*best), candidates[best_index]);
}

}  // namespace

schedule::Schedule run_scheduler(std::string_view name, const core::Workload& unrouted,
                                 const core::System& system, const SchedulerOptions& options) {
  system.validate();
  options.validate();
  const auto scheduler = make_scheduler(name);
  if (unrouted.has_choices()) {
    return run_choosing(*scheduler, unrouted, system, options, Groups::kCollectives);
  }
  if (!options.collective.empty()) {
    throw core::InputError("", "collective", options.collective,
                           "the workload has no collective in several decompositions (generate "
                           "it with --collective auto)");
  }
  return run_resolved(*scheduler, unrouted, system, options);
}

schedule::Schedule adopt_plan(schedule::Schedule s, const core::Workload& unrouted) {
  const core::Routed routed(unrouted, s.system, s.choice, s.routes);  // the plan names the hops
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
  schedule::ValidationOptions as_routed;
  as_routed.routed = true;  // `w` is routed already (again would differ under --route auto)
  schedule::check_schedule(w, s, as_routed);
  return s;
}

}  // namespace flux::sched
