// The registry (include/flux/sched/scheduler.hpp): every scheduler by name,
// run alike through run_scheduler (inputs validated, output validated),
// refusing what it cannot do, deterministic for the same input and seed.
#include <gtest/gtest.h>

#include <algorithm>

#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/llama.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::kPsPerUs;

SchedulerOptions quick() {
  SchedulerOptions o;
  o.time_limit_s = 20;
  o.search_moves = 500;
  return o;
}

// The same schedule (solve time aside).
void expect_same_schedule(const schedule::Schedule& a, const schedule::Schedule& b) {
  EXPECT_EQ(a.makespan_ps, b.makespan_ps);
  EXPECT_EQ(a.lower_bound_ps, b.lower_bound_ps);
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    EXPECT_EQ(a.tasks[i].sw, b.tasks[i].sw);
    EXPECT_EQ(a.tasks[i].start_ps, b.tasks[i].start_ps);
  }
  ASSERT_EQ(a.timelines.size(), b.timelines.size());
  for (std::size_t k = 0; k < a.timelines.size(); ++k) {
    EXPECT_EQ(a.timelines[k].circuits.size(), b.timelines[k].circuits.size());
  }
}

TEST(Registry, NamesAreStableAndEachMakesItself) {
  const std::vector<std::string_view> want = {"flux",         "flux-milp", "greedy", "rotornet",
                                              "rotornet-vlb", "bvn",       "ideal"};
  EXPECT_EQ(scheduler_names(), want);
  for (std::string_view name : want) {
    const auto s = make_scheduler(name);
    EXPECT_EQ(s->name(), name);
    EXPECT_FALSE(s->description().empty());
  }
}

TEST(Registry, UnknownNameListsTheKnownOnes) {
  try {
    (void)make_scheduler("gurobi");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "scheduler");
    EXPECT_EQ(e.value(), "gurobi");
    EXPECT_NE(e.problem().find("known: flux, flux-milp, greedy"), std::string::npos) << e.what();
  }
}

// Every scheduler, on a random DAG and on the paper's workload: a schedule
// the validator accepts, named after its scheduler; task-level ones place
// every send and never beat the critical path.
TEST(Registry, EverySchedulerRunsAlikeAndValidates) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 2;
  c.dp = 2;
  const std::vector<core::Workload> workloads = {testing::random_dag(7, 10, 4),
                                                 workload::generate_llama(c)};
  for (const core::Workload& w : workloads) {
    const core::System sys = testing::system_with(10 * kPsPerUs, 2);
    const auto ideal = run_scheduler("ideal", w, sys, quick());
    for (std::string_view name : scheduler_names()) {
      SCOPED_TRACE(std::string(name) + " on " + w.name());
      const schedule::Schedule s = run_scheduler(name, w, sys, quick());
      EXPECT_EQ(s.scheduler, name);
      EXPECT_NO_THROW(schedule::check_schedule(w, s));
      if (make_scheduler(name)->task_level()) {
        EXPECT_EQ(s.tasks.size(), w.num_tasks());
        EXPECT_GE(s.makespan_ps, ideal.makespan_ps);
        ASSERT_TRUE(s.lower_bound_ps.has_value());
        EXPECT_LE(*s.lower_bound_ps, s.makespan_ps);
      }
    }
  }
}

TEST(Registry, BadOptionsOrSystemAreRefusedBeforeRunning) {
  const core::Workload w = testing::random_dag(3, 6, 3);
  SchedulerOptions o = quick();
  o.threads = 0;
  for (std::string_view name : scheduler_names()) {
    EXPECT_THROW((void)run_scheduler(name, w, testing::system_with(0, 2), o), core::InputError);
    EXPECT_THROW((void)run_scheduler(name, w, testing::system_with(0, 0), quick()),
                 core::InputError);
  }
}

// A fold stands for copies of itself; only schedulers whose circuits do not
// depend on the number of accelerators accept it.
TEST(Registry, FoldsAreRefusedByTheSchedulersThatCannotLiftThem) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 2;
  c.dp = 8;
  c.fold_dp = 4;
  const core::Workload w = workload::generate_llama(c);
  ASSERT_TRUE(w.fold().folded());
  for (std::string_view name : scheduler_names()) {
    SCOPED_TRACE(std::string(name));
    const bool lifts = make_scheduler(name)->schedules_folded();
    EXPECT_EQ(lifts, name != "rotornet" && name != "rotornet-vlb" && name != "bvn");
    if (lifts) {
      EXPECT_NO_THROW((void)run_scheduler(name, w, testing::system_with(kPsPerUs, 2), quick()));
    } else {
      EXPECT_THROW((void)run_scheduler(name, w, testing::system_with(kPsPerUs, 2), quick()),
                   core::InputError);
    }
  }
}

