// flux evaluate --preset paper-fig2 -o results/: the paper's Figure 2 as a
// sweep of layers x tau x schedulers; every point scheduled, validated and
// simulated. The preset is a shipped sweep file (sweeps/paper-fig2.toml,
// compiled in; flux::sweep::evaluation_preset) that the options change; its
// points run through the sweep runner, each in a process of its own, -j at
// once. Writes fig2.csv after every point (an interrupted sweep resumes from
// it), summary.txt, fig2.gp and, through gnuplot, fig2.png and fig2.svg.
// --preset robustness is sweeps/robustness.toml (sweep::robustness_preset),
// its perturbation options mapped onto the study's lists, run the same way
// into robustness.csv.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <numeric>
#include <set>
#include <string_view>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/frontend/gnuplot.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/runner.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct EvaluateOptions {
  std::string preset = "paper-fig2";
  std::string output = "results";
  std::vector<std::uint32_t> layers;
  std::vector<std::string> taus;
  std::vector<std::string> schedulers;
  frontend::TrainingOptions training;
  frontend::SystemOptions system;
  frontend::SchedulerRun run;
  unsigned jobs = 1;  // points at once
  bool full = false;
  bool fresh = false;
  bool no_plot = false;
  // The robustness preset's axes and options (eval::kRobustnessOptions).
  std::vector<std::string> jitters;
  std::vector<std::string> straggler_factors;
  std::vector<std::string> failure_jitters;
  std::vector<std::function<void(eval::RobustnessConfig&)>> robust;
};

constexpr double kFullLimitS = 600;

// "8 layers" for a layer sweep's point, else the job's name.
std::string job_label(const eval::EvalRow& r) {
  if (r.job != eval::layer_job_name(r.layers)) return r.job;
  std::string s = std::to_string(r.layers);
  s += " layers";
  return s;
}

// Which options the command line gave (their defaults do not count).
struct Given {
  bool time_limit = false;
  std::set<std::string, std::less<>> system_flags;  ///< flags of core::kSystemOptions

  [[nodiscard]] bool has(std::string_view flag) const { return system_flags.contains(flag); }
};

// The command line's system and scheduler options over a preset's: the
// preset file's values unless the command line gives them.
void apply_run_options(const EvaluateOptions& o, const Given& given,
                       const std::vector<std::string>& schedulers, core::System& system,
                       sched::SchedulerOptions& sched) {
  const core::System preset_system = system;
  system = o.system.to_system();  // each job's domains checked by validate()
  core::for_each_option(core::kSystemOptions, [&](const auto& option) {
    if (!given.has(option.flag)) system.*option.member = preset_system.*option.member;
  });
  const double preset_limit_s = sched.time_limit_s;
  // The options given, for the schedulers that run ("flux-robust" runs
  // flux); evaluate has no --scheduler.
  frontend::SchedulerRun run = o.run;
  run.scheduler.clear();
  for (const std::string& name : schedulers) {
    try {
      run.also_for.push_back(eval::scheduler_variant(name).base);
    } catch (const core::InputError&) {
      // an unknown name is the configuration's to report
    }
  }
  sched = run.resolve();
  if (!given.time_limit) sched.time_limit_s = preset_limit_s;
  if (o.full && !given.time_limit) sched.time_limit_s = kFullLimitS;
}

