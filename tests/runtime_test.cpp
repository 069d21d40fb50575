// A failed switch and re-planning (runtime/failure.hpp, docs/model.md "A
// failed switch and re-planning"): a hand-computed chain, a failure after
// the iteration is the plain run, a failure at 0 is scheduling on s - 1
// switches from the start, every byte delivered for every scheduler (also
// jittered, over trials), the same seed gives the same metrics, errors.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "flux/core/error.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::Rank;
using core::SwitchId;
using core::TimePs;
using runtime::Failure;

core::System system(std::uint32_t switches, TimePs tau) {
  return sched::testing::system_with(tau, switches);
}

sched::SchedulerOptions fixed_search() {
  sched::SchedulerOptions o;
  o.search_moves = 300;  // with a move budget the result depends on the seed alone
  o.lp_bound = false;
  o.time_limit_s = 1000;
  return o;
}

runtime::ReplanOptions replan_with(const std::string& scheduler) {
  runtime::ReplanOptions r;
  r.scheduler = scheduler;
  r.time_limit_s = 1000;
  return r;
}

// 3 ranks, 2 switches, tau = 100 ps, 800 Gb/s (100 B = 1,000 ps).
// A: 0 -> 1 on switch 0 at 0 (circuit set up before 0), done 1000; B: 1 -> 2
// after A with 500 ps of compute, tail 50, on switch 1 at 1500, done 2500.
// Makespan 2550.
struct Chain {
  core::Workload w;
  schedule::Schedule s;
};

Chain chain() {
  workload::WorkloadBuilder b("chain", 3);
  const auto a = b.add_send(Rank(0), Rank(1), 100);
  const auto c = b.add_send(Rank(1), Rank(2), 100);
  b.add_dep(a, c, 500);
  b.raise_tail(c, 50);
  Chain h{std::move(b).build(), {}};
  h.s.scheduler = "hand";
  h.s.workload = "chain";
  h.s.system = system(2, 100);
  h.s.tasks = {{0, SwitchId(0), 0}, {1, SwitchId(1), 1500}};
  h.s.timelines = {{{{Rank(0), Rank(1), -100, 0, 1000}}}, {{{Rank(1), Rank(2), 1400, 1500, 2500}}}};
  h.s.makespan_ps = 2550;
  return h;
}

runtime::FailureRun fail(const Chain& h, Failure f, TimePs delay = 0) {
  runtime::ReplanOptions r = replan_with("greedy");
  r.delay_ps = delay;
  return runtime::run_with_failure(h.w, h.s, f, r, fixed_search(), {});
}

TEST(Failure, ChainByHand) {
  const Chain h = chain();
  // B in flight on switch 1 when switch 0 fails at 2000: it restarts at
  // 2000 on the one surviving switch, 1000 ps + tail 50: ends at 3050.
  runtime::FailureRun r = fail(h, {0, 2000});
  EXPECT_TRUE(r.outcome.disrupted);
  EXPECT_EQ(r.outcome.done_sends, 1u);
  EXPECT_EQ(r.outcome.replanned_sends, 1u);
  EXPECT_EQ(r.outcome.replanned_bytes, 100u);
  EXPECT_EQ(r.outcome.scheduler, "greedy");
  EXPECT_EQ(r.outcome.restart_ps, 2000);
  EXPECT_EQ(r.outcome.remainder_iteration_ps, 1050);
  EXPECT_EQ(r.metrics.iteration_time_ps, 3050);
  EXPECT_EQ(r.metrics.bytes_delivered, 200u);
  EXPECT_EQ(r.metrics.bytes_sent, 200u);
  ASSERT_TRUE(r.remainder.has_value());
  EXPECT_EQ(r.remainder->num_tasks(), 1u);
  EXPECT_EQ(r.remainder->task(core::TaskIndex(0)).id, 1u);
  EXPECT_EQ(r.remainder->task(core::TaskIndex(0)).tail_ps, 50);
  EXPECT_EQ(r.remainder_tasks, std::vector<core::TaskIndex>{core::TaskIndex(1)});
  EXPECT_EQ(r.surviving_switches, std::vector<std::uint32_t>{1});
  ASSERT_TRUE(r.replan.has_value());
  EXPECT_EQ(r.replan->system.switches, 1u);
  // A modelled re-planning delay of 200 ps moves the restart.
  EXPECT_EQ(fail(h, {1, 2000}, 200).metrics.iteration_time_ps, 3250);
  // Between A's end and B's start (T = 1200): B keeps its ready time 1500
  // (release 300 after the restart), so the failure costs nothing.
  r = fail(h, {1, 1200});
  EXPECT_EQ(r.remainder->task(core::TaskIndex(0)).release_ps, 300);
  EXPECT_EQ(r.metrics.iteration_time_ps, 2550);
  // A finishing exactly at T is done.
  r = fail(h, {0, 1000});
  EXPECT_EQ(r.outcome.done_sends, 1u);
  EXPECT_EQ(r.metrics.iteration_time_ps, 1000 + 500 + 1000 + 50);
  // A in flight at 500: both restart on one switch; B needs port 1 after A,
  // a reconfiguration (tau 100) that hides behind its 500 ps of compute:
  // 500 + 1000 + 500 + 1000 + 50.
  r = fail(h, {0, 500});
  EXPECT_EQ(r.outcome.replanned_sends, 2u);
  EXPECT_EQ(r.metrics.iteration_time_ps, 3050);
  EXPECT_EQ(r.metrics.bytes_delivered, 200u);
}

