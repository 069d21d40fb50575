#pragma once
// The evaluation: a sweep of workloads x reconfiguration delays x schedulers,
// each schedule checked by the validator and replayed by the simulator, one
// row of metrics per point. The presets (the paper's Figure 2, real jobs) are
// shipped sweep files, sweeps/<name>.toml, turned into an EvalConfig by
// sweep::evaluation_preset. docs/results.md has what they measure.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"

namespace flux::eval {

/// One workload of a sweep: a training iteration and the scale-up fabric of
/// the system it runs on.
struct EvalJob {
  /// The rows' `job`: "L<layers>" for a layer count of a layer sweep, else
  /// the name of a training job (workload/jobs.hpp).
  std::string name;
  workload::TrainingConfig training;
  std::uint32_t scaleup_size = 1;  ///< the system's scale-up domain size for this job
  double scaleup_gbps = core::kNvlink3Gbps;
};

/// The job name of a layer sweep's point: "L8".
std::string layer_job_name(std::uint32_t layers);

/// EvalConfig::routing_iterations at most (each is a generation, a plan
/// and two simulations).
inline constexpr std::uint32_t kMaxRoutingIterations = 64;

/// What an uncertain-routing plan is made for (EvalConfig::plan_routing;
/// docs/model.md, "Uncertain routing").
enum class PlanRouting : std::uint8_t {
  kDraw,      ///< the routing's own iteration (last iteration's routing)
  kExpected,  ///< its mean: zipf's over the popularity permutation is uniform
};
std::string_view to_string(PlanRouting p);
/// "draw" or "expected"; throws core::InputError (field plan_routing).
PlanRouting plan_routing_from_string(std::string_view s);

struct EvalConfig {
  /// The preset's name (sweep::evaluation_preset builds the presets from
  /// their shipped sweep files, sweeps/<name>.toml).
  std::string preset = "paper-fig2";
  workload::TrainingConfig training;  ///< model, tp, dp, gpu, ...; layers from `layers`
  /// A layer sweep: one workload per entry, `training` with that many layers
  /// on the sweep's system. Empty when `named_jobs` is used.
  std::vector<std::uint32_t> layers;
  /// Or a sweep over training jobs, each with its own scale-up fabric.
  std::vector<EvalJob> named_jobs;
  /// Output files are <stem>.csv, <stem>.gp, <stem>.png, <stem>.svg.
  std::string file_stem = "fig2";
  std::vector<core::TimePs> taus_ps;    ///< reconfiguration delays
  std::vector<std::string> schedulers;  ///< registry names
  /// Switches and link rate; its reconfiguration delay is replaced by each
  /// of taus_ps in turn.
  core::System system;
  sched::SchedulerOptions sched;  ///< every scheduler run (time limit, threads, ...)
  sim::SimOptions sim;            ///< every simulation
  /// MoE jobs: also run each point's plan on this many later iterations of
  /// its routing, and re-plan each (EvalRow's uncertain fields); 0: no.
  /// At most kMaxRoutingIterations.
  std::uint32_t routing_iterations = 0;
  /// With routing_iterations: the routing the plan run on those iterations
  /// is made for (the re-plans are made for each iteration's own).
  PlanRouting plan_routing = PlanRouting::kDraw;
  /// With routing_iterations: each re-plan's time limit in seconds (an
  /// online re-plan must fit in an iteration); 0: sched.time_limit_s, as the
  /// point's own plan.
  double routing_replan_limit_s = 0;
  /// Every send between scale-up domains split into this many channels
  /// (workload/split.hpp); 1: whole sends.
  std::uint32_t channels = 1;