eval::EvalConfig make_config(const EvaluateOptions& o, const Given& given) {
  if (!o.jitters.empty() || !o.straggler_factors.empty() || !o.failure_jitters.empty() ||
      !o.robust.empty()) {
    throw core::InputError(
        "", "--preset", o.preset,
        "--jitters, --straggler-factors, --failure-jitters, --trials, "
        "--perturb-seed, --straggler-rank, --replan-time-limit and --replan-moves "
        "only apply "
        "to --preset robustness");
  }
  eval::EvalConfig c;
  try {
    c = sweep::evaluation_preset(o.preset);
  } catch (const core::InputError& e) {
    if (!e.source().empty()) throw;  // the shipped file itself
    throw frontend::option_error(e);
  }
  const bool training_given = !o.training.model.empty() || !o.training.gpu.empty() ||
                              !o.training.overrides.empty() || !o.layers.empty();
  if (!c.named_jobs.empty() && training_given) {
    throw core::InputError("", o.layers.empty() ? "--model/--gpu/--tp/--dp" : "--layers", "",
                           "preset " + c.preset + " runs named jobs: their layout is fixed");
  }
  if (!o.layers.empty()) c.layers = o.layers;
  if (!o.taus.empty()) {
    c.taus_ps.clear();
    for (const std::string& t : o.taus) c.taus_ps.push_back(core::parse_duration(t, "--tau"));
  }
  if (!o.schedulers.empty()) c.schedulers = o.schedulers;
  c.training = o.training.resolve(c.training);
  apply_run_options(o, given, c.schedulers, c.system, c.sched);
  for (eval::EvalJob& j : c.named_jobs) {  // a named job's fabric, unless given
    if (given.has("--scaleup-size")) j.scaleup_size = c.system.scaleup_size;
    if (given.has("--scaleup-gbps")) j.scaleup_gbps = c.system.scaleup_gbps;
  }
  try {
    c.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, core::kSystemOptions, sched::kSchedulerOptions);
  }
  return c;
}

// sweeps/robustness.toml with the command line's options over its axes.
eval::RobustnessConfig make_robust_config(const EvaluateOptions& o, const Given& given) {
  eval::RobustnessConfig c;
  try {
    c = sweep::robustness_config(sweep::preset_spec(o.preset));
  } catch (const core::InputError& e) {
    if (!e.source().empty()) throw;  // the shipped file itself
    throw frontend::option_error(e);
  }
  if (!o.layers.empty()) c.layers = o.layers;
  if (!o.training.gpu.empty()) c.gpus = {o.training.gpu};
  c.training = o.training.resolve(c.training);
  if (!o.taus.empty()) {
    c.taus_ps.clear();
    for (const std::string& t : o.taus) c.taus_ps.push_back(core::parse_duration(t, "--tau"));
  }
  if (!o.schedulers.empty()) c.schedulers = o.schedulers;
  if (!o.jitters.empty()) {
    c.jitters.clear();
    for (const std::string& j : o.jitters) c.jitters.push_back(sim::parse_percent("--jitters", j));
  }
  if (!o.straggler_factors.empty()) {
    c.straggler_factors.clear();
    for (const std::string& f : o.straggler_factors) {
      char* end = nullptr;
      const double v = std::strtod(f.c_str(), &end);
      if (f.empty() || end != f.c_str() + f.size() || !(v > 0 && v <= 1000)) {
        throw core::InputError("", "--straggler-factors", f, "expected a factor in (0, 1000]");
      }
      c.straggler_factors.push_back(v);
    }
  }
  if (!o.failure_jitters.empty()) {
    c.failure_jitters.clear();
    if (o.failure_jitters != std::vector<std::string>{"none"}) {
      for (const std::string& j : o.failure_jitters) {
        c.failure_jitters.push_back(sim::parse_percent("--failure-jitters", j));
      }
    }
  }
  for (const auto& set : o.robust) set(c);
  apply_run_options(o, given, c.schedulers, c.system, c.sched);
  try {
    c.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, eval::kRobustnessOptions, core::kSystemOptions,
                                 sched::kSchedulerOptions);
  }
  return c;
}

// <stem>.png and <stem>.svg through gnuplot, each checked complete before it
// is renamed into place; false when gnuplot is not installed.
// `script(png, svg)` is the gnuplot script drawing into those files.
using Script = std::function<std::string(const std::string& png, const std::string& svg)>;

