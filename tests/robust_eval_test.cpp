// Robust planning (workload/robust.hpp, sched::adopt_plan) and the
// robustness sweep (eval/robustness.hpp): the p95 factor and the exact
// picoseconds it gives, its agreement with the simulator's jitter draws, a
// robust plan as a valid schedule of the real workload, the preset's points
// (sweeps/robustness.toml), common random numbers, every byte delivered,
// the CSV round trip, resuming and the configuration's errors.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flux/core/error.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/robust.hpp"

namespace flux {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;
using core::Rank;
using eval::PerturbationKind;

// Two sends on one pair with 1 us of compute between them, a release and a tail.
core::Workload chain() {
  workload::WorkloadBuilder b("chain", 2);
  const auto u = b.add_send(Rank(0), Rank(1), 1000);
  const auto v = b.add_send(Rank(0), Rank(1), 1000);
  b.add_dep(u, v, 1'000'000);
  b.raise_release(u, 123'456'789);
  b.raise_tail(v, 7);
  return std::move(b).build();
}

TEST(RobustPlanning, P95FactorOfTheLognormal) {
  // exp(mu + 1.6448536269514722 sigma), sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
  EXPECT_DOUBLE_EQ(workload::RobustPlanning{0.02}.compute_factor(), 1.0332341388290998);
  EXPECT_DOUBLE_EQ(workload::RobustPlanning{0.05}.compute_factor(), 1.0843089905822505);
  EXPECT_DOUBLE_EQ(workload::RobustPlanning{0.10}.compute_factor(), 1.1724565890478613);
  EXPECT_DOUBLE_EQ(workload::RobustPlanning{0.20}.compute_factor(), 1.358172539376944);
  EXPECT_EQ(workload::RobustPlanning{0}.compute_factor(), 1.0);
  // The median (z = 0) of a mean-1 lognormal is exp(mu) < 1.
  EXPECT_DOUBLE_EQ(workload::lognormal_quantile_factor(0.2, 0), std::exp(-std::log1p(0.04) / 2));
}

TEST(RobustPlanning, SameLognormalAsTheSimulatorsJitter) {
  // The simulator's factor for a draw z is the quantile factor at z, bit for bit.
  for (const double cv : {0.02, 0.1, 0.2, 1.5}) {
    for (std::uint64_t k = 0; k < 20; ++k) {
      const double z = sim::normal_draw(3, k, 1, 10 + k, 11);
      EXPECT_EQ(sim::jitter_factor(cv, 3, k, 1, 10 + k, 11),
                workload::lognormal_quantile_factor(cv, z));
    }
  }
}

TEST(RobustPlanning, ScalesEveryComputeDurationToThePicosecond) {
  const core::Workload w = chain();
  const core::Workload p = workload::robust_plan_workload(w, {0.1});
  EXPECT_EQ(p.deps()[0].compute_ps, 1'172'457);  // round(1e6 x 1.17245658...)
  EXPECT_EQ(p.task(core::TaskIndex(0)).release_ps, 144'747'726);
  EXPECT_EQ(p.task(core::TaskIndex(1)).tail_ps, 8);  // round(7 x 1.172...)
  const core::Workload q = workload::robust_plan_workload(w, {0.2});
  EXPECT_EQ(q.deps()[0].compute_ps, 1'358'173);
  EXPECT_EQ(q.task(core::TaskIndex(0)).release_ps, 167'675'621);
  // No jitter: the workload itself.
  const core::Workload same = workload::robust_plan_workload(w, {0});
  EXPECT_EQ(same.deps()[0].compute_ps, 1'000'000);
}

TEST(RobustPlanning, Errors) {
  EXPECT_THROW(workload::RobustPlanning{-0.1}.validate(), core::InputError);
  try {
    workload::RobustPlanning{11}.validate();
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "robust_jitter");
  }
  EXPECT_THROW((void)workload::scale_compute(chain(), 0), core::InputError);
  EXPECT_THROW((void)workload::scale_compute(chain(), 1001), core::InputError);
}

