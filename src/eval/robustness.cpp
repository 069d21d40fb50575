// A robustness point (include/flux/eval/robustness.hpp): its validation,
// its measurement, and the check of a row it resumes. Each point plans
// on its own (a robust variant at jitter 0, or under a straggler alone, is
// its plain scheduler's plan) and runs sim::simulate_trials with the
// study's seed, so trial k of every scheduler sees the same compute (common
// random numbers). The points run through the sweep runner (src/sweep), one
// process each; schedulers are deterministic, so a plan computed per point
// is the plan every other point of its (job, tau, scheduler, planning
// jitter) computes.
//
// A failure point runs runtime::run_trials_with_failure with the same seed:
// switch fail_switch goes dark at T = floor(fail_fraction x I), I ideal's
// unperturbed iteration time of the job (ideal has no switches, so I does
// not depend on tau or on which schedulers run: every scheduler of a job
// fails at the same instant). The remainder is re-planned by the point's
// registry scheduler (a robust variant's by its plain base) on the s - 1
// surviving switches, with replan_time_limit_s as its time limit and
// replan_moves as flux's move budget.
#include <algorithm>
#include <chrono>
#include <sstream>
#include <tuple>

#include "csv_fields.hpp"
#include "flux/core/error.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/workload/robust.hpp"