// Same input and seed, same schedule (solve time aside).
TEST(Registry, SameInputAndSeedSameSchedule) {
  const core::Workload w = testing::random_dag(11, 14, 5);
  const core::System sys = testing::system_with(20 * kPsPerUs, 2);
  for (std::string_view name : scheduler_names()) {
    SCOPED_TRACE(std::string(name));
    expect_same_schedule(run_scheduler(name, w, sys, quick()),
                         run_scheduler(name, w, sys, quick()));
  }
}

// A value other than the default, within the option's bounds.
template <class Option, class T>
T other_value(const Option& option, T def) {
  for (T v : {option.min, option.max, static_cast<T>(def / 2), static_cast<T>(def + 1)}) {
    if (v != def && option.contains(v)) return v;
  }
  ADD_FAILURE() << option.flag << ": no other value";
  return def;
}

// Calls f(flag, options) for every option of the tables set to a value other
// than its default (on top of `base`).
template <class F>
void for_each_changed_option(const SchedulerOptions& base, F&& f) {
  const auto each = [&](const auto& table, auto member_of) {
    core::for_each_option(table, [&](const auto& option) {
      if (honoured_by_all(option.flag)) return;
      SchedulerOptions o = base;
      auto& field = member_of(o).*option.member;
      if constexpr (requires { option.min; }) {
        field = other_value(option, field);
      } else {
        field = !field;
      }
      f(option.flag, o);
    });
  };
  each(kSchedulerOptions, [](SchedulerOptions& o) -> SchedulerOptions& { return o; });
  each(kMilpOptions, [](SchedulerOptions& o) -> MilpOptions& { return o.milp; });
}

// What options_read() leaves out is ignored indeed: a changed value gives
// the same schedule; and it is what check_options_read refuses, naming the
// schedulers that read it. What it lists is accepted.
TEST(Registry, OptionsNotReadAreIgnoredAndRefused) {
  const core::Workload w = testing::random_dag(5, 9, 4);
  const core::System sys = testing::system_with(20 * kPsPerUs, 2);
  std::size_t ignored = 0;
  for (std::string_view name : scheduler_names()) {
    SCOPED_TRACE(std::string(name));
    const auto scheduler = make_scheduler(name);
    const auto read = scheduler->options_read();
    const std::vector<std::string> just{std::string(name)};
    const auto a = run_scheduler(name, w, sys, quick());
    for_each_changed_option(
        SchedulerOptions{}, [&](std::string_view flag, const SchedulerOptions& o) {
          SCOPED_TRACE(std::string(flag));
          if (std::find(read.begin(), read.end(), flag) != read.end()) {
            EXPECT_NO_THROW(check_options_read(just, o));
            return;
          }
          try {
            check_options_read(just, o);
            ADD_FAILURE() << "not refused";
          } catch (const core::InputError& e) {
            EXPECT_EQ(e.field(), flag);
            EXPECT_NE(e.problem().find("only (not " + std::string(name) + ")"), std::string::npos)
                << e.what();
          }
        });
    for_each_changed_option(quick(), [&](std::string_view flag, const SchedulerOptions& o) {
      if (std::find(read.begin(), read.end(), flag) != read.end()) return;
      SCOPED_TRACE(std::string(flag));
      ++ignored;
      expect_same_schedule(a, run_scheduler(name, w, sys, o));
    });
  }
  EXPECT_GT(ignored, 30u);
  // Several schedulers: refused only when none of them reads it.
  SchedulerOptions o;
  o.search_moves = 5;
  EXPECT_NO_THROW(check_options_read(std::vector<std::string>{"bvn", "flux"}, o));
  try {
    check_options_read(std::vector<std::string>{"bvn", "rotornet"}, o);
    ADD_FAILURE() << "not refused";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--moves = 5: applies to --scheduler flux, flux-milp only (not bvn, rotornet)");
  }
  o.milp.export_path = "m.lp";
  EXPECT_THROW(check_options_read(std::vector<std::string>{"flux"}, o), core::InputError);
  EXPECT_NO_THROW(check_options_read(std::vector<std::string>{}, o));  // nothing to check
}

}  // namespace
}  // namespace flux::sched
