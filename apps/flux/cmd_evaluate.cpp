// flux evaluate --preset paper-fig2 -o results/: a preset run into a
// directory, `flux sweep` on a shipped sweep file with the command line's
// options as axis overrides. What the preset runs and how (the overrides,
// the points, the run loop, the summary) is the library's
// (include/flux/frontend/evaluate.hpp, shared with Python's
// flux.evaluate); here: the options registered on CLI11, which were given,
// the output directory and its lock, the progress lines on stderr, the
// summary and the plots (the sweep's plot writer, gnuplot) on stdout.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/frontend/evaluate.hpp"
#include "flux/frontend/sweep_driver.hpp"
#include "flux/io/output.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/workload/llama.hpp"

namespace flux::cli {
namespace {

// The command line's options: the library's (frontend::EvaluateOptions)
// and where the results go.
struct EvaluateOptions : frontend::EvaluateOptions {
  std::string output = "results";
  bool no_plot = false;
};

void run_evaluate(const EvaluateOptions& o) {
  const frontend::EvaluatePlan plan = frontend::make_points(o);
  const std::filesystem::path dir = o.output;
  // Before any point is measured: the directory, and no other run writing it.
  io::prepare_output_directory(dir, "-o");
  const io::DirectoryLock lock(dir, ".flux-evaluate.lock", "flux evaluate");
  const frontend::EvaluateResult r = frontend::run_evaluate(
      o, plan, dir, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  if (!r.failures.empty()) throw core::Error(r.failure_message());
  std::printf("%s\nwrote %s, %s\n", r.summary.c_str(), r.csv.string().c_str(),
              r.summary_file.string().c_str());
  frontend::write_plots(plan.spec, plan.points, r.sweep_rows, dir, !o.no_plot, stdout);
}

}  // namespace

void register_evaluate(CLI::App& app) {
  auto o = std::make_shared<EvaluateOptions>();
  auto* cmd = app.add_subcommand("evaluate", "run the paper's evaluation (Figure 2) end to end");
  cmd->add_option("--preset", o->preset,
                  "paper-fig2 (Figure 2: layer counts x tau), real-jobs (Llama 3 405B on 16,384 "
                  "and 70B on 1,024 H100s in 8-GPU domains, folded), robustness (jitter and "
                  "stragglers, 8 layers on A100 and H100), moe (Mixtral 8x7B EP8 on 8 GPUs, "
                  "DeepSeek-V3-like EP16 on 256, uniform and zipf routing, uncertain routing), "
                  "moe-online (those jobs' all-to-alls scheduled online as the routing is "
                  "revealed, 10 iterations, against planning once, the oracle and the baselines) "
                  "or fabrics (those jobs on the full crossbar and on rails of 576-, 320- and "
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
    o->time_limit_given = cmd->count("--time-limit") > 0;
    o->system_flags.clear();
    o->training_flags.clear();
    core::for_each_option(core::kSystemOptions, [&](const auto& option) {
      const std::string flag(option.flag);
      if (flag != "--tau" && cmd->count(flag) > 0) o->system_flags.insert(flag);
    });
    core::for_each_option(workload::kTrainingOptions, [&](const auto& option) {
      const std::string flag(option.flag);
      const CLI::Option* opt = cmd->get_option_no_throw(flag);
      // --scaleup-size is the system's (its axis sets the job's).
      if (opt != nullptr && opt->count() > 0 && !o->system_flags.contains(flag)) {
        o->training_flags.insert(flag);
      }
    });
    run_evaluate(*o);
  });
}

}  // namespace flux::cli
