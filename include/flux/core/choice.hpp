#pragma once
// Collectives kept in several decompositions (ChoiceGroup, workload.hpp;
// docs/model.md, "Collective choice"): a choice names one alternative of
// each group, and resolving it gives the workload a schedule of that choice
// runs. Every entry point that meets a workload with a schedule (the
// validator, the simulator, the schedulers' registry) resolves it first,
// through core::Routed (routes.hpp), with the schedule's choice.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flux/core/workload.hpp"

namespace flux::core {

/// Per choice group of a workload, the index of the alternative run.
using Choice = std::vector<std::uint32_t>;

/// Throws InputError (field "choice" or "choice[g]") when `choice` does not
/// have one index per group of `w` or an index is out of range.
void check_choice(const Workload& w, std::span<const std::uint32_t> choice);

/// The workload with, of each group, only alternative choice[g]'s sends and
/// the deps among the sends kept; ids, labels, fold and hints as they were;
/// no choice groups. Throws InputError (field "choice") when `choice` does
/// not have one index per group or an index is out of range.
Workload resolve(const Workload& w, std::span<const std::uint32_t> choice);

/// The workload without any alternative's sends: what every choice runs
/// (its lower bounds bound every choice's optimum).
Workload common_part(const Workload& w);

/// The choice naming, per group, its alternative `names[g]`; throws
/// InputError (field "choice[g]") on a count that differs from the groups'
/// or an unknown name (listing the group's).
Choice choice_from_names(const Workload& w, std::span<const std::string> names);
/// The choice a schedule's names give for `w` (the front ends' --choice and
/// choice=): throws InputError when `w` has no choice groups, when
/// `planned_for` (the schedule's workload name; empty: names given alone)
/// is not w's name, or as choice_from_names.
Choice choice_of_plan(const Workload& w, std::span<const std::string> names,
                      std::string_view planned_for);
/// The names of the chosen alternatives, one per group.
std::vector<std::string> choice_names(const Workload& w, std::span<const std::uint32_t> choice);

/// Per group, its alternative called `name`, or else the one called
/// `fallback` (if given), or else its first (a fixed algorithm where the
/// collective offers it; a fixed route policy, which falls back to
/// packets: core/routes.hpp).
Choice uniform_choice(const Workload& w, std::string_view name, std::string_view fallback = "");
/// Every alternative name of the workload, in the order first seen.
std::vector<std::string> alternative_names(const Workload& w);
/// The number of distinct choices (the product of the groups' sizes),
/// saturating at 2^64 - 1.
std::uint64_t choice_count(const Workload& w);
/// "ring 12, direct 3": how many groups chose each name, in the order of
/// alternative_names(); `between` separates the entries and `count` a name
/// from its number (a CSV cell: ";" and "=", "ring=12;direct=3").
std::string describe_choice(const Workload& w, std::span<const std::uint32_t> choice,
                            std::string_view between = ", ", std::string_view count = " ");

}  // namespace flux::core
