// Online MoE scheduling (runtime/online.hpp; docs/model.md, "Online MoE
// scheduling"): the insertion's gaps by hand, the reveal model on a
// generated job, a known routing leaving the plan as it is, every online
// schedule valid and replayed exactly, never better than the brute-force
// optimum of the actual iteration, deterministic under a modelled budget,
// and the errors.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "error_of.hpp"
#include "flux/runtime/online.hpp"
#include "flux/sched/insertion.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/moe.hpp"
#include "moe_jobs.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::kPsPerUs;
using core::Rank;
using core::SwitchId;
using core::TaskIndex;
using core::TimePs;

constexpr TimePs kUs = kPsPerUs;

TEST(Insertion, GapsByHand) {
  // One switch, ports 0..3; tau = 2 us. Port 0 holds 0->1 over [10, 20) us
  // and 0->2 over [40, 50) us.
  sched::PortTimelines t(1, 4);
  t.add(SwitchId(0), {10 * kUs, 20 * kUs, Rank(0), Rank(1)});
  t.add(SwitchId(0), {40 * kUs, 50 * kUs, Rank(0), Rank(2)});
  t.sort();
  const TimePs tau = 2 * kUs;
  const auto half = core::Duplex::kHalf;
  // 0 -> 3 for 5 us: before the first hold it must end tau before 10 us.
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(3), 5 * kUs, 0, tau, half), 0);
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(3), 5 * kUs, 4 * kUs, tau, half), 22 * kUs);
  // The same circuit as the first hold follows it at once (R = 0) ...
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(1), 5 * kUs, 12 * kUs, tau, half), 20 * kUs);
  // ... and a gap too short for 20 us goes after the last hold.
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(3), 20 * kUs, 12 * kUs, tau, half), 52 * kUs);
  // With a limit: exact before it, some time at or after it otherwise.
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(3), 20 * kUs, 12 * kUs, tau, half, 53 * kUs),
            52 * kUs);
  EXPECT_GE(t.earliest(SwitchId(0), Rank(0), Rank(3), 20 * kUs, 12 * kUs, tau, half, 30 * kUs),
            30 * kUs);
  // In full duplex the reverse of a hold shares its circuit at the same time.
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(1), Rank(0), 5 * kUs, 12 * kUs, tau, core::Duplex::kFull),
            12 * kUs);
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(1), Rank(0), 5 * kUs, 12 * kUs, tau, half), 22 * kUs);
  // Both ports: 3 -> 2 is held by 0 -> 2 on port 2 over [40, 50).
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(3), Rank(2), 38 * kUs, 0, tau, half), 0);
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(3), Rank(2), 39 * kUs, 0, tau, half), 52 * kUs);

  // insert_sends: the longer first, each where it starts earliest; a bound
  // it cannot meet leaves it unplaced.
  sched::PortTimelines two(2, 4);
  two.add(SwitchId(0), {0, 30 * kUs, Rank(0), Rank(1)});
  two.sort();
  std::vector<sched::InsertRequest> q(3);
  q[0] = {7, Rank(0), Rank(2), 10 * kUs, SwitchId(0), 0, sched::kNoBound, {}};
  q[1] = {8, Rank(2), Rank(3), 10 * kUs, SwitchId(0), 0, sched::kNoBound, {{0, 1 * kUs}}};
  q[2] = {9, Rank(0), Rank(3), 10 * kUs, SwitchId(0), 0, 5 * kUs, {}};
  const auto r = sched::insert_sends(two, q, tau, half);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].task, 7u);
  ASSERT_TRUE(r[0].at);
  EXPECT_EQ(r[0].at->first, SwitchId(1));  // switch 0's port 0 is busy until 30 us
  EXPECT_EQ(r[0].at->second, 0);
  ASSERT_TRUE(r[1].at);  // after 7 ends (10 us) plus 1 us, on the free switch 0
  EXPECT_EQ(r[1].at->first, SwitchId(0));
  EXPECT_EQ(r[1].at->second, 11 * kUs);
  EXPECT_FALSE(r[2].at);  // port 0 is held on both switches past 5 us

  // The placed holds count for the next search, and come back out whole.
  EXPECT_TRUE(two.has_inserted());
  EXPECT_EQ(two.earliest(SwitchId(1), Rank(0), Rank(3), 5 * kUs, 0, tau, half), 12 * kUs);
  EXPECT_THROW((void)sched::decide_insertion(two, q, std::vector<TimePs>(3, 0), tau, half),
               std::invalid_argument);
  two.clear_inserted();
  EXPECT_FALSE(two.has_inserted());
  EXPECT_EQ(two.earliest(SwitchId(1), Rank(0), Rank(3), 5 * kUs, 0, tau, half), 0);
  EXPECT_EQ(two.earliest(SwitchId(0), Rank(0), Rank(3), 5 * kUs, 0, tau, half), 32 * kUs);
}

