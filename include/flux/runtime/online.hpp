#pragma once
// Online MoE scheduling (docs/model.md, "Online MoE scheduling"): a plan
// made before the iteration for a predicted routing, and a decision at each
// reveal that places the revealed all-to-all's sends on circuits, given
// what the plan has set and what is running, within a decision budget.
//
// The reveal model. A MoE layer's exchange for one micro-batch and EP group
// is four all-to-alls named by their labels (the generator's
// "<prefix>.fwd.dispatch", ".fwd.combine", ".bwd.combine",
// ".bwd.dispatch"); their sends form one group per connected set of ranks
// (an EP group). The token matrix of a group is known when the last of its
// dispatch's first sends is ready (every router of the EP group has run):
// the reveal R. It fixes the sizes of all four all-to-alls and the expert
// compute between them; everything else is known before the iteration.
//
// The loop (above sched and sim: a decision is a sched::decide_insertion
// call, the plan's course a sched::left_shift forecast, the result replayed
// by sim::simulate):
//   forecast = the plan (every send's switch, and its start as the order on
//     each port) left-shifted over the sizes and compute known so far (the
//     prediction's for what is not yet revealed);
//   the events: a reveal R_g of each group not yet revealed (its dispatch
//     decided at once), and the decision instant D_u = max(R_g, t_u - d) of
//     each other all-to-all u of a revealed group (t_u: the forecast's
//     earliest ready time of its first sends; d the budget), never before
//     an event already handled; the earliest is handled with every event
//     before it lands (+ d), on the same forecast;
//   at a reveal the group's sizes and compute become the actual ones;
//   at a decision, unless every send of u has the size the plan was made
//     for (then the plan stands: no decision, no latency), u's sends on the
//     OCS that the forecast starts after D_u + d leave the port timelines
//     and are inserted again, three ways (the plan's order on the plan's
//     switches, the plan's order on any, longest first), each released at
//     D_u + d and bound to start before its dependants' forecast starts;
//     the best by its latest end, against the plan's places, wins; the
//     sends placed get the new switch and start as their order key, the
//     others keep the plan's.
// After the last decision the plan is left-shifted over the actual
// iteration with the decisions' releases: the online schedule, checked by
// the validator and replayed by the simulator (its iteration time is the
// schedule's makespan).
//
// The latency d is the budget (kModelled: deterministic, the decision runs
// to completion whatever its wall time, which is reported beside) or the
// decision's measured wall time (kMeasured: the decision stops at the
// budget, less a reserve for the machine's stalls if one is given, the
// sends not placed by then keep the plan's place, and the ones
// placed are released at D_u + the wall time; what it may move and its
// instants are planned with the budget). The forecast's upkeep is the
// runtime's bookkeeping, timed apart (OnlineRun::forecast_wall_s): a
// controller keeps its port timelines as events happen instead.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/insertion.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::runtime {

/// How a decision's latency counts in simulated time.
enum class DecisionLatency : std::uint8_t {
  kModelled,  ///< the budget, always: deterministic
  kMeasured,  ///< the decision's wall time; it stops at the budget (less the reserve)
};
std::string_view to_string(DecisionLatency l);
/// "modelled" or "measured"; throws core::InputError (field decision_latency).
DecisionLatency decision_latency_from_string(std::string_view s);

struct OnlineOptions {
  /// The decision budget, ps (`--decision-budget`).
  core::TimePs budget_ps = 100 * core::kPsPerUs;
  DecisionLatency latency = DecisionLatency::kModelled;
  /// With measured latency, the time a decision keeps back from its budget
  /// for the machine's stalls, ps (`--decision-reserve`): its steps stop at
  /// budget - reserve. Below the budget; 0 with modelled latency.
  core::TimePs reserve_ps = 0;
  /// Throws core::InputError naming the field.
  void validate() const;
};

/// The options' names, flags, help and bounds (core/option.hpp).
inline constexpr auto kOnlineOptions = std::tuple{
    core::NumberOption<OnlineOptions, core::TimePs>{
        "decision_budget", "--decision-budget",
        "online MoE scheduling: the time one decision may take, with a unit (100us; "
        "docs/model.md, Online MoE scheduling)",
        &OnlineOptions::budget_ps, 0, 10 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
    core::ChoiceOption<OnlineOptions, DecisionLatency>{
        "decision_latency", "--decision-latency",
        "modelled (each decision takes the budget: deterministic) or measured (its wall time; "
        "it stops at the budget)",
        &OnlineOptions::latency, &decision_latency_from_string, &to_string},
    core::NumberOption<OnlineOptions, core::TimePs>{
        "decision_reserve", "--decision-reserve",
        "with --decision-latency measured: the time a decision keeps back from its budget for "
        "the machine's stalls (its steps stop at budget - reserve; below the budget)",
        &OnlineOptions::reserve_ps, 0, 10 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
};

/// One decision: an all-to-all placed when its sizes were known.
struct Decision {
  std::string label;            ///< the all-to-all's label
  core::TimePs instant_ps = 0;  ///< D: when it was taken (simulated)
  core::TimePs latency_ps = 0;  ///< what it added to D before its sends could start
  double wall_s = 0;            ///< the insertion's wall time
  std::uint32_t sends = 0;      ///< its sends on the OCS not started when it landed
  std::uint32_t placed = 0;     ///< of which placed anew (the rest kept the plan's place)
  sched::Decided::Pick pick = sched::Decided::Pick::kPlan;  ///< the candidate that won
};

/// The online run of one iteration.
struct OnlineRun {
  schedule::Schedule schedule;  ///< the online schedule of the actual iteration (validated)
  sim::SimResult replay;        ///< its replay (sim::simulate)
  std::vector<Decision> decisions;
  std::uint32_t reveals = 0;  ///< groups revealed
  std::uint32_t kept = 0;     ///< all-to-alls whose sizes were the plan's (no decision)
  double forecast_wall_s = 0;
};

/// Runs `plan` (a task-level schedule of `planned`, as sched::run_scheduler
/// made it) online on `actual` (of `planned`'s structure once both are
/// routed and resolved as the plan chose: sim::check_same_structure). Sim
/// options as sim::simulate's (no perturbation, one trial). Throws
/// core::InputError for a plan without tasks (a circuit-only scheduler), a
/// structure that differs, bad options, and what sim::simulate throws.
OnlineRun run_online(const core::Workload& planned, const core::Workload& actual,
                     const schedule::Schedule& plan, const OnlineOptions& options,
                     const sim::SimOptions& sim_options = {});

}  // namespace flux::runtime