TEST(RobustPlanning, AdoptedPlanIsAScheduleOfTheRealWorkload) {
  workload::TrainingConfig t;
  t.model.layers = 1;
  t.tp = 4;
  t.dp = 2;
  const core::Workload w = workload::generate_llama(t);
  core::System sys;
  sys.switches = 2;
  sys.reconfig_delay_ps = 10 * kPsPerUs;
  const core::Workload planned = workload::robust_plan_workload(w, {0.2});
  const schedule::Schedule plan = sched::run_scheduler("flux", planned, sys, {});
  // The plan is not a schedule of w: its makespan counts the inflated tails.
  EXPECT_THROW(schedule::check_schedule(w, plan), schedule::ScheduleError);
  const schedule::Schedule s = sched::adopt_plan(plan, w);
  EXPECT_NO_THROW(schedule::check_schedule(w, s));
  EXPECT_EQ(s.tasks.size(), plan.tasks.size());
  for (std::size_t i = 0; i < s.tasks.size(); ++i) {
    EXPECT_EQ(s.tasks[i].start_ps, plan.tasks[i].start_ps);
    EXPECT_EQ(s.tasks[i].sw, plan.tasks[i].sw);
  }
  EXPECT_LT(s.makespan_ps, plan.makespan_ps);
  EXPECT_FALSE(s.lower_bound_ps.has_value());
  EXPECT_EQ(s.status, schedule::SolveStatus::kFeasible);
  // Strict replay on the real workload ends at the adopted makespan.
  EXPECT_EQ(sim::simulate(w, s).metrics.iteration_time_ps, s.makespan_ps);
}

TEST(RobustnessPreset, Points) {
  sweep::SweepSpec spec = sweep::preset_spec("robustness");
  std::vector<sweep::Point> points = spec.points();
  ASSERT_EQ(points.size(), 2u * 2u * 6u * 9u);
  sweep::preset_order(spec, points);
  std::vector<eval::RobustPoint> list;
  for (const sweep::Point& p : points) {
    ASSERT_TRUE(p.robust.has_value());
    EXPECT_NO_THROW(p.robust->validate());
    list.push_back(*p.robust);
  }
  // In the CSV's order: job, tau, scheduler, perturbation (none, the
  // jitters, the stragglers, the failures).
  EXPECT_EQ(list[0].job.name, "L8-a100");
  EXPECT_EQ(list.back().job.name, "L8-h100");
  EXPECT_EQ(list.back().job.training.gpu.name, "h100");
  EXPECT_EQ(list[0].job.training.model.layers, 8u);
  EXPECT_EQ(list[0].job.training.tp * list[0].job.training.dp, 8u);
  EXPECT_EQ(list[0].tau_ps, 10 * kPsPerUs);
  EXPECT_EQ(list[0].scheduler, "flux");
  EXPECT_EQ(list[9].scheduler, "flux-robust");
  EXPECT_EQ(list[0].perturbation.kind, PerturbationKind::kNone);
  EXPECT_EQ(list[0].perturbation.trials, 1u);
  const double jitters[] = {0.02, 0.05, 0.10, 0.20};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(list[1 + i].perturbation.kind, PerturbationKind::kJitter);
    EXPECT_EQ(list[1 + i].perturbation.jitter, jitters[i]);
    EXPECT_EQ(list[1 + i].perturbation.trials, 20u);
  }
  EXPECT_EQ(list[5].perturbation.kind, PerturbationKind::kStraggler);
  EXPECT_EQ(list[5].perturbation.straggler_factor, 1.1);
  EXPECT_EQ(list[6].perturbation_text(), "straggler x1.5");
  EXPECT_EQ(list[6].perturbation.trials, 1u);
  // Switch 1 fails alone (deterministic), then under 5 % jitter over the trials.
  EXPECT_EQ(list[7].perturbation.kind, PerturbationKind::kFailure);
  EXPECT_EQ(list[7].perturbation.trials, 1u);
  EXPECT_EQ(list[8].perturbation_text(), "failure 5%");
  EXPECT_EQ(list[8].perturbation.trials, 20u);
  EXPECT_EQ(list[8].fail_switch, 1u);
  EXPECT_EQ(list[8].fail_fraction, 0.5);
  EXPECT_EQ(list[8].replan_time_limit_s, 2);
  EXPECT_EQ(list[8].replan_moves, 1000u);
  EXPECT_EQ(list[8].straggler_rank, 0u);
  EXPECT_EQ(list[8].execution, sim::Execution::kOrdered);
  EXPECT_EQ(list[8].seed, 1u);
  EXPECT_EQ(list[8].system.switches, 2u);
  EXPECT_EQ(list[8].system.link_gbps, 800);
  EXPECT_EQ(list[8].system.reconfig_delay_ps, 10 * kPsPerUs);
}