namespace flux::eval {
namespace {

constexpr std::string_view kRobustSuffix = "-robust";

std::string show(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// A row measured under another configuration may not be mixed in.
void check_same_config(const RobustPoint& p, const RobustRow& r, std::size_t index) {
  auto mismatch = [&](const std::string& field, const std::string& have, const std::string& want) {
    if (have != want) detail::throw_resume_mismatch(index, field, have, want);
  };
  const workload::TrainingConfig& t = p.job.training;
  mismatch("model", r.model, t.model.name);
  mismatch("gpu", r.gpu, t.gpu.name);
  mismatch("layers", std::to_string(r.layers), std::to_string(t.model.layers));
  mismatch("tp", std::to_string(r.tp), std::to_string(t.tp));
  mismatch("dp", std::to_string(r.dp), std::to_string(t.dp));
  mismatch("switches", std::to_string(r.switches), std::to_string(p.system.switches));
  mismatch("link_gbps", show(r.link_gbps), show(p.system.link_gbps));
  mismatch("time_limit_s", show(r.time_limit_s), show(p.sched.time_limit_s));
  mismatch("seed", std::to_string(r.seed), std::to_string(p.seed));
  mismatch("straggler_rank", std::to_string(r.straggler_rank), std::to_string(p.straggler_rank));
  mismatch("execution", r.execution, std::string(sim::to_string(p.execution)));
  mismatch("trials", std::to_string(r.trials), std::to_string(p.perturbation.trials));
  if (r.failure) {
    mismatch("fail_switch", std::to_string(r.failure->switch_index), std::to_string(p.fail_switch));
    mismatch("replan_time_limit_s", show(r.failure->replan_time_limit_s),
             show(p.replan_time_limit_s));
    mismatch("replan_moves", std::to_string(r.failure->replan_moves),
             std::to_string(p.replan_moves));
  }
}

sim::SimOptions sim_options(const RobustPoint& p) {
  sim::SimOptions o;
  o.keep_records = false;  // a row is metrics
  o.execution = p.execution;
  o.trials = p.perturbation.trials;
  o.perturbation.seed = p.seed;
  o.perturbation.compute_jitter = p.perturbation.jitter;
  if (p.perturbation.straggler_factor != 1) {
    o.perturbation.straggler = sim::Straggler{p.straggler_rank, p.perturbation.straggler_factor};
  }
  return o;
}

// The failure instant of a job: floor(fail_fraction x ideal's unperturbed
// iteration time), as its `none` row measures it.
core::TimePs failure_time(const RobustPoint& p, const core::Workload& w, const core::System& sys) {
  sim::SimOptions o;
  o.keep_records = false;
  o.execution = p.execution;
  const schedule::Schedule plan = sched::run_scheduler("ideal", w, sys, p.sched);
  const sim::TrialsResult t = sim::simulate_trials(w, plan, o);
  return static_cast<core::TimePs>(p.fail_fraction * static_cast<double>(t.iteration_time_ps.max));
}

// Nearest-rank p50 and max of per-trial values.
template <class T>
std::pair<T, T> p50_max(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return {v[(v.size() + 1) / 2 - 1], v.back()};
}

struct Plan {
  schedule::Schedule schedule;
  double solve_time_s = 0;
};

Plan make_plan(const RobustPoint& p, const core::Workload& w, const core::System& sys,
               const std::string& base, double plan_jitter) {
  const auto t0 = std::chrono::steady_clock::now();
  Plan plan;
  if (plan_jitter == 0) {
    plan.schedule = sched::run_scheduler(base, w, sys, p.sched);
  } else {
    const core::Workload planned =
        workload::robust_plan_workload(w, workload::RobustPlanning{plan_jitter});
    plan.schedule = sched::adopt_plan(sched::run_scheduler(base, planned, sys, p.sched), w);
  }
  plan.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return plan;
}

RobustRow measure(const RobustPoint& p, const core::Workload& w, const core::System& sys,
                  double plan_jitter, const Plan& plan) {
  const sim::SimOptions o = sim_options(p);
  std::optional<RobustFailure> failure;
  sim::TrialsResult t;
  if (p.perturbation.kind == PerturbationKind::kFailure) {
    const core::TimePs fail_time_ps = failure_time(p, w, sys);
    runtime::ReplanOptions replan;
    replan.scheduler = scheduler_variant(p.scheduler).base;
    replan.time_limit_s = p.replan_time_limit_s;
    const auto t0 = std::chrono::steady_clock::now();
    sched::SchedulerOptions replan_sched = p.sched;
    replan_sched.search_moves = p.replan_moves;
    runtime::FailureTrials f = runtime::run_trials_with_failure(
        w, plan.schedule, runtime::Failure{p.fail_switch, fail_time_ps}, replan, replan_sched, o);
    t = std::move(f.trials);
    t.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<std::uint64_t> sends;
    std::vector<double> walls;
    for (const runtime::FailureOutcome& out : f.outcomes) {
      sends.push_back(out.replanned_sends);
      walls.push_back(out.replan_wall_time_s);
    }
    failure.emplace();
    failure->switch_index = p.fail_switch;
    failure->time_ps = fail_time_ps;
    failure->replan_time_limit_s = p.replan_time_limit_s;
    failure->replan_moves = p.replan_moves;
    std::tie(failure->replanned_sends_p50, failure->replanned_sends_max) = p50_max(sends);
    std::tie(failure->replan_wall_p50_s, failure->replan_wall_max_s) = p50_max(walls);
  } else {
    t = sim::simulate_trials(w, plan.schedule, o);
  }

  const EvalJob& job = p.job;
  RobustRow r;
  r.job = job.name;
  r.layers = job.training.model.layers;
  r.gpu = job.training.gpu.name;
  r.tau_ps = p.tau_ps;
  r.scheduler = p.scheduler;
  r.plan_jitter = plan_jitter;
  r.perturbation = p.perturbation.kind;
  r.jitter = p.perturbation.jitter;
  r.straggler_rank = p.straggler_rank;
  r.straggler_factor = p.perturbation.straggler_factor;
  r.trials = p.perturbation.trials;
  r.seed = p.seed;
  r.execution = std::string(sim::to_string(p.execution));
  if (!plan.schedule.tasks.empty()) {
    r.planned_makespan_s = core::ps_to_seconds(plan.schedule.makespan_ps);
  }
  const auto seconds = [](std::int64_t ps) { return core::ps_to_seconds(ps); };
  r.iteration_time_s = {seconds(t.iteration_time_ps.p50), seconds(t.iteration_time_ps.p95),
                        seconds(t.iteration_time_ps.p99), seconds(t.iteration_time_ps.max)};
  r.peak_nic_bytes = t.peak_nic_bytes;
  r.all_delivered = t.all_delivered;
  r.solve_time_s = plan.solve_time_s;
  r.sim_time_s = t.wall_time_s;
  r.model = job.training.model.name;
  r.tp = job.training.tp;
  r.dp = job.training.dp;
  r.switches = p.system.switches;
  r.link_gbps = p.system.link_gbps;
  r.time_limit_s = p.sched.time_limit_s;
  r.failure = failure;
  return r;
}

}  // namespace

std::string_view to_string(PerturbationKind k) {
  switch (k) {
    case PerturbationKind::kNone:
      return "none";
    case PerturbationKind::kJitter:
      return "jitter";
    case PerturbationKind::kStraggler:
      return "straggler";
    case PerturbationKind::kFailure:
      return "failure";
  }
  return "?";
}

PerturbationKind perturbation_kind_from_string(std::string_view s) {
  for (const PerturbationKind k : {PerturbationKind::kNone, PerturbationKind::kJitter,
                                   PerturbationKind::kStraggler, PerturbationKind::kFailure}) {
    if (s == to_string(k)) return k;
  }
  throw core::InputError("", "perturbation", std::string(s),
                         "expected none, jitter, straggler or failure");
}

SchedulerVariant scheduler_variant(const std::string& name) {
  SchedulerVariant v{name, false};
  if (name.ends_with(kRobustSuffix)) {
    v.base = name.substr(0, name.size() - kRobustSuffix.size());
    v.robust = true;
  }
  const auto names = sched::scheduler_names();
  if (std::find(names.begin(), names.end(), v.base) == names.end()) {
    std::string known;
    for (std::string_view n : names) known += std::string(known.empty() ? "" : ", ") += n;
    throw core::InputError("", "schedulers", name,
                           "unknown scheduler (known: " + known + ", each also as <name>-robust)");
  }
  return v;
}

void RobustPoint::validate() const {
  (void)scheduler_variant(scheduler);
  const RobustPerturbation& p = perturbation;
  sim::SimOptions o = sim_options(*this);
  o.perturbation.validate();
  workload::RobustPlanning{p.jitter}.validate();
  o.perturbation.compute_jitter = 0.01;  // resolved as under perturbation
  o.validate();
  if (p.kind == PerturbationKind::kFailure) {
    if (!(fail_fraction > 0 && fail_fraction <= 1)) {
      throw core::InputError("", "fail_fraction", show(fail_fraction), "must be in (0, 1]");
    }
    runtime::ReplanOptions r;
    r.time_limit_s = replan_time_limit_s;
    r.validate();
    if (replan_moves == 0) throw core::InputError("", "replan_moves", "0", "must be positive");
    if (system.switches < 2) {
      throw core::InputError("", "switches", std::to_string(system.switches),
                             "the failure points need a surviving switch: at least 2 "
                             "(or no failure points)");
    }
    if (fail_switch >= system.switches) {
      throw core::InputError("", "fail_switch", std::to_string(fail_switch),
                             "no such switch: the system has " + std::to_string(system.switches) +
                                 " (numbered from 0)");
    }
  }
  core::System sys = system;
  sys.reconfig_delay_ps = tau_ps;
  sys.validate();
  sched.validate();
  job.training.validate();
  if (job.training.fold_dp != 0) {
    throw core::InputError("", "fold_dp", std::to_string(job.training.fold_dp),
                           "the robustness sweep perturbs every rank: no folding");
  }
  sys.validate_for(job.training.generated_ranks());
  if (straggler_rank >= job.training.generated_ranks()) {
    throw core::InputError("", "straggler_rank", std::to_string(straggler_rank),
                           "not a rank of " + job.name + " (it has " +
                               std::to_string(job.training.generated_ranks()) + ")");
  }
}

std::string RobustPoint::perturbation_text() const {
  const RobustPerturbation& p = perturbation;
  std::string s(to_string(p.kind));
  // Appended piece by piece: GCC 12 reports a false -Wrestrict on " " + string.
  if (p.jitter > 0) {
    s += ' ';
    s += show(100 * p.jitter);
    s += '%';
  }
  if (p.straggler_factor != 1) {
    s += " x";
    s += show(p.straggler_factor);
  }
  return s;
}

RobustRow run_robust_point(const RobustPoint& point) {
  point.validate();
  const SchedulerVariant v = scheduler_variant(point.scheduler);
  core::System sys = point.system;
  sys.reconfig_delay_ps = point.tau_ps;
  const core::Workload w = workload::generate_llama(point.job.training);
  const double plan_jitter = v.robust ? point.perturbation.jitter : 0;
  const Plan plan = make_plan(point, w, sys, v.base, plan_jitter);
  return measure(point, w, sys, plan_jitter, plan);
}

void check_resume(const RobustPoint& point, const RobustRow& row, std::size_t index) {
  check_same_config(point, row, index);
}

}  // namespace flux::eval
