#pragma once
// The independent schedule validator: checks a Schedule against the paper's
// constraints (section 3, docs/model.md), written from the model and not from
// any scheduler. Every schedule a scheduler produces goes through it.
//
// Schedule level (always):
//   - schedule.workload == the workload's name;
//   - schedule.system validates, its scale-up domains tile the workload's
//     accelerators; timelines.size() == system.switches;
//   - lower_bound_ps, if present, in [0, makespan_ps].
// Choice groups (a workload generated with --collective auto,
// core::ChoiceGroup): the schedule names one alternative of each group
// (Schedule::choice; none for a workload without groups), places no send of
// an alternative it did not choose, and every check below runs on the
// workload resolved with that choice (core::resolve): a schedule that runs
// two alternatives of a group, a mix of them, or none is rejected.
// Circuit model, routing and period (always):
//   - all_connected (the `ideal` reference, every pair always connected):
//     every timeline empty, no period, routing direct, no task assignments;
//   - period, if set: > 0, no task assignments, and every interval within
//     the cycle: 0 <= setup and down <= period;
//   - routing vlb: circuit model timeline and no task assignments.
// Task level (direct aperiodic timelines only, when the schedule has task
// assignments or the workload has no tasks), with p_v from schedule.system
// and tau its reconfiguration delay:
//   - every workload task assigned exactly once, no unknown id, switch < s
//     or the scale-up fabric (core::kScaleUpSwitch), the latter exactly for
//     the sends inside one scale-up domain;
//   - t_v >= 0 and t_v >= release_v;
//   - (u, v, c_uv) in E:  t_v >= t_u + p_u + c_uv;                        (3)
//   - u != v on the same switch sharing an endpoint (the paper's set K),
//     u the earlier:       t_v >= t_u + p_u + R_{u,v},                   (4, 5)
//     R_{u,v} = 0 if (src_u, dst_u) == (src_v, dst_v), else tau;
//   - scale-up sends: two with the same src, or with the same dst, do not
//     overlap (no tau);
//   - makespan_ps == max_v (t_v + p_v + tail_v)  (if check_makespan).
// Timelines (circuit model timeline; see timeline.hpp for the format):
//   - every interval: a < b < n, a and b in different scale-up domains,
//     setup <= up <= down, up - setup == tau;
//     intervals sorted by (up, a, b);
//   - on one switch, intervals sharing a port do not overlap over
//     [setup, down) (with a period: within the cycle, which with the bounds
//     above rules out overlaps across cycle boundaries too);
//   - with tasks: every send [t_v, t_v + p_v) lies within [up, down) of an
//     interval of circuit {src_v, dst_v} on its switch.
// Circuit-only schedules (no task assignments, e.g. RotorNet or BvN, and every
// all_connected, periodic or vlb schedule) get the schedule-level, model and
// timeline checks only.
#include <cstddef>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/lazy_workload.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::schedule {

struct ValidationOptions {
  /// Messages kept in the report (all violations are counted).
  std::size_t max_violations = 20;
  /// Require makespan_ps == max_v (t_v + p_v + tail_v) exactly.
  bool check_makespan = true;
  /// `w` is the workload as the schedule's choice and wiring route it
  /// (core::Routed's): checked as it is, not resolved or routed again (under
  /// --route auto a routed workload is not routed as it stands: its packet
  /// sends would have a choice again).
  bool routed = false;

  /// Throws core::InputError naming the field: max_violations == 0.
  void validate() const;
};

struct ValidationReport {
  /// The first max_violations violations, human-readable, each naming the
  /// task ids, switch, port and times (ps) involved.
  std::vector<std::string> violations;
  /// Number of violations found (>= violations.size()).
  std::size_t violation_count = 0;

  [[nodiscard]] bool ok() const { return violation_count == 0; }
  /// "valid", or "N violations:" and one kept violation per line.
  [[nodiscard]] std::string to_string() const;
};

/// Checks `s` against `w` (see the top of this file). Never throws for a bad
/// schedule; throws core::InputError for invalid options.
ValidationReport validate(const core::Workload& w, const Schedule& s,
                          const ValidationOptions& options = {});

/// An invalid schedule: what() names the schedule, the workload, the number
/// of violations and the first few of them.
class ScheduleError : public core::Error {
 public:
  ScheduleError(const std::string& message, std::vector<std::string> violations,
                std::size_t violation_count);

  /// The violations kept by the report (at most max_violations).
  [[nodiscard]] const std::vector<std::string>& violations() const { return violations_; }
  [[nodiscard]] std::size_t violation_count() const { return violation_count_; }

 private:
  std::vector<std::string> violations_;
  std::size_t violation_count_ = 0;
};

/// Throws ScheduleError when validate(w, s, options) finds a violation.
void check_schedule(const core::Workload& w, const Schedule& s,
                    const ValidationOptions& options = {});

/// Checks `s` against a workload whose collectives stay whole
/// (core::LazyWorkload): the system (a full wiring only: routes are chosen
/// send by send), the timelines, status, circuit model, lower bound and
/// the transmission times' range, as validate() does. A schedule that
/// assigns sends, or chooses decompositions or routes, is a violation: it
/// needs the workload expanded (LazyWorkload::expand).
ValidationReport validate(const core::LazyWorkload& w, const Schedule& s,
                          const ValidationOptions& options = {});
/// Throws ScheduleError when validate(w, s, options) finds a violation.
void check_schedule(const core::LazyWorkload& w, const Schedule& s,
                    const ValidationOptions& options = {});

}  // namespace flux::schedule
