#pragma once
// Internal: a MilpModel loaded into CBC's LP solver interface (with names).
class OsiClpSolverInterface;

namespace flux::sched {
struct MilpModel;
void load_into_osi(const MilpModel& m, OsiClpSolverInterface& solver);
}  // namespace flux::sched
