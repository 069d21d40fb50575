// A preset run into a directory (evaluate.hpp): the options given as axis
// overrides on the preset's sweep, its points run through the sweep runner
// into the preset's CSV, and the summary (`flux evaluate`, flux.evaluate).
#include "flux/frontend/evaluate.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include "flux/core/format.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/io/save.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/runner.hpp"
#include "flux/workload/llama.hpp"

namespace flux::frontend {
namespace {

constexpr double kFullLimitS = 600;

// Sets an axis from a list option; its errors name the option.
void set_axis(sweep::SweepSpec& spec, std::string_view axis, const std::string& flag,
              const std::vector<std::string>& values) {
  try {
    spec.set_axis(axis, values);
  } catch (const core::InputError& e) {
    throw core::InputError("", flag, e.value(), e.problem());
  }
}

std::string real_text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// The robustness lists as axes: jitter (every jitter of either list),
// straggler_factor (1 and the factors) and fail_at (0 and, with failure
// jitters, the preset's instant); which of their combinations are points
// is `keep` (a jitter alone, a straggler alone, a failure alone or under
// jitter). Lists not given are the preset's.
struct RobustLists {
  std::vector<std::string> jitters, factors, failure_jitters;
  std::string fail_at = "50%";

  [[nodiscard]] static bool contains(const std::vector<std::string>& list, double v, bool percent) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& t) {
      return (percent ? sim::parse_percent("", t) : std::stod(t)) == v;
    });
  }
  [[nodiscard]] bool keep(const eval::RobustPoint& p) const {
    const eval::RobustPerturbation& q = p.perturbation;
    switch (q.kind) {
      case eval::PerturbationKind::kFailure:
        return q.straggler_factor == 1 && contains(failure_jitters, q.jitter, true);
      case eval::PerturbationKind::kStraggler:
        return q.jitter == 0 && contains(factors, q.straggler_factor, false);
      default:
        return contains(jitters, q.jitter, true);
    }
  }
};

// A list option's values checked one by one and for repeats (by value).
std::vector<std::string> checked_list(const std::vector<std::string>& list, const char* flag,
                                      bool percent) {
  std::vector<double> values;
  for (const std::string& t : list) {
    double v = 0;
    if (percent) {
      v = sim::parse_percent(flag, t);
    } else {
      char* end = nullptr;
      v = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size() || !sim::kStragglerFactorOption.contains(v)) {
        throw core::InputError("", flag, t,
                               "expected a factor " + sim::kStragglerFactorOption.range_text());
      }
    }
    values.push_back(v);
  }
  for (std::size_t i = 0; i < values.size(); ++i) {  // every value read first, then repeats
    if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
        values.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw core::InputError("", flag, list[i], "listed twice");
    }
  }
  return list;
}

// The preset's robustness lists, from its points.
RobustLists preset_lists(const sweep::SweepSpec& spec) {
  RobustLists l;
  for (const sweep::Point& p : spec.points()) {
    const eval::RobustPerturbation& q = p.robust->perturbation;
    const std::string j = core::percent_text(q.jitter);
    const auto add = [](std::vector<std::string>& list, const std::string& v, bool percent) {
      const double x = percent ? sim::parse_percent("", v) : std::stod(v);
      if (!RobustLists::contains(list, x, percent)) list.push_back(v);
    };
    switch (q.kind) {
      case eval::PerturbationKind::kFailure:
        add(l.failure_jitters, j, true);
        l.fail_at = core::percent_text(p.robust->fail_fraction);
        break;
      case eval::PerturbationKind::kStraggler:
        add(l.factors, real_text(q.straggler_factor), false);
        break;
      default:
        add(l.jitters, j, true);
    }
  }
  return l;
}

