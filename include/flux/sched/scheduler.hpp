#pragma once
// Schedulers behind one interface and a registry by name, so the CLI, the
// evaluation and the tests treat them alike. Every schedule that
// run_scheduler() returns has passed the independent validator
// (schedule/validator.hpp).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::sched {

/// Options of the exact scheduler (flux-milp). Every reduction preserves the
/// optimum and can be switched off (docs/model.md, "Reductions").
struct MilpOptions {
  bool drop_implied_pairs = true;  ///< drop pair rows the DAG distance already enforces
  bool symmetry_breaking = true;   ///< task i (topological order) only on switches 0..i
  bool horizon_big_m = true;       ///< per-pair big-M from an incumbent's makespan, C <= H
  bool warm_start = true;          ///< start CBC from the greedy list schedule
  bool bound_rows = true;          ///< C >= the combinatorial lower bound (bounds.hpp)
  /// Also write the model here (.lp or .mps, by the extension) before
  /// solving it.
  std::string export_path;
  std::string solution_path;  ///< read a solution (.sol) instead of solving
  /// When set, receives the text of the model export_path names instead of
  /// the file being written: a front end then writes it with its other
  /// outputs as one (io::save_files), after the run succeeded.
  std::function<void(std::string text)> export_sink = nullptr;
  /// Models estimated (estimate_milp_size) to need more memory than this are
  /// not built: flux-milp reports its warm start with its bound (status
  /// feasible), as when CBC finds nothing better in time.
  std::uint64_t max_model_bytes = std::uint64_t{4} << 30;
};

struct SchedulerOptions {
  double time_limit_s = 60;    ///< wall-clock budget of a solve
  double relative_gap = 1e-4;  ///< stop when (makespan - bound) / makespan is below
  int threads = 1;             ///< solver threads
  std::uint64_t seed = 1;      ///< for randomised components
  /// flux (and flux-milp's warm start): local search moves; 0 = until the
  /// time limit. With a move budget the result depends on the seed alone.
  std::uint64_t search_moves = 20000;
  /// flux: on instances of at most 1,000 sends, also bound by the MILP's LP
  /// relaxation (up to 20% of the time limit, 10 s).
  bool lp_bound = true;
  bool verbose = false;  ///< progress on stderr
  /// A flag another thread may raise to end the run early (the Python
  /// bindings' Ctrl-C; no CLI option): `flux` then stops searching and
  /// returns its best schedule so far, as at the time limit, skipping the
  /// bounds not yet computed (checked where flux checks its time limit);
  /// flux-milp stops its warm start so, and its watchdog kills CBC within
  /// 100 ms, keeping CBC's last incumbent. The baselines do not look at it.
  const std::atomic<bool>* stop = nullptr;
  double duty_cycle =
      0.9;  ///< rotornet: share of a slot that carries data (slot = tau / (1 - duty))
  MilpOptions milp;
  /// For a workload with choice groups (--collective auto): the alternative
  /// every group runs where it has one of this name (its first otherwise),
  /// e.g. "ring"; empty: run_scheduler chooses (docs/model.md, "Collective
  /// choice").
  std::string collective;

  /// Throws core::InputError naming the field (bounds in kSchedulerOptions).
  void validate() const;
};

/// True when `stop` is set and raised (SchedulerOptions::stop).
inline bool stop_requested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

/// The options of a scheduler run: names, flags, help and bounds
/// (core/option.hpp). The MILP's switches are in kMilpOptions.
inline constexpr auto kSchedulerOptions = std::tuple{
    core::NumberOption<SchedulerOptions, double>{
        "time_limit", "--time-limit", "wall-clock budget of a solve, with a unit (60s, 10min)",
        &SchedulerOptions::time_limit_s, 0.0, 1e6, false, false, core::OptionUnit::kSeconds},
    core::NumberOption<SchedulerOptions, double>{
        "gap", "--gap", "relative gap (makespan - bound) / makespan at which the solver stops",
        &SchedulerOptions::relative_gap, 0.0, 1.0, false, true},
    core::NumberOption<SchedulerOptions, int>{"threads", "--threads", "solver threads",
                                              &SchedulerOptions::threads, 1, 256},
    core::NumberOption<SchedulerOptions, std::uint64_t>{"seed", "--seed",
                                                        "flux: seed of the local search",
                                                        &SchedulerOptions::seed, 0, core::kMaxSeed},
    core::NumberOption<SchedulerOptions, std::uint64_t>{
        "moves", "--moves", "flux: local search moves (0: until the time limit)",
        &SchedulerOptions::search_moves, 0, ~std::uint64_t{0}},
    core::NumberOption<SchedulerOptions, double>{
        "duty_cycle", "--duty-cycle",
        "rotornet: share of a slot that carries data (slot = tau / (1 - duty))",
        &SchedulerOptions::duty_cycle, 0.0, 1.0, true, true},
    core::FlagOption<SchedulerOptions>{
        "--no-lp-bound", "flux: skip the LP-relaxation bound on instances of <= 1,000 sends",
        &SchedulerOptions::lp_bound, true},
    core::FlagOption<SchedulerOptions>{"-v,--verbose", "solver progress on stderr",
                                       &SchedulerOptions::verbose},
};

