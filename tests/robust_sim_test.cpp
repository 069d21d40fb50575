// Ordered execution and seeded perturbations (docs/model.md, "Execution
// modes", "Perturbed runs"): a hand-computed ordered run, ordered == strict
// without perturbation for every task-level scheduler (Llama 3 8B, random
// DAGs, scale-up domains), the jitter's statistics, the straggler, trials and
// nearest-rank percentiles, common random numbers and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "flux/core/error.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"
#include "scaleup_instances.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;
using core::Rank;
using core::SwitchId;
using core::TimePs;
using sim::Execution;

core::System system(std::uint32_t switches, TimePs tau) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  return s;
}

core::Workload llama(std::uint32_t layers) {
  return sched::testing::llama_tp4_dp2(layers);
}

sim::SimOptions with(Execution e) {
  sim::SimOptions o;
  o.execution = e;
  return o;
}

// Strict, ordered and ordered-no-early give the same iteration time (the
// schedule's makespan), and the executed plans are valid schedules.
void expect_modes_agree(const core::Workload& w, const schedule::Schedule& s,
                        const std::string& what) {
  const TimePs strict = sim::simulate(w, s, with(Execution::kStrict)).metrics.iteration_time_ps;
  EXPECT_EQ(strict, s.makespan_ps) << what;
  for (const Execution e : {Execution::kOrdered, Execution::kOrderedNoEarly}) {
    const sim::SimResult r = sim::simulate(w, s, with(e));
    EXPECT_EQ(r.metrics.iteration_time_ps, strict) << what << " " << sim::to_string(e);
    EXPECT_EQ(r.metrics.bytes_delivered, w.total_bytes()) << what;
    ASSERT_TRUE(r.executed.has_value());
    EXPECT_NO_THROW(schedule::check_schedule(w, *r.executed)) << what;
    EXPECT_EQ(r.executed->makespan_ps, strict) << what;
  }
}

// 3 ranks, one switch, tau = 100 ps, 800 Gb/s (100 B = 1,000 ps).
// A: 0 -> 1, release 500; B: 0 -> 1, release 0, after A on the same circuit;
// C: 1 -> 2, release 0. Plan: X = {0,1} set up at 400, up 500, down 2500,
// carrying A [500, 1500) and B [1500, 2500); Y = {1,2} (port 1 after X) set
// up at 2500, up 2600, carrying C [2600, 3600). Makespan 3600.
// Rank 0 straggling x2: A's release becomes 1000. Ordered: X set up at 0
// (nothing before it), up 100; A at max(1000, 100) = 1000, done 2000; B
// after A: 2000 .. 3000; X releases port 1 at 3000, so Y is set up at 3000,
// up 3100; C 3100 .. 4100. ordered-no-early: X at 400 (up 500), the rest
// the same. Unperturbed, both replay the plan's 3600.
struct Hand {
  core::Workload w;
  schedule::Schedule s;
};

Hand hand() {
  workload::WorkloadBuilder b("hand", 3);
  const auto a = b.add_send(Rank(0), Rank(1), 100);
  b.raise_release(a, 500);
  b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(1), Rank(2), 100);
  Hand h{std::move(b).build(), {}};
  h.s.scheduler = "hand";
  h.s.workload = "hand";
  h.s.system = system(1, 100);
  h.s.tasks = {{0, SwitchId(0), 500}, {1, SwitchId(0), 1500}, {2, SwitchId(0), 2600}};
  h.s.timelines = {{{{Rank(0), Rank(1), 400, 500, 2500}, {Rank(1), Rank(2), 2500, 2600, 3600}}}};
  h.s.makespan_ps = 3600;
  return h;
}

