#pragma once
// Internal: ordered execution of a task-level schedule (the rules are at the
// top of ordered.cpp and in docs/model.md, "Execution modes").
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::sim::detail {

/// The plan `s` executed in its planned order over `w` (perhaps perturbed):
/// the same assignments, circuits and order, at the times ordered execution
/// reaches them (planned times as floors when `no_early`). Circuit-only and
/// periodic schedules come back unchanged (they are data-driven). The result
/// is a valid strict schedule of `w`, which the engine then replays.
schedule::Schedule retime(const core::Workload& w, const schedule::Schedule& s, bool no_early);

}  // namespace flux::sim::detail
