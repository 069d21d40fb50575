// Routes chosen per send (--route auto; core/routes.hpp, docs/model.md,
// "Routes"): a send no circuit joins is forwarded at its sender, at its
// receiver (forward-rx) or sent on the packet fabric, and under auto the
// scheduler picks one per send. A hand-computed instance fixes the numbers
// of each policy; on tiny random instances flux and flux-milp must equal the
// brute force over every choice of routes, every bound must lie at or below
// it, and every schedule must validate and replay to its makespan; tampered
// routes are rejected and schedules round-trip through flux.schedule/v4.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "error_of.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/routes.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "sched/choice/choose.hpp"
#include "sched_test_util.hpp"
#include "wiring_instances.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::RoutePolicy;
using core::TimePs;
constexpr TimePs kUs = core::kPsPerUs;

// Rails of domains of 2 in pods of 2 domains ({0..3}, {4..7}, ...), one
// plane, with the given policy and, if gbps > 0, a packet fabric.
core::System rails2(TimePs tau, RoutePolicy route, double gbps = 0) {
  core::System s = testing::rails(2, 2, 1, tau);
  s.route = route;
  s.packet_gbps = gbps;
  return s;
}

// 0 -> 3 (rail 0 to rail 1 of pod 0) beside a long 1 -> 3 on rail 1: the
// sender's forwarder (1) is busy, the receiver's (2) is not.
core::Workload busy_forwarder() {
  workload::WorkloadBuilder b("busy-forwarder", 8);
  b.add_send(Rank(0), Rank(3), testing::kOneUsBytes);
  b.add_send(Rank(1), Rank(3), 4 * testing::kOneUsBytes);
  return std::move(b).build();
}

