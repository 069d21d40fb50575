#include <gtest/gtest.h>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"

namespace flux::core {
namespace {

TEST(Duration, ParsesEveryUnit) {
  EXPECT_EQ(parse_duration("250ps"), 250);
  EXPECT_EQ(parse_duration("800ns"), 800'000);
  EXPECT_EQ(parse_duration("10us"), 10'000'000);
  EXPECT_EQ(parse_duration("10\xC2\xB5s"), 10'000'000);
  EXPECT_EQ(parse_duration("1.5ms"), 1'500'000'000);
  EXPECT_EQ(parse_duration("2s"), 2'000'000'000'000);
  EXPECT_EQ(parse_duration("0"), 0);
  EXPECT_EQ(parse_duration("1e-6s"), 1'000'000);
}

TEST(Duration, RejectsBadText) {
  for (const char* bad : {"", "10", "ten us", "10 us", "10xs", "-1us", "nan", "1e30s"}) {
    EXPECT_THROW(parse_duration(bad, "--tau"), InputError) << bad;
  }
  try {
    parse_duration("5parsecs", "--tau");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--tau");
    EXPECT_EQ(e.value(), "5parsecs");
    EXPECT_NE(std::string(e.what()).find("unknown unit"), std::string::npos);
  }
}

// One limit, one message for durations on the command line, as in files.
TEST(Duration, OneRangeOneMessage) {
  EXPECT_EQ(parse_duration("9.2e6s", "--tau"), kMaxTimePs);
  for (const char* bad : {"-1us", "1e7s", "9.3e6s", "200000min"}) {
    try {
      parse_duration(bad, "--tau");
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.problem(), "must be between 0 and 9.2e6 s") << bad;
    }
  }
}

TEST(Duration, FormatsWithAdaptiveUnit) {
  EXPECT_EQ(format_duration(10'000'000), "10 us");
  EXPECT_EQ(format_duration(1'500'000'000), "1.5 ms");
  EXPECT_EQ(format_duration(42), "42 ps");
}

TEST(Seconds, RoundToNearestPicosecond) {
  EXPECT_EQ(seconds_to_ps(1e-5), 10'000'000);
  EXPECT_EQ(seconds_to_ps(1.4e-12), 1);
  EXPECT_EQ(seconds_to_ps(1.6e-12), 2);
  EXPECT_DOUBLE_EQ(ps_to_seconds(10'000'000), 1e-5);
  EXPECT_TRUE(representable_seconds(1e6));
  EXPECT_FALSE(representable_seconds(1e7));
  EXPECT_FALSE(representable_seconds(std::numeric_limits<double>::infinity()));
}

TEST(System, TransmissionIsExactAt800Gbps) {
  System s;  // 800 Gb/s: one byte in 8 bit / 800e9 bit/s = 10 ps
  EXPECT_EQ(s.transmission_ps(1), 10);
  EXPECT_EQ(s.transmission_ps(16 * 1024 * 1024), 167'772'160);
  EXPECT_EQ(s.transmission_ps(1'000'000'000'000ull), 10'000'000'000'000);
}

TEST(System, TransmissionRoundsUp) {
  System s;
  s.link_gbps = 3;  // 1 byte = 8/3 ns = 2666.67 ps -> 2667
  EXPECT_EQ(s.transmission_ps(1), 2667);
  EXPECT_EQ(s.transmission_ps(3), 8000);
}

TEST(System, ValidateNamesTheField) {
  System s;
  s.switches = 0;
  try {
    s.validate();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "switches");
    EXPECT_EQ(e.value(), "0");
  }
  s = System{};
  s.link_gbps = -1;
  EXPECT_THROW(s.validate(), InputError);
  s.link_gbps = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(s.validate(), InputError);
  s = System{};
  s.reconfig_delay_ps = -5;
  EXPECT_THROW(s.validate(), InputError);
  EXPECT_NO_THROW(System{}.validate());
}

}  // namespace
}  // namespace flux::core
