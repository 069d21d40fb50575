// Collectives kept in several decompositions (core::ChoiceGroup,
// --collective auto): the lowering against the fixed algorithms, the
// workload's checks, the formats, the validator on tampered schedules, the
// schedulers and bounds against brute force over every choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <tuple>

#include "brute_force.hpp"
#include "error_of.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/moe.hpp"
#include "flux/workload/split.hpp"
#include "sched/choice/choose.hpp"
#include "sched_test_util.hpp"

namespace flux {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

sched::SchedulerOptions limit(double seconds) {
  sched::SchedulerOptions o;
  o.time_limit_s = seconds;
  return o;
}

sched::SchedulerOptions fixed(const std::string& collective, double seconds = 60) {
  sched::SchedulerOptions o = limit(seconds);
  o.collective = collective;
  return o;
}

workload::TrainingConfig small_job(workload::Algorithm a) {
  workload::TrainingConfig c;
  c.model.layers = 2;
  c.tp = 4;
  c.dp = 2;
  c.collective = a;
  return c;
}

// The sends (src, dst, bytes, release, tail) of a workload, sorted.
std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, TimePs, TimePs>> sends_of(
    const core::Workload& w) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, TimePs, TimePs>> out;
  for (const core::Task& t : w.tasks()) {
    out.emplace_back(t.src.value(), t.dst.value(), t.bytes, t.release_ps, t.tail_ps);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Choice, AutoResolvesToEachFixedAlgorithm) {
  const core::Workload all = workload::generate_llama(small_job(workload::Algorithm::kAuto));
  ASSERT_TRUE(all.has_choices());
  // Per layer and TP group (2), two forward and two backward all-reduces;
  // the DP all-reduces are of 2 ranks (nothing to choose).
  EXPECT_EQ(all.choices().size(), 16u);
  for (const core::ChoiceGroup& g : all.choices()) {
    ASSERT_EQ(g.alternatives.size(), 3u);
    EXPECT_EQ(g.alternatives[0].name, "ring");
    EXPECT_EQ(g.alternatives[1].name, "direct");
    EXPECT_EQ(g.alternatives[2].name, "halving-doubling");
  }
  EXPECT_EQ(core::choice_count(all), 43046721u);  // 3^16
  const core::System sys = sched::testing::system_with(10'000'000, 2);
  for (const workload::Algorithm a : {workload::Algorithm::kRing, workload::Algorithm::kDirect,
                                      workload::Algorithm::kHalvingDoubling}) {
    SCOPED_TRACE(std::string(workload::to_string(a)));
    const core::Workload fixed = workload::generate_llama(small_job(a));
    const core::Workload resolved =
        core::resolve(all, core::uniform_choice(all, workload::to_string(a)));
    EXPECT_FALSE(resolved.has_choices());
    EXPECT_EQ(resolved.num_tasks(), fixed.num_tasks());
    EXPECT_EQ(resolved.num_deps(), fixed.num_deps());
    EXPECT_EQ(sends_of(resolved), sends_of(fixed));
    const auto p_fixed = core::transmission_times(fixed, sys);
    const auto p_resolved = core::transmission_times(resolved, sys);
    EXPECT_EQ(core::ideal_timing(resolved, p_resolved).makespan,
              core::ideal_timing(fixed, p_fixed).makespan);
  }
  EXPECT_EQ(core::describe_choice(all, core::uniform_choice(all, "direct")), "direct 16");
}

TEST(Choice, ChannelsSplitEveryAlternative) {
  const core::Workload all = workload::generate_llama(small_job(workload::Algorithm::kAuto));
  const core::Workload split = workload::split_sends(all, 2, 1);
  ASSERT_EQ(split.choices().size(), all.choices().size());
  for (const char* a : {"ring", "direct", "halving-doubling"}) {
    SCOPED_TRACE(a);
    const core::Workload fixed = workload::split_sends(
        workload::generate_llama(small_job(workload::algorithm_from_string(a))), 2, 1);
    const core::Workload resolved = core::resolve(split, core::uniform_choice(split, a));
    EXPECT_EQ(sends_of(resolved), sends_of(fixed));
    EXPECT_EQ(resolved.num_deps(), fixed.num_deps());
  }
}

TEST(Choice, AllToAllAndHierarchicalAlternatives) {
  // MoE: each expert all-to-all in direct and Bruck.
  workload::TrainingConfig moe;
  const workload::MoeModel m = workload::moe_model("mixtral-8x7b");
  moe.model = m.model;
  moe.moe = m.moe;
  moe.model.layers = 1;
  moe.dp = 4;
  moe.moe.ep = 4;
  moe.collective = workload::Algorithm::kAuto;
  const core::Workload w = workload::generate_llama(moe);
  std::size_t a2a = 0;
  for (const core::ChoiceGroup& g : w.choices()) {
    if (g.alternatives.size() != 2) continue;
    EXPECT_EQ(g.alternatives[0].name, "direct");
    EXPECT_EQ(g.alternatives[1].name, "bruck");
    ++a2a;
  }
  EXPECT_EQ(a2a, 4u);  // dispatch and combine, forward and backward
  // TP 4 over domains of 2: ring, direct, halving-doubling, hierarchical;
  // every group on hierarchical is the job generated with it.
  workload::TrainingConfig tp = small_job(workload::Algorithm::kAuto);
  tp.scaleup_size = 2;
  const core::Workload h = workload::generate_llama(tp);
  ASSERT_TRUE(h.has_choices());
  for (const core::ChoiceGroup& g : h.choices()) {
    ASSERT_EQ(g.alternatives.size(), 4u);
    EXPECT_EQ(g.alternatives[3].name, "hierarchical");
  }
  tp.collective = workload::Algorithm::kHierarchical;
  tp.dp = 1;  // the DP groups of 2, one per domain pair, would have one member per domain
  const core::Workload fixed = workload::generate_llama(tp);
  tp.collective = workload::Algorithm::kAuto;
  const core::Workload all = workload::generate_llama(tp);
  const core::Workload resolved = core::resolve(all, core::uniform_choice(all, "hierarchical"));
  EXPECT_EQ(sends_of(resolved), sends_of(fixed));
  EXPECT_EQ(resolved.num_deps(), fixed.num_deps());
}

// A hand-made workload: send 0 (0 -> 1), then a collective in two
// alternatives ("a": 1 -> 2 then 2 -> 3; "b": 1 -> 3), then send 3 -> 0.
core::WorkloadData two_way() {
  core::WorkloadData d;
  d.name = "two-way";
  d.accelerators = 4;
  const auto send = [&](std::uint32_t s, std::uint32_t t, std::uint64_t bytes) {
    core::Task task;
    task.id = d.tasks.size();
    task.src = Rank(s);
    task.dst = Rank(t);
    task.bytes = bytes;
    d.tasks.push_back(task);
    return TaskIndex(static_cast<std::uint32_t>(task.id));
  };
  const TaskIndex first = send(0, 1, 1000);
  const TaskIndex a1 = send(1, 2, 1000), a2 = send(2, 3, 1000);
  const TaskIndex b1 = send(1, 3, 3000);
  const TaskIndex last = send(3, 0, 1000);
  d.deps = {{first, a1, 0}, {a1, a2, 0}, {a2, last, 0}, {first, b1, 0}, {b1, last, 0}};
  d.choices.push_back({core::kNoLabel, {{"a", {a1, a2}}, {"b", {b1}}}});
  return d;
}

TEST(Choice, WorkloadChecksItsGroups) {
  EXPECT_NO_THROW(core::Workload{two_way()});
  const auto fails = [](const std::function<void(core::WorkloadData&)>& edit) {
    core::WorkloadData d = two_way();
    edit(d);
    return test::error_of([&] { core::Workload w(std::move(d)); });
  };
  EXPECT_NE(fails([](auto& d) { d.choices[0].alternatives.pop_back(); }).find("2 to 64"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) { d.choices[0].alternatives[1].name = "a"; }).find("repeats"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) { d.choices[0].alternatives[1].name.clear(); }).find("needs a name"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) { d.choices[0].alternatives[1].tasks.clear(); }).find("needs sends"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) {
              d.choices[0].alternatives[1].tasks.push_back(TaskIndex(1));
            }).find("its own"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) {
              d.choices[0].alternatives[1].tasks.push_back(TaskIndex(9));
            }).find("no such task"),
            std::string::npos);
  EXPECT_NE(fails([](auto& d) {
              d.deps.push_back({TaskIndex(2), TaskIndex(3), 0});
            }).find("joins two alternatives"),
            std::string::npos);
  const core::Workload w(two_way());
  EXPECT_NE(test::error_of([&] { (void)core::resolve(w, core::Choice{}); }).find("1 choice"),
            std::string::npos);
  EXPECT_NE(
      test::error_of([&] { (void)core::resolve(w, core::Choice{2}); }).find("no such alternative"),
      std::string::npos);
  EXPECT_NE(test::error_of([&] {
              (void)core::choice_from_names(w, std::vector<std::string>{"c"});
            }).find("it has a, b"),
            std::string::npos);
  const core::Workload b = core::resolve(w, core::Choice{1});
  EXPECT_EQ(b.num_tasks(), 3u);
  EXPECT_EQ(b.num_deps(), 2u);
  EXPECT_EQ(core::common_part(w).num_tasks(), 2u);
  EXPECT_EQ(core::common_part(w).num_deps(), 0u);
}