TEST(RouteChoice, EachPolicyRoutesAsDocumented) {
  const core::Workload w = busy_forwarder();
  // forward: 0 -> 1 over NVLink, then 1 -> 3 on rail 1's switch after the
  // long send (the same pair, no tau): 4 + 1 us.
  const core::Routed fwd(w, rails2(kUs, RoutePolicy::kForward));
  ASSERT_EQ(fwd.workload().num_tasks(), 3u);
  EXPECT_EQ(fwd.workload().task(core::TaskIndex(0)).dst, Rank(1));
  EXPECT_EQ(fwd.workload().task(core::TaskIndex(1)).src, Rank(1));
  EXPECT_EQ(fwd.counts().received_sends, 0u);
  // forward-rx: 0 -> 2 on rail 0's switch, then 2 -> 3 over NVLink.
  const core::Routed rx(w, rails2(kUs, RoutePolicy::kForwardRx));
  ASSERT_EQ(rx.workload().num_tasks(), 3u);
  EXPECT_EQ(rx.workload().task(core::TaskIndex(0)).dst, Rank(2));
  EXPECT_EQ(rx.workload().task(core::TaskIndex(1)).src, Rank(2));
  EXPECT_EQ(rx.workload().task(core::TaskIndex(1)).id, 2u);  // a new id above every id
  EXPECT_EQ(rx.counts().forwarded_sends, 1u);
  EXPECT_EQ(rx.counts().received_sends, 1u);
  for (const char* name : {"flux", "flux-milp", "greedy"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(run_scheduler(name, w, rails2(kUs, RoutePolicy::kForward), testing::exact_options())
                  .makespan_ps,
              5 * kUs);
    EXPECT_EQ(run_scheduler(name, w, rails2(kUs, RoutePolicy::kForwardRx), testing::exact_options())
                  .makespan_ps,
              4 * kUs);
    // auto: forward-rx, the long send's 4 us.
    const core::System sys = rails2(kUs, RoutePolicy::kAuto);
    const schedule::Schedule s = run_scheduler(name, w, sys, testing::exact_options());
    EXPECT_EQ(s.makespan_ps, 4 * kUs);
    EXPECT_EQ(s.routes, (std::vector<std::string>{"forward-rx"}));
    EXPECT_TRUE(s.choice.empty());
    EXPECT_EQ(s.system.route, RoutePolicy::kAuto);
    EXPECT_TRUE(schedule::validate(w, s).ok());
    const sim::SimResult r = sim::simulate(w, s);
    EXPECT_EQ(r.metrics.iteration_time_ps, 4 * kUs);
    EXPECT_EQ(core::route_counts(w, sys, s.routes).received_sends, 1u);
  }
  // Without the choice the counts say how many sends have one.
  const core::RouteCounts open = core::route_counts(w, rails2(kUs, RoutePolicy::kAuto));
  EXPECT_EQ(open.choice_sends, 1u);
  EXPECT_EQ(open.forwarded_sends, 0u);
}

TEST(RouteChoice, RouteChoicesKeepEveryRouteOfASendWithSeveral) {
  const core::Workload w = busy_forwarder();
  EXPECT_FALSE(core::route_choices(w, rails2(kUs, RoutePolicy::kForward)).has_value());
  const auto expanded = core::route_choices(w, rails2(kUs, RoutePolicy::kAuto, 400));
  ASSERT_TRUE(expanded.has_value());
  ASSERT_EQ(expanded->choices().size(), 1u);
  const core::ChoiceGroup& g = expanded->choices()[0];
  ASSERT_EQ(g.alternatives.size(), 3u);
  EXPECT_EQ(g.alternatives[0].name, "forward");
  EXPECT_EQ(g.alternatives[1].name, "forward-rx");
  EXPECT_EQ(g.alternatives[2].name, "packet");
  // The first route's first hop keeps the send's id; the others count on
  // from the ids above the workload's, in order.
  std::vector<std::uint64_t> ids;
  for (const core::Alternative& a : g.alternatives) {
    for (const core::TaskIndex v : a.tasks) ids.push_back(expanded->task(v).id);
  }
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{0, 2, 3, 4, 5}));
  // The packet route alone: a 1 us send at 400 Gb/s takes 2 us, beside the
  // long one.
  const core::System sys = rails2(kUs, RoutePolicy::kAuto, 400);
  const schedule::Schedule s = run_scheduler("flux", w, sys, testing::exact_options());
  EXPECT_EQ(s.makespan_ps, 4 * kUs);
  const core::Routed packet(w, sys, {}, std::vector<std::string>{"packet"});
  EXPECT_EQ(packet.packet_sends(), 1u);
  EXPECT_EQ(packet.workload().num_tasks(), 2u);
}

// Every choice of routes of `w` under `sys` (auto), each as the routed
// workload it runs and its brute-force optimum; the least is auto's optimum.
TimePs brute_force_over_routes(const core::Workload& w, const core::System& sys,
                               std::size_t max_sends, bool& reachable) {
  reachable = true;
  const std::optional<core::Workload> expanded = core::route_choices(w, sys);
  const core::System fixed = core::chosen_routes(sys);
  if (!expanded) {
    const core::Routed r(w, sys);
    if (r.workload().num_tasks() > max_sends) reachable = false;
    return reachable ? testing::brute_force(r.workload(), sys) : 0;
  }
  TimePs best = std::numeric_limits<TimePs>::max();
  for (std::uint64_t i = 0; i < core::choice_count(*expanded); ++i) {
    const core::Workload one = core::resolve(*expanded, choice::nth_choice(*expanded, i));
    const core::Routed r(one, fixed);
    if (r.workload().num_tasks() > max_sends) {
      reachable = false;
      return 0;
    }
    best = std::min(best, testing::brute_force(r.workload(), fixed));
  }
  return best;
}