// The robustness options as axes (trials, seed, straggler_rank, ...);
// `lists`: the points `keep` takes.
void robust_overrides(const EvaluateOptions& o, sweep::SweepSpec& spec, RobustLists& lists) {
  const bool listed =
      !o.jitters.empty() || !o.straggler_factors.empty() || !o.failure_jitters.empty();
  if (listed) {
    lists = preset_lists(spec);
    if (!o.jitters.empty()) lists.jitters = checked_list(o.jitters, "--jitters", true);
    if (!o.straggler_factors.empty()) {
      lists.factors = checked_list(o.straggler_factors, "--straggler-factors", false);
    }
    if (!o.failure_jitters.empty()) {
      lists.failure_jitters = o.failure_jitters == std::vector<std::string>{"none"}
                                  ? std::vector<std::string>{}
                                  : checked_list(o.failure_jitters, "--failure-jitters", true);
    }
    std::vector<std::string> jitter = lists.jitters;
    for (const std::string& j : lists.failure_jitters) {
      if (!RobustLists::contains(jitter, sim::parse_percent("", j), true)) jitter.push_back(j);
    }
    if (!lists.factors.empty() && !RobustLists::contains(jitter, 0, true)) jitter.push_back("0%");
    std::vector<std::string> factors = {"1"};
    for (const std::string& f : lists.factors) {
      if (std::stod(f) != 1) factors.push_back(f);
    }
    spec.filters.clear();  // the lists say which combinations run: `keep`
    set_axis(spec, "jitter", "--jitters", jitter);
    set_axis(spec, "straggler_factor", "--straggler-factors", factors);
    std::vector<std::string> fail_at = {"0%"};
    if (!lists.failure_jitters.empty()) fail_at.push_back(lists.fail_at);
    set_axis(spec, "fail_at", "--failure-jitters", fail_at);
  }
  if (o.robust.empty()) return;
  // The preset's values, the options given over them.
  const eval::RobustPoint first = *spec.points().front().robust;
  eval::RobustOptions r{first.perturbation.trials, first.seed, first.straggler_rank,
                        first.replan_time_limit_s, first.replan_moves};
  if (const sweep::Axis* t = spec.axis("trials")) r.trials = std::stoul(t->values.front());
  for (const auto& set : o.robust) set(r);
  set_axis(spec, "trials", "--trials", {std::to_string(r.trials)});
  set_axis(spec, "seed", "--perturb-seed", {std::to_string(r.seed)});
  set_axis(spec, "straggler_rank", "--straggler-rank", {std::to_string(r.straggler_rank)});
  set_axis(spec, "replan_time_limit", "--replan-time-limit",
           {real_text(r.replan_time_limit_s) + "s"});
  set_axis(spec, "replan_moves", "--replan-moves", {std::to_string(r.replan_moves)});
}

// Whether `name` is a sweep axis.
bool is_axis(std::string_view name) {
  const std::vector<sweep::AxisInfo> table = sweep::axis_table();
  return std::any_of(table.begin(), table.end(),
                     [&](const sweep::AxisInfo& a) { return a.name == name; });
}

// A system option's value as its sweep axis reads it.
template <class Option>
std::string axis_text(const Option& option, const core::System& s) {
  const auto& v = s.*option.member;
  if constexpr (requires { option.parse; }) {
    return std::string(option.name(v));
  } else if constexpr (std::is_floating_point_v<std::decay_t<decltype(v)>>) {
    return real_text(v);
  } else {
    if (option.unit == core::OptionUnit::kPicoseconds) {  // exact: "2us", "1500ns"
      static constexpr std::pair<core::TimePs, const char*> kUnits[] = {
          {1'000'000'000'000, "s"}, {1'000'000'000, "ms"}, {1'000'000, "us"}, {1'000, "ns"}};
      for (const auto& [ps, unit] : kUnits) {
        if (v != 0 && v % ps == 0) return std::to_string(v / ps) + unit;
      }
      return std::to_string(v) + "ps";
    }
    return std::to_string(v);
  }
}

// The system's given options that are sweep axes (all but --tau, the
// list: --switches, --link-gbps, --scaleup-size, --duplex, --wiring, ...)
// and the time limit (given, or --full) as axis overrides; returns the
// given system flags that are not axes, for apply_to_point.
std::set<std::string, std::less<>> system_overrides(const EvaluateOptions& o,
                                                    const core::System& cli_system,
                                                    const sched::SchedulerOptions& cli_sched,
                                                    sweep::SweepSpec& spec) {
  std::set<std::string, std::less<>> rest;
  core::for_each_option(core::kSystemOptions, [&](const auto& option) {
    if (!o.system_flags.contains(option.flag)) return;
    if (!is_axis(option.field)) {
      rest.insert(std::string(option.flag));
      return;
    }
    set_axis(spec, option.field, std::string(option.flag), {axis_text(option, cli_system)});
  });
  // A wiring file's planes are the switches unless --switches is given
  // (SystemOptions), over the preset's switches axis too.
  if (o.system_flags.contains("--wiring") && !o.system_flags.contains("--switches") &&
      cli_system.wiring_ports && cli_system.wiring_ports->grouped()) {
    set_axis(spec, "switches", "--wiring", {std::to_string(cli_system.switches)});
  }
  if (o.time_limit_given || o.full) {
    const double limit_s = o.time_limit_given ? cli_sched.time_limit_s : kFullLimitS;
    set_axis(spec, "time_limit", o.time_limit_given ? "--time-limit" : "--full",
             {real_text(limit_s) + "s"});
  }
  return rest;
}