TEST(Choice, FormatsRoundTrip) {
  const core::Workload w(two_way());
  std::ostringstream out;
  formats::write_workload(out, w);
  EXPECT_NE(out.str().find("\"flux.workload/v2\""), std::string::npos);
  const core::Workload back = formats::parse_workload(out.str(), "mem");
  ASSERT_EQ(back.choices().size(), 1u);
  EXPECT_EQ(back.choices()[0], w.choices()[0]);
  // Without groups: v1, as before.
  std::ostringstream plain;
  formats::write_workload(plain, core::resolve(w, core::Choice{0}));
  EXPECT_NE(plain.str().find("\"flux.workload/v1\""), std::string::npos);
  // An id that is no task's.
  std::string bad = out.str();
  bad.replace(bad.find("\"tasks\": [3]"), 12, "\"tasks\": [7]");
  EXPECT_NE(test::error_of([&] {
              (void)formats::parse_workload(bad, "mem");
            }).find("choices[0].alternatives[1].tasks[0]"),
            std::string::npos);

  const core::System sys = sched::testing::system_with(1'000'000, 1);
  const schedule::Schedule s = sched::run_scheduler("greedy", w, sys, {});
  ASSERT_EQ(s.choice.size(), 1u);
  std::ostringstream js;
  formats::write_schedule(js, s);
  EXPECT_NE(js.str().find("\"flux.schedule/v4\""), std::string::npos);
  const schedule::Schedule s2 = formats::parse_schedule(js.str(), "mem");
  EXPECT_EQ(s2.choice, s.choice);
  EXPECT_TRUE(schedule::validate(w, s2).ok());
}

