#pragma once
// A robustness point of `flux evaluate --preset robustness` or of a sweep
// with a robustness axis (docs/results.md, "Robustness"; the grid is the
// sweep file's, sweeps/robustness.toml): how a scheduler's iteration time
// and NIC memory degrade when compute differs from the plan. A point
// (RobustPoint: one job, delay, scheduler and perturbation) computes its schedule on the
// unperturbed workload, validates it, and runs `trials` simulations with common random numbers
// (trial k of every scheduler sees the same compute: sim/perturb.hpp).
//
// A scheduler named "<name>-robust" is <name> planned on the workload with
// every compute duration at its p95 for the point's jitter
// (workload/robust.hpp), then executed on the real, perturbed workload.
//
// A failure point (kFailure) runs the plan with switch `fail_switch` dark
// from T = fail_fraction x ideal's unperturbed iteration time of the job
// (the same T for every scheduler and tau of a job), re-planned by the
// point's own registry scheduler (runtime/failure.hpp; "<name>-robust" by
// plain <name>: the remainder is planned on the mean compute).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"

namespace flux::eval {

/// What a point perturbs. The CSV's `perturbation` column names it; a kind
/// that needs more parameters adds columns of its own.
enum class PerturbationKind : std::uint8_t {
  kNone,       ///< the plan's compute (one trial: deterministic)
  kJitter,     ///< lognormal compute jitter on every duration
  kStraggler,  ///< one rank's compute scaled (one trial: deterministic)
  kFailure,    ///< a switch dark mid-iteration, re-planned; with or without jitter
};
std::string_view to_string(PerturbationKind k);
/// Throws core::InputError naming the field perturbation.
PerturbationKind perturbation_kind_from_string(std::string_view s);

/// One perturbation of the sweep. A sweep file may combine them (a
/// straggler under jitter, a failure with a straggler): the kind names the
/// first of failure, straggler (factor != 1), jitter (> 0), none.
struct RobustPerturbation {
  PerturbationKind kind = PerturbationKind::kNone;
  double jitter = 0;            ///< coefficient of variation of every compute duration
  double straggler_factor = 1;  ///< the straggler's compute x this (1: none)
  std::uint32_t trials = 1;
};

/// Failure points: the failed switch and time, and the re-planning.
struct RobustFailure {
  std::uint32_t switch_index = 0;
  core::TimePs time_ps = 0;  ///< fail_fraction x ideal's unperturbed iteration time
  double replan_time_limit_s = 0;
  std::uint64_t replan_moves = 0;
  std::uint64_t replanned_sends_p50 = 0;  ///< over the trials (nearest rank)
  std::uint64_t replanned_sends_max = 0;
  double replan_wall_p50_s = 0;  ///< wall time of a re-plan (validator included)
  double replan_wall_max_s = 0;
};

/// A scheduler of the sweep: a registry name, or "<name>-robust".
struct SchedulerVariant {
  std::string base;     ///< the registry name
  bool robust = false;  ///< planned for p95 compute at the point's jitter
};
/// "flux-robust" -> {flux, robust}; throws core::InputError naming the field
/// schedulers for a name the registry does not know.
SchedulerVariant scheduler_variant(const std::string& name);

struct RobustRow;

/// One point of the study: one job, delay, scheduler and perturbation.
struct RobustPoint {
  EvalJob job;
  core::TimePs tau_ps = 0;
  std::string scheduler;  ///< a registry name or "<name>-robust"
  RobustPerturbation perturbation;
  std::uint32_t straggler_rank = 0;
  std::uint32_t fail_switch = 1;  ///< kFailure: goes dark (0-based)
  double fail_fraction = 0.5;     ///< kFailure: T = this x ideal's iteration time, in (0, 1]
  double replan_time_limit_s = 2;
  std::uint64_t replan_moves = 1000;
  std::uint64_t seed = 1;
  sim::Execution execution = sim::Execution::kOrdered;
  core::System system;  ///< its tau is tau_ps
  sched::SchedulerOptions sched;