// The training job's given options that are sweep axes (--tp, --dp) as
// axis overrides, their values as resolved on the preset's first point.
void training_overrides(const EvaluateOptions& o, sweep::SweepSpec& spec) {
  if (o.training_flags.empty()) return;
  const sweep::Point first = spec.points().front();
  TrainingOptions t;
  t.overrides = o.training.overrides;
  const workload::TrainingConfig c =
      t.resolve(first.robust ? first.robust->job.training : first.config.job.training);
  core::for_each_option(workload::kTrainingOptions, [&](const auto& option) {
    if constexpr (requires { option.min; }) {
      if (o.training_flags.contains(option.flag) && is_axis(option.field)) {
        set_axis(spec, option.field, std::string(option.flag), {std::to_string(c.*option.member)});
      }
    }
  });
}

// The options that are not axes, applied to every point: the given system
// options without an axis (`system_flags`), the schedulers' (the time limit
// the point's: an axis) and the training job's.
void apply_to_point(const EvaluateOptions& o,
                    const std::set<std::string, std::less<>>& system_flags,
                    const core::System& cli_system, const sched::SchedulerOptions& cli_sched,
                    sweep::Point& p) {
  eval::EvalJob& job = p.robust ? p.robust->job : p.config.job;
  core::System& system = p.robust ? p.robust->system : p.config.system;
  sched::SchedulerOptions& sched = p.robust ? p.robust->sched : p.config.sched;
  core::for_each_option(core::kSystemOptions, [&](const auto& option) {
    if (system_flags.contains(option.flag)) system.*option.member = cli_system.*option.member;
  });
  const double limit_s = sched.time_limit_s;
  sched = cli_sched;
  sched.time_limit_s = limit_s;
  TrainingOptions t = o.training;
  t.model.clear();  // axes
  t.gpu.clear();
  const std::uint32_t layers = job.training.model.layers;
  job.training = t.resolve(job.training);
  job.training.model.layers = layers;
  p.memory_bytes = sweep::point_memory_bytes(p.config);
}

// Throws the first point's configuration error, named by its option.
void validate_points(const std::vector<sweep::Point>& points) {
  for (const sweep::Point& p : points) {
    try {
      if (p.robust) {
        p.robust->validate();
      } else {
        p.config.validate();
      }
    } catch (const core::InputError& e) {
      if (e.field() == "schedulers" || e.field() == "scheduler") {
        throw core::InputError("", "--schedulers", e.value(), e.problem());
      }
      throw option_error(e, eval::kRobustnessOptions, core::kSystemOptions,
                         sched::kSchedulerOptions);
    }
  }
}