TEST(Choice, ValidatorRejectsTamperedChoices) {
  const core::Workload w = workload::generate_llama(small_job(workload::Algorithm::kAuto));
  const core::System sys = sched::testing::system_with(10'000'000, 2);
  const schedule::Schedule s = sched::run_scheduler("greedy", w, sys, {});
  ASSERT_TRUE(schedule::validate(w, s).ok());
  ASSERT_EQ(s.choice.size(), w.choices().size());
  const core::Choice chosen = core::choice_from_names(w, s.choice);
  const core::ChoiceGroup& g0 = w.choices()[0];
  const std::uint32_t other = chosen[0] == 0 ? 1 : 0;

  // Two alternatives of a group: the other's sends placed too.
  schedule::Schedule two = s;
  for (const TaskIndex v : g0.alternatives[other].tasks) {
    two.tasks.push_back({w.task(v).id, core::SwitchId(0), s.makespan_ps});
  }
  const schedule::ValidationReport r2 = schedule::validate(w, two);
  EXPECT_FALSE(r2.ok());
  EXPECT_NE(r2.to_string().find("but the schedule chose"), std::string::npos) << r2.to_string();

  // A mix: the schedule says the other alternative, its sends are the first's.
  schedule::Schedule mixed = s;
  mixed.choice[0] = g0.alternatives[other].name;
  EXPECT_FALSE(schedule::validate(w, mixed).ok());

  // None: the chosen alternative's sends removed.
  schedule::Schedule none = s;
  std::erase_if(none.tasks, [&](const schedule::TaskAssignment& a) {
    const auto alt = w.alternative_of(*w.find(a.task_id));
    return alt && alt->first == 0;
  });
  EXPECT_FALSE(schedule::validate(w, none).ok());

  // No choice, or a choice that does not fit.
  schedule::Schedule without = s;
  without.choice.clear();
  EXPECT_NE(schedule::validate(w, without).to_string().find("choice: "), std::string::npos);
  schedule::Schedule unknown = s;
  unknown.choice[3] = "bruteforce";
  EXPECT_NE(schedule::validate(w, unknown).to_string().find("no such alternative"),
            std::string::npos);
  schedule::Schedule short_choice = s;
  short_choice.choice.pop_back();
  EXPECT_FALSE(schedule::validate(w, short_choice).ok());
}

TEST(Choice, SimulatesTheChosenSends) {
  const core::Workload w = workload::generate_llama(small_job(workload::Algorithm::kAuto));
  const core::System sys = sched::testing::system_with(10'000'000, 2);
  for (const char* name : {"flux", "rotornet", "bvn", "ideal"}) {
    SCOPED_TRACE(name);
    const schedule::Schedule s = sched::run_scheduler(name, w, sys, limit(2));
    ASSERT_EQ(s.choice.size(), w.choices().size());
    const core::Workload resolved = core::resolve(w, core::choice_from_names(w, s.choice));
    schedule::Schedule plain = s;
    plain.choice.clear();
    EXPECT_EQ(sim::simulate(w, s).metrics.iteration_time_ps,
              sim::simulate(resolved, plain).metrics.iteration_time_ps);
  }
  // A fixed choice: every group its ring.
  const schedule::Schedule ring = sched::run_scheduler("greedy", w, sys, fixed("ring"));
  EXPECT_EQ(core::describe_choice(w, core::choice_from_names(w, ring.choice)), "ring 16");
  EXPECT_NE(test::error_of([&] {
              (void)sched::run_scheduler("greedy", w, sys, fixed("bruck"));
            }).find("no collective of the workload"),
            std::string::npos);
}

