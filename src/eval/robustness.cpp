// The robustness sweep (include/flux/eval/robustness.hpp): its preset,
// validation and run loop. Per (job, tau) the plans are cached by (registry
// name, planning jitter): a plan is computed once, validated, and replayed
// under every perturbation; a robust variant at jitter 0 (and under a
// straggler alone) is its plain scheduler's plan. Each perturbation runs
// sim::simulate_trials with the sweep's seed, so trial k of every scheduler
// sees the same compute (common random numbers).
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
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "csv_fields.hpp"
#include "flux/core/error.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/workload/robust.hpp"

namespace flux::eval {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;

constexpr std::string_view kRobustSuffix = "-robust";

// The point's identity within a sweep (resume key and sort order).
using Key = std::tuple<std::string, core::TimePs, std::string, PerturbationKind, double, double>;
Key key_of(const RobustRow& r) {
  return {r.job, r.tau_ps, r.scheduler, r.perturbation, r.jitter, r.straggler_factor};
}
Key key_of(const EvalJob& j, core::TimePs tau, const std::string& s, const RobustPerturbation& p) {
  return {j.name, tau, s, p.kind, p.jitter, p.straggler_factor};
}

std::string show(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// A row measured under another configuration may not be mixed in.
void check_same_config(const RobustnessConfig& c, const std::vector<EvalJob>& jobs,
                       const RobustRow& r, std::size_t index) {
  const auto job =
      std::find_if(jobs.begin(), jobs.end(), [&](const EvalJob& j) { return j.name == r.job; });
  if (job == jobs.end()) return;
  auto mismatch = [&](const std::string& field, const std::string& have, const std::string& want) {
    if (have != want) detail::throw_resume_mismatch(index, field, have, want);
  };
  const workload::TrainingConfig& t = job->training;
  mismatch("model", r.model, t.model.name);
  mismatch("gpu", r.gpu, t.gpu.name);
  mismatch("layers", std::to_string(r.layers), std::to_string(t.model.layers));
  mismatch("tp", std::to_string(r.tp), std::to_string(t.tp));
  mismatch("dp", std::to_string(r.dp), std::to_string(t.dp));
  mismatch("switches", std::to_string(r.switches), std::to_string(c.system.switches));
  mismatch("link_gbps", show(r.link_gbps), show(c.system.link_gbps));
  mismatch("time_limit_s", show(r.time_limit_s), show(c.sched.time_limit_s));
  mismatch("seed", std::to_string(r.seed), std::to_string(c.seed));
  mismatch("straggler_rank", std::to_string(r.straggler_rank), std::to_string(c.straggler_rank));
  mismatch("execution", r.execution, std::string(sim::to_string(c.execution)));
  if (r.perturbation == PerturbationKind::kJitter ||
      (r.perturbation == PerturbationKind::kFailure && r.jitter > 0)) {
    mismatch("trials", std::to_string(r.trials), std::to_string(c.trials));
  }
  if (r.failure) {
    mismatch("fail_switch", std::to_string(r.failure->switch_index), std::to_string(c.fail_switch));
    mismatch("replan_time_limit_s", show(r.failure->replan_time_limit_s),
             show(c.replan_time_limit_s));
    mismatch("replan_moves", std::to_string(r.failure->replan_moves),
             std::to_string(c.replan_moves));
  }
}

// The failure instant of a job: floor(fail_fraction x ideal's unperturbed
// iteration time), as its `none` row measures it.
core::TimePs failure_time(const RobustnessConfig& c, const core::Workload& w,
                          const core::System& sys) {
  sim::SimOptions o;
  o.execution = c.execution;
  const schedule::Schedule plan = sched::run_scheduler("ideal", w, sys, c.sched);
  const sim::TrialsResult t = sim::simulate_trials(w, plan, o);
  return static_cast<core::TimePs>(c.fail_fraction * static_cast<double>(t.iteration_time_ps.max));
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

Plan make_plan(const RobustnessConfig& c, const core::Workload& w, const core::System& sys,
               const std::string& base, double plan_jitter) {
  const auto t0 = std::chrono::steady_clock::now();
  Plan p;
  if (plan_jitter == 0) {
    p.schedule = sched::run_scheduler(base, w, sys, c.sched);
  } else {
    const core::Workload planned =
        workload::robust_plan_workload(w, workload::RobustPlanning{plan_jitter});
    p.schedule = sched::adopt_plan(sched::run_scheduler(base, planned, sys, c.sched), w);
  }
  p.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

RobustRow measure(const RobustnessConfig& c, const EvalJob& job, const core::Workload& w,
                  core::TimePs tau, const std::string& name, double plan_jitter, const Plan& plan,
                  const RobustPerturbation& pert, core::TimePs fail_time_ps) {
  sim::SimOptions o;
  o.execution = c.execution;
  o.trials = pert.trials;
  o.perturbation.seed = c.seed;
  o.perturbation.compute_jitter = pert.jitter;
  if (pert.kind == PerturbationKind::kStraggler) {
    o.perturbation.straggler = sim::Straggler{c.straggler_rank, pert.straggler_factor};
  }
  std::optional<RobustFailure> failure;
  sim::TrialsResult t;
  if (pert.kind == PerturbationKind::kFailure) {
    runtime::ReplanOptions replan;
    replan.scheduler = scheduler_variant(name).base;
    replan.time_limit_s = c.replan_time_limit_s;
    const auto t0 = std::chrono::steady_clock::now();
    sched::SchedulerOptions replan_sched = c.sched;
    replan_sched.search_moves = c.replan_moves;
    runtime::FailureTrials f = runtime::run_trials_with_failure(
        w, plan.schedule, runtime::Failure{c.fail_switch, fail_time_ps}, replan, replan_sched, o);
    t = std::move(f.trials);
    t.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<std::uint64_t> sends;
    std::vector<double> walls;
    for (const runtime::FailureOutcome& out : f.outcomes) {
      sends.push_back(out.replanned_sends);
      walls.push_back(out.replan_wall_time_s);
    }
    failure.emplace();
    failure->switch_index = c.fail_switch;
    failure->time_ps = fail_time_ps;
    failure->replan_time_limit_s = c.replan_time_limit_s;
    failure->replan_moves = c.replan_moves;
    std::tie(failure->replanned_sends_p50, failure->replanned_sends_max) = p50_max(sends);
    std::tie(failure->replan_wall_p50_s, failure->replan_wall_max_s) = p50_max(walls);
  } else {
    t = sim::simulate_trials(w, plan.schedule, o);
  }

  RobustRow r;
  r.job = job.name;
  r.layers = job.training.model.layers;
  r.gpu = job.training.gpu.name;
  r.tau_ps = tau;
  r.scheduler = name;
  r.plan_jitter = plan_jitter;
  r.perturbation = pert.kind;
  r.jitter = pert.jitter;
  r.straggler_rank = c.straggler_rank;
  r.straggler_factor = pert.straggler_factor;
  r.trials = pert.trials;
  r.seed = c.seed;
  r.execution = std::string(sim::to_string(c.execution));
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
  r.switches = c.system.switches;
  r.link_gbps = c.system.link_gbps;
  r.time_limit_s = c.sched.time_limit_s;
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

RobustnessConfig RobustnessConfig::preset_robustness() {
  RobustnessConfig c;
  c.training.model = workload::ModelConfig::llama3("8b");
  c.training.tp = 4;
  c.training.dp = 2;
  c.layers = {8};
  c.gpus = {"a100", "h100"};
  c.taus_ps = {10 * kPsPerUs, kPsPerMs};
  c.schedulers = {"flux", "flux-robust", "rotornet", "rotornet-vlb", "bvn", "ideal"};
  c.jitters = {0, 0.02, 0.05, 0.10, 0.20};
  c.straggler_factors = {1.1, 1.5};
  c.failure_jitters = {0, 0.05};
  return c;
}

std::vector<EvalJob> RobustnessConfig::jobs() const {
  std::vector<EvalJob> out;
  for (std::uint32_t l : layers) {
    for (const std::string& g : gpus) {
      EvalJob j;
      j.name = layer_job_name(l) + "-" + g;
      j.training = training;
      j.training.model.layers = l;
      j.training.gpu = workload::GpuSpec::preset(g);
      j.scaleup_size = system.scaleup_size;
      j.scaleup_gbps = system.scaleup_gbps;
      out.push_back(std::move(j));
    }
  }
  return out;
}

std::vector<RobustPerturbation> RobustnessConfig::perturbations() const {
  std::vector<RobustPerturbation> out;
  for (double j : jitters) {
    if (j == 0) out.push_back({PerturbationKind::kNone, 0, 1, 1});
  }
  for (double j : jitters) {
    if (j > 0) out.push_back({PerturbationKind::kJitter, j, 1, trials});
  }
  for (double f : straggler_factors) out.push_back({PerturbationKind::kStraggler, 0, f, 1});
  for (double j : failure_jitters) {
    out.push_back({PerturbationKind::kFailure, j, 1, j > 0 ? trials : 1u});
  }
  return out;
}

std::size_t RobustnessConfig::points() const {
  return layers.size() * gpus.size() * taus_ps.size() * schedulers.size() * perturbations().size();
}

void RobustnessConfig::validate() const {
  core::check_options(kRobustnessOptions, *this);
  if (layers.empty()) throw core::InputError("", "layers", "", "at least one layer count");
  for (std::uint32_t l : layers) {
    if (l == 0) throw core::InputError("", "layers", "0", "must be positive");
  }
  if (gpus.empty()) throw core::InputError("", "gpu", "", "at least one GPU");
  if (taus_ps.empty()) throw core::InputError("", "tau", "", "at least one delay");
  if (schedulers.empty()) throw core::InputError("", "schedulers", "", "at least one scheduler");
  for (const std::string& s : schedulers) {
    (void)scheduler_variant(s);
    if (std::count(schedulers.begin(), schedulers.end(), s) > 1) {
      throw core::InputError("", "schedulers", s, "listed twice");
    }
  }
  if (jitters.empty() && straggler_factors.empty() && failure_jitters.empty()) {
    throw core::InputError("", "jitters", "", "at least one jitter, straggler factor or failure");
  }
  for (const auto& [list, field] :
       {std::pair{&jitters, "jitters"}, std::pair{&failure_jitters, "failure_jitters"}}) {
    for (double j : *list) {
      sim::Perturbation p;
      p.compute_jitter = j;
      p.validate();
      workload::RobustPlanning{j}.validate();
      if (std::count(list->begin(), list->end(), j) > 1) {
        throw core::InputError("", field, show(j), "listed twice");
      }
    }
  }
  if (!failure_jitters.empty()) {
    if (!(fail_fraction > 0 && fail_fraction <= 1)) {
      throw core::InputError("", "fail_fraction", show(fail_fraction), "must be in (0, 1]");
    }
    runtime::ReplanOptions r;
    r.time_limit_s = replan_time_limit_s;
    r.validate();
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
  for (double f : straggler_factors) {
    sim::Perturbation p;
    p.straggler = sim::Straggler{straggler_rank, f};
    p.validate();
    if (std::count(straggler_factors.begin(), straggler_factors.end(), f) > 1) {
      throw core::InputError("", "straggler_factors", show(f), "listed twice");
    }
  }
  sim::SimOptions o;
  o.trials = trials;
  o.execution = execution;
  o.perturbation.compute_jitter = 0.01;  // resolved as under perturbation
  o.validate();
  core::System sys = system;
  for (core::TimePs tau : taus_ps) {
    sys.reconfig_delay_ps = tau;
    sys.validate();
  }
  sched.validate();
  for (const EvalJob& j : jobs()) {
    j.training.validate();
    if (j.training.fold_dp != 0) {
      throw core::InputError("", "fold_dp", std::to_string(j.training.fold_dp),
                             "the robustness sweep perturbs every rank: no folding");
    }
    sys.validate_for(j.training.generated_ranks());
    if (straggler_rank >= j.training.generated_ranks()) {
      throw core::InputError("", "straggler_rank", std::to_string(straggler_rank),
                             "not a rank of " + j.name + " (it has " +
                                 std::to_string(j.training.generated_ranks()) + ")");
    }
  }
}

void run_robustness(const RobustnessConfig& config, std::vector<RobustRow>& rows,
                    const RobustProgress& on_row) {
  config.validate();
  const std::vector<EvalJob> jobs = config.jobs();
  const std::vector<RobustPerturbation> perts = config.perturbations();
  const std::vector<RobustRow> before = rows;
  std::map<Key, std::size_t> have;  // into `before`
  for (std::size_t i = 0; i < before.size(); ++i) {
    check_same_config(config, jobs, before[i], i);
    have.emplace(key_of(before[i]), i);
  }
  std::vector<RobustRow> out;  // in sweep order
  std::set<Key> swept;
  const std::size_t total = config.points();
  std::size_t done = 0;
  for (const EvalJob& job : jobs) {
    std::optional<core::Workload> w;  // generated when first needed
    for (core::TimePs tau : config.taus_ps) {
      core::System sys = config.system;
      sys.reconfig_delay_ps = tau;
      std::map<std::pair<std::string, double>, Plan> plans;  // (registry name, plan jitter)
      std::optional<core::TimePs> fail_time;                 // of the job, when first needed
      for (const std::string& name : config.schedulers) {
        const SchedulerVariant v = scheduler_variant(name);
        for (const RobustPerturbation& p : perts) {
          const Key key = key_of(job, tau, name, p);
          swept.insert(key);
          ++done;
          if (const auto it = have.find(key); it != have.end()) {
            out.push_back(before[it->second]);
            if (on_row) on_row(done, total, out.back(), true);
            continue;
          }
          if (!w) w.emplace(workload::generate_llama(job.training));
          const double plan_jitter = v.robust ? p.jitter : 0;
          auto plan = plans.find({v.base, plan_jitter});
          if (plan == plans.end()) {
            plan = plans
                       .emplace(std::pair(v.base, plan_jitter),
                                make_plan(config, *w, sys, v.base, plan_jitter))
                       .first;
          }
          if (p.kind == PerturbationKind::kFailure && !fail_time) {
            fail_time = failure_time(config, *w, sys);
          }
          out.push_back(measure(config, job, *w, tau, name, plan_jitter, plan->second, p,
                                fail_time.value_or(0)));
          // The caller saves `rows` after each point: it holds what is done.
          rows = out;
          for (const RobustRow& r : before) {
            if (swept.count(key_of(r)) == 0) rows.push_back(r);
          }
          if (on_row) on_row(done, total, out.back(), false);
        }
      }
    }
  }
  for (const RobustRow& r : before) {
    if (swept.count(key_of(r)) == 0) out.push_back(r);  // rows of points not swept, kept
  }
  rows = std::move(out);
}

}  // namespace flux::eval
