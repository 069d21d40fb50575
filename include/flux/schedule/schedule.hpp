#pragma once
// A schedule: for task-level schedulers (flux-milp, flux) a switch and a start
// time per send; for every scheduler, per switch, the circuit timeline the OCS
// executes. A circuit is the unordered pair {a, b} (a < b) of accelerators it
// joins on one switch; while it is set up (the reconfiguration window
// [up - tau, up)) and while it is up ([up, down)) both ports are taken.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"

namespace flux::schedule {

/// Outcome of a scheduler run.
enum class SolveStatus : std::uint8_t {
  kOptimal,     ///< proven optimal (gap 0 within tolerance)
  kFeasible,    ///< a valid schedule; optimality not proven (gap may be reported)
  kInfeasible,  ///< proven that no schedule exists
  kNoSolution,  ///< stopped (time limit) before finding any schedule
  kError,       ///< the solver failed
};
std::string_view to_string(SolveStatus s);
/// Throws core::InputError on an unknown name.
SolveStatus solve_status_from_string(std::string_view s);

struct TaskAssignment {
  std::uint64_t task_id = 0;  ///< the workload's task id
  core::SwitchId sw;
  core::TimePs start_ps = 0;
};

struct CircuitInterval {
  core::Rank a;  ///< a < b
  core::Rank b;
  core::TimePs setup_ps = 0;  ///< reconfiguration starts: up_ps - tau (negative: set before t = 0)
  core::TimePs up_ps = 0;     ///< circuit carries data from here ...
  core::TimePs down_ps = 0;   ///< ... until here (exclusive)
};

/// How the circuits of a schedule are given.
enum class CircuitModel : std::uint8_t {
  kTimeline,      ///< per-switch circuit timelines (every OCS scheduler)
  kAllConnected,  ///< every pair always connected, no reconfiguration (`ideal`); timelines empty
};

/// How the simulator routes data over the circuits.
enum class Routing : std::uint8_t {
  kDirect,  ///< a send's bytes travel only on circuits joining its src and dst
  kVlb,     ///< RotorLB-style Valiant load balancing: at most two hops (docs/model.md)
};

struct SwitchTimeline {
  std::vector<CircuitInterval> circuits;  ///< sorted by (up_ps, a, b)
};

struct Schedule {
  std::string scheduler;
  std::string workload;  ///< the workload's name
  core::System system;
  /// Iteration time of a task-level schedule; 0 for circuit-only schedules
  /// (rotornet, bvn), whose iteration time only the simulator knows.
  core::TimePs makespan_ps = 0;
  SolveStatus status = SolveStatus::kFeasible;
  std::optional<core::TimePs> lower_bound_ps;
  std::optional<double> gap;              ///< (makespan - bound) / bound
  std::optional<double> solve_time_s;     ///< wall time of the scheduler
  std::vector<TaskAssignment> tasks;      ///< empty for circuit-only schedulers
  std::vector<SwitchTimeline> timelines;  ///< one per switch (size == system.switches)
  CircuitModel circuit_model = CircuitModel::kTimeline;
  Routing routing = Routing::kDirect;
  /// When set, the timelines describe one cycle [0, period) and repeat for
  /// ever: cycle k holds every interval shifted by k * period. Every interval
  /// then lies within the cycle (0 <= setup, down <= period).
  std::optional<core::TimePs> period_ps;
  /// For a workload with choice groups (core::ChoiceGroup): the name of the
  /// alternative run of each group, in the groups' order; empty otherwise.
  /// The validator and the simulator resolve the workload with it
  /// (core::Routed).
  std::vector<std::string> choice;
  /// Under --route auto (core::RoutePolicy::kAuto): the route of each send
  /// of the (resolved) workload that has a choice of route, in send order
  /// ("forward", "forward-rx", "packet"; core/routes.hpp); empty otherwise.
  /// The validator and the simulator route the workload with it.
  std::vector<std::string> routes;
};

std::string_view to_string(CircuitModel m);
std::string_view to_string(Routing r);
/// Throws core::InputError (field "circuit_model") on an unknown name.
CircuitModel circuit_model_from_string(std::string_view s);
/// Throws core::InputError (field "routing") on an unknown name.
Routing routing_from_string(std::string_view s);

}  // namespace flux::schedule
