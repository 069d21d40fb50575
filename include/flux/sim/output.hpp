#pragma once
// What the simulator writes: the metrics file (flux.metrics/v1,
// docs/formats.md) and a timeline in the Chrome trace event format (opens in
// Perfetto or chrome://tracing): sends per accelerator, circuits and
// reconfigurations per switch.
#include <ostream>

#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::sim {

inline constexpr const char* kMetricsFormat = "flux.metrics/v1";

/// Writes the metrics of simulating `w` over `s` as flux.metrics/v1. Only
/// deterministic fields: the same inputs give the same file, byte for byte
/// (wall times go to the terminal, not here).
void write_metrics(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                   const SimOptions& options, const Metrics& m);

/// Writes the Chrome trace: one process per accelerator ("GPU r", a thread
/// per lane of overlapping sends, each send a slice from issue to finish),
/// one per switch ("OCS s", a thread per lower port of a circuit, slices
/// "reconfigure a-b" over [setup, up) and "a-b" over [up, down)), periodic
/// timelines unrolled up to the iteration's end. Times in microseconds.
void write_chrome_trace(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                        const SimResult& r);

}  // namespace flux::sim
