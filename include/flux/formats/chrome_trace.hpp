#pragma once
// A simulation's timeline in the Chrome trace event format (opens in
// Perfetto or chrome://tracing): sends per accelerator, circuits and
// reconfigurations per switch, scale-up transfers per domain.
#include <ostream>

#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::formats {

/// Writes the Chrome trace: one process per accelerator ("GPU r", a thread
/// per lane of overlapping sends, each send a slice from issue to finish),
/// one per switch ("OCS s", a thread per lower port of a circuit, slices
/// "reconfigure a-b" over [setup, up) and "a-b" over [up, down)), periodic
/// timelines unrolled up to the iteration's end. With scale-up domains, the
/// sends inside a domain are not on their GPU but on one process per domain
/// after the switches ("scale-up domain d", pid n + s + d), a thread per
/// source ("GPU x egress", tid x; further lanes, only under ideal, tid
/// lane * n + x), category "scaleup". Times in microseconds.
void write_chrome_trace(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                        const sim::SimResult& r);

}  // namespace flux::formats