TEST(RobustnessPreset, Variants) {
  EXPECT_EQ(eval::scheduler_variant("flux-robust").base, "flux");
  EXPECT_TRUE(eval::scheduler_variant("flux-robust").robust);
  EXPECT_FALSE(eval::scheduler_variant("rotornet-vlb").robust);
  EXPECT_THROW((void)eval::scheduler_variant("foo-robust"), core::InputError);
  EXPECT_EQ(eval::perturbation_kind_from_string("straggler"), PerturbationKind::kStraggler);
  EXPECT_EQ(eval::perturbation_kind_from_string("failure"), PerturbationKind::kFailure);
  EXPECT_THROW((void)eval::perturbation_kind_from_string("meteor"), core::InputError);
}

// A study: its points, in the CSV's order.
struct Study {
  std::vector<eval::RobustPoint> points;
  template <class F>
  void set(F f) {
    for (eval::RobustPoint& p : points) f(p);
  }
};

// The robustness preset cut down by axis overrides, as flux evaluate does.
Study study(sweep::SweepSpec spec) {
  std::vector<sweep::Point> points = spec.points();
  sweep::preset_order(spec, points);
  Study s;
  for (const sweep::Point& p : points) s.points.push_back(*p.robust);
  return s;
}

sweep::SweepSpec tiny_spec(const std::vector<std::string>& schedulers) {
  sweep::SweepSpec s = sweep::preset_spec("robustness");
  s.set_axis("layers", {"1"});
  s.set_axis("gpu", {"a100"});
  s.set_axis("tau", {"10us"});
  s.set_axis("scheduler", schedulers);
  s.set_axis("jitter", {"0%", "20%"});
  s.set_axis("straggler_factor", {"1", "1.5"});
  s.set_axis("fail_at", {"0%"});
  s.set_axis("trials", {"3"});
  s.set_axis("seed", {"11"});
  return s;
}

// 1 layer on A100, tau 10 us: none, jitter 20 % (3 trials), straggler x1.5.
Study tiny(const std::vector<std::string>& schedulers) {
  return study(tiny_spec(schedulers));
}

// tiny() with the failure points only: alone and under 20 % jitter.
Study tiny_failure(const std::vector<std::string>& schedulers) {
  sweep::SweepSpec s = tiny_spec(schedulers);
  s.set_axis("straggler_factor", {"1"});
  s.set_axis("fail_at", {"0%", "50%"});
  s.filters = {sweep::Expr::parse("fail_at > 0 || jitter == 0", "filter")};
  // Fast re-plans that end by their move budget, not the clock (even under
  // the sanitizers); the limit also caps flux's bounds, which take a share.
  s.set_axis("replan_moves", {"200"});
  s.set_axis("replan_time_limit", {"3s"});
  return study(s);
}

std::filesystem::path temp_csv(const std::string& stem) {
  return std::filesystem::temp_directory_path() /
         (stem + "_" + std::to_string(::getpid()) + ".csv");
}

std::string csv_without_wall_times(const std::vector<eval::RobustRow>& rows) {
  const auto file = temp_csv("robust_eval_test");
  eval::write_robust_csv(file, rows);
  std::ifstream in(file);
  std::string line, out;
  while (std::getline(in, line)) {
    for (int k = 0; k < 4; ++k) line.erase(line.rfind(','));  // the wall times
    out += line + '\n';
  }
  std::filesystem::remove(file);
  return out;
}

std::string key(const eval::RobustPoint& p) {
  return p.job.name + "," + p.scheduler + "," + p.perturbation_text();
}
std::string key(const eval::RobustRow& r) {
  eval::RobustPoint p;
  p.job.name = r.job;
  p.scheduler = r.scheduler;
  p.perturbation = {r.perturbation, r.jitter, r.straggler_factor, r.trials};
  return key(p);
}

// The points of `c` without a row in `rows` (each row checked against its
// point: eval::check_resume), measured in this process (flux evaluate runs
// them through the sweep runner); `rows` end in the points' order; the
// count run.
std::size_t run_pending(const Study& c, std::vector<eval::RobustRow>& rows) {
  std::vector<eval::RobustRow> out;
  std::size_t ran = 0;
  for (const eval::RobustPoint& p : c.points) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const eval::RobustRow& r) { return key(r) == key(p); });
    if (it != rows.end()) {
      eval::check_resume(p, *it, static_cast<std::size_t>(it - rows.begin()));
      out.push_back(*it);
    } else {
      out.push_back(eval::run_robust_point(p));
      ++ran;
    }
  }
  rows = std::move(out);
  return ran;
}

