// The option tables (core/option.hpp): bounds, messages and flags, on the
// tables the library declares.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "flux/core/numbers.hpp"
#include "flux/core/option.hpp"
#include "flux/core/system.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/random.hpp"
#include "flux/workload/robust.hpp"

namespace flux::core {
namespace {

std::string error_of(const System& s) {
  try {
    s.validate();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Option, BoundsAreInclusiveOrOpenAsDeclared) {
  const auto& switches = std::get<0>(kSystemOptions);
  EXPECT_FALSE(switches.contains(0));
  EXPECT_TRUE(switches.contains(1));
  EXPECT_TRUE(switches.contains(kMaxSwitches));
  EXPECT_FALSE(switches.contains(kMaxSwitches + 1));
  const auto& link = std::get<1>(kSystemOptions);
  EXPECT_FALSE(link.contains(0.0));  // open below
  EXPECT_TRUE(link.contains(1e9));   // closed above
  EXPECT_FALSE(link.contains(std::nan("")));
  EXPECT_FALSE(link.contains(std::numeric_limits<double>::infinity()));
}

TEST(Option, RangeTextsAndMessages) {
  EXPECT_EQ(std::get<0>(kSystemOptions).range_text(), "between 1 and 1048576");
  EXPECT_EQ(std::get<1>(kSystemOptions).range_text(), "in (0, 1e9]");
  EXPECT_EQ(std::get<2>(kSystemOptions).range_text(), "between 0 and 9.2e6 s");
  EXPECT_EQ(std::get<1>(sched::kSchedulerOptions).range_text(), "in [0, 1)");
  EXPECT_EQ(std::get<3>(sched::kSchedulerOptions).range_text(),
            "between 0 and 9223372036854775807");                               // seed
  EXPECT_EQ(std::get<4>(sched::kSchedulerOptions).range_text(), "at least 0");  // moves
  System s;
  s.switches = 0;
  EXPECT_EQ(error_of(s), "switches = 0: must be an integer between 1 and 1048576");
  s = System{};
  s.link_gbps = -1;
  EXPECT_EQ(error_of(s), "link_gbps = -1: must be in (0, 1e9]");
  s = System{};
  s.reconfig_delay_ps = -5;
  EXPECT_EQ(error_of(s), "reconfig_delay = -5 ps: must be between 0 and 9.2e6 s");
  s = System{};
  EXPECT_EQ(error_of(s), "");
}

TEST(Option, FlagsOfFields) {
  EXPECT_EQ(flag_of(kSystemOptions, "reconfig_delay"), "--tau");
  EXPECT_EQ(flag_of(sched::kSchedulerOptions, "time_limit"), "--time-limit");
  EXPECT_EQ(flag_of(workload::kTrainingOptions, "micro_batches"), "--micro-batches");
  EXPECT_EQ(flag_of(kSystemOptions, "nonesuch"), "");
}

TEST(Option, EveryStructChecksItsTable) {
  sched::SchedulerOptions o;
  o.threads = 257;
  EXPECT_THROW(o.validate(), InputError);
  o = sched::SchedulerOptions{};
  o.duty_cycle = 1;
  EXPECT_THROW(o.validate(), InputError);
  o.duty_cycle = 0.5;
  EXPECT_NO_THROW(o.validate());
  sim::SimOptions so;
  so.mtu_bytes = 0;
  EXPECT_THROW(so.validate(), InputError);
  workload::TrainingConfig t;
  t.tp = 2;
  t.seq = (1u << 24) + 1;
  EXPECT_THROW(t.validate(), InputError);
  t.seq = 1u << 24;
  EXPECT_NO_THROW(t.validate());
  t.model.layers = 0;
  EXPECT_THROW(t.validate(), InputError);
}

}  // namespace
}  // namespace flux::core

namespace flux {
namespace {

// One meaning per number (core/numbers.hpp): a fraction is a fraction, a
// percentage says %, a bare number of 1 or more is ambiguous.
TEST(Numbers, FractionsAndPercentages) {
  EXPECT_DOUBLE_EQ(core::parse_fraction("f", "0.05", 10), 0.05);
  EXPECT_DOUBLE_EQ(core::parse_fraction("f", "5%", 10), 0.05);
  EXPECT_DOUBLE_EQ(core::parse_fraction("f", "150%", 10), 1.5);
  EXPECT_DOUBLE_EQ(core::parse_fraction("f", "0", 10), 0);
  EXPECT_DOUBLE_EQ(core::check_fraction("f", 0.05, 10), 0.05);
  auto problem = [](auto f) -> std::string {
    try {
      f();
    } catch (const core::InputError& e) {
      return e.field() + " = " + e.value() + ": " + e.problem();
    }
    return "no error";
  };
  const std::string ambiguous =
      "ambiguous: a bare number is a fraction below 1 (0.05 is 5%); for a percentage write ";
  EXPECT_EQ(problem([] { (void)core::parse_fraction("f", "5", 10); }),
            "f = 5: " + ambiguous + "5%");
  EXPECT_EQ(problem([] { (void)core::parse_fraction("f", "1", 10); }),
            "f = 1: " + ambiguous + "1%");
  EXPECT_EQ(problem([] { (void)core::check_fraction("f", 5, 10); }), "f = 5: " + ambiguous + "5%");
  for (const char* bad : {"-1%", "-0.1", "5%%", "nan", "nan%", "inf%", "", "%", "0x5%", "1001%"}) {
    EXPECT_EQ(problem([&] { (void)core::parse_fraction("f", bad, 10); }),
              "f = " + std::string(bad) +
                  ": expected a fraction (0.05) or a percentage (5%) from 0% to 1000%")
        << bad;
  }
  EXPECT_EQ(problem([] { (void)core::check_fraction("f", -0.5, 10); }).substr(0, 13),
            "f = -0.5: exp");
  EXPECT_EQ(core::percent_text(0.05), "5%");
  EXPECT_EQ(core::percent_text(0.07), "7%");
  EXPECT_EQ(core::percent_text(0.125), "12.5%");
  // The option unit shows and bounds in percent.
  const auto& robust = std::get<0>(workload::kRobustPlanningOptions);
  EXPECT_EQ(robust.range_text(), "between 0% and 1000%");
  EXPECT_EQ(std::get<0>(sim::kPerturbationOptions).range_text(), "between 0% and 1000%");
}

// Every seed option takes the same range, 0 to kMaxSeed (2^63 - 1).
TEST(Numbers, OneSeedRange) {
  std::vector<std::uint64_t> maxima;
  auto seeds = [&](const auto& table) {
    core::for_each_option(table, [&](const auto& option) {
      if constexpr (requires { option.min; }) {
        if (option.field == "seed") maxima.push_back(static_cast<std::uint64_t>(option.max));
      }
    });
  };
  seeds(sched::kSchedulerOptions);
  seeds(sim::kPerturbationOptions);
  seeds(workload::kRandomOptions);
  ASSERT_EQ(maxima.size(), 3u);
  for (const std::uint64_t m : maxima) EXPECT_EQ(m, core::kMaxSeed);
  EXPECT_EQ(core::kMaxSeed, 9223372036854775807ull);
}

}  // namespace
}  // namespace flux