bool plot(const std::string& stem, const std::filesystem::path& dir, const Script& script_of) {
  const std::filesystem::path png_file = dir / (stem + ".png");
  const std::filesystem::path svg_file = dir / (stem + ".svg");
  io::OutputFile png(io::resolve_output(png_file, false));
  io::OutputFile svg(io::resolve_output(svg_file, false));
  // gnuplot opens its outputs by name: the descriptors we pass it (3, 4).
  const std::string script = script_of("/proc/self/fd/3", "/proc/self/fd/4");
  if (!frontend::run_gnuplot(script, {png.fd(), svg.fd()})) return false;
  frontend::check_plot(png, png_file, frontend::kPngEndView);
  frontend::check_plot(svg, svg_file, "</svg>");
  png.commit();
  svg.commit();
  return true;
}

// After the sweep: summary.txt, <stem>.gp and, through gnuplot, the plots.
void finish(const std::filesystem::path& dir, const std::string& stem, const std::string& summary,
            bool no_plot, const Script& script_of) {
  const std::filesystem::path csv = dir / (stem + ".csv");
  const std::filesystem::path gp = dir / (stem + ".gp");
  // The script as a user reruns it in the directory: gnuplot <stem>.gp.
  const std::string script = script_of(stem + ".png", stem + ".svg");
  io::save_files({{(dir / "summary.txt").string(), [&](std::ostream& out) { out << summary; }},
                  {gp.string(), [&](std::ostream& out) { out << script; }}});
  std::printf("%s", summary.c_str());
  std::printf("\nwrote %s, %s, %s\n", csv.string().c_str(), (dir / "summary.txt").string().c_str(),
              gp.string().c_str());
  if (no_plot) return;
  if (!plot(stem, dir, script_of)) {
    std::printf(
        "gnuplot is not installed: no plots (apt-get install gnuplot-nox, then gnuplot %s)\n",
        gp.string().c_str());
    return;
  }
  std::printf("plotted %s and %s\n", (dir / (stem + ".png")).string().c_str(),
              (dir / (stem + ".svg")).string().c_str());
}

// Runs a preset's pending points through the sweep runner, each in a
// process of its own, -j at once: on_ok(metrics, done) for each that
// succeeds (done counts the resumed ones too); after all, core::Error
// naming the first that failed (the others' rows saved).
void run_preset_points(const std::vector<sweep::Point>& points, const EvaluateOptions& o,
                       std::size_t total, const std::filesystem::path& csv,
                       const std::function<void(const std::string&, std::size_t)>& on_ok) {
  std::vector<std::size_t> todo(points.size());
  std::iota(todo.begin(), todo.end(), std::size_t{0});
  sweep::RunOptions run;
  run.jobs = o.jobs;
  // One point at a time has no budget to keep; several share 80% of the
  // memory available (as flux sweep does by default).
  if (o.jobs > 1) run.memory_budget_bytes = frontend::available_memory() / 5 * 4;
  const std::size_t resumed = total - points.size();
  std::vector<std::string> failed;
  sweep::run_points(points, todo, run,
                    [&](std::size_t index, const sweep::Outcome& out, const sweep::RunProgress& p) {
                      const std::string& key = points[index].key();
                      if (out.status != sweep::PointStatus::kOk) {
                        const std::string reason =
                            std::string(sweep::to_string(out.status)) + ": " + out.error;
                        std::fprintf(stderr, "[%3zu/%zu] %s: %s\n", resumed + p.done, total,
                                     key.c_str(), reason.c_str());
                        failed.push_back(key + ": " + reason);
                        return;
                      }
                      on_ok(out.metrics, resumed + p.done);
                    });
  if (!failed.empty()) {
    throw core::Error(std::to_string(failed.size()) + " of " + std::to_string(points.size()) +
                      " points failed (the others are in " + csv.string() +
                      "; a rerun retries the failed ones), the first: " + failed.front());
  }
}