// Tiny random instances with one or two groups: every scheduler against the
// brute force of every choice; every bound at or below it.
core::Workload tiny_with_choices(std::uint64_t seed) {
  using sched::testing::Lcg;
  Lcg rng{seed};
  const std::uint32_t ranks = 3 + rng.next(2);
  workload::WorkloadBuilder b("tiny" + std::to_string(seed), ranks);
  const auto send = [&](std::uint64_t scale) {
    const std::uint32_t src = rng.next(ranks);
    std::uint32_t dst = rng.next(ranks - 1);
    if (dst >= src) ++dst;
    return b.add_send(Rank(src), Rank(dst), scale * (1 + rng.next(4)));
  };
  const TaskIndex before = send(1000);
  const std::uint32_t groups = 1 + rng.next(2);
  std::vector<TaskIndex> ends;
  for (std::uint32_t g = 0; g < groups; ++g) {
    core::ChoiceGroup group;
    for (std::uint32_t a = 0; a < 2; ++a) {
      core::Alternative& alt = group.alternatives.emplace_back();
      alt.name = a == 0 ? "one" : "two";
      TaskIndex prev = before;
      for (std::uint32_t k = 0; k <= a; ++k) {
        const TaskIndex v = send(a == 0 ? 2000 : 1000);
        b.add_dep(prev, v, rng.next(3) * 2000);
        alt.tasks.push_back(v);
        prev = v;
      }
      ends.push_back(prev);
    }
    b.add_choice(std::move(group));
  }
  const TaskIndex after = send(1000);
  for (const TaskIndex e : ends) b.add_dep(e, after, rng.next(2) * 3000);
  return std::move(b).build();
}

TEST(Choice, SchedulersAndBoundsMatchBruteForceOverChoices) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const core::Workload w = tiny_with_choices(seed);
    core::System sys = sched::testing::system_with(static_cast<TimePs>(seed % 3) * 1'000'000,
                                                   1 + static_cast<std::uint32_t>(seed % 2));
    sys.link_gbps = 8;
    TimePs best = core::kMaxTimePs;
    for (std::uint64_t i = 0; i < core::choice_count(w); ++i) {
      best = std::min(best, sched::testing::brute_force(
                                core::resolve(w, sched::choice::nth_choice(w, i)), sys));
    }
    EXPECT_LE(sched::choice::choice_lower_bound(w, sys), best);
    for (const char* name : {"flux", "flux-milp"}) {
      SCOPED_TRACE(name);
      const schedule::Schedule s = sched::run_scheduler(name, w, sys, limit(10));
      EXPECT_EQ(s.makespan_ps, best);
      ASSERT_TRUE(s.lower_bound_ps.has_value());
      EXPECT_LE(*s.lower_bound_ps, best);
    }
    const schedule::Schedule g = sched::run_scheduler("greedy", w, sys, {});
    EXPECT_GE(g.makespan_ps, best);
  }
}

TEST(Choice, SearchBoundHoldsOnAGeneratedJob) {
  // Too many choices to try them all: the search, and a bound at or below
  // the best fixed algorithm's schedule.
  const core::Workload w = workload::generate_llama(small_job(workload::Algorithm::kAuto));
  const core::System sys = sched::testing::system_with(10'000'000, 2);
  const schedule::Schedule s = sched::run_scheduler("flux", w, sys, limit(2));
  ASSERT_TRUE(s.lower_bound_ps.has_value());
  TimePs best_fixed = core::kMaxTimePs;
  for (const char* a : {"ring", "direct", "halving-doubling"}) {
    best_fixed =
        std::min(best_fixed, sched::run_scheduler("flux", w, sys, fixed(a, 2)).makespan_ps);
  }
  EXPECT_LE(s.makespan_ps, best_fixed);
  EXPECT_LE(*s.lower_bound_ps, s.makespan_ps);
  // A scheduler that finishes in time is run on every uniform choice too:
  // never behind a fixed algorithm.
  const TimePs greedy = sched::run_scheduler("greedy", w, sys, {}).makespan_ps;
  for (const char* a : {"ring", "direct", "halving-doubling"}) {
    EXPECT_LE(greedy, sched::run_scheduler("greedy", w, sys, fixed(a)).makespan_ps) << a;
  }
  // The choice-aware bound beats the common part's.
  EXPECT_GT(sched::choice::choice_lower_bound(w, sys), 10'000'000'000);  // > 10 ms
}

}  // namespace
}  // namespace flux
