#pragma once
// Which steps of the task-level schedulers may run in full duplex
// (System::duplex == kFull; docs/model.md, "Duplex").
//
// A step written for the paper's half-duplex model is not safe in full
// duplex: a half-duplex lower bound can exceed the full-duplex optimum (the
// port-load bound sums a port's sends and receives as one serial resource),
// and an exact search over half-duplex schedules misses better full-duplex
// ones, so its "complete" would certify a schedule that is not optimal. Such
// a step runs in half duplex only; `flux` and `greedy` fall back on the
// critical path, valid in both models. A step's entry below turns true once
// its implementation accepts the System and follows its duplex.
#include <cstdint>

#include "flux/core/system.hpp"
#include "flux/sched/bounds.hpp"

namespace flux::sched {

/// The steps that depend on the duplex model (the left shift, the list
/// scheduler and the local search follow System::duplex already).
enum class DuplexStep : std::uint8_t {
  kPortLoadBound,     ///< bounds.cpp, LowerBounds::port_load_ps
  kExactSearch,       ///< exact/branch_and_bound.cpp
  kLns,               ///< heuristic/lns.cpp
  kRestrictionBound,  ///< restriction.cpp
  kLpBound,           ///< milp/lp_bound.cpp (the MILP's LP relaxation)
};

/// Whether `step` is correct in full duplex.
constexpr bool supports_full_duplex(DuplexStep step) {
  switch (step) {
    case DuplexStep::kPortLoadBound:
      return false;
    case DuplexStep::kExactSearch:
      return false;
    case DuplexStep::kLns:
      return false;
    case DuplexStep::kRestrictionBound:
      return false;
    case DuplexStep::kLpBound:
      return false;
  }
  return false;
}

/// Whether `step` may run on `system`: always in half duplex, in full duplex
/// when it supports it.
constexpr bool runs_on(DuplexStep step, const core::System& system) {
  return system.duplex == core::Duplex::kHalf || supports_full_duplex(step);
}

/// The best of the combinatorial bounds valid on `system`: lb.best(), or the
/// critical path alone where the port-load bound does not hold.
inline core::TimePs valid_bound(const LowerBounds& lb, const core::System& system) {
  return runs_on(DuplexStep::kPortLoadBound, system) ? lb.best() : lb.critical_path_ps;
}

}  // namespace flux::sched