TEST(Insertion, AHopLeftAtItsPlaceTakesBackTheHopBeforeIt) {
  // 1 -> 2 depends on 0 -> 1 (a forwarded send's two hops). The first hop
  // fits at once; the second must start before 5 us (its dependant's plan
  // start) but its ports are held until 30 us: it keeps its plan place, and
  // so must the first (its order key stays before the second's).
  const TimePs tau = 1 * kUs;
  sched::PortTimelines t(1, 4);
  t.add(SwitchId(0), {0, 30 * kUs, Rank(2), Rank(3)});
  t.sort();
  std::vector<sched::InsertRequest> q(2);
  q[0] = {4, Rank(0), Rank(1), 2 * kUs, SwitchId(0), 0, sched::kNoBound, {}};
  q[1] = {5, Rank(1), Rank(2), 2 * kUs, SwitchId(0), 0, 5 * kUs, {{0, 0}}};
  const auto r = sched::insert_sends(t, q, tau, core::Duplex::kHalf);
  EXPECT_FALSE(r[0].at);
  EXPECT_FALSE(r[1].at);
  // Taken back from the timelines too: 0 -> 1 fits at 0 again.
  EXPECT_EQ(t.earliest(SwitchId(0), Rank(0), Rank(1), 2 * kUs, 0, tau, core::Duplex::kHalf), 0);
  // Without the bound both are placed, the second after the first.
  q[1].before_ps = sched::kNoBound;
  const auto both = sched::insert_sends(t, q, tau, core::Duplex::kHalf);
  ASSERT_TRUE(both[0].at && both[1].at);
  EXPECT_EQ(both[0].at->second, 0);
  EXPECT_EQ(both[1].at->second, 31 * kUs);  // port 2 is held until 30 us, then tau
}

TEST(Insertion, CandidatesTiesAndKeepingThePlanCircuits) {
  // keeps_circuits: tau at least the weighted median of the requests'
  // transmission times: sorted 1, 5, 9 us (sum 15), the running sum first
  // reaches half at 9 us (the plain median, 5 us, would keep them at 5).
  std::vector<sched::InsertRequest> q(3);
  q[0] = {0, Rank(0), Rank(2), 1 * kUs, SwitchId(0), 0, sched::kNoBound, {}};
  q[1] = {1, Rank(1), Rank(3), 9 * kUs, SwitchId(0), 0, sched::kNoBound, {}};
  q[2] = {2, Rank(2), Rank(0), 5 * kUs, SwitchId(0), 0, sched::kNoBound, {}};
  EXPECT_TRUE(sched::keeps_circuits(q, 9 * kUs));
  EXPECT_FALSE(sched::keeps_circuits(q, 9 * kUs - 1));
  EXPECT_FALSE(sched::keeps_circuits(q, 5 * kUs));
  // Skew: four header-only sends of 1 us and one of 20 us; the middle of
  // the time is in the long one.
  std::vector<sched::InsertRequest> skew(5, q[0]);
  skew[4].p_ps = 20 * kUs;
  EXPECT_FALSE(sched::keeps_circuits(skew, 19 * kUs));
  EXPECT_TRUE(sched::keeps_circuits(skew, 20 * kUs));
  // Halves exactly: 2 and 2 us, the first reaches half.
  std::vector<sched::InsertRequest> two(2, q[0]);
  two[0].p_ps = two[1].p_ps = 2 * kUs;
  EXPECT_TRUE(sched::keeps_circuits(two, 2 * kUs));
  EXPECT_FALSE(sched::keeps_circuits(two, 2 * kUs - 1));
  EXPECT_TRUE(sched::keeps_circuits({}, 0));

  // One send 0 -> 2 of 10 us planned on switch 0 to end at 60 us; switch
  // 0's port 0 is held until 30 us.
  const std::vector<sched::InsertRequest> one = {
      {7, Rank(0), Rank(2), 10 * kUs, SwitchId(0), 0, sched::kNoBound, {}}};
  const std::vector<TimePs> plan_end = {60 * kUs};
  auto timelines = [] {
    sched::PortTimelines t(2, 4);
    t.add(SwitchId(0), {0, 30 * kUs, Rank(0), Rank(1)});
    t.sort();
    return t;
  };
  const auto half = core::Duplex::kHalf;
  {  // tau 2 us: on switch 1 at once (longest first and the plan order tie:
     // the plan order wins), not after the hold on switch 0.
    sched::PortTimelines t = timelines();
    const sched::Decided d = sched::decide_insertion(t, one, plan_end, 2 * kUs, half);
    EXPECT_FALSE(t.has_inserted());  // returned as given
    EXPECT_EQ(d.pick, sched::Decided::Pick::kPlanOrder);
    ASSERT_TRUE(d.placed[0].at);
    EXPECT_EQ(*d.placed[0].at, std::make_pair(SwitchId(1), TimePs{0}));
  }
  {  // tau 10 us, the send's own length: the plan's switch only, after the
     // hold and a reconfiguration.
    sched::PortTimelines t = timelines();
    const sched::Decided d = sched::decide_insertion(t, one, plan_end, 10 * kUs, half);
    EXPECT_EQ(d.pick, sched::Decided::Pick::kPlanSwitch);
    ASSERT_TRUE(d.placed[0].at);
    EXPECT_EQ(*d.placed[0].at, std::make_pair(SwitchId(0), 40 * kUs));
  }
  {  // Nothing held: every candidate puts it on switch 0 at 0; the tie goes
     // to the plan switches, though longest first is tried first.
    sched::PortTimelines t(2, 4);
    t.sort();
    const sched::Decided d = sched::decide_insertion(t, one, plan_end, 2 * kUs, half);
    EXPECT_EQ(d.pick, sched::Decided::Pick::kPlanSwitch);
    ASSERT_TRUE(d.placed[0].at);
    EXPECT_EQ(*d.placed[0].at, std::make_pair(SwitchId(0), TimePs{0}));
  }
}