// The preset with the command line's options, its points in the CSV's order.
std::vector<sweep::Point> preset_points(const EvaluateOptions& o, sweep::SweepSpec& spec) {
  try {
    spec = sweep::preset_spec(o.preset);
  } catch (const core::InputError& e) {
    if (!e.source().empty()) throw;  // the shipped file itself
    throw option_error(e);
  }
  const bool robust = spec.robust();
  if (!robust && (!o.jitters.empty() || !o.straggler_factors.empty() ||
                  !o.failure_jitters.empty() || !o.robust.empty())) {
    throw core::InputError(
        "", "--preset", o.preset,
        "--jitters, --straggler-factors, --failure-jitters, --trials, "
        "--perturb-seed, --straggler-rank, --replan-time-limit and --replan-moves "
        "only apply to --preset robustness");
  }
  const bool training_given = !o.training.model.empty() || !o.training.gpu.empty() ||
                              !o.training.overrides.empty() || !o.layers.empty();
  if (spec.axis("job") != nullptr && training_given) {
    throw core::InputError("", o.layers.empty() ? "--model/--gpu/--tp/--dp" : "--layers", "",
                           "preset " + o.preset + " runs named jobs: their layout is fixed");
  }
  if (!o.training.model.empty()) set_axis(spec, "model", "--model", {o.training.model});
  if (!o.layers.empty()) set_axis(spec, "layers", "--layers", o.layers);
  if (!o.training.gpu.empty()) set_axis(spec, "gpu", "--gpu", {o.training.gpu});
  if (!o.taus.empty()) set_axis(spec, "tau", "--tau", o.taus);
  if (!o.schedulers.empty()) set_axis(spec, "scheduler", "--schedulers", o.schedulers);
  RobustLists lists;
  if (robust) robust_overrides(o, spec, lists);
  const bool listed =
      !o.jitters.empty() || !o.straggler_factors.empty() || !o.failure_jitters.empty();

  const core::System cli_system = o.system.to_system();
  SchedulerRun run = o.run;
  run.scheduler.clear();  // the options given, for the schedulers that run
  for (const std::string& name : spec.axis("scheduler")->values) {
    run.also_for.push_back(eval::scheduler_variant(name).base);
  }
  const sched::SchedulerOptions cli_sched = run.resolve();
  const std::set<std::string, std::less<>> system_flags =
      system_overrides(o, cli_system, cli_sched, spec);
  training_overrides(o, spec);
  std::vector<sweep::Point> points = spec.points();
  if (robust && listed) {
    std::erase_if(points, [&](const sweep::Point& p) { return !lists.keep(*p.robust); });
  }
  for (sweep::Point& p : points) apply_to_point(o, system_flags, cli_system, cli_sched, p);
  validate_points(points);
  sweep::preset_order(spec, points);
  spec.name = sweep::preset_stem(o.preset);  // the plots' file names
  return points;
}

std::string progress_line(const sweep::Point& p, const std::string& metrics) {
  char buf[512];
  if (p.robust) {
    const eval::RobustRow r = eval::parse_robust_csv_row(metrics);
    std::snprintf(buf, sizeof buf,
                  "%s, tau %-7s %-13s %-9s %5g%% x%-4g p50 %10.2f ms  p95 %10.2f ms  "
                  "peak p95 %-10s%s (%.2f s)",
                  r.job.c_str(), core::format_duration(r.tau_ps).c_str(), r.scheduler.c_str(),
                  std::string(eval::to_string(r.perturbation)).c_str(), 100 * r.jitter,
                  r.straggler_factor, r.iteration_time_s.p50 * 1e3, r.iteration_time_s.p95 * 1e3,
                  core::format_bytes(static_cast<double>(r.peak_nic_bytes.p95)).c_str(),
                  r.all_delivered ? "" : "  BYTES MISSING", r.solve_time_s + r.sim_time_s);
    return buf;
  }
  const eval::EvalRow r = eval::parse_csv_row(metrics);
  const std::string job =
      r.job == eval::layer_job_name(r.layers) ? std::to_string(r.layers) + " layers" : r.job;
  std::snprintf(
      buf, sizeof buf, "%s, tau %-7s %-13s %10.2f ms  peak %-10s %7llu reconf.  %-8s (%.2f s)",
      job.c_str(), core::format_duration(r.tau_ps).c_str(), r.scheduler.c_str(),
      r.iteration_time_s * 1e3, core::format_bytes(static_cast<double>(r.peak_nic_bytes)).c_str(),
      static_cast<unsigned long long>(r.reconfigurations), r.status.c_str(), r.solve_time_s);
  return buf;
}

}  // namespace

void EvaluateOptions::validate() const {
  if (jobs < 1 || jobs > kMaxEvaluateJobs) {
    throw core::InputError("", "--jobs", std::to_string(jobs),
                           "must be an integer between 1 and " + std::to_string(kMaxEvaluateJobs));
  }
}

EvaluatePlan make_points(const EvaluateOptions& o) {
  o.validate();
  EvaluatePlan plan;
  plan.points = preset_points(o, plan.spec);
  return plan;
}

std::string EvaluateResult::failure_message() const {
  if (failures.empty()) return "";
  return std::to_string(failures.size()) + " of " + std::to_string(ran) +
         " points failed (the others are in " + csv.string() +
         "; a rerun retries the failed ones), the first: " + failures.front();
}