/// The MILP's reductions, each a flag that turns it off.
inline constexpr auto kMilpOptions = std::tuple{
    core::FlagOption<MilpOptions>{"--no-implied-pairs", "keep pair rows the DAG already implies",
                                  &MilpOptions::drop_implied_pairs, true},
    core::FlagOption<MilpOptions>{"--no-symmetry", "no symmetry breaking between switches",
                                  &MilpOptions::symmetry_breaking, true},
    core::FlagOption<MilpOptions>{"--no-horizon", "the paper's global big-M, no incumbent horizon",
                                  &MilpOptions::horizon_big_m, true},
    core::FlagOption<MilpOptions>{"--no-warm-start", "no MIP start from the flux heuristic",
                                  &MilpOptions::warm_start, true},
    core::FlagOption<MilpOptions>{"--no-bound", "no lower-bound row on the makespan",
                                  &MilpOptions::bound_rows, true},
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  /// True when the scheduler places every send (a switch and a start each);
  /// false for circuit-only schedulers that produce timelines alone.
  [[nodiscard]] virtual bool task_level() const { return true; }
  /// True when the scheduler's schedule of a folded workload (core::Fold)
  /// lifts to the job: it treats the accelerators as given, so every copy
  /// can run the same schedule. False for schedulers whose circuits depend on
  /// the number of accelerators (rotornet, bvn): run_scheduler() refuses a
  /// folded workload for them.
  [[nodiscard]] virtual bool schedules_folded() const { return false; }
  /// The flags of the options this scheduler reads (kSchedulerOptions,
  /// kMilpOptions, --export-milp, --solution), the limits every scheduler
  /// honours aside (honoured_by_all): check_options_read refuses the others.
  [[nodiscard]] virtual std::span<const std::string_view> options_read() const { return {}; }
  /// Produces a schedule; bad input throws core::InputError. The result is
  /// not yet validated: use run_scheduler().
  [[nodiscard]] virtual schedule::Schedule run(const core::Workload& w, const core::System& system,
                                               const SchedulerOptions& options) const = 0;
};

/// Registered names, in a stable order.
std::vector<std::string_view> scheduler_names();
/// The scheduler called `name`; throws core::InputError listing the names.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name);

/// True for --time-limit, --threads and -v,--verbose: limits every
/// scheduler honours (one that needs less time or fewer threads stays within
/// them) and progress output, accepted with any scheduler.
bool honoured_by_all(std::string_view flag);

/// Throws core::InputError naming the first option of `options` that
/// differs from its default (SchedulerOptions{}) while none of `schedulers`
/// reads it (Scheduler::options_read): a value that would be ignored. The
/// message names the schedulers that read it. Unknown names are skipped (the
/// run reports them).
void check_options_read(std::span<const std::string> schedulers, const SchedulerOptions& options);

/// Validates the inputs, runs the named scheduler and checks its schedule
/// with the independent validator (a failure there is a bug: it throws
/// schedule::ScheduleError). A workload with choice groups
/// (core::ChoiceGroup) is run with one alternative of each
/// (schedule::Schedule::choice): options.collective's, or chosen: on at
/// most kExhaustiveChoices choices of at most kExhaustiveSends sends every
/// choice is scheduled (in an equal share of the time limit) and the best
/// kept, its bound the least of theirs; otherwise a search scored by an
/// estimate (src/sched/choice/choose.hpp, in kChoiceShare of the limit,
/// every uniform choice estimated even past it) picks the choice scheduled
/// first (with the time left, at least the rest of the limit's share), then
/// each uniform choice in the time that run leaves, the best kept; the bound
/// is one valid for every choice (docs/model.md, "Collective choice").
schedule::Schedule run_scheduler(std::string_view name, const core::Workload& w,
                                 const core::System& system, const SchedulerOptions& options);

/// The `ideal` scheduler's schedule (circuit model all_connected, empty
/// timelines) for a workload named `workload` on `system`, without the
/// critical path it states as makespan and bound: for a workload kept with
/// its collectives whole, whose iteration time sim::simulate_lazy gives
/// (the ideal network's replay is the critical path). Status feasible.
schedule::Schedule ideal_network(const std::string& workload, const core::System& system);
inline constexpr std::uint64_t kExhaustiveChoices = 64;
inline constexpr std::size_t kExhaustiveSends = 128;
inline constexpr double kChoiceShare = 0.25;

/// A schedule made for `plan` (a workload with the same sends and other
/// compute durations, e.g. workload::robust_plan_workload(w)) as a schedule
/// of `w`: the same switches, starts and circuits; the makespan
/// max_v (t_v + p_v + tail_v) with w's tails; the plan's bound and gap
/// dropped (they bound the plan's workload) and the status feasible. Valid
/// when no compute duration of `w` exceeds the plan's; checked by the
/// validator (schedule::ScheduleError otherwise).
schedule::Schedule adopt_plan(schedule::Schedule s, const core::Workload& w);

}  // namespace flux::sched
