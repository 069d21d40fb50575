#pragma once
// The discrete-event OCS simulator: replays one training iteration (a
// workload DAG) over the circuits of a schedule and measures iteration time,
// NIC memory, reconfigurations, circuit utilisation and waiting.
// The model, with units, is in docs/model.md ("Simulator"); in short:
//   - a send is ready when its parents have finished and the compute on its
//     incoming edges has elapsed (and not before its release);
//   - it is issued at its ready time (circuit-only schedules: rotornet, bvn,
//     ideal) or, for task-level schedules (flux-milp, greedy), at its
//     scheduled start once its circuit on its assigned switch is up (strict
//     execution; ordered execution first recomputes the plan's times in its
//     order, src/sim/ordered.cpp, then replays them strictly);
//   - from its issue, the source NIC takes its bytes at link rate; bytes
//     leave only over a circuit joining src and dst (direct routing; any
//     switch for circuit-only schedules, only the assigned one for
//     task-level schedules), at link rate per circuit, while it is up;
//     bytes that cannot leave wait in NIC memory (unlimited);
//   - VLB routing (rotornet-vlb) may relay bytes through one intermediate NIC
//     (at most two hops, over circuits only), following RotorLB's per-slot
//     priorities;
//   - a send inside a scale-up domain takes no circuit and no NIC memory: it
//     occupies its source's electrical egress and its destination's
//     electrical ingress for p_e = bytes / scale-up rate, one transfer per
//     port at a time, started at its scheduled start (task-level schedules)
//     or when ready and its ports are free (circuit-only schedules; queued
//     by release time, then task index; ideal: no port contention).
// Time is integer picoseconds; data is tracked in link-picoseconds (the work
// one link does in 1 ps: 0.1 byte at 800 Gb/s), so the arithmetic is exact
// and the result is bit-for-bit deterministic.
#include <atomic>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "flux/core/lazy_workload.hpp"
#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/perturb.hpp"

namespace flux::sim {

/// How a task-level schedule is executed (docs/model.md, "Execution modes").
/// Circuit-only schedules (rotornet, bvn, ideal) are data-driven in every mode.
enum class Execution : std::uint8_t {
  kAuto,            ///< strict, or ordered when compute is perturbed
  kStrict,          ///< every circuit and send at its planned time
  kOrdered,         ///< the planned order per switch port, circuit and port; as early as possible
  kOrderedNoEarly,  ///< ordered, and nothing before its planned time
};
std::string_view to_string(Execution e);
/// "strict", "ordered", "ordered-no-early" (or "auto"); throws
/// core::InputError naming the field execution.
Execution execution_from_string(std::string_view s);

struct SimOptions {
  /// Packet size for NIC memory accounting (a packet occupies memory from
  /// its first byte in until its last byte out), bytes.
  std::uint64_t mtu_bytes = 4096;
  /// Stop with an error if the iteration has not finished by this simulated
  /// time (a schedule that never delivers some send), ps. Default 1 hour.
  core::TimePs max_time_ps = 3600 * core::kPsPerS;
  /// Check the schedule with the validator before simulating (always on in
  /// the CLI; tests switch it off to feed deliberately odd timelines).
  bool validate_schedule = true;
  /// Execution of a task-level schedule; kAuto: strict unless perturbed.
  Execution execution = Execution::kAuto;
  /// Compute jitter, straggler and seed of perturbed runs.
  Perturbation perturbation;
  /// Runs of simulate_trials (trial k perturbed with (seed, k)).
  std::uint32_t trials = 1;
  /// The trial whose records simulate_trials keeps (for --trace), < trials.
  std::uint32_t trace_trial = 0;
  /// Also measure the run up to this instant (SimResult::at_cut; the
  /// runtime's failed switch, runtime/failure.hpp). Not an option of the CLI.
  std::optional<core::TimePs> cut_ps;
  /// Keep every send's record (SimResult::sends, 24 B a send): for a
  /// Chrome trace, the Python result's columns, the runtime. Off: the
  /// metrics alone, which are the same (simulate_trials keeps the records
  /// of its trace trial only). Not an option of the CLI, which asks for
  /// them with --trace.
  bool keep_records = true;
  /// A flag another thread may raise to end the run early (the Python
  /// bindings' Ctrl-C; no CLI option): checked between trials and every
  /// kStopCheckEvents events; the run then throws core::Stopped.
  const std::atomic<bool>* stop = nullptr;

