// flux sweep SPEC -o DIR: a design-space sweep (docs/formats.md, "Sweep
// files"). Every point runs in a process of its own, -j at once within a
// memory budget; its row is appended to DIR/<name>.csv (synced) as it ends,
// so an interrupted sweep resumes where it stopped; at the end the CSV is
// put in the points' order and the summary and plots are written. Under
// mpirun (a flux built with MPI) rank 0 hands the points out to the others.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/sweep_driver.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/sweep/mpi.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/runner.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::cli {
namespace {

struct SweepOptions {
  std::string spec;
  std::string output = "results";
  unsigned jobs = 0;  // 0: the number of cores
  std::string memory_budget;
  sweep::RunOptions run;  ///< the fields of sweep::kRunOptions
  bool fresh = false;
  bool retry_failed = false;
  bool no_plot = false;
  bool dry_run = false;
};

std::string eta(const sweep::RunProgress& p) {
  if (p.done == 0 || p.done >= p.total) return "-";
  const double left =
      p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.total - p.done);
  char buf[32];
  if (left >= 3600) {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(left / 3600),
                  static_cast<int>(left / 60) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(left / 60),
                  static_cast<int>(left) % 60);
  }
  return buf;
}

void run_sweep(const SweepOptions& o, sweep::MpiSession* mpi) {
  std::optional<sweep::SweepSpec> shared;
  if (mpi != nullptr) {
    shared = sweep::mpi_share_spec(*mpi, o.spec);
    if (!shared) return;  // a worker: rank 0 reports what is wrong
  }
  const sweep::SweepSpec spec = shared ? *shared : sweep::SweepSpec::read(o.spec);
  const std::vector<sweep::Point> points = spec.points();
  sweep::RunOptions run = o.run;
  run.jobs = o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  run.memory_budget_bytes = frontend::parse_memory_budget(o.memory_budget);
  if (mpi != nullptr) mpi->workers_waiting();
  if (mpi != nullptr && mpi->rank() != 0) {  // a worker: rank 0 writes every file
    sweep::mpi_work(*mpi, points, run);
    return;
  }
  if (o.dry_run) {
    for (const sweep::Point& p : points) {
      std::printf("%s  %s%s\n", p.key().c_str(),
                  core::format_bytes(static_cast<double>(p.memory_bytes)).c_str(),
                  p.invalid.empty() ? "" : ("  invalid: " + p.invalid).c_str());
    }
    std::printf("%zu points\n", points.size());
    if (mpi != nullptr) sweep::mpi_stop_workers(*mpi);
    return;
  }
  const std::filesystem::path dir = o.output;
  io::prepare_output_directory(dir, "-o");
  const io::DirectoryLock lock(dir, ".flux-sweep-" + spec.name + ".lock", "flux sweep");
  frontend::check_sweep_outputs(spec, points, dir, o.spec, !o.no_plot);
  const std::filesystem::path csv = dir / (spec.name + ".csv");
  sweep::ResultFile results(csv, sweep::csv_header(spec), points, o.fresh,
                            sweep::csv_upgrade(spec));

  std::size_t resumed = 0;
  const std::vector<std::size_t> todo =
      frontend::points_to_run(points, results, o.retry_failed, resumed);
  std::fprintf(
      stderr, "flux sweep: %s: %zu points, %zu to run, %s, memory budget %s; results in %s\n",
      spec.name.c_str(), points.size(), todo.size(),
      mpi != nullptr ? ("MPI, " + std::to_string(mpi->size() - 1) + " worker ranks").c_str()
                     : ("-j " + std::to_string(run.jobs)).c_str(),
      core::format_bytes(static_cast<double>(run.memory_budget_bytes)).c_str(),
      csv.string().c_str());
  if (resumed != 0 || results.torn_rows() != 0) {
    std::fprintf(stderr, "flux sweep: resuming: %zu points already in %s%s\n", resumed,
                 csv.string().c_str(),
                 results.torn_rows() != 0 ? " (a torn last row was dropped)" : "");
  }
  const auto on_done = [&](std::size_t index, const sweep::Outcome& out,
                           const sweep::RunProgress& p) {
    const sweep::Point& point = points[index];
    results.append(point.key(), sweep::csv_row(spec, point, out));
    std::fprintf(stderr, "[%zu/%zu] %zu failed, %zu running, ETA %s | %s: %s (%.2f s)%s%s\n",
                 p.done, p.total, p.failed, p.running, eta(p).c_str(), point.key().c_str(),
                 std::string(sweep::to_string(out.status)).c_str(), out.wall_s,
                 out.error.empty() ? "" : ": ", out.error.c_str());
  };
  if (mpi != nullptr) {
    sweep::mpi_coordinate(*mpi, points, todo, run, on_done);
  } else {
    sweep::run_points(points, todo, run, on_done);
  }
  const std::string summary = frontend::finish_sweep(spec, points, results, dir);
  const std::filesystem::path summary_file = dir / (spec.name + "-summary.txt");
  std::printf("%s\nran %zu points, %zu resumed; wrote %s, %s\n", summary.c_str(), todo.size(),
              resumed, csv.string().c_str(), summary_file.string().c_str());
  frontend::write_plots(spec, points, results.rows(), dir, !o.no_plot, stdout);
}

}  // namespace

void register_sweep(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand(
      "sweep", std::string("run a design-space sweep from a TOML or JSON file (docs/formats.md, "
                           "Sweep files)") +
                   (sweep::MpiSession::available()
                        ? "; under mpirun or srun, rank 0 hands the points out to the other ranks"
                        : "; this flux has no MPI support"));
  cmd->add_option("spec", o->spec,
                  "the sweep file (.toml or .json; at most " +
                      std::to_string(sweep::kMaxSweepFileBytes >> 20) + " MiB, " +
                      std::to_string(sweep::kMaxSweepCombinations) + " combinations, " +
                      std::to_string(sweep::kMaxSweepPoints) +
                      " points: docs/formats.md, Sweep files)")
      ->required()
      ->check(non_empty_path());
  cmd->add_option("-o,--output", o->output,
                  "directory for <name>.csv, <name>-summary.txt and the plots")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", o->jobs, "points at once, each in its own process (default: cores)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--memory-budget", o->memory_budget,
                  "memory the running points' estimates may add up to: 8GiB, 512M, 50% "
                  "(default: 80% of MemAvailable)");
  add_options(*cmd, sweep::kRunOptions, o->run);
  cmd->add_flag("--fresh", o->fresh, "ignore rows already in the CSV and start over");
  cmd->add_flag("--retry-failed", o->retry_failed, "run again the points recorded as failed");
  cmd->add_flag("--no-plot", o->no_plot, "write the .gp scripts but do not run gnuplot");
  cmd->add_flag("--dry-run", o->dry_run, "list the points and their memory estimates, run none");
  cmd->callback([o] {
    std::unique_ptr<sweep::MpiSession> mpi = sweep::MpiSession::start_if_launched();
    try {
      run_sweep(*o, mpi.get());
    } catch (...) {
      if (!mpi) throw;
      if (mpi->rank() != 0) return;  // rank 0 has the same error and reports it
      mpi->abort_on_error();
      throw;
    }
  });
}

}  // namespace flux::cli
