// flux evaluate --preset paper-fig2 -o results/: the paper's Figure 2 as a
// sweep of layers x tau x schedulers; every point scheduled, validated and
// simulated. Writes fig2.csv after every point (an interrupted sweep resumes
// from it), summary.txt, fig2.gp and, through gnuplot, fig2.png and fig2.svg.
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/io/save.hpp"

extern char** environ;

namespace flux::cli {
namespace {

struct EvaluateOptions {
  std::string preset = "paper-fig2";
  std::string output = "results";
  std::vector<std::uint32_t> layers;
  std::vector<std::string> taus;
  std::vector<std::string> schedulers;
  TrainingCliOptions training;
  SystemOptions system;
  SchedulerCliOptions run;
  bool full = false;
  bool fresh = false;
  bool no_plot = false;
};

constexpr double kFullLimitS = 600;

eval::EvalConfig make_config(const EvaluateOptions& o, bool time_limit_given) {
  eval::EvalConfig c;
  try {
    c = eval::EvalConfig::preset_named(o.preset);
  } catch (const core::InputError& e) {
    throw option_error(e);
  }
  if (!o.layers.empty()) c.layers = o.layers;
  if (!o.taus.empty()) {
    c.taus_ps.clear();
    for (const std::string& t : o.taus) c.taus_ps.push_back(core::parse_duration(t, "--tau"));
  }
  if (!o.schedulers.empty()) c.schedulers = o.schedulers;
  c.training = o.training.resolve(c.training);
  c.system = o.system.to_system();
  c.sched = o.run.resolve();
  if (o.full && !time_limit_given) c.sched.time_limit_s = kFullLimitS;
  try {
    c.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions, sched::kSchedulerOptions);
  }
  return c;
}

// Runs gnuplot on `script` in `dir`; false when gnuplot is not installed.
bool run_gnuplot(const std::filesystem::path& dir, const std::string& script) {
  const std::string path = (dir / script).string();
  char arg0[] = "gnuplot";
  std::vector<char> arg1(path.begin(), path.end());
  arg1.push_back('\0');
  char* argv[] = {arg0, arg1.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return false;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw core::Error("gnuplot failed on " + path + " (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  return true;
}

void run_evaluate(const EvaluateOptions& o, bool time_limit_given) {
  const eval::EvalConfig c = make_config(o, time_limit_given);
  const std::filesystem::path dir = o.output;
  std::filesystem::create_directories(dir);
  const std::filesystem::path csv = dir / "fig2.csv";
  std::vector<eval::EvalRow> rows;
  if (!o.fresh && std::filesystem::exists(csv)) rows = eval::read_csv(csv);

  const std::size_t total = c.layers.size() * c.taus_ps.size() * c.schedulers.size();
  std::fprintf(stderr,
               "flux evaluate: preset %s, %zu points (%zu layer counts x %zu delays x %zu "
               "schedulers), results in %s/\n"
               "flux evaluate: scheduler time limit %.0f s per instance%s\n",
               c.preset.c_str(), total, c.layers.size(), c.taus_ps.size(), c.schedulers.size(),
               dir.string().c_str(), c.sched.time_limit_s,
               o.full ? " (--full)" : " (--full: 600 s)");
  if (!rows.empty()) {
    std::fprintf(stderr, "flux evaluate: resuming: %zu rows already in %s\n", rows.size(),
                 csv.string().c_str());
  }
  eval::run_evaluation(
      c, rows, [&](std::size_t done, std::size_t n, const eval::EvalRow& r, bool resumed) {
        if (resumed) return;
        eval::write_csv(csv, rows);
        std::fprintf(
            stderr,
            "[%3zu/%zu] %2u layers, tau %-7s %-13s %10.2f ms  peak %-10s %7llu reconf.  %-8s (%.2f "
            "s)\n",
            done, n, r.layers, core::format_duration(r.tau_ps).c_str(), r.scheduler.c_str(),
            r.iteration_time_s * 1e3, human_bytes(static_cast<double>(r.peak_nic_bytes)).c_str(),
            static_cast<unsigned long long>(r.reconfigurations), r.status.c_str(), r.solve_time_s);
      });
  eval::write_csv(csv, rows);
  const std::string summary = eval::summary_table(c, rows);
  io::save_file(dir / "summary.txt", [&](std::ostream& out) { out << summary; });
  std::printf("%s", summary.c_str());

  const std::string script = eval::gnuplot_script(c, rows, "fig2.png.tmp", "fig2.svg.tmp");
  io::save_file(dir / "fig2.gp", [&](std::ostream& out) { out << script; });
  std::printf("\nwrote %s, %s, %s\n", csv.string().c_str(), (dir / "summary.txt").string().c_str(),
              (dir / "fig2.gp").string().c_str());
  if (o.no_plot) return;
  // gnuplot writes relative to its working directory: run the script there.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  bool ran = false;
  try {
    ran = run_gnuplot(".", "fig2.gp");
  } catch (...) {
    std::filesystem::current_path(cwd);
    throw;
  }
  std::filesystem::current_path(cwd);
  if (!ran) {
    std::printf(
        "gnuplot is not installed: no plots (apt-get install gnuplot-nox, then gnuplot %s)\n",
        (dir / "fig2.gp").string().c_str());
    return;
  }
  std::filesystem::rename(dir / "fig2.png.tmp", dir / "fig2.png");
  std::filesystem::rename(dir / "fig2.svg.tmp", dir / "fig2.svg");
  std::printf("plotted %s and %s\n", (dir / "fig2.png").string().c_str(),
              (dir / "fig2.svg").string().c_str());
}

}  // namespace

void register_evaluate(CLI::App& app) {
  auto o = std::make_shared<EvaluateOptions>();
  auto* cmd = app.add_subcommand("evaluate", "run the paper's evaluation (Figure 2) end to end");
  cmd->add_option("--preset", o->preset, "paper-fig2")->capture_default_str();
  cmd->add_option("-o,--output", o->output, "directory for fig2.csv, summary.txt and the plots")
      ->capture_default_str();
  cmd->add_option("--layers", o->layers, "layer counts, e.g. 8,16 (default: the preset's)")
      ->delimiter(',');
  cmd->add_option("--tau", o->taus, "delays, e.g. 1us,10us,1ms (default: the preset's)")
      ->delimiter(',');
  cmd->add_option("--schedulers", o->schedulers,
                  "schedulers, the first compared with the rest (default: the preset's)")
      ->delimiter(',');
  o->training.add_to(*cmd, eval::EvalConfig::preset_named("paper-fig2").training, false);
  o->system.add_to(*cmd, {"--tau"});  // --tau is the sweep's list
  o->run.add_to(*cmd, false, false);
  cmd->add_flag("--full", o->full, "longer solves: 600 s per instance (unless --time-limit)");
  cmd->add_flag("--fresh", o->fresh, "ignore rows already in fig2.csv and start over");
  cmd->add_flag("--no-plot", o->no_plot, "write fig2.gp but do not run gnuplot");
  cmd->callback([o, cmd] { run_evaluate(*o, cmd->count("--time-limit") > 0); });
}

}  // namespace flux::cli
