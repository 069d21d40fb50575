// One point of a study measured (include/flux/eval/evaluate.hpp): generate
// the workload, run the scheduler through the registry (which validates its
// schedule), replay it in the simulator, keep the metrics. The loop over
// points is the sweep runner's (src/sweep).
//
// A scheduler that cannot schedule a folded workload (rotornet, bvn: their
// circuits depend on the number of accelerators) runs on the folded workload
// taken as a cluster of its own (its fold dropped): the same per-rank
// program on fewer accelerators. The row says so (cluster_ranks).
#include "flux/eval/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "csv_fields.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/time.hpp"
#include "flux/runtime/uncertain.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/split.hpp"

namespace flux::eval {
namespace {

// The folded workload as a cluster of its own (see the top of the file).
core::Workload as_own_cluster(const core::Workload& w) {
  core::WorkloadData d = w.data();
  d.fold = core::Fold{};
  return core::Workload(std::move(d));
}

// A job's workload as the evaluation runs it: generated, its sends split
// into the configuration's channels.
core::Workload generate(const EvalPoint& config, const workload::TrainingConfig& training) {
  // Hierarchical collectives (fixed or among auto's alternatives) follow
  // the system's scale-up domains.
  workload::TrainingConfig t = training;
  if (t.collective == workload::Algorithm::kAuto ||
      t.collective == workload::Algorithm::kHierarchical) {
    t.scaleup_size = config.job.scaleup_size;
  }
  core::Workload w = workload::generate_llama(t);
  if (config.channels == 1) return w;
  return workload::split_sends(w, config.channels, config.job.scaleup_size);
}

// The schedule of `w` and its replay. A baseline on a workload with choice
// groups (a circuit-only scheduler, which the registry cannot score) runs
// every fixed choice (each alternative name where a collective has it) and
// keeps the one the simulator finds fastest, the first of equals: fair to
// it (docs/model.md, "Collective choice").
std::pair<schedule::Schedule, sim::SimResult> schedule_and_simulate(const EvalPoint& config,
                                                                    const core::Workload& w,
                                                                    const core::System& sys) {
  const std::string& name = config.scheduler;
  sim::SimOptions sim_options = config.sim;
  sim_options.keep_records = false;  // a row is metrics
  if (!w.has_choices() || sched::make_scheduler(name)->task_level() ||
      !config.sched.collective.empty()) {
    schedule::Schedule s = sched::run_scheduler(name, w, sys, config.sched);
    sim::SimResult r = sim::simulate(w, s, sim_options);
    return {std::move(s), std::move(r)};
  }
  std::optional<std::pair<schedule::Schedule, sim::SimResult>> best;
  for (const std::string& a : core::alternative_names(w)) {
    sched::SchedulerOptions o = config.sched;
    o.collective = a;
    schedule::Schedule s = sched::run_scheduler(name, w, sys, o);
    sim::SimResult r = sim::simulate(w, s, sim_options);
    if (!best || r.metrics.iteration_time_ps < best->second.metrics.iteration_time_ps) {
      best.emplace(std::move(s), std::move(r));
    }
  }
  return std::move(*best);
}

}  // namespace

EvalRow measure(const EvalPoint& config) {
  config.validate();
  const EvalJob& job = config.job;
  const std::string& name = config.scheduler;
  const core::TimePs tau = config.tau_ps;
  const core::System sys = config.point_system();
  // A fold the wiring cannot lift is refused before the job is generated.
  core::check_fold_lift(job.training.fold(), job.training.ranks(), sys);
  const core::Workload job_workload = generate(config, job.training);
  std::optional<core::Workload> own;
  if (job_workload.fold().folded() && !sched::make_scheduler(name)->schedules_folded()) {
    own.emplace(as_own_cluster(job_workload));
  }
  const core::Workload& w = own ? *own : job_workload;
  const auto t0 = std::chrono::steady_clock::now();
  const std::pair<schedule::Schedule, sim::SimResult> run = schedule_and_simulate(config, w, sys);
  const schedule::Schedule& s = run.first;
  const sim::SimResult& r = run.second;
  const double solve_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // With choice groups: the sends the schedule's choice runs.
  std::optional<core::Workload> chosen;
  if (w.has_choices()) chosen.emplace(core::resolve(w, core::choice_from_names(w, s.choice)));
  const core::Workload& run_w = chosen ? *chosen : w;

  EvalRow row;
  row.job = job.name;
  row.layers = job.training.model.layers;
  row.tau_ps = tau;
  row.scheduler = name;
  row.iteration_time_s = core::ps_to_seconds(r.metrics.iteration_time_ps);
  if (!s.tasks.empty()) row.schedule_makespan_s = core::ps_to_seconds(s.makespan_ps);
  row.peak_nic_bytes = r.metrics.peak_nic_bytes;
  row.reconfigurations = r.metrics.reconfigurations;
  row.circuits_set_up = r.metrics.circuits_set_up;
  row.status = std::string(schedule::to_string(s.status));
  row.gap = s.gap;
  if (s.lower_bound_ps) row.lower_bound_s = core::ps_to_seconds(*s.lower_bound_ps);
  row.solve_time_s = solve_s;
  row.circuit_utilization = r.metrics.circuit_utilization;
  row.wait_mean_s = run_w.num_tasks() == 0 ? 0.0
                                           : core::ps_to_seconds(r.metrics.wait_total_ps) /
                                                 static_cast<double>(run_w.num_tasks());
  row.bytes_relayed = r.metrics.bytes_relayed;
  row.sends = run_w.num_tasks();
  row.sim_events = r.metrics.events;
  row.model = job.training.model.name;
  row.gpu = job.training.gpu.name;
  row.tp = job.training.tp;
  row.dp = job.training.dp;
  row.switches = config.system.switches;
  row.link_gbps = config.system.link_gbps;
  row.time_limit_s = config.sched.time_limit_s;
  row.scaleup_size = job.scaleup_size;
  row.cluster_ranks = w.job_accelerators();
  const core::RouteCounts routes = core::route_counts(run_w, sys, s.routes);
  row.forwarded_bytes = routes.forwarded_bytes;
  row.packet_bytes = routes.packet_bytes;
  row.ocs_switches =
      sys.wiring.kind == core::WiringKind::kFull
          ? sys.switches
          : sys.wiring_for(static_cast<std::uint32_t>(w.job_accelerators())).switches();
  row.fabric = fabric_of(sys);
  const workload::MoeConfig& moe = job.training.moe;
  if (moe.enabled()) row.routing = moe.routing.to_string();
  row.collective = std::string(workload::to_string(job.training.collective));
  if (w.has_choices()) {
    row.choice = core::describe_choice(w, core::choice_from_names(w, s.choice), ";", "=");
  }
  if (config.routing_iterations > 0 && moe.enabled()) {
    // Uncertain routing: this plan (made for the routing's iteration 0), or
    // one made for the expected routing, on iterations 1 .. N of the same
    // routing, beside a re-plan of each.
    const auto make = [&](std::uint32_t i) {
      workload::TrainingConfig t = job.training;
      t.moe.routing.iteration = moe.routing.iteration + i + 1;
      core::Workload b = generate(config, t);
      return std::make_shared<const core::Workload>(own ? as_own_cluster(b) : std::move(b));
    };
    std::optional<core::Workload> expected;
    std::optional<schedule::Schedule> expected_plan;
    double expected_solve_s = 0;
    if (config.plan_routing.kind == PlanRouting::Kind::kExpected &&
        moe.routing.kind == workload::RoutingKind::kZipf) {
      // Averaged over the uniformly random popularity permutation, every
      // expert expects T K / E of each source's assignments: uniform (a
      // drifting popularity too: its walk keeps the permutation uniform).
      workload::TrainingConfig t = job.training;
      t.moe.routing.kind = workload::RoutingKind::kUniform;
      t.moe.routing.zipf_s = 0;
      t.moe.routing.drift.reset();
      core::Workload e = generate(config, t);
      expected.emplace(own ? as_own_cluster(e) : std::move(e));
      const auto t1 = std::chrono::steady_clock::now();
      expected_plan = sched::run_scheduler(name, *expected, sys, config.sched);
      expected_solve_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    }
    sched::SchedulerOptions replan = config.sched;
    if (config.routing_replan_limit_s > 0) replan.time_limit_s = config.routing_replan_limit_s;
    runtime::UncertainResult u;
    if (config.plan_routing.kind == PlanRouting::Kind::kPredicted) {
      // Before actual iteration i (the routing's iteration base + i + 1), a
      // plan for the predictor's forecast from iterations base .. base + i.
      workload::Predictor predictor(config.plan_routing.predictor);
      const workload::RoutingShape shape = workload::moe_routing_shape(job.training);
      const auto plan_for = [&](std::uint32_t i) {
        workload::RoutingSpec seen = moe.routing;
        seen.iteration = moe.routing.iteration + i;
        predictor.observe(workload::routing_matrices(workload::Router(seen, shape)));
        workload::TrainingConfig t = job.training;
        t.moe.routing = predictor.predicted();
        core::Workload p = generate(config, t);
        auto planned =
            std::make_shared<const core::Workload>(own ? as_own_cluster(p) : std::move(p));
        const auto t1 = std::chrono::steady_clock::now();
        auto plan = std::make_shared<const schedule::Schedule>(
            sched::run_scheduler(name, *planned, sys, replan));
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        return runtime::IterationPlan{std::move(planned), std::move(plan), wall};
      };
      u = runtime::run_uncertain_each(config.routing_iterations, plan_for, make, sys, name, replan,
                                      config.sim, config.online);
    } else if (expected) {
      u = runtime::run_uncertain_plan(*expected, std::move(*expected_plan), expected_solve_s,
                                      config.routing_iterations, make, sys, name, replan,
                                      config.sim, config.online);
    } else {
      u = runtime::run_uncertain_plan(w, s, solve_s, config.routing_iterations, make, sys, name,
                                      replan, config.sim, config.online);
    }
    row.uncertain_runs = config.routing_iterations;
    row.planned_p50_s = core::ps_to_seconds(u.planned_iteration_ps.p50);
    row.planned_max_s = core::ps_to_seconds(u.planned_iteration_ps.max);
    row.replanned_p50_s = core::ps_to_seconds(u.replanned_iteration_ps.p50);
    row.replanned_max_s = core::ps_to_seconds(u.replanned_iteration_ps.max);
    row.replan_wall_max_s = u.max_replan_wall_time_s;
    row.planned_nic_max_bytes = u.planned_peak_nic_bytes;
    row.replanned_nic_max_bytes = u.replanned_peak_nic_bytes;
    row.online_nic_max_bytes = u.online_peak_nic_bytes;
    if (u.online_iteration_ps) {
      row.online_p50_s = core::ps_to_seconds(u.online_iteration_ps->p50);
      row.online_p95_s = core::ps_to_seconds(u.online_iteration_ps->p95);
      row.online_max_s = core::ps_to_seconds(u.online_iteration_ps->max);
      row.decisions = u.decisions;
      if (u.decisions > 0) {
        row.decision_p50_s = u.decision_wall_s.p50;
        row.decision_p99_s = u.decision_wall_s.p99;
        row.decision_max_s = u.decision_wall_s.max;
      }
    }
  }
  return row;
}

std::string to_string(const PlanRouting& p) {
  switch (p.kind) {
    case PlanRouting::Kind::kDraw:
      return "draw";
    case PlanRouting::Kind::kExpected:
      return "expected";
    case PlanRouting::Kind::kPredicted:
      return p.predictor.to_string();
  }
  return "draw";
}

PlanRouting plan_routing_from_string(std::string_view s) {
  if (s == "draw") return {};
  if (s == "expected") return {PlanRouting::Kind::kExpected, {}};
  if (s == "last" || s.starts_with("ewma:")) {
    return {PlanRouting::Kind::kPredicted, workload::PredictorSpec::parse(s, "plan_routing")};
  }
  throw core::InputError("", "plan_routing", std::string(s),
                         "must be draw, expected, last or ewma:A");
}

std::string layer_job_name(std::uint32_t layers) {
  std::string name = "L";  // appended: GCC 12 reports a false -Wrestrict on "L" + string
  name += std::to_string(layers);
  return name;
}

RowFabric fabric_of(const core::System& s) {
  return {core::to_string(s.wiring),
          s.ocs_radix,
          s.packet_gbps,
          s.packet_latency_ps,
          s.packet_oversubscription,
          std::string(core::to_string(s.route))};
}

core::System EvalPoint::point_system() const {
  core::System sys = system;
  sys.reconfig_delay_ps = tau_ps;
  sys.scaleup_size = job.scaleup_size;
  sys.scaleup_gbps = job.scaleup_gbps;
  return sys;
}

void check_resume(const EvalPoint& c, const EvalRow& r, std::size_t index) {
  auto mismatch = [&](const std::string& field, const std::string& have, const std::string& want) {
    detail::throw_resume_mismatch(index, field, have, want);
  };
  const EvalJob* job = &c.job;
  const workload::TrainingConfig& t = job->training;
  if (r.model != t.model.name) mismatch("model", r.model, t.model.name);
  if (r.gpu != t.gpu.name) mismatch("gpu", r.gpu, t.gpu.name);
  if (r.tp != t.tp) mismatch("tp", std::to_string(r.tp), std::to_string(t.tp));
  if (r.dp != t.dp) mismatch("dp", std::to_string(r.dp), std::to_string(t.dp));
  if (r.layers != t.model.layers) {
    mismatch("layers", std::to_string(r.layers), std::to_string(t.model.layers));
  }
  if (r.scaleup_size != job->scaleup_size) {
    mismatch("scaleup_size", std::to_string(r.scaleup_size), std::to_string(job->scaleup_size));
  }
  if (r.switches != c.system.switches) {
    mismatch("switches", std::to_string(r.switches), std::to_string(c.system.switches));
  }
  if (r.link_gbps != c.system.link_gbps) {
    mismatch("link_gbps", std::to_string(r.link_gbps), std::to_string(c.system.link_gbps));
  }
  if (r.time_limit_s != c.sched.time_limit_s) {
    mismatch("time_limit_s", std::to_string(r.time_limit_s), std::to_string(c.sched.time_limit_s));
  }
  const RowFabric& have = r.fabric;
  const RowFabric want = fabric_of(c.system);
  if (have.wiring != want.wiring) mismatch("wiring", have.wiring, want.wiring);
  if (have.ocs_radix != want.ocs_radix) {
    mismatch("ocs_radix", std::to_string(have.ocs_radix), std::to_string(want.ocs_radix));
  }
  if (have.packet_gbps != want.packet_gbps) {
    mismatch("packet_gbps", detail::num(have.packet_gbps), detail::num(want.packet_gbps));
  }
  if (have.packet_latency_ps != want.packet_latency_ps) {
    mismatch("packet_latency", core::format_duration(have.packet_latency_ps),
             core::format_duration(want.packet_latency_ps));
  }
  if (have.packet_oversubscription != want.packet_oversubscription) {
    mismatch("packet_oversubscription", detail::num(have.packet_oversubscription),
             detail::num(want.packet_oversubscription));
  }
  if (have.route != want.route) mismatch("route", have.route, want.route);
  const std::string collective(workload::to_string(t.collective));
  if (r.collective != collective) mismatch("collective", r.collective, collective);
}

void EvalPoint::validate() const {
  if (job.training.model.layers == 0) throw core::InputError("", "layers", "0", "must be positive");
  if (routing_iterations > kMaxRoutingIterations) {
    throw core::InputError("", "routing_iterations", std::to_string(routing_iterations),
                           "must be at most " + std::to_string(kMaxRoutingIterations));
  }
  if (!(routing_replan_limit_s >= 0) || !std::isfinite(routing_replan_limit_s)) {
    throw core::InputError("", "routing_replan_limit", std::to_string(routing_replan_limit_s),
                           "must be a finite duration >= 0");
  }
  if (online) online->validate();
  if (channels == 0 || channels > workload::kMaxChannels) {
    throw core::InputError("", "channels", std::to_string(channels),
                           "must be from 1 to " + std::to_string(workload::kMaxChannels));
  }
  const auto names = sched::scheduler_names();
  if (std::find(names.begin(), names.end(), scheduler) == names.end()) {
    (void)sched::make_scheduler(scheduler);
  }
  const core::System sys = point_system();
  sys.validate();
  sim.validate();
  sched.validate();
  job.training.validate();
  sys.validate_for(job.training.generated_ranks());
}

}  // namespace flux::eval
