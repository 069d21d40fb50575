#pragma once
// A failed switch and re-planning (docs/model.md, "A failed switch and
// re-planning"): the runtime loop that sits above the simulator and the
// schedulers and composes them (the simulator never calls a scheduler).
//
// Switch S goes dark at T. The plan runs (as SimOptions resolve its
// execution) until T; the sends finished by T are done, every other send
// (in flight on any switch or the scale-up fabric, or not started) restarts
// from its first byte. The remainder (those sends, their deps, releases from
// their done parents' finishes) is re-planned on the s - 1 surviving
// switches with a scheduler from the registry, and simulated from
// T + replan delay. The iteration ends at the later of the done sends' ends
// and the remainder's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::runtime {

/// Switch `switch_index` (0-based) of the plan's system goes dark at `time_ps`.
struct Failure {
  std::uint32_t switch_index = 0;
  core::TimePs time_ps = 0;
};

/// "S@T" with T a duration with a unit ("1@2.5ms"). Throws
/// core::InputError naming the field fail_switch.
Failure parse_failure(const std::string& text);
/// "S@T" as parse_failure() reads it.
std::string to_string(const Failure& f);

/// How the remainder is re-planned.
struct ReplanOptions {
  /// A registered scheduler; "": the plan's own (Schedule::scheduler) if it
  /// is registered, else flux (replan_scheduler()).
  std::string scheduler;
  /// The re-planning's wall-clock budget, s: replaces the scheduler
  /// options' time_limit_s.
  double time_limit_s = 10;
  /// Modelled re-planning delay in simulated time: the remainder starts at
  /// T + delay, ps. 0: at T (the wall time is reported, not modelled).
  core::TimePs delay_ps = 0;

  /// Throws core::InputError naming the field (bounds in kReplanOptions).
  void validate() const;
};

/// The numeric options of re-planning (core/option.hpp); the scheduler's
/// name is a string option of the CLI (--replan-scheduler).
inline constexpr auto kReplanOptions = std::tuple{
    core::NumberOption<ReplanOptions, double>{
        "replan_time_limit", "--replan-time-limit",
        "wall-clock budget of re-planning after --fail-switch, with a unit (10s)",
        &ReplanOptions::time_limit_s, 0.0, 1e6, false, false, core::OptionUnit::kSeconds},
    core::NumberOption<ReplanOptions, core::TimePs>{
        "replan_delay", "--replan-delay",
        "modelled re-planning delay: the remainder starts this long after the failure",
        &ReplanOptions::delay_ps, 0, core::kMaxTimePs, false, false,
        core::OptionUnit::kPicoseconds},
};

/// The scheduler that re-plans `plan`'s remainder under `o` (see
/// ReplanOptions::scheduler).
std::string replan_scheduler(const ReplanOptions& o, const schedule::Schedule& plan);

/// Throws core::InputError naming fail_switch when `f` cannot apply to
/// `system`: the switch is out of range, T is outside [0, kMaxTimePs], or
/// the system has a single switch (with it dark no OCS send can go on).
/// `all_connected` (ideal): only T is checked (no switch carries anything).
void check_failure(const Failure& f, const core::System& system, bool all_connected);

/// The sends of `w` not finished by `cut_ps` (records[v].finish_ps >
/// cut_ps), in index order.
std::vector<core::TaskIndex> unfinished_sends(const std::vector<sim::SendRecord>& records,
                                              core::TimePs cut_ps);

/// The remainder of `w` (the planning workload or the perturbed reality):
/// the sends `keep` (remainder task i is w's keep[i], ids, labels and tails
/// kept), the deps among them (their compute kept), and as release of each
/// max(0, release - origin, max over its done parents u of
/// (records[u].finish_ps + c_uv) - origin), with origin the restart
/// instant. Fold and scale-up hints kept; named "<name>.remainder".
core::Workload remainder_workload(const core::Workload& w,
                                  const std::vector<sim::SendRecord>& records,
                                  const std::vector<core::TaskIndex>& keep, core::TimePs origin_ps);