void expect_same_metrics(const sim::Metrics& a, const sim::Metrics& b, const std::string& what) {
  EXPECT_EQ(a.iteration_time_ps, b.iteration_time_ps) << what;
  EXPECT_EQ(a.peak_nic_bytes, b.peak_nic_bytes) << what;
  EXPECT_EQ(a.nic_peak_bytes, b.nic_peak_bytes) << what;
  EXPECT_EQ(a.reconfigurations, b.reconfigurations) << what;
  EXPECT_EQ(a.circuits_set_up, b.circuits_set_up) << what;
  EXPECT_EQ(a.circuit_utilization, b.circuit_utilization) << what;
  EXPECT_EQ(a.wait_total_ps, b.wait_total_ps) << what;
  EXPECT_EQ(a.wait_max_ps, b.wait_max_ps) << what;
  EXPECT_EQ(a.bytes_sent, b.bytes_sent) << what;
  EXPECT_EQ(a.bytes_delivered, b.bytes_delivered) << what;
  EXPECT_EQ(a.bytes_relayed, b.bytes_relayed) << what;
  EXPECT_EQ(a.events, b.events) << what;
}

core::Workload llama(std::uint32_t layers) {
  return sched::testing::llama_tp4_dp2(layers);
}

const std::vector<std::string> kSchedulers = {"flux",         "greedy", "rotornet",
                                              "rotornet-vlb", "bvn",    "ideal"};

TEST(Failure, AfterTheIterationIsThePlainRun) {
  const core::Workload w = llama(1);
  for (const std::string& name : kSchedulers) {
    const schedule::Schedule s =
        sched::run_scheduler(name, w, system(2, 10 * core::kPsPerUs), fixed_search());
    const sim::SimResult plain = sim::simulate(w, s);
    const TimePs end = plain.metrics.iteration_time_ps;
    for (const TimePs t : {end, end + 1, 10 * end}) {
      const runtime::FailureRun r =
          runtime::run_with_failure(w, s, {1, t}, replan_with(""), fixed_search(), {});
      EXPECT_FALSE(r.outcome.disrupted) << name;
      EXPECT_EQ(r.outcome.replanned_sends, 0u) << name;
      expect_same_metrics(r.metrics, plain.metrics, name);
      // Measured up to a cut at or after the end: every send, every peak.
      ASSERT_TRUE(r.plain.at_cut.has_value());
      EXPECT_EQ(r.plain.at_cut->iteration_time_ps, end) << name;
      EXPECT_EQ(r.plain.at_cut->nic_peak_bytes, plain.metrics.nic_peak_bytes) << name;
      EXPECT_EQ(r.plain.at_cut->bytes_delivered, w.total_bytes()) << name;
      EXPECT_EQ(r.plain.at_cut->wait_total_ps, plain.metrics.wait_total_ps) << name;
    }
  }
}