EvaluateResult run_evaluate(const EvaluateOptions& o, const EvaluatePlan& plan,
                            const std::filesystem::path& dir, const EvaluateReport& report,
                            const std::function<bool()>& stop) {
  const sweep::SweepSpec& spec = plan.spec;
  const std::vector<sweep::Point>& points = plan.points;
  const auto say = [&](const std::string& line) {
    if (report) report(line);
  };
  EvaluateResult result;
  result.points = points.size();
  result.csv = dir / (spec.name + ".csv");
  const std::filesystem::path& csv = result.csv;
  sweep::PresetCsv results(csv, points, o.fresh);
  std::string factors;
  for (const sweep::Axis& a : spec.axes) {
    if (a.values.size() > 1) {
      factors += (factors.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.name;
    }
  }
  const double limit_s = points.front().robust ? points.front().robust->sched.time_limit_s
                                               : points.front().config.sched.time_limit_s;
  say("flux evaluate: preset " + o.preset + ", " + std::to_string(points.size()) + " points (" +
      factors + (spec.filters.empty() && !spec.robust() ? "" : ", filtered") + "), results in " +
      dir.string() + "/");
  char buf[512];
  std::snprintf(buf, sizeof buf, "flux evaluate: scheduler time limit %.0f s per instance%s",
                limit_s, o.full ? " (--full)" : " (--full: 600 s)");
  say(buf);
  result.resumed = results.resumed();
  if (results.resumed() != 0) {
    say("flux evaluate: resuming: " + std::to_string(results.resumed()) + " rows already in " +
        csv.string());
  }
  const std::vector<std::size_t> todo = results.pending();
  result.ran = todo.size();
  sweep::RunOptions run;
  run.jobs = o.jobs;
  if (stop) {
    run.stop = [&] { return result.stopped = result.stopped || stop(); };
  }
  // One point at a time has no budget to keep; several share 80% of the
  // memory available (as flux sweep does by default).
  if (o.jobs > 1) run.memory_budget_bytes = available_memory() / 5 * 4;
  const std::size_t done_before = points.size() - todo.size();
  // A point whose configuration cannot run the job (a fold the wiring
  // cannot lift, a send with no route: `invalid`) is an answer of the
  // study, listed in the summary; any other failure fails the run.
  const auto counter = [&](std::size_t done) {
    std::snprintf(buf, sizeof buf, "[%3zu/%zu] ", done_before + done, points.size());
    return std::string(buf);
  };
  sweep::run_points(points, todo, run,
                    [&](std::size_t index, const sweep::Outcome& out, const sweep::RunProgress& p) {
                      const sweep::Point& point = points[index];
                      if (out.status != sweep::PointStatus::kOk) {
                        const std::string reason =
                            std::string(sweep::to_string(out.status)) + ": " + out.error;
                        say(counter(p.done) + point.key() + ": " + reason);
                        if (out.status == sweep::PointStatus::kInvalid) {
                          result.cannot_run.push_back(point.key() + ": " + out.error);
                        } else {
                          result.failures.push_back(point.key() + ": " + reason);
                        }
                        return;
                      }
                      results.add(index, out.metrics);
                      ++result.measured;
                      say(counter(p.done) + progress_line(point, out.metrics));
                    });
  results.write();
  if (result.stopped || !result.failures.empty()) return result;
  std::string& summary = result.summary;
  if (spec.robust()) {
    std::vector<eval::RobustPoint> rp;
    for (const sweep::Point& p : points) rp.push_back(*p.robust);
    summary = eval::robustness_summary(rp, results.robust_rows());
  } else {
    std::vector<eval::EvalPoint> ep;
    for (const sweep::Point& p : points) ep.push_back(p.config);
    summary = eval::summary_table(ep, results.eval_rows());
  }
  if (!result.cannot_run.empty()) {
    summary += "\n" + std::to_string(result.cannot_run.size()) +
               " points the configuration cannot run (not measured):\n";
    for (const std::string& c : result.cannot_run) summary += "  " + c + "\n";
  }
  result.summary_file = dir / "summary.txt";
  io::save_file(result.summary_file, [&](std::ostream& out) { out << summary; });
  result.sweep_rows = results.sweep_rows(spec);
  return result;
}

}  // namespace flux::frontend
