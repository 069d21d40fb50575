// A failed switch and re-planning (include/flux/runtime/failure.hpp,
// docs/model.md "A failed switch and re-planning").
//
// With T the failure, D the modelled re-planning delay and O = T + D:
//   done       = { v : F_v <= T }  (F from the plain run: execution up to T
//                does not depend on the failure, so this is exact)
//   remainder  = V \ done, in index order; deps among it kept;
//   release'_v = max(0, release_v - O, max over done parents u of F_u + c_uv - O)
//                built twice with one index map: from the planning workload
//                (planned compute, what the scheduler sees) and from the
//                trial's perturbed reality (what is executed);
//   system'    = the plan's system with s - 1 switches (the failed one
//                dropped, the others renumbered in order);
//   iteration  = max(max over done v of F_v + tail_v, O + remainder's).
// Every unfinished send restarts from its first byte (bytes in flight are
// retransmitted, nothing is lost); the surviving switches start the
// remainder from empty (no circuit up at T is reused).
#include "flux/runtime/failure.hpp"

#include "flux/core/choice.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "flux/core/error.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/perturb.hpp"

namespace flux::runtime {
namespace {

constexpr std::uint32_t kNotKept = 0xffffffffu;

// Both parts of a disrupted run: the done sends (at_cut) and the remainder
// shifted to `origin`.
sim::Metrics combine(const sim::Metrics& before, const sim::Metrics& after, core::TimePs origin) {
  sim::Metrics m;
  m.iteration_time_ps = std::max(before.iteration_time_ps,
                                 core::add_time(origin, after.iteration_time_ps, "fail_switch"));
  m.nic_peak_bytes = before.nic_peak_bytes;
  for (std::size_t x = 0; x < m.nic_peak_bytes.size() && x < after.nic_peak_bytes.size(); ++x) {
    m.nic_peak_bytes[x] = std::max(m.nic_peak_bytes[x], after.nic_peak_bytes[x]);
  }
  m.peak_nic_bytes = std::max(before.peak_nic_bytes, after.peak_nic_bytes);
  m.reconfigurations = before.reconfigurations + after.reconfigurations;
  m.circuits_set_up = before.circuits_set_up + after.circuits_set_up;
  m.wait_total_ps = before.wait_total_ps + after.wait_total_ps;
  m.wait_max_ps = std::max(before.wait_max_ps, after.wait_max_ps);
  m.bytes_sent = before.bytes_sent + after.bytes_sent;
  m.bytes_delivered = before.bytes_delivered + after.bytes_delivered;
  m.bytes_relayed = after.bytes_relayed;
  m.scaleup_sends = before.scaleup_sends + after.scaleup_sends;
  m.scaleup_bytes = before.scaleup_bytes + after.scaleup_bytes;
  m.scaleup_wait_total_ps = before.scaleup_wait_total_ps + after.scaleup_wait_total_ps;
  m.scaleup_wait_max_ps = std::max(before.scaleup_wait_max_ps, after.scaleup_wait_max_ps);
  m.events = before.events + after.events;
  m.loop_time_s = before.loop_time_s + after.loop_time_s;
  m.wall_time_s = before.wall_time_s + after.wall_time_s;
  return m;
}

// The options of the runs inside: `o`'s execution resolved, the workload
// given already perturbed, the schedules already validated.
sim::SimOptions inner_options(const sim::SimOptions& o) {
  sim::SimOptions in = o;
  in.execution = o.resolved_execution();
  in.perturbation = {};
  in.trials = 1;
  in.trace_trial = 0;
  in.validate_schedule = false;
  in.cut_ps.reset();
  in.keep_records = true;  // the remainder is cut from them; the trace shows them
  return in;
}

bool registered(std::string_view name) {
  const auto names = sched::scheduler_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

FailureRun run_checked(const core::Workload& w, const schedule::Schedule& plan, const Failure& f,
                       const ReplanOptions& replan, const sched::SchedulerOptions& sched_options,
                       const sim::SimOptions& sim_options, std::uint32_t trial) {
  const bool perturbed = sim_options.perturbation.any();
  std::optional<core::Workload> perturbed_w;
  if (perturbed) perturbed_w.emplace(sim::perturb(w, sim_options.perturbation, trial));
  const core::Workload& reality = perturbed ? *perturbed_w : w;
  const sim::SimOptions inner = inner_options(sim_options);
  sim::SimOptions first = inner;
  first.cut_ps = f.time_ps;

  FailureRun r;
  r.plain = sim::simulate(reality, plan, first);
  std::vector<core::TaskIndex> keep = unfinished_sends(r.plain.sends, f.time_ps);
  FailureOutcome& out = r.outcome;
  if (plan.circuit_model == schedule::CircuitModel::kAllConnected || keep.empty()) {
    out.done_sends = w.num_tasks();
    r.metrics = r.plain.metrics;
    return r;
  }
  out.disrupted = true;
  out.done_sends = w.num_tasks() - keep.size();
  out.replanned_sends = keep.size();
  for (const core::TaskIndex v : keep) out.replanned_bytes += w.task(v).bytes;
  out.restart_ps = core::add_time(f.time_ps, replan.delay_ps, "replan_delay");
  out.scheduler = replan_scheduler(replan, plan);

  core::System survivors = plan.system;
  survivors.switches -= 1;
  for (std::uint32_t sw = 0; sw < plan.system.switches; ++sw) {
    if (sw != f.switch_index) r.surviving_switches.push_back(sw);
  }
  const core::Workload planning = remainder_workload(w, r.plain.sends, keep, out.restart_ps);
  sched::SchedulerOptions so = sched_options;
  so.time_limit_s = replan.time_limit_s;
  const auto t0 = std::chrono::steady_clock::now();
  r.replan = sched::run_scheduler(out.scheduler, planning, survivors, so);
  out.replan_wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.replan_status = r.replan->status;
  out.remainder_makespan_ps = r.replan->makespan_ps;
  r.remainder.emplace(perturbed ? remainder_workload(reality, r.plain.sends, keep, out.restart_ps)
                                : planning);
  r.continuation = sim::simulate(*r.remainder, *r.replan, inner);
  out.remainder_iteration_ps = r.continuation.metrics.iteration_time_ps;
  r.metrics = combine(*r.plain.at_cut, r.continuation.metrics, out.restart_ps);
  r.remainder_tasks = std::move(keep);
  return r;
}

void check_all(const core::Workload& w, const schedule::Schedule& plan, const Failure& f,
               const ReplanOptions& replan, const sched::SchedulerOptions& sched_options,
               const sim::SimOptions& sim_options) {
  sim_options.validate();
  replan.validate();
  sched_options.validate();
  plan.system.validate();
  check_failure(f, plan.system, plan.circuit_model == schedule::CircuitModel::kAllConnected);
  if (!replan.scheduler.empty()) (void)sched::make_scheduler(replan.scheduler);
  schedule::check_schedule(w, plan);
}

}  // namespace

Failure parse_failure(const std::string& text) {
  const auto at = text.find('@');
  auto bad = [&](const std::string& problem) {
    return core::InputError("", "fail_switch", text, problem);
  };
  if (at == std::string::npos) throw bad("expected SWITCH@TIME, e.g. 1@2.5ms");
  Failure f;
  const char* begin = text.data();
  const char* end = text.data() + at;
  const auto [ptr, ec] = std::from_chars(begin, end, f.switch_index);
  if (at == 0 || ec != std::errc() || ptr != end) {
    throw bad("expected SWITCH@TIME with SWITCH a switch number from 0, e.g. 1@2.5ms");
  }
  try {
    f.time_ps = core::parse_duration(std::string_view(text).substr(at + 1), "fail_switch");
  } catch (const core::InputError& e) {
    throw bad("the time: " + e.problem());
  }
  return f;
}

std::string to_string(const Failure& f) {
  return std::to_string(f.switch_index) + "@" + core::format_duration(f.time_ps);
}

void ReplanOptions::validate() const {
  core::check_options(kReplanOptions, *this);
}

std::string replan_scheduler(const ReplanOptions& o, const schedule::Schedule& plan) {
  if (!o.scheduler.empty()) return o.scheduler;
  return registered(plan.scheduler) ? plan.scheduler : std::string("flux");
}

void check_failure(const Failure& f, const core::System& system, bool all_connected) {
  const std::string value = to_string(f);
  if (f.time_ps < 0 || f.time_ps > core::kMaxTimePs) {
    throw core::InputError("", "fail_switch", value, std::string(core::kTimeRangeProblem));
  }
  if (system.wiring.kind != core::WiringKind::kFull) {
    throw core::InputError("", "fail_switch", value,
                           "failures are modelled on a full wiring only: under --wiring " +
                               core::to_string(system.wiring) +
                               " a switch holds one group's circuits of a plane, and the model "
                               "fails whole planes");
  }
  if (f.switch_index >= system.switches) {
    throw core::InputError(
        "", "fail_switch", value,
        "no such switch: the system has " + std::to_string(system.switches) + " (numbered from 0)");
  }
  if (system.switches == 1 && !all_connected) {
    throw core::InputError("", "fail_switch", value,
                           "the system has a single switch: with it dark the sends between "
                           "scale-up domains cannot go on (re-planning needs a surviving switch)");
  }
}

std::vector<core::TaskIndex> unfinished_sends(const std::vector<sim::SendRecord>& records,
                                              core::TimePs cut_ps) {
  std::vector<core::TaskIndex> keep;
  for (std::size_t v = 0; v < records.size(); ++v) {
    if (records[v].finish_ps > cut_ps) keep.emplace_back(static_cast<std::uint32_t>(v));
  }
  return keep;
}

core::Workload remainder_workload(const core::Workload& w,
                                  const std::vector<sim::SendRecord>& records,
                                  const std::vector<core::TaskIndex>& keep,
                                  core::TimePs origin_ps) {
  std::vector<std::uint32_t> index(w.num_tasks(), kNotKept);
  for (std::uint32_t i = 0; i < keep.size(); ++i) index[keep[i].value()] = i;
  core::WorkloadData d;
  d.name = w.name() + ".remainder";
  d.accelerators = w.accelerators();
  d.labels.assign(w.labels().begin(), w.labels().end());
  d.fold = w.fold();
  d.scaleup_size = w.scaleup_size();
  d.scaleup_gbps = w.scaleup_gbps();
  d.tasks.reserve(keep.size());
  for (const core::TaskIndex v : keep) {
    core::Task t = w.task(v);
    core::TimePs release = std::max<core::TimePs>(0, t.release_ps - origin_ps);
    for (const std::uint32_t e : w.in_edge_ids(v)) {
      const core::Dep& dep = w.deps()[e];
      if (index[dep.from.value()] != kNotKept) continue;  // not done: a dep of the remainder
      const core::TimePs ready =
          core::add_time(records[dep.from.value()].finish_ps, dep.compute_ps, "fail_switch");
      release = std::max(release, ready - origin_ps);
    }
    t.release_ps = release;
    d.tasks.push_back(t);
  }
  for (const core::Dep& dep : w.deps()) {
    const std::uint32_t from = index[dep.from.value()];
    const std::uint32_t to = index[dep.to.value()];
    if (from != kNotKept && to != kNotKept) {
      d.deps.push_back({core::TaskIndex(from), core::TaskIndex(to), dep.compute_ps});
    }
  }
  return core::Workload(std::move(d));
}

FailureRun run_with_failure(const core::Workload& w, const schedule::Schedule& plan,
                            const Failure& f, const ReplanOptions& replan,
                            const sched::SchedulerOptions& sched_options,
                            const sim::SimOptions& sim_options, std::uint32_t trial) {
  if (w.has_choices()) {  // as run_trials_with_failure
    const core::Workload chosen = core::resolve(w, core::choice_from_names(w, plan.choice));
    return run_with_failure(chosen, plan, f, replan, sched_options, sim_options, trial);
  }
  check_all(w, plan, f, replan, sched_options, sim_options);
  return run_checked(w, plan, f, replan, sched_options, sim_options, trial);
}

FailureTrials run_trials_with_failure(const core::Workload& w, const schedule::Schedule& plan,
                                      const Failure& f, const ReplanOptions& replan,
                                      const sched::SchedulerOptions& sched_options,
                                      const sim::SimOptions& sim_options) {
  if (w.has_choices()) {
    // The sends the plan's choice runs (core/choice.hpp): the simulator's
    // records and the remainder are indexed by them, not the workload's.
    const core::Workload chosen = core::resolve(w, core::choice_from_names(w, plan.choice));
    return run_trials_with_failure(chosen, plan, f, replan, sched_options, sim_options);
  }
  const auto t0 = std::chrono::steady_clock::now();
  check_all(w, plan, f, replan, sched_options, sim_options);
  FailureTrials r;
  r.failure = f;
  r.trials.execution = sim_options.resolved_execution();
  std::vector<std::int64_t> times, peaks;
  const std::uint64_t total = w.total_bytes();
  for (std::uint32_t k = 0; k < sim_options.trials; ++k) {
    FailureRun one = run_checked(w, plan, f, replan, sched_options, sim_options, k);
    const sim::Metrics& m = one.metrics;
    r.trials.all_delivered =
        r.trials.all_delivered && m.bytes_sent == total && m.bytes_delivered == total;
    times.push_back(m.iteration_time_ps);
    peaks.push_back(static_cast<std::int64_t>(m.peak_nic_bytes));
    r.trials.trials.push_back(m);
    r.outcomes.push_back(one.outcome);
    if (k == sim_options.trace_trial) {
      r.trials.chosen.metrics = m;
      r.chosen = std::move(one);
    }
  }
  r.trials.iteration_time_ps = sim::nearest_rank(times);
  r.trials.peak_nic_bytes = sim::nearest_rank(peaks);
  r.trials.wall_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace flux::runtime