TEST(Failure, AtZeroIsSchedulingOnFewerSwitches) {
  const core::Workload w = llama(1);
  for (const std::string name : {"flux", "greedy"}) {
    const schedule::Schedule s2 =
        sched::run_scheduler(name, w, system(2, 10 * core::kPsPerUs), fixed_search());
    const schedule::Schedule s1 =
        sched::run_scheduler(name, w, system(1, 10 * core::kPsPerUs), fixed_search());
    const runtime::FailureRun r =
        runtime::run_with_failure(w, s2, {0, 0}, replan_with(""), fixed_search(), {});
    EXPECT_EQ(r.outcome.scheduler, name);
    EXPECT_EQ(r.outcome.replanned_sends, w.num_tasks());
    EXPECT_EQ(r.outcome.remainder_makespan_ps, s1.makespan_ps) << name;
    EXPECT_EQ(r.metrics.iteration_time_ps, s1.makespan_ps) << name;
    EXPECT_GT(s1.makespan_ps, s2.makespan_ps) << name;  // the second switch helped
  }
}

TEST(Failure, EverySchedulerDeliversEveryByte) {
  const core::Workload w = llama(2);
  sim::SimOptions jitter;
  jitter.perturbation.compute_jitter = 0.05;
  jitter.perturbation.seed = 7;
  jitter.trials = 2;
  for (const std::string& name : kSchedulers) {
    const schedule::Schedule s =
        sched::run_scheduler(name, w, system(2, 10 * core::kPsPerUs), fixed_search());
    const sim::SimResult plain = sim::simulate(w, s);
    const TimePs half = plain.metrics.iteration_time_ps / 2;
    const runtime::FailureRun r =
        runtime::run_with_failure(w, s, {0, half}, replan_with(""), fixed_search(), {});
    EXPECT_EQ(r.metrics.bytes_delivered, w.total_bytes()) << name;
    EXPECT_EQ(r.metrics.bytes_sent, w.total_bytes()) << name;
    if (name == "ideal") {  // no switch carries anything: nothing changes
      EXPECT_FALSE(r.outcome.disrupted);
      expect_same_metrics(r.metrics, plain.metrics, name);
      continue;
    }
    EXPECT_TRUE(r.outcome.disrupted) << name;
    EXPECT_EQ(r.outcome.scheduler, name);
    EXPECT_GT(r.outcome.replanned_sends, 0u) << name;
    EXPECT_EQ(r.outcome.done_sends + r.outcome.replanned_sends, w.num_tasks()) << name;
    EXPECT_EQ(r.metrics.iteration_time_ps, half + r.outcome.remainder_iteration_ps) << name;
    EXPECT_GE(r.metrics.iteration_time_ps, plain.metrics.iteration_time_ps) << name;
    const runtime::FailureTrials t =
        runtime::run_trials_with_failure(w, s, {1, half}, replan_with(""), fixed_search(), jitter);
    EXPECT_TRUE(t.trials.all_delivered) << name;
    ASSERT_EQ(t.outcomes.size(), 2u);
    EXPECT_EQ(t.trials.execution, sim::Execution::kOrdered);
    for (const sim::Metrics& m : t.trials.trials) {
      EXPECT_EQ(m.bytes_delivered, w.total_bytes()) << name;
    }
  }
}

// A workload with choice groups (--collective auto): the failure runs on
// the sends the plan's choice runs, as on the job generated with them.
TEST(Failure, RunsTheChosenAlternatives) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 4;
  c.dp = 2;
  c.collective = workload::Algorithm::kAuto;
  const core::Workload w = workload::generate_llama(c);
  ASSERT_TRUE(w.has_choices());
  const core::System sys = system(2, 10 * core::kPsPerUs);
  sched::SchedulerOptions ring = fixed_search();
  ring.collective = "ring";
  const schedule::Schedule s = sched::run_scheduler("greedy", w, sys, ring);
  c.collective = workload::Algorithm::kRing;
  const core::Workload fixed = workload::generate_llama(c);
  schedule::Schedule plain = sched::run_scheduler("greedy", fixed, sys, fixed_search());
  const TimePs half = sim::simulate(w, s).metrics.iteration_time_ps / 2;
  const runtime::FailureRun a =
      runtime::run_with_failure(w, s, {0, half}, replan_with(""), fixed_search(), {});
  const runtime::FailureRun b =
      runtime::run_with_failure(fixed, plain, {0, half}, replan_with(""), fixed_search(), {});
  EXPECT_TRUE(a.outcome.disrupted);
  EXPECT_EQ(a.metrics.bytes_delivered, fixed.total_bytes());
  EXPECT_EQ(a.outcome.replanned_sends, b.outcome.replanned_sends);
  EXPECT_EQ(a.metrics.iteration_time_ps, b.metrics.iteration_time_ps);
  const runtime::FailureTrials t =
      runtime::run_trials_with_failure(w, s, {1, half}, replan_with(""), fixed_search(), {});
  EXPECT_TRUE(t.trials.all_delivered);
}