  /// Throws core::InputError naming the field (without generating the
  /// workload).
  void validate() const;
  /// The perturbation for messages and sweep keys: its kind, the jitter if
  /// any, the straggler's factor if any: "none", "jitter 5%", "straggler
  /// x1.5", "failure 5%".
  [[nodiscard]] std::string perturbation_text() const;
};

/// Measures one point: plans (validated), then its trials. Throws
/// core::InputError for a point that does not validate.
RobustRow run_robust_point(const RobustPoint& point);

/// The robustness options of `flux evaluate --preset robustness` (and the
/// bounds of the sweep axes of the same names): the values of every point.
struct RobustOptions {
  std::uint32_t trials = 20;  ///< per jittered point
  std::uint64_t seed = 1;     ///< of the perturbations (sim::Perturbation::seed)
  std::uint32_t straggler_rank = 0;
  double replan_time_limit_s = 2;  ///< each re-plan's wall-clock budget, s
  /// flux's local search moves in a re-plan (SchedulerOptions::search_moves):
  /// a budget that ends well before the time limit keeps the re-plan
  /// deterministic (~0.2 s at 8 layers).
  std::uint64_t replan_moves = 1000;
};

/// RobustOptions' table (core/option.hpp): the CLI's flags and the sweep
/// axes' bounds.
inline constexpr auto kRobustnessOptions = std::tuple{
    core::NumberOption<RobustOptions, std::uint32_t>{
        "trials", "--trials", "perturbed runs per jittered point (robustness preset)",
        &RobustOptions::trials, 1, 1000000},
    core::NumberOption<RobustOptions, std::uint64_t>{
        "seed", "--perturb-seed",
        "seed of the perturbations (robustness preset; trial k of every scheduler draws the "
        "same compute)",
        &RobustOptions::seed, 0, core::kMaxSeed},
    core::NumberOption<RobustOptions, std::uint32_t>{"straggler_rank", "--straggler-rank",
                                                     "the rank that straggles (robustness preset)",
                                                     &RobustOptions::straggler_rank, 0, 1u << 30},
    core::NumberOption<RobustOptions, double>{
        "replan_time_limit", "--replan-time-limit",
        "wall-clock budget of each re-plan after the switch failure, with a unit (robustness "
        "preset)",
        &RobustOptions::replan_time_limit_s, 0.0, 1e6, false, false, core::OptionUnit::kSeconds},
    core::NumberOption<RobustOptions, std::uint64_t>{
        "replan_moves", "--replan-moves",
        "flux: local search moves of each re-plan after the switch failure (robustness preset)",
        &RobustOptions::replan_moves, 1, ~std::uint64_t{0}},
};

/// One point: a scheduler's plan under one perturbation, over its trials.
/// Times in seconds as in every Flux file.
struct RobustRow {
  std::string job;  ///< EvalJob::name
  std::uint32_t layers = 0;
  std::string gpu;
  core::TimePs tau_ps = 0;
  std::string scheduler;   ///< as in the config ("flux-robust")
  double plan_jitter = 0;  ///< the jitter the plan was made for (0: the mean)
  PerturbationKind perturbation = PerturbationKind::kNone;
  double jitter = 0;
  std::uint32_t straggler_rank = 0;
  double straggler_factor = 1;
  std::uint32_t trials = 0;
  std::uint64_t seed = 0;
  std::string execution;                     ///< sim::to_string of the resolved execution
  std::optional<double> planned_makespan_s;  ///< task-level plans, unperturbed
  sim::Percentiles<double> iteration_time_s;
  sim::Percentiles<std::int64_t> peak_nic_bytes;
  bool all_delivered = false;  ///< every trial delivered every byte
  double solve_time_s = 0;     ///< wall time of the (shared) scheduler run
  double sim_time_s = 0;       ///< wall time of the trials
  // The configuration the row was measured under (checked on resume).
  std::string model;
  std::uint32_t tp = 0;
  std::uint32_t dp = 0;
  std::uint32_t switches = 0;
  double link_gbps = 0;
  double time_limit_s = 0;
  std::optional<RobustFailure> failure;  ///< set iff perturbation is kFailure
};

/// Reads a CSV written by write_robust_csv(); throws core::InputError naming
/// the file, the line and the column.
std::vector<RobustRow> read_robust_csv(const std::filesystem::path& file);
/// Writes the rows (header first) through a temporary file and a rename.
void write_robust_csv(const std::filesystem::path& file, const std::vector<RobustRow>& rows);
/// Its header line and one row (no line ends), as write_robust_csv() writes
/// them: for flux sweep, whose points with a `trials` axis are robustness
/// points.
std::string robust_csv_header();
std::string robust_csv_row(const RobustRow& row);

/// A row parsed from robust_csv_row()'s text (a sweep point's outcome).
/// Throws core::InputError naming the column.
RobustRow parse_robust_csv_row(const std::string& line);

/// Throws core::InputError ("row N was measured with F = X, this sweep uses
/// Y") when `row` (the index-th of a CSV being resumed) was measured under
/// another configuration than `point` (seed, trials, system, ...).
void check_resume(const RobustPoint& point, const RobustRow& row, std::size_t index);

/// Per job and tau: perturbation x scheduler tables of iteration time (p50
/// and p95) and peak NIC memory (p95), and each scheduler's slowdown; the
/// jobs, delays, schedulers and perturbations in the points' order.
std::string robustness_summary(const std::vector<RobustPoint>& points,
                               const std::vector<RobustRow>& rows);

}  // namespace flux::eval