/// What the failure did to one run, for reports and files.
struct FailureOutcome {
  /// Some send was unfinished at T: the run stopped and the rest was
  /// re-planned. False when every send had finished by T, and always for
  /// an all-connected schedule (ideal: no switch carries anything): the
  /// run is then the plain run.
  bool disrupted = false;
  std::uint64_t done_sends = 0;       ///< finished by T
  std::uint64_t replanned_sends = 0;  ///< the remainder's sends
  std::uint64_t replanned_bytes = 0;  ///< their bytes (sent again from the first)
  std::string scheduler;              ///< re-planned with ("" if not disrupted)
  core::TimePs restart_ps = 0;        ///< T + delay: the remainder's time 0
  /// The remainder's simulated iteration time from restart_ps, ps.
  core::TimePs remainder_iteration_ps = 0;
  /// The re-plan's own makespan (task-level schedulers; 0 otherwise), ps.
  core::TimePs remainder_makespan_ps = 0;
  schedule::SolveStatus replan_status = schedule::SolveStatus::kFeasible;
  double replan_wall_time_s = 0;  ///< wall time of run_scheduler (validator included)
};

/// One run with a failure.
struct FailureRun {
  FailureOutcome outcome;
  /// The run as it happened: max(done sends' finish + tail, restart +
  /// remainder iteration time); bytes, waits, reconfigurations and circuits
  /// of both parts summed (a send restarted counts once, in the remainder),
  /// NIC peaks the max of both; no circuit utilisation; bytes_relayed the
  /// remainder's. Equal to plain.metrics when not disrupted.
  sim::Metrics metrics;
  /// The plan run without the failure (its records decide what is done by
  /// T: execution up to T does not depend on the failure); at_cut set.
  sim::SimResult plain;
  /// The remainder as executed (reality: perturbed compute), its index map
  /// to the workload (remainder task i is workload task remainder_tasks[i]),
  /// the re-plan and its simulation (times from restart_ps), the surviving
  /// switches (re-plan switch j is the plan's switch surviving_switches[j]).
  std::optional<core::Workload> remainder;
  std::vector<core::TaskIndex> remainder_tasks;
  std::optional<schedule::Schedule> replan;
  sim::SimResult continuation;
  std::vector<std::uint32_t> surviving_switches;
};

/// Runs `plan` over `w` (perturbed for trial `trial` when
/// sim_options.perturbation says so, with the same common random numbers as
/// sim::simulate_trials) with switch f.switch_index dark from f.time_ps,
/// re-planning with `replan` (scheduler options `sched_options`, their time
/// limit replaced by replan.time_limit_s). The plan is validated against
/// `w`, the re-plan by run_scheduler. Throws core::InputError (bad failure,
/// options, scheduler name), schedule::ScheduleError and core::Error as
/// sim::simulate and sched::run_scheduler do.
FailureRun run_with_failure(const core::Workload& w, const schedule::Schedule& plan,
                            const Failure& f, const ReplanOptions& replan,
                            const sched::SchedulerOptions& sched_options,
                            const sim::SimOptions& sim_options, std::uint32_t trial = 0);

/// sim_options.trials runs with the failure, trial k perturbed with (seed, k).
struct FailureTrials {
  Failure failure;
  /// As sim::simulate_trials gives them, of the runs with the failure
  /// (per-trial combined metrics, percentiles, all_delivered); its `chosen`
  /// holds the trace trial's combined metrics only (records: `chosen` below).
  sim::TrialsResult trials;
  std::vector<FailureOutcome> outcomes;  ///< per trial
  FailureRun chosen;                     ///< the trace trial, in full
};
FailureTrials run_trials_with_failure(const core::Workload& w, const schedule::Schedule& plan,
                                      const Failure& f, const ReplanOptions& replan,
                                      const sched::SchedulerOptions& sched_options,
                                      const sim::SimOptions& sim_options);

}  // namespace flux::runtime
