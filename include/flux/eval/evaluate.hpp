#pragma once
// One point of a study measured: a workload generated, scheduled (the
// schedule checked by the validator), replayed by the simulator, one row of
// metrics, and that row's CSV format (fig2.csv, jobs.csv, moe.csv and the
// metric columns of a sweep's CSV). The grid of points is a sweep file's
// (src/sweep); the presets are shipped sweep files, sweeps/<name>.toml.
// docs/results.md has what they measure.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/runtime/online.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/predict.hpp"

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

/// EvalPoint::routing_iterations at most (each is a generation, a plan
/// and two simulations).
inline constexpr std::uint32_t kMaxRoutingIterations = 64;

/// What an uncertain-routing plan is made for (EvalPoint::plan_routing;
/// docs/model.md, "Uncertain routing").
struct PlanRouting {
  enum class Kind : std::uint8_t {
    kDraw,       ///< once, for the routing's own iteration (last iteration's routing)
    kExpected,   ///< once, for its mean: zipf's over the popularity permutation is uniform
    kPredicted,  ///< before each iteration, for the predictor's forecast from the ones before
  };
  Kind kind = Kind::kDraw;
  workload::PredictorSpec predictor{};  ///< kPredicted
  friend bool operator==(const PlanRouting&, const PlanRouting&) = default;
};
/// "draw", "expected", or the predictor's name ("last", "ewma:0.5").
std::string to_string(const PlanRouting& p);
/// The names to_string gives; throws core::InputError (field plan_routing).
PlanRouting plan_routing_from_string(std::string_view s);

/// One point of a study (sweep::Point::config): one job, one delay, one
/// scheduler and the options it runs under. The study's grid is the sweep
/// file's points (src/sweep); this is what one of them measures.
struct EvalPoint {
  EvalJob job;  ///< its name is the row's `job`; its scale-up fabric is the system's
  core::TimePs tau_ps = core::System{}.reconfig_delay_ps;
  std::string scheduler;  ///< a registry name
  /// Switches, link rate, duplex; its delay is tau_ps, its scale-up the job's.
  core::System system;
  sched::SchedulerOptions sched;
  sim::SimOptions sim;
  /// MoE jobs: also run the point's plan on this many later iterations of
  /// its routing, and re-plan each (EvalRow's uncertain fields); 0: no.
  /// At most kMaxRoutingIterations.
  std::uint32_t routing_iterations = 0;
  /// With routing_iterations: the routing the plan run on those iterations
  /// is made for (the re-plans are made for each iteration's own).
  PlanRouting plan_routing{};
  /// With routing_iterations: also run each iteration's plan online (its
  /// MoE all-to-alls placed as their routing is revealed, within this
  /// decision budget; docs/model.md, "Online MoE scheduling"). Task-level
  /// schedulers only: a circuit-only one's row has no online columns.
  std::optional<runtime::OnlineOptions> online;
  /// With routing_iterations: each re-plan's time limit in seconds; 0:
  /// sched.time_limit_s, as the point's own plan.
  double routing_replan_limit_s = 0;
  /// Every send between scale-up domains split into this many channels
  /// (workload/split.hpp); 1: whole sends.
  std::uint32_t channels = 1;

  /// Throws core::InputError naming the field.
  void validate() const;
  /// The system the point runs on: `system` with tau_ps and the job's fabric.
  [[nodiscard]] core::System point_system() const;
};