  /// Throws core::InputError naming the field.
  void validate() const;
  /// The sweep's workloads: named_jobs, or one job per layer count.
  [[nodiscard]] std::vector<EvalJob> jobs() const;
};

/// One point of the sweep. Times in seconds as in every Flux file.
struct EvalRow {
  std::string job;  ///< EvalJob::name
  std::uint32_t layers = 0;
  core::TimePs tau_ps = 0;
  std::string scheduler;
  double iteration_time_s = 0;
  std::optional<double> schedule_makespan_s;  ///< task-level schedulers
  std::uint64_t peak_nic_bytes = 0;
  std::uint64_t reconfigurations = 0;
  std::uint64_t circuits_set_up = 0;
  std::string status;                   ///< the scheduler's (optimal, feasible, ...)
  std::optional<double> gap;            ///< (makespan - bound) / bound, when bounded
  std::optional<double> lower_bound_s;  ///< the scheduler's bound, when it has one
  double solve_time_s = 0;              ///< wall time of the scheduler
  std::optional<double> circuit_utilization;
  double wait_mean_s = 0;
  std::uint64_t bytes_relayed = 0;
  std::uint64_t sends = 0;
  std::uint64_t sim_events = 0;
  // The configuration the row was measured under (checked on resume).
  std::string model;
  std::string gpu;
  std::uint32_t tp = 0;
  std::uint32_t dp = 0;
  std::uint32_t switches = 0;
  double link_gbps = 0;
  double time_limit_s = 0;
  std::uint32_t scaleup_size = 1;
  /// Accelerators of the cluster the schedule ran on: the job's, or for a
  /// scheduler that cannot run a folded workload (rotornet, bvn) those of the
  /// folded workload taken as a cluster of its own.
  std::uint64_t cluster_ranks = 0;
  /// A MoE job's routing (RoutingSpec::to_string); empty for a dense one.
  std::string routing;
  /// Uncertain routing (EvalConfig::routing_iterations > 0; docs/model.md,
  /// "Uncertain routing"): the plan made for this routing's iteration 0 run
  /// on iterations 1 .. N (planned), and the scheduler re-planning each
  /// (re-planned): nearest-rank p50 and max of the iteration times, and the
  /// slowest re-plan's wall time. Unset otherwise.
  std::uint32_t uncertain_runs = 0;
  std::optional<double> planned_p50_s, planned_max_s;
  std::optional<double> replanned_p50_s, replanned_max_s;
  std::optional<double> replan_wall_max_s;
};

/// Reads a CSV written by write_csv() (or by a version before jobs: rows get
/// job "L<layers>", scale-up size 1 and a cluster of tp * dp accelerators);
/// throws core::InputError naming the file, the line and the
/// column on anything else.
std::vector<EvalRow> read_csv(const std::filesystem::path& file);
/// Writes the rows (header first) through a temporary file and a rename.
void write_csv(const std::filesystem::path& file, const std::vector<EvalRow>& rows);

/// The CSV's header line and one row (no line ends), as write_csv() writes
/// them: for files that append rows one by one (flux sweep).
std::string csv_header();
std::string csv_row(const EvalRow& row);
/// One row as csv_row() writes it, read back (exactly); core::InputError
/// naming the column otherwise.
EvalRow parse_csv_row(const std::string& line);
/// The comma-separated fields of a line (no quoting, as these CSVs have none).
std::vector<std::string> csv_fields(const std::string& line);

/// Progress of a sweep: `done` of `total` points finished, the latest row.
using Progress =
    std::function<void(std::size_t done, std::size_t total, const EvalRow& row, bool resumed)>;

/// Runs the sweep. Rows already in `rows` (same configuration, checked:
/// core::InputError otherwise) are kept and not recomputed; each new row is
/// appended to `rows` and `on_row` is called after it, so the caller can save
/// the CSV after every point and an interrupted sweep resumes where it
/// stopped. Rows end sorted by (the job's place in config.jobs(), tau,
/// scheduler's order in config).
void run_evaluation(const EvalConfig& config, std::vector<EvalRow>& rows, const Progress& on_row);

/// The points of `config` not yet in `rows`, each an EvalConfig of one job,
/// one delay and one scheduler, in the sweep's order: what a runner of
/// separate processes (flux::sweep) runs with run_evaluation one by one.
/// Validates `config` and checks `rows` against it as run_evaluation does.
std::vector<EvalConfig> pending_points(const EvalConfig& config, const std::vector<EvalRow>& rows);
/// Adds a measured row to `rows`, kept in run_evaluation's order.
void add_row(const EvalConfig& config, std::vector<EvalRow>& rows, EvalRow row);

/// A terminal summary: per layer count, tau x scheduler tables of iteration
/// time (with flux-milp's status and gap), peak NIC memory and
/// reconfigurations.
std::string summary_table(const EvalConfig& config, const std::vector<EvalRow>& rows);

/// A self-contained gnuplot script (data inline) drawing the three panels of
/// Figure 2 for every layer count into `png` and `svg`.
std::string gnuplot_script(const EvalConfig& config, const std::vector<EvalRow>& rows,
                           const std::string& png, const std::string& svg);

}  // namespace flux::eval