// The metrics file of a jittered failure over trials, wall times blanked.
std::string metrics_without_wall_times(const core::Workload& w, const schedule::Schedule& s,
                                       const sim::SimOptions& o) {
  const runtime::FailureTrials t = runtime::run_trials_with_failure(
      w, s, {1, 20 * core::kPsPerMs}, replan_with("greedy"), fixed_search(), o);
  std::ostringstream out;
  formats::write_metrics(out, w, s, o, t.trials.trials[o.trace_trial], &t.trials, &t);
  std::string text = out.str();
  EXPECT_NE(text.find("\"replanned_sends\": ["), std::string::npos);
  const std::string key = "\"replan_wall_time_s\": ";
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    const auto value = at + key.size();
    const auto end =
        text[value] == '[' ? text.find(']', value) + 1 : text.find_first_of(",}", value);
    text.erase(at, end - at);
  }
  return text;
}

TEST(Failure, SameSeedSameMetrics) {
  const core::Workload w = llama(2);
  const schedule::Schedule s =
      sched::run_scheduler("flux", w, system(2, 10 * core::kPsPerUs), fixed_search());
  sim::SimOptions o;
  o.perturbation.compute_jitter = 0.1;
  o.perturbation.seed = 3;
  o.trials = 2;
  o.trace_trial = 1;
  const std::string a = metrics_without_wall_times(w, s, o);
  EXPECT_EQ(a, metrics_without_wall_times(w, s, o));
  o.perturbation.seed = 4;
  EXPECT_NE(a, metrics_without_wall_times(w, s, o));
}

void expect_error(const std::function<void()>& f, const std::string& field,
                  const std::string& problem) {
  try {
    f();
    FAIL() << "no error for " << field;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(e.problem().find(problem), std::string::npos) << e.problem();
  }
}

TEST(Failure, Errors) {
  EXPECT_EQ(runtime::parse_failure("1@2.5ms").switch_index, 1u);
  EXPECT_EQ(runtime::parse_failure("1@2.5ms").time_ps, 2'500'000'000);
  EXPECT_EQ(runtime::parse_failure("0@0").time_ps, 0);
  expect_error([] { runtime::parse_failure("2ms"); }, "fail_switch", "expected SWITCH@TIME");
  expect_error([] { runtime::parse_failure("x@2ms"); }, "fail_switch", "SWITCH a switch number");
  expect_error([] { runtime::parse_failure("-1@2ms"); }, "fail_switch", "SWITCH a switch number");
  expect_error([] { runtime::parse_failure("1@-2ms"); }, "fail_switch", "the time");
  expect_error([] { runtime::parse_failure("1@2"); }, "fail_switch", "the time");
  const Chain h = chain();
  expect_error([&] { (void)fail(h, {2, 100}); }, "fail_switch", "no such switch");
  Chain one = h;
  one.s.system.switches = 1;
  one.s.timelines = {{{{Rank(0), Rank(1), -100, 0, 1000}, {Rank(1), Rank(2), 1400, 1500, 2500}}}};
  one.s.tasks[1].sw = SwitchId(0);
  expect_error([&] { (void)fail(one, {0, 100}); }, "fail_switch", "a single switch");
  expect_error(
      [&] {
        (void)runtime::run_with_failure(h.w, h.s, {0, 100}, replan_with("nope"), fixed_search(),
                                        {});
      },
      "scheduler", "unknown scheduler");
}

}  // namespace
}  // namespace flux