/// One point of the sweep. Times in seconds as in every Flux file.
/// The optical and packet fabric a row was measured on (core::System's
/// fields; docs/model.md, "Wiring", "Routes").
struct RowFabric {
  std::string wiring = "full";  ///< --wiring as given (core::to_string(WiringSpec))
  std::uint32_t ocs_radix = 0;  ///< --ocs-radix; 0: none given
  double packet_gbps = 0;       ///< --packet-gbps; 0: no packet fabric
  core::TimePs packet_latency_ps = 0;
  double packet_oversubscription = 1;
  std::string route = "forward";  ///< --route
  bool operator==(const RowFabric&) const = default;
};

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
  /// The job's collective algorithm (workload::to_string(Algorithm)); auto:
  /// chosen per collective (docs/model.md, "Collective choice"). Rows of
  /// earlier versions: ring.
  std::string collective = "ring";
  /// With auto: how many collectives ran each alternative, "ring=12;direct=4"
  /// (a baseline's: those of its best fixed choice, by simulated iteration
  /// time); empty otherwise.
  std::string choice;
  /// Uncertain routing (EvalPoint::routing_iterations > 0; docs/model.md,
  /// "Uncertain routing"): the plan made for this routing's iteration 0 run
  /// on iterations 1 .. N (planned), and the scheduler re-planning each
  /// (re-planned): nearest-rank p50 and max of the iteration times, and the
  /// slowest re-plan's wall time. Unset otherwise.
  std::uint32_t uncertain_runs = 0;
  std::optional<double> planned_p50_s, planned_max_s;
  std::optional<double> replanned_p50_s, replanned_max_s;
  std::optional<double> replan_wall_max_s;
  /// With EvalPoint::online (a task-level scheduler): the plan run online
  /// on the same iterations, p50 / p95 / max of their iteration times, and
  /// the wall time of its decisions over every iteration (p50, p99, max).
  std::optional<double> online_p50_s, online_p95_s, online_max_s;
  std::optional<std::uint64_t> decisions;
  std::optional<double> decision_p50_s, decision_p99_s, decision_max_s;
  /// Uncertain routing: the peak NIC memory of the planned, re-planned and
  /// (with EvalPoint::online) online runs, the maximum over the iterations.
  std::optional<std::uint64_t> planned_nic_max_bytes, replanned_nic_max_bytes, online_nic_max_bytes;
  /// The fabric (docs/model.md, "Wiring", "Routes"): bytes forwarded over a
  /// scale-up peer to their rail, and sent on the packet fabric, per
  /// iteration (a folded workload: one copy's); the physical OCS the wiring
  /// builds for the job (full: the switches).
  std::uint64_t forwarded_bytes = 0;
  std::uint64_t packet_bytes = 0;
  std::uint64_t ocs_switches = 0;
  /// The fabric the row was measured on (checked on resume; part of a row's
  /// identity in a preset's CSV). Rows of earlier versions: the full
  /// crossbar, no packet fabric.
  RowFabric fabric;
};

/// The fabric of `system` as a row says it.
RowFabric fabric_of(const core::System& system);

/// Measures one point: generates the job's workload (split into its
/// channels), runs the scheduler through the registry (validated), replays
/// the schedule in the simulator and, with routing_iterations, runs the plan
/// on later routings and re-plans each. Throws core::InputError for a point
/// that does not validate.
EvalRow measure(const EvalPoint& point);

/// Throws core::InputError ("row N was measured with F = X, this sweep uses
/// Y") when `row` (the index-th of a CSV being resumed) was measured under
/// another configuration than `point`.
void check_resume(const EvalPoint& point, const EvalRow& row, std::size_t index);

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
/// The header an earlier version of the format wrote (0 .. the newest): for
/// files of that version to be read or upgraded.
std::string csv_header_of_version(unsigned version);
/// The newest version of the format (csv_header()'s).
unsigned csv_version();
/// One row as csv_row() writes it, read back (exactly); core::InputError
/// naming the column otherwise.
EvalRow parse_csv_row(const std::string& line);
/// The comma-separated fields of a line (no quoting, as these CSVs have none).
std::vector<std::string> csv_fields(const std::string& line);

/// A terminal summary: per layer count, tau x scheduler tables of iteration
/// time (with flux-milp's status and gap), peak NIC memory and
/// reconfigurations.
std::string summary_table(const std::vector<EvalPoint>& points, const std::vector<EvalRow>& rows);

}  // namespace flux::eval