// A small Mixtral-shaped job: EP4 on 4 GPUs, 2 layers, 2 micro-batches.
workload::TrainingConfig mixtral(const std::string& routing, std::uint64_t iteration) {
  workload::TrainingConfig c = testing::small_mixtral(2);
  c.micro_batches = 2;
  c.moe.routing = workload::RoutingSpec::parse(routing);
  c.moe.routing.iteration = iteration;
  return c;
}

sched::SchedulerOptions quick() {
  sched::SchedulerOptions o;
  o.time_limit_s = 0.5;
  return o;
}

TEST(Online, AKnownRoutingKeepsThePlan) {
  const core::Workload a = workload::generate_llama(mixtral("zipf:1.2", 0));
  const core::System sys = sched::testing::system_with(10 * kUs, 2);
  const schedule::Schedule plan = sched::run_scheduler("flux", a, sys, quick());
  const runtime::OnlineRun r = runtime::run_online(a, a, plan, {});
  EXPECT_TRUE(r.decisions.empty());
  EXPECT_EQ(r.reveals, 2u * 2u);  // per layer and micro-batch, one EP group
  EXPECT_EQ(r.kept, 4u * 4u);     // four all-to-alls each
  EXPECT_EQ(r.schedule.makespan_ps, plan.makespan_ps);
  EXPECT_EQ(r.replay.metrics.iteration_time_ps, plan.makespan_ps);
}

TEST(Online, AnotherRoutingIsDecidedValidAndReplayedExactly) {
  const core::Workload a = workload::generate_llama(mixtral("zipf:1.2", 0));
  const core::Workload b = workload::generate_llama(mixtral("zipf:1.2", 1));
  for (const core::Duplex duplex : {core::Duplex::kHalf, core::Duplex::kFull}) {
    for (const TimePs tau : {1 * kUs, 1000 * kUs}) {
      core::System sys = sched::testing::system_with(tau, 2);
      sys.duplex = duplex;
      const schedule::Schedule plan = sched::run_scheduler("flux", a, sys, quick());
      runtime::OnlineOptions o;
      o.budget_ps = 100 * kUs;
      const runtime::OnlineRun r = runtime::run_online(a, b, plan, o);
      EXPECT_EQ(r.decisions.size(), 16u);
      for (const runtime::Decision& d : r.decisions) {
        EXPECT_EQ(d.latency_ps, 100 * kUs);
        EXPECT_LE(d.placed, d.sends);  // the sends not started when it lands
      }
      EXPECT_EQ(r.replay.metrics.iteration_time_ps, r.schedule.makespan_ps);
      EXPECT_EQ(r.replay.metrics.bytes_delivered, b.total_bytes());
      // Deterministic under a modelled budget.
      const runtime::OnlineRun again = runtime::run_online(a, b, plan, o);
      ASSERT_EQ(again.schedule.tasks.size(), r.schedule.tasks.size());
      for (std::size_t i = 0; i < r.schedule.tasks.size(); ++i) {
        EXPECT_EQ(again.schedule.tasks[i].sw, r.schedule.tasks[i].sw);
        EXPECT_EQ(again.schedule.tasks[i].start_ps, r.schedule.tasks[i].start_ps);
      }
      // Never below the bound of a plan that knew b.
      const schedule::Schedule oracle = sched::run_scheduler("flux", b, sys, quick());
      ASSERT_TRUE(oracle.lower_bound_ps);
      EXPECT_GE(r.schedule.makespan_ps, *oracle.lower_bound_ps);
    }
  }
}

