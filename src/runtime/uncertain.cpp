// A plan executed on workloads it was not made for
// (include/flux/runtime/uncertain.hpp, docs/model.md "Uncertain routing").
#include "flux/runtime/uncertain.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "flux/core/error.hpp"

namespace flux::runtime {
namespace {

struct Timed {
  schedule::Schedule schedule;
  double wall_time_s = 0;
};

Timed plan_timed(std::string_view scheduler, const core::Workload& w, const core::System& system,
                 const sched::SchedulerOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  Timed t{sched::run_scheduler(scheduler, w, system, options), 0};
  t.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

void check_count(std::size_t count) {
  if (count == 0) {
    throw core::InputError("", "actual", "0 workloads", "need at least one actual iteration");
  }
}

bool delivered(const sim::Metrics& m, const core::Workload& w) {
  return m.bytes_sent == w.total_bytes() && m.bytes_delivered == w.total_bytes();
}

}  // namespace

UncertainResult run_uncertain(const core::Workload& expected,
                              std::span<const core::Workload> actual, const core::System& system,
                              std::string_view scheduler,
                              const sched::SchedulerOptions& sched_options,
                              const sim::SimOptions& sim_options) {
  check_count(actual.size());
  for (const core::Workload& b : actual) sim::check_same_structure(expected, b);
  Timed plan = plan_timed(scheduler, expected, system, sched_options);
  return run_uncertain_plan(
      expected, std::move(plan.schedule), plan.wall_time_s,
      static_cast<std::uint32_t>(actual.size()),
      [&](std::uint32_t i) {  // the caller's workload itself: no copy, no ownership
        return std::shared_ptr<const core::Workload>(std::shared_ptr<void>(), &actual[i]);
      },
      system, scheduler, sched_options, sim_options);
}

UncertainResult run_uncertain_plan(const core::Workload& expected, schedule::Schedule plan,
                                   double plan_wall_time_s, std::uint32_t count,
                                   const std::function<WorkloadPtr(std::uint32_t)>& make,
                                   const core::System& system, std::string_view scheduler,
                                   const sched::SchedulerOptions& sched_options,
                                   const sim::SimOptions& sim_options,
                                   const std::optional<OnlineOptions>& online) {
  const IterationPlan once{
      std::shared_ptr<const core::Workload>(std::shared_ptr<void>(), &expected),
      std::make_shared<const schedule::Schedule>(std::move(plan)), 0};
  UncertainResult r = run_uncertain_each(
      count, [&](std::uint32_t) { return once; }, make, system, scheduler, sched_options,
      sim_options, online);
  r.plan_wall_time_s = plan_wall_time_s;
  return r;
}

UncertainResult run_uncertain_each(std::uint32_t count,
                                   const std::function<IterationPlan(std::uint32_t)>& plan_for,
                                   const std::function<WorkloadPtr(std::uint32_t)>& make,
                                   const core::System& system, std::string_view scheduler,
                                   const sched::SchedulerOptions& sched_options,
                                   const sim::SimOptions& sim_options,
                                   const std::optional<OnlineOptions>& online) {
  check_count(count);
  if (sim_options.perturbation.any() || sim_options.trials != 1) {
    throw core::InputError("", "trials", std::to_string(sim_options.trials),
                           "uncertain workloads run once each, unperturbed (the workloads are "
                           "what differs)");
  }
  UncertainResult r;
  r.scheduler = std::string(scheduler);

  std::vector<std::int64_t> planned, replanned, online_ps;
  std::vector<double> walls;
  double ratio_sum = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (sim_options.stop != nullptr && sim_options.stop->load(std::memory_order_relaxed)) {
      throw core::Stopped();
    }
    const IterationPlan p = plan_for(i);
    if (i == 0) r.plan = *p.plan;
    r.plan_wall_time_s = std::max(r.plan_wall_time_s, p.wall_time_s);
    const WorkloadPtr made = make(i);
    const core::Workload& b = *made;
    UncertainIteration it;
    sim::SimOptions metrics_only = sim_options;  // the runs below give metrics only
    metrics_only.keep_records = false;
    it.planned = sim::simulate_on(*p.planned, b, *p.plan, metrics_only).metrics;
    it.plan_wall_time_s = p.wall_time_s;
    if (online && !p.plan->tasks.empty() && !p.plan->period_ps) {
      OnlineRun o = run_online(*p.planned, b, *p.plan, *online, sim_options);
      for (const Decision& d : o.decisions) it.decision_wall_s.push_back(d.wall_s);
      walls.insert(walls.end(), it.decision_wall_s.begin(), it.decision_wall_s.end());
      r.all_delivered = r.all_delivered && delivered(o.replay.metrics, b);
      online_ps.push_back(o.replay.metrics.iteration_time_ps);
      r.online_peak_nic_bytes =
          std::max(r.online_peak_nic_bytes.value_or(0), o.replay.metrics.peak_nic_bytes);
      it.online = o.replay.metrics;
    }
    const Timed own = plan_timed(scheduler, b, system, sched_options);
    it.replan_status = own.schedule.status;
    it.replan_makespan_ps = own.schedule.makespan_ps;
    it.replan_wall_time_s = own.wall_time_s;
    it.replanned = sim::simulate(b, own.schedule, metrics_only).metrics;
    r.all_delivered = r.all_delivered && delivered(it.planned, b) && delivered(it.replanned, b);
    planned.push_back(it.planned.iteration_time_ps);
    r.planned_peak_nic_bytes = std::max(r.planned_peak_nic_bytes, it.planned.peak_nic_bytes);
    r.replanned_peak_nic_bytes = std::max(r.replanned_peak_nic_bytes, it.replanned.peak_nic_bytes);
    replanned.push_back(it.replanned.iteration_time_ps);
    if (it.replanned.iteration_time_ps > 0) {
      ratio_sum += static_cast<double>(it.planned.iteration_time_ps) /
                   static_cast<double>(it.replanned.iteration_time_ps);
    }
    r.max_replan_wall_time_s = std::max(r.max_replan_wall_time_s, it.replan_wall_time_s);
    r.iterations.push_back(std::move(it));
  }
  r.planned_iteration_ps = sim::nearest_rank(planned);
  r.replanned_iteration_ps = sim::nearest_rank(replanned);
  r.mean_planned_over_replanned = ratio_sum / static_cast<double>(count);
  if (!online_ps.empty()) r.online_iteration_ps = sim::nearest_rank(online_ps);
  r.decisions = walls.size();
  r.decision_wall_s = sim::nearest_rank(walls);
  return r;
}

}  // namespace flux::runtime