TEST(OrderedExecution, ByHand) {
  const Hand h = hand();
  expect_modes_agree(h.w, h.s, "hand");
  sim::SimOptions o = with(Execution::kOrdered);
  o.perturbation.straggler = sim::Straggler{0, 2.0};
  for (const Execution e : {Execution::kOrdered, Execution::kOrderedNoEarly}) {
    o.execution = e;
    const sim::SimResult r = sim::simulate(h.w, h.s, o);
    EXPECT_EQ(r.sends[0].issue_ps, 1000);
    EXPECT_EQ(r.sends[0].finish_ps, 2000);
    EXPECT_EQ(r.sends[1].issue_ps, 2000);
    EXPECT_EQ(r.sends[1].finish_ps, 3000);
    EXPECT_EQ(r.sends[2].issue_ps, 3100);
    EXPECT_EQ(r.sends[2].finish_ps, 4100);
    EXPECT_EQ(r.metrics.iteration_time_ps, 4100);
    ASSERT_TRUE(r.executed.has_value());
    const auto& c = r.executed->timelines[0].circuits;
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].setup_ps, e == Execution::kOrdered ? 0 : 400);
    EXPECT_EQ(c[0].down_ps, 3000);  // torn down when Y needs port 1
    EXPECT_EQ(c[1].setup_ps, 3000);
    EXPECT_EQ(c[1].up_ps, 3100);
  }
  // Strict cannot replay a perturbed run: one clear error.
  o.execution = Execution::kStrict;
  try {
    (void)sim::simulate(h.w, h.s, o);
    FAIL() << "strict with a perturbation";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "execution");
    EXPECT_EQ(e.value(), "strict");
  }
  o.execution = Execution::kAuto;  // auto: ordered under perturbation
  EXPECT_EQ(sim::simulate(h.w, h.s, o).metrics.iteration_time_ps, 4100);
}

// One scale-up domain {0, 1} at 1600 Gb/s (100 B = 500 ps). A: 0 -> 1,
// release 500, planned [500, 1000); B: 0 -> 1, release 0, planned after A on
// the same egress and ingress, [1000, 1500). Rank 0 straggling x2: A's
// release is 1000, so A runs [1000, 1500) and B keeps its place after it:
// [1500, 2000).
TEST(OrderedExecution, ScaleUpSendsKeepTheirOrderPerPort) {
  workload::WorkloadBuilder b("domain", 2);
  const auto a = b.add_send(Rank(0), Rank(1), 100);
  b.raise_release(a, 500);
  b.add_send(Rank(0), Rank(1), 100);
  const core::Workload w = std::move(b).build();
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = "domain";
  s.system = sched::testing::domain_system(1, 100, 2, 1600);
  s.tasks = {{0, core::kScaleUpSwitch, 500}, {1, core::kScaleUpSwitch, 1000}};
  s.timelines.resize(1);
  s.makespan_ps = 1500;
  expect_modes_agree(w, s, "domain");
  sim::SimOptions o;
  o.perturbation.straggler = sim::Straggler{0, 2.0};
  const sim::SimResult r = sim::simulate(w, s, o);
  EXPECT_EQ(r.sends[0].issue_ps, 1000);
  EXPECT_EQ(r.sends[1].issue_ps, 1500);
  EXPECT_EQ(r.metrics.iteration_time_ps, 2000);
  EXPECT_EQ(r.metrics.scaleup_sends, 2u);
}

TEST(OrderedExecution, ReproducesStrictOnLlama) {
  for (const std::uint32_t layers : {8u, 16u}) {
    const core::Workload w = llama(layers);
    for (const TimePs tau : {1 * kPsPerUs, 10 * kPsPerUs, 100 * kPsPerUs, 1 * kPsPerMs}) {
      for (const char* name : {"flux", "greedy"}) {
        const auto s = sched::run_scheduler(name, w, system(2, tau), {});
        expect_modes_agree(
            w, s,
            std::string(name) + " L" + std::to_string(layers) + " tau " + std::to_string(tau));
      }
    }
  }
}

TEST(OrderedExecution, ReproducesStrictOnRandomDagsAndDomains) {
  sched::SchedulerOptions quick;
  quick.time_limit_s = 10;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    for (const std::uint32_t k : {1u, 2u}) {
      const core::Workload w = sched::testing::random_domain_instance(seed, 7, 4, k);
      const core::System sys = sched::testing::domain_system(2, 500, k);
      for (const char* name : {"flux", "greedy", "flux-milp"}) {
        const auto s = sched::run_scheduler(name, w, sys, quick);
        expect_modes_agree(
            w, s, std::string(name) + " seed " + std::to_string(seed) + " k " + std::to_string(k));
      }
    }
  }
  // A Llama workload with scale-up domains of 4 (TP inside them).
  const core::Workload w = llama(8);
  core::System sys = system(2, 10 * kPsPerUs);
  sys.scaleup_size = 4;
  sys.scaleup_gbps = core::kNvlink3Gbps;
  for (const char* name : {"flux", "greedy"}) {
    const auto s = sched::run_scheduler(name, w, sys, {});
    expect_modes_agree(w, s, std::string(name) + " domains");
    sim::SimOptions o;
    o.perturbation.compute_jitter = 0.1;
    o.trials = 3;
    const sim::TrialsResult t = sim::simulate_trials(w, s, o);
    EXPECT_TRUE(t.all_delivered);
    EXPECT_EQ(t.execution, Execution::kOrdered);
  }
}