// A tiny MoE-labelled job on 3 ranks: a dense send, then one exchange: a
// dispatch 0->1, 1->2, 2->0 after the router (release), the expert compute,
// and the combine back; `scale` multiplies the dispatch's sizes (another
// routing: the same structure).
core::Workload tiny(std::uint64_t seed, bool actual) {
  sched::testing::Lcg rng{seed};
  workload::WorkloadBuilder b("tiny" + std::to_string(seed), 3);
  const std::uint32_t dispatch = b.intern_label("mb0.L0.fwd.dispatch");
  const std::uint32_t combine = b.intern_label("mb0.L0.fwd.combine");
  const TaskIndex dense = b.add_send(Rank(1 + rng.next(2)), Rank(0), 1000 * (1 + rng.next(5)));
  std::vector<TaskIndex> d;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::uint64_t predicted = 1000 * (1 + rng.next(5));
    const std::uint64_t real = 1000 * (1 + rng.next(8));
    const TaskIndex v = b.add_send(Rank(i), Rank((i + 1) % 3), actual ? real : predicted, dispatch);
    b.raise_release(v, 2000 * rng.next(3));
    if (rng.next(2) == 0) b.add_dep(dense, v, 1000);
    d.push_back(v);
  }
  for (std::uint32_t i = 0; i < 3; ++i) {
    const TaskIndex v = b.add_send(Rank((i + 1) % 3), Rank(i), 1000 * (1 + rng.next(4)), combine);
    b.add_dep(d[i], v, 3000 * (1 + rng.next(2)));
  }
  return std::move(b).build();
}

TEST(Online, NeverBetterThanTheBruteForceOptimumOfTheActualIteration) {
  int moved = 0;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const core::Workload a = tiny(seed, false);
    const core::Workload b = tiny(seed, true);
    core::System sys = sched::testing::system_with((seed % 3) * 2000, 2);
    if (seed % 4 == 0) sys.duplex = core::Duplex::kFull;
    const schedule::Schedule plan =
        sched::run_scheduler("flux", a, sys, sched::testing::exact_options());
    runtime::OnlineOptions o;
    o.budget_ps = (seed % 2) * 1000;
    const runtime::OnlineRun r = runtime::run_online(a, b, plan, o);
    const TimePs best = sched::testing::brute_force(b, sys);
    EXPECT_GE(r.schedule.makespan_ps, best) << seed;
    EXPECT_EQ(r.replay.metrics.iteration_time_ps, r.schedule.makespan_ps) << seed;
    EXPECT_EQ(r.reveals, 1u);
    // The oracle, a plan that knew the routing, is the optimum here.
    EXPECT_EQ(sched::run_scheduler("flux", b, sys, sched::testing::exact_options()).makespan_ps,
              best)
        << seed;
    for (const runtime::Decision& d : r.decisions) moved += d.placed > 0 ? 1 : 0;
  }
  EXPECT_GT(moved, 0);  // the instances exercise decisions, not only the plan
}