std::vector<eval::RobustRow> run(const Study& c) {
  std::vector<eval::RobustRow> rows;
  run_pending(c, rows);
  return rows;
}

TEST(RobustnessSweep, RowsDeliverEveryByteAndPairUp) {
  const auto c = tiny({"flux", "flux-robust", "bvn", "ideal"});
  const auto rows = run(c);
  ASSERT_EQ(rows.size(), 4u * 3u);
  for (const auto& r : rows) {
    EXPECT_TRUE(r.all_delivered) << r.scheduler;
    EXPECT_EQ(r.trials, r.perturbation == PerturbationKind::kJitter ? 3u : 1u);
    EXPECT_EQ(r.seed, 11u);
    EXPECT_EQ(r.execution, "ordered");
    EXPECT_LE(r.iteration_time_s.p50, r.iteration_time_s.p95);
    EXPECT_LE(r.iteration_time_s.p99, r.iteration_time_s.max);
  }
  // Sweep order: scheduler, then none, jitter, straggler.
  EXPECT_EQ(rows[0].scheduler, "flux");
  EXPECT_EQ(rows[1].perturbation, PerturbationKind::kJitter);
  EXPECT_EQ(rows[2].perturbation, PerturbationKind::kStraggler);
  // flux-robust: planned for the point's jitter; without jitter, flux's own plan.
  EXPECT_EQ(rows[3].plan_jitter, 0);
  EXPECT_EQ(rows[3].iteration_time_s.max, rows[0].iteration_time_s.max);
  EXPECT_EQ(rows[4].plan_jitter, 0.2);
  EXPECT_EQ(rows[5].iteration_time_s.max, rows[2].iteration_time_s.max);
  // Unperturbed, flux (ordered) meets its plan, and ideal's is the critical path.
  EXPECT_EQ(rows[0].iteration_time_s.p50, *rows[0].planned_makespan_s);
  // A straggler at 1.5x slows the ideal network down.
  EXPECT_GT(rows[11].iteration_time_s.p50, rows[9].iteration_time_s.p50);
}

TEST(RobustnessSweep, CommonRandomNumbersAndSameSeedSameRows) {
  const auto both = run(tiny({"flux", "ideal"}));
  const auto ideal = run(tiny({"ideal"}));
  ASSERT_EQ(ideal.size(), 3u);
  // ideal's rows do not depend on which other schedulers ran.
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ideal[i].iteration_time_s.p50, both[3 + i].iteration_time_s.p50);
    EXPECT_EQ(ideal[i].iteration_time_s.max, both[3 + i].iteration_time_s.max);
    EXPECT_EQ(ideal[i].peak_nic_bytes.max, both[3 + i].peak_nic_bytes.max);
  }
  EXPECT_EQ(csv_without_wall_times(both), csv_without_wall_times(run(tiny({"flux", "ideal"}))));
  auto other = tiny({"flux", "ideal"});
  other.set([](eval::RobustPoint& p) { p.seed = 12; });
  const auto moved = run(other);
  EXPECT_NE(moved[1].iteration_time_s.max, both[1].iteration_time_s.max);  // jittered
  EXPECT_EQ(moved[0].iteration_time_s.max, both[0].iteration_time_s.max);  // unperturbed
}