void run_robustness(const EvaluateOptions& o, const Given& given) {
  const eval::RobustnessConfig c = make_robust_config(o, given);
  const std::filesystem::path dir = o.output;
  io::prepare_output_directory(dir, "-o");
  const io::DirectoryLock lock(dir, ".flux-evaluate.lock", "flux evaluate");
  const std::filesystem::path csv = dir / (c.file_stem + ".csv");
  std::vector<eval::RobustRow> rows;
  if (!o.fresh && std::filesystem::exists(csv)) rows = eval::read_robust_csv(csv);
  std::fprintf(stderr,
               "flux evaluate: preset %s, %zu points (%zu jobs x %zu delays x %zu schedulers x "
               "%zu perturbations, %u trials per jitter), results in %s/\n",
               c.preset.c_str(), c.points(), c.jobs().size(), c.taus_ps.size(), c.schedulers.size(),
               c.perturbations().size(), c.trials, dir.string().c_str());
  if (!rows.empty()) {
    std::fprintf(stderr, "flux evaluate: resuming: %zu rows already in %s\n", rows.size(),
                 csv.string().c_str());
  }
  std::vector<sweep::Point> points;
  for (const eval::RobustPoint& one : eval::pending_robust_points(c, rows)) {
    points.push_back(sweep::robustness_point(one));
  }
  const std::size_t n = c.points();
  run_preset_points(points, o, n, csv, [&](const std::string& metrics, std::size_t done) {
    const eval::RobustRow r = eval::parse_robust_csv_row(metrics);
    eval::add_robust_row(c, rows, r);
    eval::write_robust_csv(csv, rows);
    std::fprintf(stderr,
                 "[%3zu/%zu] %s, tau %-7s %-13s %-9s %5g%% x%-4g p50 %10.2f ms  p95 %10.2f ms  "
                 "peak p95 %-10s%s (%.2f s)\n",
                 done, n, r.job.c_str(), core::format_duration(r.tau_ps).c_str(),
                 r.scheduler.c_str(), std::string(eval::to_string(r.perturbation)).c_str(),
                 100 * r.jitter, r.straggler_factor, r.iteration_time_s.p50 * 1e3,
                 r.iteration_time_s.p95 * 1e3,
                 human_bytes(static_cast<double>(r.peak_nic_bytes.p95)).c_str(),
                 r.all_delivered ? "" : "  BYTES MISSING", r.solve_time_s + r.sim_time_s);
  });
  eval::write_robust_csv(csv, rows);
  finish(dir, c.file_stem, eval::robustness_summary(c, rows), o.no_plot,
         [&](const std::string& png, const std::string& svg) {
           return eval::robustness_gnuplot(c, rows, png, svg);
         });
}