TEST(RouteChoice, FluxEqualsTheBruteForceOverEveryChoiceOfRoutes) {
  int instances = 0, chose = 0, beat_both = 0;
  for (const TimePs tau : {kUs, 5 * kUs}) {
    for (const double gbps : {0.0, 400.0}) {
      const core::System sys = rails2(tau, RoutePolicy::kAuto, gbps);
      for (std::uint64_t seed = 1; seed <= 30 && instances < 40; ++seed) {
        // One pod without a packet fabric (no route across pods).
        const core::Workload w = testing::any_dag(seed, 4, gbps > 0 ? 8 : 4, "route-");
        const auto expanded = core::route_choices(w, sys);
        if (!expanded || core::choice_count(*expanded) > 27) continue;
        bool reachable = false;
        const TimePs optimum = brute_force_over_routes(w, sys, 7, reachable);
        if (!reachable) continue;
        SCOPED_TRACE("tau " + std::to_string(tau) + " gbps " + std::to_string(gbps) + " seed " +
                     std::to_string(seed));
        // The bound over every choice the search uses on larger jobs.
        EXPECT_LE(choice::choice_lower_bound(*expanded, core::chosen_routes(sys)), optimum);
        const schedule::Schedule s = run_scheduler("flux", w, sys, testing::exact_options());
        EXPECT_EQ(s.makespan_ps, optimum);
        ASSERT_TRUE(s.lower_bound_ps.has_value());
        EXPECT_LE(*s.lower_bound_ps, optimum);
        EXPECT_EQ(s.routes.size(), expanded->choices().size());
        EXPECT_TRUE(schedule::validate(w, s).ok());
        EXPECT_EQ(sim::simulate(w, s).metrics.iteration_time_ps, s.makespan_ps);
        EXPECT_LE(run_scheduler("ideal", w, sys, SchedulerOptions{}).makespan_ps, optimum);
        const schedule::Schedule g = run_scheduler("greedy", w, sys, SchedulerOptions{});
        EXPECT_GE(g.makespan_ps, optimum);
        EXPECT_EQ(sim::simulate(w, g).metrics.iteration_time_ps, g.makespan_ps);
        // A fixed policy is one choice among them.
        TimePs fixed_best = std::numeric_limits<TimePs>::max();
        for (const RoutePolicy p : {RoutePolicy::kForward, RoutePolicy::kForwardRx}) {
          core::System one = sys;
          one.route = p;
          const TimePs t = run_scheduler("flux", w, one, testing::exact_options()).makespan_ps;
          EXPECT_GE(t, optimum);
          fixed_best = std::min(fixed_best, t);
        }
        chose += std::any_of(s.routes.begin(), s.routes.end(),
                             [](const std::string& r) { return r != "forward"; });
        beat_both += optimum < fixed_best;
        ++instances;
      }
    }
  }
  EXPECT_EQ(instances, 40);
  EXPECT_EQ(chose, 6);      // not always the first route
  EXPECT_EQ(beat_both, 3);  // a mix of routes beats every fixed policy
}

TEST(RouteChoice, FluxMilpEqualsTheBruteForce) {
  int solved = 0;
  const core::System sys = rails2(kUs, RoutePolicy::kAuto, 400);
  for (std::uint64_t seed = 1; seed <= 40 && solved < 4; ++seed) {
    const core::Workload w = testing::any_dag(seed, 3, 8, "route-milp-");
    const auto expanded = core::route_choices(w, sys);
    if (!expanded || core::choice_count(*expanded) > 9) continue;
    bool reachable = false;
    const TimePs optimum = brute_force_over_routes(w, sys, 6, reachable);
    if (!reachable) continue;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const schedule::Schedule m = run_scheduler("flux-milp", w, sys, testing::exact_options());
    EXPECT_EQ(m.makespan_ps, optimum);
    ASSERT_TRUE(m.lower_bound_ps.has_value());
    EXPECT_LE(*m.lower_bound_ps, optimum);
    EXPECT_EQ(sim::simulate(w, m).metrics.iteration_time_ps, m.makespan_ps);
    ++solved;
  }
  EXPECT_EQ(solved, 4);
}

