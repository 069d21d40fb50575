// flux evaluate --preset paper-fig2 -o results/: a preset is a shipped sweep
// file (sweeps/<preset>.toml, compiled in: flux::sweep::preset_spec) and
// this command is `flux sweep` on it with the command line's options set as
// axis overrides (--layers, --tau, --schedulers, --model, --gpu, --tp,
// --dp, the system's options, --time-limit and --full, the robustness lists
// and options: so the CSV, the sweep rows and the plots' titles agree) or
// applied to every point (the schedulers' other options). Its points run
// through the sweep runner, each in a process of its own, -j at once, into
// <stem>.csv (fig2.csv, jobs.csv, robustness.csv, moe.csv: the metric
// columns; rewritten after every point, so an interrupted run resumes),
// summary.txt and the preset's plots (the sweep's plot writer, gnuplot).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/frontend/sweep_driver.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/runner.hpp"
#include "flux/workload/llama.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct EvaluateOptions {
  std::string preset = "paper-fig2";
  std::string output = "results";
  std::vector<std::string> layers;
  std::vector<std::string> taus;
  std::vector<std::string> schedulers;
  frontend::TrainingOptions training;
  frontend::SystemOptions system;
  frontend::SchedulerRun run;
  unsigned jobs = 1;  // points at once
  bool full = false;
  bool fresh = false;
  bool no_plot = false;
  // The robustness preset's lists and options (eval::kRobustnessOptions).
  std::vector<std::string> jitters;
  std::vector<std::string> straggler_factors;
  std::vector<std::string> failure_jitters;
  std::vector<std::function<void(eval::RobustOptions&)>> robust;
};

constexpr double kFullLimitS = 600;

// Which options the command line gave (their defaults do not count).
struct Given {
  bool time_limit = false;
  std::set<std::string, std::less<>> system_flags;    ///< flags of core::kSystemOptions
  std::set<std::string, std::less<>> training_flags;  ///< of workload::kTrainingOptions

  [[nodiscard]] bool has(std::string_view flag) const { return system_flags.contains(flag); }
};

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
std::set<std::string, std::less<>> system_overrides(const EvaluateOptions& o, const Given& given,
                                                    const core::System& cli_system,
                                                    const sched::SchedulerOptions& cli_sched,
                                                    sweep::SweepSpec& spec) {
  std::set<std::string, std::less<>> rest;
  core::for_each_option(core::kSystemOptions, [&](const auto& option) {
    if (!given.has(option.flag)) return;
    if (!is_axis(option.field)) {
      rest.insert(std::string(option.flag));
      return;
    }
    set_axis(spec, option.field, std::string(option.flag), {axis_text(option, cli_system)});
  });
  // A wiring file's planes are the switches unless --switches is given
  // (frontend::SystemOptions), over the preset's switches axis too.
  if (given.has("--wiring") && !given.has("--switches") && cli_system.wiring_ports &&
      cli_system.wiring_ports->grouped()) {
    set_axis(spec, "switches", "--wiring", {std::to_string(cli_system.switches)});
  }
  if (given.time_limit || o.full) {
    const double limit_s = given.time_limit ? cli_sched.time_limit_s : kFullLimitS;
    set_axis(spec, "time_limit", given.time_limit ? "--time-limit" : "--full",
             {real_text(limit_s) + "s"});
  }
  return rest;
}