TEST(Perturbation, JitterHasMeanOneAndTheAskedCv) {
  for (const double cv : {0.05, 0.2}) {
    const int n = 200000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
      const double f = sim::jitter_factor(cv, 42, 0, 1, static_cast<std::uint64_t>(i), 7);
      sum += f;
      sum2 += f * f;
    }
    const double mean = sum / n;
    const double sd = std::sqrt(sum2 / n - mean * mean);
    EXPECT_NEAR(mean, 1.0, 0.002) << cv;
    EXPECT_NEAR(sd / mean, cv, 0.02 * cv + 0.001) << cv;
  }
  EXPECT_EQ(sim::jitter_factor(0, 1, 2, 3, 4, 5), 1.0);
  // Deterministic: the same key, the same draw; another trial, another one.
  EXPECT_EQ(sim::normal_draw(1, 2, 3, 4, 5), sim::normal_draw(1, 2, 3, 4, 5));
  EXPECT_NE(sim::normal_draw(1, 2, 3, 4, 5), sim::normal_draw(1, 3, 3, 4, 5));
}

TEST(Perturbation, StragglerScalesItsRanksComputeOnly) {
  const core::Workload w = llama(2);
  sim::Perturbation p;
  p.straggler = sim::Straggler{1, 1.5};
  const core::Workload q = sim::perturb(w, p, 0);
  ASSERT_EQ(q.num_deps(), w.num_deps());
  std::size_t scaled = 0;
  for (std::size_t e = 0; e < w.num_deps(); ++e) {
    const core::Dep& d = w.deps()[e];
    const bool mine = w.task(d.to).src.value() == 1;
    const TimePs want =
        mine ? static_cast<TimePs>(std::llround(static_cast<double>(d.compute_ps) * 1.5))
             : d.compute_ps;
    EXPECT_EQ(q.deps()[e].compute_ps, want);
    scaled += mine && d.compute_ps > 0;
  }
  EXPECT_GT(scaled, 0u);
  for (std::size_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const core::Task& u = q.tasks()[v];
    EXPECT_EQ(u.release_ps, t.src.value() == 1 ? std::llround(t.release_ps * 1.5) : t.release_ps);
    EXPECT_EQ(u.tail_ps, t.dst.value() == 1 ? std::llround(t.tail_ps * 1.5) : t.tail_ps);
  }
  // The straggler slows the iteration.
  const auto s = sched::run_scheduler("flux", w, system(2, 10 * kPsPerUs), {});
  sim::SimOptions o;
  o.perturbation = p;
  EXPECT_GT(sim::simulate(w, s, o).metrics.iteration_time_ps, s.makespan_ps);
}

TEST(Trials, NearestRankPercentiles) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 20; i >= 1; --i) v.push_back(i);
  const auto p = sim::nearest_rank(v);
  EXPECT_EQ(p.p50, 10);
  EXPECT_EQ(p.p95, 19);
  EXPECT_EQ(p.p99, 20);
  EXPECT_EQ(p.max, 20);
  const auto one = sim::nearest_rank(std::vector<std::int64_t>{7});
  EXPECT_EQ(one.p50, 7);
  EXPECT_EQ(one.p99, 7);
}