TEST(RouteChoice, BaselinesChooseRoutesAndReplay) {
  const core::System sys = rails2(2 * kUs, RoutePolicy::kAuto, 400);
  const core::Workload w = testing::any_dag(5, 10, 8, "route-base-");
  ASSERT_TRUE(core::route_choices(w, sys).has_value());
  for (const char* name : {"rotornet", "rotornet-vlb", "bvn"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = run_scheduler(name, w, sys, SchedulerOptions{});
    EXPECT_FALSE(s.routes.empty());
    EXPECT_TRUE(schedule::validate(w, s).ok());
    EXPECT_GT(sim::simulate(w, s).metrics.iteration_time_ps, 0);
  }
}

TEST(RouteChoice, TamperedRoutesAreRejected) {
  const core::Workload w = busy_forwarder();
  const core::System sys = rails2(kUs, RoutePolicy::kAuto);
  const schedule::Schedule good = run_scheduler("flux", w, sys, testing::exact_options());
  ASSERT_TRUE(schedule::validate(w, good).ok());
  const auto first_violation = [&](const schedule::Schedule& s) {
    const schedule::ValidationReport r = schedule::validate(w, s);
    return r.violations.empty() ? std::string("ok") : r.violations.front();
  };
  schedule::Schedule s = good;
  s.routes.clear();
  EXPECT_NE(first_violation(s).find("routes: "), std::string::npos) << first_violation(s);
  s.routes = {"packet"};  // no packet fabric: not a route of this send
  EXPECT_NE(first_violation(s).find("not a route of send 0 (it has forward, forward-rx)"),
            std::string::npos)
      << first_violation(s);
  s.routes = {"forward"};  // the hops of another route than the schedule places
  EXPECT_NE(first_violation(s), "ok");
  s = good;
  s.system.route = RoutePolicy::kForwardRx;  // routes named under a policy without a choice
  EXPECT_NE(first_violation(s).find("no send of the workload has a choice"), std::string::npos)
      << first_violation(s);
}

TEST(RouteChoice, SchedulesKeepTheirRoutesThroughTheFormat) {
  const core::Workload w = busy_forwarder();
  const schedule::Schedule s =
      run_scheduler("flux", w, rails2(kUs, RoutePolicy::kAuto), testing::exact_options());
  std::ostringstream out;
  formats::write_schedule(out, s);
  EXPECT_NE(out.str().find("\"format\": \"flux.schedule/v4\""), std::string::npos);
  EXPECT_NE(out.str().find("\"route\": \"auto\""), std::string::npos);
  EXPECT_NE(out.str().find("\"routes\": [\"forward-rx\"]"), std::string::npos) << out.str();
  const schedule::Schedule back = formats::parse_schedule(out.str(), "s.json");
  EXPECT_EQ(back.routes, s.routes);
  EXPECT_EQ(back.system.route, RoutePolicy::kAuto);
  EXPECT_TRUE(schedule::validate(w, back).ok());
}

TEST(RouteChoice, ASendWithoutRouteNamesTheOtherSide) {
  // Rails k2 radix 2 without a packet fabric: 0 -> 3 has routes on both
  // sides; a wiring file where only the receiver's side reaches is what
  // makes one policy fail and the other work (tested in wiring_test); here
  // the message of a send no policy routes: across pods.
  workload::WorkloadBuilder b("across", 8);
  b.add_send(Rank(0), Rank(7), testing::kOneUsBytes);
  const core::Workload w = std::move(b).build();
  for (const RoutePolicy p : {RoutePolicy::kForward, RoutePolicy::kForwardRx, RoutePolicy::kAuto}) {
    const std::string e = test::error_of([&] { (void)core::Routed(w, rails2(kUs, p)); });
    EXPECT_NE(e.find("no route from rank 0 (rail 0, pod 0) to rank 7 (rail 1, pod 1)"),
              std::string::npos)
        << e;
  }
  EXPECT_NE(test::error_of([&] {
              (void)core::Routed(w, rails2(kUs, RoutePolicy::kAuto));
            }).find("nor one of either's scale-up domain"),
            std::string::npos);
}

}  // namespace
}  // namespace flux::sched
