// The option tables (core/option.hpp): bounds, messages and flags, on the
// tables the library declares.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "flux/core/option.hpp"
#include "flux/core/system.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"

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
  EXPECT_EQ(std::get<3>(sched::kSchedulerOptions).range_text(), "at least 0");  // seed
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