// The training job's given options that are sweep axes (--tp, --dp) as
// axis overrides, their values as resolved on the preset's first point.
void training_overrides(const EvaluateOptions& o, const Given& given, sweep::SweepSpec& spec) {
  if (given.training_flags.empty()) return;
  const sweep::Point first = spec.points().front();
  frontend::TrainingOptions t;
  t.overrides = o.training.overrides;
  const workload::TrainingConfig c =
      t.resolve(first.robust ? first.robust->job.training : first.config.job.training);
  core::for_each_option(workload::kTrainingOptions, [&](const auto& option) {
    if constexpr (requires { option.min; }) {
      if (given.training_flags.contains(option.flag) && is_axis(option.field)) {
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
  frontend::TrainingOptions t = o.training;
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
      throw frontend::option_error(e, eval::kRobustnessOptions, core::kSystemOptions,
                                   sched::kSchedulerOptions);
    }
  }
}

// The preset with the command line's options, its points in the CSV's order.
std::vector<sweep::Point> make_points(const EvaluateOptions& o, const Given& given,
                                      sweep::SweepSpec& spec) {
  try {
    spec = sweep::preset_spec(o.preset);
  } catch (const core::InputError& e) {
    if (!e.source().empty()) throw;  // the shipped file itself
    throw frontend::option_error(e);
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
  frontend::SchedulerRun run = o.run;
  run.scheduler.clear();  // the options given, for the schedulers that run
  for (const std::string& name : spec.axis("scheduler")->values) {
    run.also_for.push_back(eval::scheduler_variant(name).base);
  }
  const sched::SchedulerOptions cli_sched = run.resolve();
  const std::set<std::string, std::less<>> system_flags =
      system_overrides(o, given, cli_system, cli_sched, spec);
  training_overrides(o, given, spec);
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
                  human_bytes(static_cast<double>(r.peak_nic_bytes.p95)).c_str(),
                  r.all_delivered ? "" : "  BYTES MISSING", r.solve_time_s + r.sim_time_s);
    return buf;
  }
  const eval::EvalRow r = eval::parse_csv_row(metrics);
  const std::string job =
      r.job == eval::layer_job_name(r.layers) ? std::to_string(r.layers) + " layers" : r.job;
  std::snprintf(
      buf, sizeof buf, "%s, tau %-7s %-13s %10.2f ms  peak %-10s %7llu reconf.  %-8s (%.2f s)",
      job.c_str(), core::format_duration(r.tau_ps).c_str(), r.scheduler.c_str(),
      r.iteration_time_s * 1e3, human_bytes(static_cast<double>(r.peak_nic_bytes)).c_str(),
      static_cast<unsigned long long>(r.reconfigurations), r.status.c_str(), r.solve_time_s);
  return buf;
}

void run_evaluate(const EvaluateOptions& o, const Given& given) {
  sweep::SweepSpec spec;
  const std::vector<sweep::Point> points = make_points(o, given, spec);
  const std::filesystem::path dir = o.output;
  // Before any point is measured: the directory, and no other run writing it.
  io::prepare_output_directory(dir, "-o");
  const io::DirectoryLock lock(dir, ".flux-evaluate.lock", "flux evaluate");
  const std::filesystem::path csv = dir / (spec.name + ".csv");
  sweep::PresetCsv results(csv, points, o.fresh);
  std::string factors;
  for (const sweep::Axis& a : spec.axes) {
    if (a.values.size() > 1) {
      factors += (factors.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.name;
    }
  }
  const double limit_s = points.front().robust ? points.front().robust->sched.time_limit_s
                                               : points.front().config.sched.time_limit_s;
  std::fprintf(stderr,
               "flux evaluate: preset %s, %zu points (%s%s), results in %s/\n"
               "flux evaluate: scheduler time limit %.0f s per instance%s\n",
               o.preset.c_str(), points.size(), factors.c_str(),
               spec.filters.empty() && !spec.robust() ? "" : ", filtered", dir.string().c_str(),
               limit_s, o.full ? " (--full)" : " (--full: 600 s)");
  if (results.resumed() != 0) {
    std::fprintf(stderr, "flux evaluate: resuming: %zu rows already in %s\n", results.resumed(),
                 csv.string().c_str());
  }
  const std::vector<std::size_t> todo = results.pending();
  sweep::RunOptions run;
  run.jobs = o.jobs;
  // One point at a time has no budget to keep; several share 80% of the
  // memory available (as flux sweep does by default).
  if (o.jobs > 1) run.memory_budget_bytes = frontend::available_memory() / 5 * 4;
  const std::size_t done_before = points.size() - todo.size();
  // A point whose configuration cannot run the job (a fold the wiring
  // cannot lift, a send with no route: `invalid`) is an answer of the
  // study, listed in the summary; any other failure fails the run.
  std::vector<std::string> failed, cannot_run;
  sweep::run_points(points, todo, run,
                    [&](std::size_t index, const sweep::Outcome& out, const sweep::RunProgress& p) {
                      const sweep::Point& point = points[index];
                      if (out.status != sweep::PointStatus::kOk) {
                        const std::string reason =
                            std::string(sweep::to_string(out.status)) + ": " + out.error;
                        std::fprintf(stderr, "[%3zu/%zu] %s: %s\n", done_before + p.done,
                                     points.size(), point.key().c_str(), reason.c_str());
                        if (out.status == sweep::PointStatus::kInvalid) {
                          cannot_run.push_back(point.key() + ": " + out.error);
                        } else {
                          failed.push_back(point.key() + ": " + reason);
                        }
                        return;
                      }
                      results.add(index, out.metrics);
                      std::fprintf(stderr, "[%3zu/%zu] %s\n", done_before + p.done, points.size(),
                                   progress_line(point, out.metrics).c_str());
                    });
  results.write();
  if (!failed.empty()) {
    throw core::Error(std::to_string(failed.size()) + " of " + std::to_string(todo.size()) +
                      " points failed (the others are in " + csv.string() +
                      "; a rerun retries the failed ones), the first: " + failed.front());
  }
  std::string summary;
  if (spec.robust()) {
    std::vector<eval::RobustPoint> rp;
    for (const sweep::Point& p : points) rp.push_back(*p.robust);
    summary = eval::robustness_summary(rp, results.robust_rows());
  } else {
    std::vector<eval::EvalPoint> ep;
    for (const sweep::Point& p : points) ep.push_back(p.config);
    summary = eval::summary_table(ep, results.eval_rows());
  }
  if (!cannot_run.empty()) {
    summary += "\n" + std::to_string(cannot_run.size()) +
               " points the configuration cannot run (not measured):\n";
    for (const std::string& c : cannot_run) summary += "  " + c + "\n";
  }
  const std::filesystem::path summary_file = dir / "summary.txt";
  io::save_file(summary_file, [&](std::ostream& out) { out << summary; });
  std::printf("%s\nwrote %s, %s\n", summary.c_str(), csv.string().c_str(),
              summary_file.string().c_str());
  frontend::write_plots(spec, points, results.sweep_rows(spec), dir, !o.no_plot, stdout);
}

}  // namespace

void register_evaluate(CLI::App& app) {
  auto o = std::make_shared<EvaluateOptions>();
  auto* cmd = app.add_subcommand("evaluate", "run the paper's evaluation (Figure 2) end to end");
  cmd->add_option("--preset", o->preset,
                  "paper-fig2 (Figure 2: layer counts x tau), real-jobs (Llama 3 405B on 16,384 "
                  "and 70B on 1,024 H100s in 8-GPU domains, folded), robustness (jitter and "
                  "stragglers, 8 layers on A100 and H100), moe (Mixtral 8x7B EP8 on 8 GPUs, "
                  "DeepSeek-V3-like EP16 on 256, uniform and zipf routing, uncertain routing) or "
                  "fabrics (those jobs on the full crossbar and on rails of 576-, 320- and "
                  "136-port OCS, with and without a 400 Gb/s packet fabric); "
                  "the files are sweeps/<name>.toml, docs/results.md")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "directory for fig2.csv, summary.txt and the plots")
      ->capture_default_str();
  cmd->add_option("--layers", o->layers, "layer counts, e.g. 8,16 (default: the preset's)")
      ->type_name("UINT")
      ->delimiter(',');
  cmd->add_option("--tau", o->taus, "delays, e.g. 1us,10us,1ms (default: the preset's)")
      ->delimiter(',');
  cmd->add_option("--schedulers", o->schedulers,
                  "schedulers, the first compared with the rest (default: the preset's)")
      ->delimiter(',');
  add_training_options(*cmd, o->training,
                       sweep::preset_spec("paper-fig2").points().front().config.job.training,
                       false);
  add_system_options(*cmd, o->system, {"--tau"});  // --tau is the sweep's list
  add_scheduler_options(*cmd, o->run, false, false);
  cmd->add_option("--jitters", o->jitters,
                  "robustness: compute jitters, e.g. 0,5%,20% (default 0,2%,5%,10%,20%)")
      ->delimiter(',');
  cmd->add_option("--straggler-factors", o->straggler_factors,
                  "robustness: the straggler's compute factors, e.g. 1.1,1.5 (default)")
      ->delimiter(',');
  cmd->add_option("--failure-jitters", o->failure_jitters,
                  "robustness: a point with switch 1 dark mid-iteration (re-planned) per jitter, "
                  "e.g. 0,5% (default); none: no failure point")
      ->delimiter(',');
  add_overrides(*cmd, eval::kRobustnessOptions, o->robust);
  cmd->add_option("-j,--jobs", o->jobs,
                  "points at once, each in a process of its own (default 1; more share 80% of "
                  "the available memory by their estimates)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--full", o->full, "longer solves: 600 s per instance (unless --time-limit)");
  cmd->add_flag("--fresh", o->fresh, "ignore rows already in fig2.csv and start over");
  cmd->add_flag("--no-plot", o->no_plot, "write fig2.gp but do not run gnuplot");
  cmd->callback([o, cmd] {
    Given given{cmd->count("--time-limit") > 0, {}, {}};
    core::for_each_option(core::kSystemOptions, [&](const auto& option) {
      const std::string flag(option.flag);
      if (flag != "--tau" && cmd->count(flag) > 0) given.system_flags.insert(flag);
    });
    core::for_each_option(workload::kTrainingOptions, [&](const auto& option) {
      const std::string flag(option.flag);
      const CLI::Option* opt = cmd->get_option_no_throw(flag);
      // --scaleup-size is the system's (its axis sets the job's).
      if (opt != nullptr && opt->count() > 0 && !given.has(flag)) {
        given.training_flags.insert(flag);
      }
    });
    run_evaluate(*o, given);
  });
}

}  // namespace flux::cli