void run_evaluate(const EvaluateOptions& o, const Given& given) {
  if (o.preset == "robustness") {
    run_robustness(o, given);
    return;
  }
  const eval::EvalConfig c = make_config(o, given);
  const std::filesystem::path dir = o.output;
  // Before any point is solved: the directory, and no other run writing it.
  io::prepare_output_directory(dir, "-o");
  const io::DirectoryLock lock(dir, ".flux-evaluate.lock", "flux evaluate");
  const std::filesystem::path csv = dir / (c.file_stem + ".csv");
  std::vector<eval::EvalRow> rows;
  if (!o.fresh && std::filesystem::exists(csv)) rows = eval::read_csv(csv);

  const std::size_t jobs = c.jobs().size();
  const std::size_t total = jobs * c.taus_ps.size() * c.schedulers.size();
  std::fprintf(stderr,
               "flux evaluate: preset %s, %zu points (%zu %s x %zu delays x %zu "
               "schedulers), results in %s/\n"
               "flux evaluate: scheduler time limit %.0f s per instance%s\n",
               c.preset.c_str(), total, jobs, c.named_jobs.empty() ? "layer counts" : "jobs",
               c.taus_ps.size(), c.schedulers.size(), dir.string().c_str(), c.sched.time_limit_s,
               o.full ? " (--full)" : " (--full: 600 s)");
  if (!rows.empty()) {
    std::fprintf(stderr, "flux evaluate: resuming: %zu rows already in %s\n", rows.size(),
                 csv.string().c_str());
  }
  // The points not in the CSV, each in a process of its own (flux::sweep).
  std::vector<sweep::Point> points;
  for (const eval::EvalConfig& one : eval::pending_points(c, rows)) {
    points.push_back(sweep::evaluation_point(one));
  }
  run_preset_points(points, o, total, csv, [&](const std::string& metrics, std::size_t done) {
    const eval::EvalRow r = eval::parse_csv_row(metrics);
    eval::add_row(c, rows, r);
    eval::write_csv(csv, rows);
    std::fprintf(stderr,
                 "[%3zu/%zu] %s, tau %-7s %-13s %10.2f ms  peak %-10s %7llu reconf.  %-8s (%.2f "
                 "s)\n",
                 done, total, job_label(r).c_str(), core::format_duration(r.tau_ps).c_str(),
                 r.scheduler.c_str(), r.iteration_time_s * 1e3,
                 human_bytes(static_cast<double>(r.peak_nic_bytes)).c_str(),
                 static_cast<unsigned long long>(r.reconfigurations), r.status.c_str(),
                 r.solve_time_s);
  });
  eval::write_csv(csv, rows);
  finish(dir, c.file_stem, eval::summary_table(c, rows), o.no_plot,
         [&](const std::string& png, const std::string& svg) {
           return eval::gnuplot_script(c, rows, png, svg);
         });
}

}  // namespace

void register_evaluate(CLI::App& app) {
  auto o = std::make_shared<EvaluateOptions>();
  auto* cmd = app.add_subcommand("evaluate", "run the paper's evaluation (Figure 2) end to end");
  cmd->add_option("--preset", o->preset,
                  "paper-fig2 (Figure 2: layer counts x tau), real-jobs (Llama 3 405B on 16,384 "
                  "and 70B on 1,024 H100s in 8-GPU domains, folded), robustness (jitter and "
                  "stragglers, 8 layers on A100 and H100) or moe (Mixtral 8x7B EP8 on 8 GPUs, "
                  "DeepSeek-V3-like EP16 on 256, uniform and zipf routing, uncertain routing); "
                  "the files are sweeps/<name>.toml, docs/results.md")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "directory for fig2.csv, summary.txt and the plots")
      ->capture_default_str();
  cmd->add_option("--layers", o->layers, "layer counts, e.g. 8,16 (default: the preset's)")
      ->delimiter(',');
  cmd->add_option("--tau", o->taus, "delays, e.g. 1us,10us,1ms (default: the preset's)")
      ->delimiter(',');
  cmd->add_option("--schedulers", o->schedulers,
                  "schedulers, the first compared with the rest (default: the preset's)")
      ->delimiter(',');
  add_training_options(*cmd, o->training, sweep::evaluation_preset("paper-fig2").training, false);
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
  const auto robust_defaults = sweep::robustness_preset();
  add_overrides(*cmd, eval::kRobustnessOptions, o->robust, &robust_defaults);
  cmd->add_option("-j,--jobs", o->jobs,
                  "points at once, each in a process of its own (default 1; more share 80% of "
                  "the available memory by their estimates)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--full", o->full, "longer solves: 600 s per instance (unless --time-limit)");
  cmd->add_flag("--fresh", o->fresh, "ignore rows already in fig2.csv and start over");
  cmd->add_flag("--no-plot", o->no_plot, "write fig2.gp but do not run gnuplot");
  cmd->callback([o, cmd] {
    Given given{cmd->count("--time-limit") > 0, {}};
    core::for_each_option(core::kSystemOptions, [&](const auto& option) {
      const std::string flag(option.flag);
      if (flag != "--tau" && cmd->count(flag) > 0) given.system_flags.insert(flag);
    });
    run_evaluate(*o, given);
  });
}

}  // namespace flux::cli
