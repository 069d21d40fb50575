#pragma once
// The metrics file of a simulation, flux.metrics/v2 (docs/formats.md): v1
// plus the system's scale-up fields and the sends, bytes and waits on each
// fabric; written as v1 (unchanged) when the system has no scale-up domain.
#include <ostream>

#include "flux/core/workload.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::formats {

inline constexpr const char* kMetricsFormat = "flux.metrics/v2";
inline constexpr const char* kMetricsFormatV1 = "flux.metrics/v1";

/// Writes the metrics of simulating `w` over `s` as flux.metrics/v2, or v1
/// when s.system has no scale-up domain. Only
/// deterministic fields: the same inputs give the same file, byte for byte
/// (wall times go to the terminal, not here). With `trials` (perturbed or
/// repeated runs), `m` is the trace trial's and an optional "trials" object
/// holds the execution, the perturbation, per-trial values and nearest-rank
/// percentiles (docs/formats.md); files without it are unchanged. With
/// `failure` (a failed switch, runtime/failure.hpp), `m` and `trials` are
/// those of the runs with the failure, a "failure" object describes the
/// trace trial's and the trials object gains per-trial re-planning values;
/// its replan_wall_time_s fields are the file's only wall times (not
/// reproducible). With `planned_for` (a plan made for another workload run
/// on `w`, sim::simulate_on), "planned_for" names that workload.
void write_metrics(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                   const sim::SimOptions& options, const sim::Metrics& m,
                   const sim::TrialsResult* trials = nullptr,
                   const runtime::FailureTrials* failure = nullptr,
                   const core::Workload* planned_for = nullptr);
/// The same for any workload's facts (a LazyWorkload's: core::facts_of),
/// `planned_for` the other workload's name.
void write_metrics(std::ostream& out, const core::WorkloadFacts& w, const schedule::Schedule& s,
                   const sim::SimOptions& options, const sim::Metrics& m,
                   const sim::TrialsResult* trials = nullptr,
                   const runtime::FailureTrials* failure = nullptr,
                   const std::string* planned_for = nullptr);

}  // namespace flux::formats