TEST(Trials, SeededPairedAndComplete) {
  const core::Workload w = llama(4);
  const auto flux = sched::run_scheduler("flux", w, system(2, 10 * kPsPerUs), {});
  const auto greedy = sched::run_scheduler("greedy", w, system(2, 10 * kPsPerUs), {});
  const auto ideal = sched::run_scheduler("ideal", w, system(2, 10 * kPsPerUs), {});
  sim::SimOptions o;
  o.perturbation.compute_jitter = 0.1;
  o.perturbation.seed = 3;
  o.trials = 6;
  o.trace_trial = 4;
  const sim::TrialsResult a = sim::simulate_trials(w, flux, o);
  const sim::TrialsResult b = sim::simulate_trials(w, flux, o);
  ASSERT_EQ(a.trials.size(), 6u);
  EXPECT_TRUE(a.all_delivered);
  std::vector<std::int64_t> times;
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(a.trials[k].iteration_time_ps, b.trials[k].iteration_time_ps);
    EXPECT_EQ(a.trials[k].bytes_delivered, w.total_bytes());
    times.push_back(a.trials[k].iteration_time_ps);
  }
  EXPECT_EQ(a.iteration_time_ps.p50, sim::nearest_rank(times).p50);
  EXPECT_EQ(a.chosen.metrics.iteration_time_ps, a.trials[4].iteration_time_ps);
  EXPECT_NE(a.iteration_time_ps.p50, a.iteration_time_ps.max);  // the trials differ
  // Common random numbers: trial k of every schedule runs perturb(w, k),
  // which depends on the workload alone; the ideal network shows it (its
  // iteration is the perturbed critical path).
  const sim::TrialsResult c = sim::simulate_trials(w, ideal, o);
  const sim::TrialsResult g = sim::simulate_trials(w, greedy, o);
  for (std::uint32_t k = 0; k < 6; ++k) {
    const core::Workload q = sim::perturb(w, o.perturbation, k);
    const core::Workload q2 = sim::perturb(w, o.perturbation, k);
    for (std::size_t e = 0; e < w.num_deps(); ++e) {
      ASSERT_EQ(q.deps()[e].compute_ps, q2.deps()[e].compute_ps);
    }
    EXPECT_EQ(c.trials[k].iteration_time_ps,
              sim::simulate(q, sched::run_scheduler("ideal", q, system(2, 10 * kPsPerUs), {}))
                  .metrics.iteration_time_ps);
    EXPECT_GE(a.trials[k].iteration_time_ps, c.trials[k].iteration_time_ps);
    EXPECT_GE(g.trials[k].iteration_time_ps, c.trials[k].iteration_time_ps);
  }
  // The metrics file carries the trials.
  std::ostringstream out;
  formats::write_metrics(out, w, flux, o, a.chosen.metrics, &a);
  EXPECT_NE(out.str().find(R"("all_bytes_delivered": true)"), std::string::npos);
  EXPECT_NE(out.str().find(R"("count": 6)"), std::string::npos);
}

TEST(Perturbation, Errors) {
  auto field_of = [](auto f) -> std::string {
    try {
      f();
    } catch (const core::InputError& e) {
      return e.field() + "=" + e.value();
    }
    return "no error";
  };
  EXPECT_EQ(field_of([] { (void)sim::parse_percent("compute_jitter", "-1%"); }),
            "compute_jitter=-1%");
  EXPECT_EQ(field_of([] { (void)sim::parse_percent("compute_jitter", "5%%"); }),
            "compute_jitter=5%%");
  EXPECT_DOUBLE_EQ(sim::parse_percent("compute_jitter", "5%"), 0.05);
  EXPECT_EQ(field_of([] { (void)sim::parse_straggler("3:0"); }), "straggler=3:0");
  EXPECT_EQ(field_of([] { (void)sim::parse_straggler("x:2"); }), "straggler=x:2");
  EXPECT_EQ(sim::parse_straggler("3:1.5").rank, 3u);
  const core::Workload w = llama(1);
  sim::Perturbation p;
  p.straggler = sim::Straggler{8, 2};
  EXPECT_EQ(field_of([&] { (void)sim::perturb(w, p, 0); }), "straggler=8");
  sim::SimOptions o;
  o.trials = 0;
  EXPECT_EQ(field_of([&] { o.validate(); }), "trials=0");
  o.trials = 2;
  o.trace_trial = 2;
  EXPECT_EQ(field_of([&] { o.validate(); }), "trace_trial=2");
  EXPECT_EQ(field_of([] { (void)sim::execution_from_string("eager"); }), "execution=eager");
}

}  // namespace
}  // namespace flux
