#pragma once
// Internal: choosing the alternative of each choice group (a collective
// kept in several decompositions, core::ChoiceGroup) for run_scheduler
// (docs/model.md, "Collective choice").
//
// A choice is scored by an estimate of the iteration time of the workload it
// resolves to: the best of the first seed of flux's list schedules (reuse
// slack 0, tau and tau / 2; heuristic/list_scheduler.hpp) for a task-level
// scheduler, or the critical path on
// the ideal network for a circuit-only one, which places no send and so
// cannot be scored by a schedule here (the schedulers never simulate).
// The search: every uniform choice (each alternative name where a group has
// it) and, if asked, a balanced one, the best one kept; then coordinate descent over the groups in
// order, each group's other alternatives tried with the rest fixed, a strictly better estimate
// kept, until a pass changes nothing or the evaluation budget is spent. Every uniform choice is
// estimated even past the budget (at most one per algorithm name: a fixed algorithm is the least a
// choice must match; on a huge job this can take longer than the share of the time limit).
// Deterministic: the budget counts evaluations, and the time limit only stops a search whose
// evaluations are slow (huge jobs).
#include <atomic>
#include <cstdint>
#include <span>
#include <string>

#include "flux/core/choice.hpp"
#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::sched::choice {

enum class Estimate : std::uint8_t {
  kListSchedule,  ///< the best list schedule of three reuse slacks (0, tau, tau / 2)
  kCriticalPath,  ///< the ideal network's critical path
};

/// The estimated iteration time of `w` resolved with `choice`, routed on
/// `system`'s wiring, in ps.
core::TimePs estimate(const core::Workload& w, const core::System& system,
                      std::span<const std::uint32_t> choice, Estimate how);

struct SearchLimits {
  std::uint64_t max_evaluations = 256;  ///< estimates computed, uniform candidates included
  double time_limit_s = 10;             ///< stops after the evaluation that passes it
  const std::atomic<bool>* stop = nullptr;
  /// Also estimate balanced_choice(w) after the uniform choices (routes:
  /// a mix of fabrics is what a uniform choice cannot give).
  bool balanced = false;
  /// A uniform choice's alternative where a group lacks the name
  /// (core::uniform_choice; routes: "packet", as a fixed policy does).
  std::string fallback{};
};

struct SearchResult {
  core::Choice choice;
  core::TimePs estimate_ps = 0;
  std::uint64_t evaluations = 0;
};

/// A choice that spreads each label's traffic over the ports: groups in
/// order, each the alternative whose sends end earliest on the ports they
/// hold (the load already on each port, per label, plus its own
/// transmission time; an OCS port's load shared by the switches), ties to
/// the first. Every send of no alternative loads its ports first. For
/// routes, it mixes forwarding and packets where one fabric alone would
/// queue (docs/model.md, "Routes").
core::Choice balanced_choice(const core::Workload& w, const core::System& system);

/// The search above; `w` has choice groups.
SearchResult search(const core::Workload& w, const core::System& system, Estimate how,
                    const SearchLimits& limits);

/// A lower bound on the iteration time of every choice of `w` (a workload
/// with choice groups) on `system` wired in full, in ps: the critical path
/// where a send's wait for a group it follows is the least over the group's
/// alternatives of the latest of that alternative's sends it waits for, and
/// the end of a group the least over its alternatives; and the load of each
/// accelerator's OCS port, the sends every choice runs plus, per group, the
/// least any alternative puts on it. For any choice the critical path and
/// the port load are at least these (docs/model.md, "Collective choice").
core::TimePs choice_lower_bound(const core::Workload& w, const core::System& system);

/// Choice number `index` of all choice_count(w) in mixed radix, the first
/// group's alternative the fastest digit.
core::Choice nth_choice(const core::Workload& w, std::uint64_t index);

}  // namespace flux::sched::choice