  /// The execution actually used: kAuto resolved (ordered when perturbed
  /// or when the plan runs on `another_workload`, strict otherwise). Throws
  /// core::InputError for strict with a perturbation or on another workload
  /// (a planned start the data are not ready for cannot happen).
  [[nodiscard]] Execution resolved_execution(bool another_workload = false) const;
  /// Throws core::InputError naming the field (bounds in kSimOptions).
  void validate() const;
};

/// Events between two looks at SimOptions::stop (a few ms of simulation).
inline constexpr std::uint64_t kStopCheckEvents = 4096;

/// The options of a simulation: names, flags, help and bounds
/// (core/option.hpp).
inline constexpr auto kSimOptions = std::tuple{
    core::NumberOption<SimOptions, std::uint64_t>{"mtu", "--mtu",
                                                  "packet size for NIC memory accounting, bytes",
                                                  &SimOptions::mtu_bytes, 1, 1u << 30},
    core::NumberOption<SimOptions, core::TimePs>{
        "max_time", "--max-time",
        "stop with an error if the iteration has not ended by this simulated time",
        &SimOptions::max_time_ps, 1, 100 * 24 * 3600 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
    core::ChoiceOption<SimOptions, Execution>{
        "execution", "--execution",
        "task-level schedules: strict (planned times), ordered (planned order, as early as "
        "ready), ordered-no-early, or auto (strict; ordered when perturbed)",
        &SimOptions::execution, &execution_from_string, &to_string},
    core::NumberOption<SimOptions, std::uint32_t>{"trials", "--trials",
                                                  "perturbed runs (trial k draws with (seed, k))",
                                                  &SimOptions::trials, 1, 1000000},
    core::NumberOption<SimOptions, std::uint32_t>{
        "trace_trial", "--trace-trial",
        "the trial whose metrics the summary, -o and --trace show (0-based, < --trials)",
        &SimOptions::trace_trial, 0, 999999},
};

/// What happened to one send (indexed by TaskIndex).
struct SendRecord {
  core::TimePs ready_ps = 0;   ///< parents done, compute elapsed, release reached
  core::TimePs issue_ps = 0;   ///< the NIC starts taking its bytes
  core::TimePs finish_ps = 0;  ///< its last byte reached its destination
};

struct Metrics {
  /// max over sends of (finish + tail), ps; 0 for an empty workload.
  core::TimePs iteration_time_ps = 0;
  /// Peak NIC memory over all NICs and all times, bytes.
  std::uint64_t peak_nic_bytes = 0;
  /// Peak memory of each NIC (indexed by rank), bytes.
  std::vector<std::uint64_t> nic_peak_bytes;
  /// Switch reconfiguration events: per switch, the distinct instants at
  /// which at least one circuit starts being set up, before the iteration
  /// ends (a configuration set up before t = 0 counts), summed over switches.
  std::uint64_t reconfigurations = 0;
  /// Circuits set up (intervals whose setup starts before the iteration
  /// ends), summed over switches.
  std::uint64_t circuits_set_up = 0;
  /// Link time that carried data / link time circuits were up within
  /// [0, iteration end), both directions of a circuit counted; unset when
  /// no circuit was up (ideal).
  std::optional<double> circuit_utilization;
  /// Per send, finish - ready - transmission time: the time it lost waiting
  /// for circuits (0 on the ideal network), ps.
  core::TimePs wait_total_ps = 0;
  core::TimePs wait_max_ps = 0;
  /// Bytes the sources sent and the destinations received (equal at the end).
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_delivered = 0;
  /// VLB: bytes that took an intermediate hop (first hop = second hop).
  std::uint64_t bytes_relayed = 0;
  /// Sends inside a scale-up domain (on the electrical fabric), their bytes
  /// and their waits, ps (included in the totals above); the other sends
  /// crossed the OCS. All 0 without scale-up domains.
  std::uint64_t scaleup_sends = 0;
  std::uint64_t scaleup_bytes = 0;
  core::TimePs scaleup_wait_total_ps = 0;
  core::TimePs scaleup_wait_max_ps = 0;
  /// Sends on the packet fabric and their bytes (included in the totals
  /// above); 0 without one.
  std::uint64_t packet_sends = 0;
  std::uint64_t packet_bytes = 0;
  /// Events the simulator processed; wall time of the event loop alone and
  /// of the whole simulation (set-up and metrics included), seconds.
  std::uint64_t events = 0;
  double loop_time_s = 0;
  double wall_time_s = 0;
};

struct SimResult {
  Metrics metrics;
  /// Per send (indexed by TaskIndex); empty with SimOptions::keep_records off.
  std::vector<SendRecord> sends;
  /// With SimOptions::cut_ps = T: the metrics of the run up to T, i.e. of the
  /// sends finished by T (finish <= T: iteration time = max finish + tail,
  /// waits, bytes, scale-up counts), the NIC peaks over [0, T], the circuits
  /// whose setup starts before T, the events processed by T; no utilisation.
  std::optional<Metrics> at_cut;
  /// Ordered execution of a task-level schedule: the plan as executed (its
  /// circuits and starts at the times they happened).
  std::optional<schedule::Schedule> executed;
};

/// Nearest-rank percentiles of one metric over the trials: the p-th
/// percentile of N sorted values x_1 <= ... <= x_N is x_ceil(p N / 100).
template <class T>
struct Percentiles {
  T p50{};
  T p95{};
  T p99{};
  T max{};
};
Percentiles<std::int64_t> nearest_rank(std::vector<std::int64_t> values);
Percentiles<double> nearest_rank(std::vector<double> values);

struct TrialsResult {
  Execution execution = Execution::kStrict;  ///< resolved
  std::vector<Metrics> trials;               ///< per trial
  Percentiles<std::int64_t> iteration_time_ps;
  Percentiles<std::int64_t> peak_nic_bytes;
  /// Every trial delivered every byte of the workload.
  bool all_delivered = true;
  /// The trace trial: its records (and executed plan), its workload.
  SimResult chosen;
  double wall_time_s = 0;
};

/// Simulates `w` over the circuits of `s`, executed as
/// options.resolved_execution() says; with a perturbation, `w` perturbed
/// for trial options.trace_trial (the schedule is validated against `w`
/// itself). Throws core::InputError on bad
/// options, schedule::ScheduleError when the schedule does not fit the
/// workload (validator), and core::Error when some send can never be
/// delivered (no circuit ever joins its endpoints) or max_time_ps passes.
SimResult simulate(const core::Workload& w, const schedule::Schedule& s,
                   const SimOptions& options = {});

/// simulate() of a workload whose collectives stay whole (issue 33): each
/// collective's sends are produced as the simulator reaches them
/// (docs/plan-lazy-collectives.md), the same events, records and metrics
/// as simulate() of w.expand(), with about 36 B a send and the sends in
/// flight. For schedules that name no sends on a full wiring (the ideal
/// network; the baselines' circuit schedules), strict, unperturbed: the
/// validator refuses a schedule that assigns sends, chooses decompositions
/// or routes, or another wiring (schedule::ScheduleError); a perturbation
/// is refused (core::InputError). options.trials is not read.
SimResult simulate_lazy(const core::LazyWorkload& w, const schedule::Schedule& s,
                        const SimOptions& options = {});

/// options.trials runs of `s` over `w` perturbed per trial
/// (options.perturbation, sim/perturb.hpp), each with
/// options.resolved_execution(). The schedule is validated once against the
/// unperturbed `w`. Throws as simulate() and perturb() do.
TrialsResult simulate_trials(const core::Workload& w, const schedule::Schedule& s,
                             const SimOptions& options);

/// A plan made for one workload run on another of the same structure (MoE
/// routing A planned, routing B executed; docs/model.md, "Running a plan on
/// another workload"). Throws core::InputError naming the field and value
/// unless `actual` has `planned`'s accelerators, fold, and sends (ids,
/// sources, destinations, in order) and dependency edges (from, to, in
/// order); bytes, releases, tails and compute may differ.
void check_same_structure(const core::Workload& planned, const core::Workload& actual);

/// simulate() of `s`, validated against `planned`, over `actual` (checked by
/// check_same_structure) in ordered execution (kAuto resolves to it; strict
/// is refused, as with a perturbation): the plan's order per switch port,
/// circuit and port, every send as early as its data and circuit allow.
/// A perturbation applies to `actual`. With &planned == &actual it is
/// simulate().
SimResult simulate_on(const core::Workload& planned, const core::Workload& actual,
                      const schedule::Schedule& s, const SimOptions& options = {});
/// simulate_trials() of `s` (validated against `planned`) over `actual`.
TrialsResult simulate_trials_on(const core::Workload& planned, const core::Workload& actual,
                                const schedule::Schedule& s, const SimOptions& options);

}  // namespace flux::sim