TEST(RobustnessSweep, CsvRoundTripAndResume) {
  const auto c = tiny({"flux", "ideal"});
  const auto rows = run(c);
  const auto file = temp_csv("robust_eval_rt");
  eval::write_robust_csv(file, rows);
  const auto back = eval::read_robust_csv(file);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(back[i].scheduler, rows[i].scheduler);
    EXPECT_EQ(back[i].tau_ps, rows[i].tau_ps);
    EXPECT_EQ(back[i].perturbation, rows[i].perturbation);
    EXPECT_EQ(back[i].iteration_time_s.p95, rows[i].iteration_time_s.p95);
    EXPECT_EQ(back[i].peak_nic_bytes.p99, rows[i].peak_nic_bytes.p99);
    EXPECT_EQ(back[i].planned_makespan_s, rows[i].planned_makespan_s);
    EXPECT_EQ(back[i].all_delivered, rows[i].all_delivered);
  }
  // Resume from the first two rows: the rest is measured, the same.
  // Rows come back in sweep order whichever order they were measured in.
  std::vector<eval::RobustRow> partial(back.begin() + 3, back.begin() + 5);
  EXPECT_EQ(run_pending(c, partial), rows.size() - 2);
  EXPECT_EQ(csv_without_wall_times(partial), csv_without_wall_times(rows));
  // Another seed cannot resume these rows.
  auto other = c;
  other.set([](eval::RobustPoint& p) { p.seed = 99; });
  EXPECT_THROW((void)run_pending(other, partial), core::InputError);
  // A sweep point's outcome reads back as its row.
  const auto again = eval::parse_robust_csv_row(eval::robust_csv_row(rows[1]));
  EXPECT_EQ(eval::robust_csv_row(again), eval::robust_csv_row(rows[1]));
  EXPECT_THROW((void)eval::parse_robust_csv_row("L1-a100,1"), core::InputError);
  // A broken file names its line and column.
  {
    std::ofstream out(file, std::ios::app);
    out << "L1-a100,1,a100,1e-05,flux,0,meteor" << std::string(32, ',') << '\n';
  }
  try {
    (void)eval::read_robust_csv(file);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "line 8, perturbation");
    EXPECT_EQ(e.value(), "meteor");
  }
  std::filesystem::remove(file);
}

TEST(RobustnessSweep, FailureRowsDeliverEveryByteAndRepeat) {
  const auto c = tiny_failure({"flux", "bvn", "ideal"});
  const auto rows = run(c);
  ASSERT_EQ(rows.size(), 3u * 3u);  // none, failure, failure + 20 %
  // T = floor(0.5 x ideal's unperturbed iteration time), the same for every scheduler.
  const double ideal_s = rows[6].iteration_time_s.p50;
  const core::TimePs at = rows[1].failure->time_ps;
  EXPECT_EQ(at, core::seconds_to_ps(ideal_s) / 2);
  for (const auto& r : rows) {
    EXPECT_TRUE(r.all_delivered) << r.scheduler << " " << eval::to_string(r.perturbation);
    ASSERT_EQ(r.failure.has_value(), r.perturbation == PerturbationKind::kFailure);
    if (!r.failure) continue;
    EXPECT_EQ(r.failure->time_ps, at);
    EXPECT_EQ(r.failure->switch_index, 1u);
    EXPECT_EQ(r.trials, r.jitter > 0 ? 3u : 1u);
    EXPECT_LE(r.failure->replanned_sends_p50, r.failure->replanned_sends_max);
    EXPECT_LE(r.failure->replan_wall_p50_s, r.failure->replan_wall_max_s);
  }
  // flux and bvn lose switch 1 mid-iteration: sends re-planned, slower than without.
  for (std::size_t i : {0u, 3u}) {
    EXPECT_GT(rows[i + 1].failure->replanned_sends_p50, 0u) << rows[i].scheduler;
    EXPECT_GT(rows[i + 1].iteration_time_s.p50, rows[i].iteration_time_s.p50);
    EXPECT_GT(rows[i + 2].iteration_time_s.max, rows[i + 2].iteration_time_s.p50);  // jittered
  }
  // ideal has no switch to lose: its failure row is its unperturbed row.
  EXPECT_EQ(rows[7].failure->replanned_sends_max, 0u);
  EXPECT_EQ(rows[7].iteration_time_s.max, rows[6].iteration_time_s.max);
  // The same seed gives the same rows (re-plans included), wall times aside.
  const std::string csv = csv_without_wall_times(rows);
  EXPECT_EQ(csv, csv_without_wall_times(run(c)));
  // The CSV round trip keeps the failure columns; resuming keeps every row.
  const auto file = temp_csv("robust_eval_failure");
  eval::write_robust_csv(file, rows);
  auto back = eval::read_robust_csv(file);
  ASSERT_EQ(back.size(), rows.size());
  EXPECT_EQ(back[1].failure->time_ps, at);
  EXPECT_EQ(back[1].failure->replanned_sends_p50, rows[1].failure->replanned_sends_p50);
  EXPECT_EQ(back[2].failure->replan_wall_max_s, rows[2].failure->replan_wall_max_s);
  EXPECT_FALSE(back[0].failure.has_value());
  std::vector<eval::RobustRow> partial(back.begin(), back.begin() + 4);
  EXPECT_EQ(run_pending(c, partial), 5u);
  EXPECT_EQ(csv_without_wall_times(partial), csv);
  // Another re-plan budget cannot resume the failure rows.
  auto other = c;
  other.set([](eval::RobustPoint& p) { p.replan_moves = 7; });
  EXPECT_THROW((void)run_pending(other, back), core::InputError);
  std::filesystem::remove(file);
}