TEST(Online, Errors) {
  const core::Workload a = tiny(3, false);
  const core::Workload b = tiny(3, true);
  const core::System sys = sched::testing::system_with(1000, 2);
  const schedule::Schedule plan = sched::run_scheduler("flux", a, sys, quick());
  runtime::OnlineOptions o;
  o.budget_ps = -1;
  EXPECT_EQ(test::error_of([&] { (void)runtime::run_online(a, b, plan, o); }),
            "decision_budget = -1 ps: must be between 0 and 10 s");
  EXPECT_EQ(test::error_of([] { (void)runtime::decision_latency_from_string("fast"); }),
            "decision_latency = fast: must be modelled or measured");
  EXPECT_EQ(runtime::decision_latency_from_string("measured"), runtime::DecisionLatency::kMeasured);
  o.budget_ps = 100 * core::kPsPerUs;
  o.reserve_ps = 30 * core::kPsPerUs;
  EXPECT_EQ(test::error_of([&] { o.validate(); }),
            "decision_reserve = 30 us: applies with a measured decision latency only");
  o.latency = runtime::DecisionLatency::kMeasured;
  EXPECT_NO_THROW(o.validate());
  o.reserve_ps = o.budget_ps;
  EXPECT_EQ(test::error_of([&] { o.validate(); }),
            "decision_reserve = 100 us: must be below the decision budget (100 us)");
  o.reserve_ps = -1;
  EXPECT_EQ(test::error_of([&] { o.validate(); }),
            "decision_reserve = -1 ps: must be between 0 and 10 s");
  const schedule::Schedule rotor = sched::run_scheduler("rotornet", a, sys, quick());
  EXPECT_EQ(test::error_of([&] { (void)runtime::run_online(a, b, rotor, {}); }),
            "scheduler = rotornet: online scheduling needs a task-level plan (a switch and a "
            "start per send); this scheduler's is circuit-only");
  EXPECT_NE(test::error_of([&] { (void)runtime::run_online(a, tiny(4, true), plan, {}); }),
            "no error");  // another structure
}

// Bruck all-to-alls: their rounds depend on each other (requests linked by
// `after`), so a decision cut short by a measured budget leaves chains half
// placed unless it takes them back; every run must stay a valid schedule.
TEST(Online, ChainedSendsStayInOrderUnderEveryBudget) {
  workload::TrainingConfig c = mixtral("zipf:1.5", 0);
  c.collective = workload::Algorithm::kBruck;
  const core::Workload a = workload::generate_llama(c);
  c.moe.routing = workload::RoutingSpec::parse("zipf:1.5");
  c.moe.routing.seed = 2;
  const core::Workload b = workload::generate_llama(c);
  core::System sys = sched::testing::system_with(1 * kUs, 2);
  sys.duplex = core::Duplex::kFull;
  const schedule::Schedule plan = sched::run_scheduler("flux", a, sys, quick());
  for (const TimePs budget : {0 * kUs, 1 * kUs, 3 * kUs, 10 * kUs, 30 * kUs}) {
    for (const auto latency :
         {runtime::DecisionLatency::kModelled, runtime::DecisionLatency::kMeasured}) {
      runtime::OnlineOptions o;
      o.budget_ps = budget;
      o.latency = latency;
      const runtime::OnlineRun r = runtime::run_online(a, b, plan, o);
      EXPECT_EQ(r.replay.metrics.iteration_time_ps, r.schedule.makespan_ps) << budget;
      EXPECT_EQ(r.replay.metrics.bytes_delivered, b.total_bytes());
    }
  }
}

TEST(Online, AMeasuredBudgetStopsTheDecision) {
  const core::Workload a = workload::generate_llama(mixtral("zipf:1.2", 0));
  const core::Workload b = workload::generate_llama(mixtral("zipf:1.2", 1));
  const core::System sys = sched::testing::system_with(10 * kUs, 2);
  const schedule::Schedule plan = sched::run_scheduler("flux", a, sys, quick());
  runtime::OnlineOptions o;
  o.latency = runtime::DecisionLatency::kMeasured;
  o.budget_ps = 0;  // no time at all: every decision keeps the plan
  const runtime::OnlineRun r = runtime::run_online(a, b, plan, o);
  ASSERT_FALSE(r.decisions.empty());
  for (const runtime::Decision& d : r.decisions) {
    EXPECT_EQ(d.placed, 0u);
    EXPECT_EQ(d.pick, sched::Decided::Pick::kPlan);
  }
  EXPECT_EQ(r.replay.metrics.iteration_time_ps,
            sim::simulate_on(a, b, plan).metrics.iteration_time_ps);
  // A budget of 10 ms places sends; with all of it but 1 ps reserved the
  // deadline is the decision's start, and none is.
  o.budget_ps = 10 * core::kPsPerMs;
  std::uint32_t placed = 0;
  for (const runtime::Decision& d : runtime::run_online(a, b, plan, o).decisions) {
    placed += d.placed;
  }
  EXPECT_GT(placed, 0u);
  o.reserve_ps = o.budget_ps - 1;
  const runtime::OnlineRun reserved = runtime::run_online(a, b, plan, o);
  ASSERT_FALSE(reserved.decisions.empty());
  for (const runtime::Decision& d : reserved.decisions) {
    EXPECT_EQ(d.placed, 0u);
    EXPECT_EQ(d.pick, sched::Decided::Pick::kPlan);
  }
}

}  // namespace
}  // namespace flux
