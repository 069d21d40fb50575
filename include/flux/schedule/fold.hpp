#pragma once
// The schedule of a folded workload lifted to the job (core::Fold,
// docs/model.md "Folding"): copy c of every send gets the send's switch and
// start, and every circuit interval is set up in every copy at the same
// times. Copies use disjoint ports, so the lift of a valid schedule is valid
// for core::unfold(folded), with the same makespan.
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::schedule {

/// Throws core::InputError when `s` is periodic or routes by VLB (such
/// schedules come from schedulers that do not schedule folded workloads).
Schedule unfold(const core::Workload& folded, const Schedule& s);

}  // namespace flux::schedule