TEST(RobustnessSweep, ReadsACsvFromBeforeTheFailureColumns) {
  const auto file = temp_csv("robust_eval_old");
  {
    std::ofstream out(file);
    out << "job,layers,gpu,tau_s,scheduler,plan_jitter,perturbation,jitter,straggler_rank,"
           "straggler_factor,trials,seed,execution,iteration_p50_s,iteration_p95_s,"
           "iteration_p99_s,iteration_max_s,peak_nic_p50_bytes,peak_nic_p95_bytes,"
           "peak_nic_p99_bytes,peak_nic_max_bytes,all_delivered,planned_makespan_s,model,tp,dp,"
           "switches,link_gbps,time_limit_s,solve_time_s,sim_time_s\n"
           "L1-a100,1,a100,1e-05,ideal,0,none,0,0,1,1,11,ordered,0.02,0.02,0.02,0.02,4096,4096,"
           "4096,4096,true,,Llama 3 8B,4,2,2,800,60,0.1,0.2\n";
  }
  const auto rows = eval::read_robust_csv(file);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].scheduler, "ideal");
  EXPECT_EQ(rows[0].iteration_time_s.p95, 0.02);
  EXPECT_EQ(rows[0].sim_time_s, 0.2);
  EXPECT_FALSE(rows[0].failure.has_value());
  // A failure row without a failure column is refused, naming the column.
  {
    std::ofstream out(file, std::ios::app);
    out << "L1-a100,1,a100,1e-05,ideal,0,failure,0,0,1,1,11,ordered,0.02,0.02,0.02,0.02,4096,"
           "4096,4096,4096,true,,Llama 3 8B,4,2,2,800,60,0.1,0.2\n";
  }
  try {
    (void)eval::read_robust_csv(file);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "line 3, perturbation");
  }
  std::filesystem::remove(file);
}

TEST(RobustnessSweep, ConfigurationErrors) {
  auto field_of = [](const Study& c) {
    try {
      for (const eval::RobustPoint& p : c.points) p.validate();
    } catch (const core::InputError& e) {
      return e.field();
    }
    return std::string("(none)");
  };
  auto axis_error = [](const char* axis, const std::vector<std::string>& values) {
    try {
      tiny_spec({"flux"}).set_axis(axis, values);
    } catch (const core::InputError& e) {
      return e.field() + ": " + e.problem();
    }
    return std::string("(none)");
  };
  auto c = tiny({"flux"});
  c.set([](eval::RobustPoint& p) { p.perturbation.trials = 0; });
  EXPECT_EQ(field_of(c), "trials");
  EXPECT_EQ(axis_error("scheduler", {"flux", "flux"}), "scheduler: listed twice");
  EXPECT_NE(axis_error("scheduler", {"nope-robust"}), "(none)");
  c = tiny({"flux"});
  c.set([](eval::RobustPoint& p) { p.straggler_rank = 8; });
  EXPECT_EQ(field_of(c), "straggler_rank");
  EXPECT_EQ(axis_error("jitter", {"10%", "0.1"}), "jitter: listed twice");
  EXPECT_NE(axis_error("gpu", {"b200"}), "(none)");
  c = tiny_failure({"flux"});
  c.set([](eval::RobustPoint& p) { p.fail_switch = 2; });
  EXPECT_EQ(field_of(c), "fail_switch");
  c = tiny_failure({"flux"});
  c.set([](eval::RobustPoint& p) { p.system.switches = 1; });
  EXPECT_EQ(field_of(c), "switches");
  c = tiny_failure({"flux"});
  c.set([](eval::RobustPoint& p) { p.fail_fraction = 0; });
  EXPECT_EQ(field_of(c), "fail_fraction");
}

}  // namespace
}  // namespace flux
