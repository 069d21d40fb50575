#include "flux/core/time.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {

struct Unit {
  std::string_view suffix;
  double ps;
};
constexpr std::array<Unit, 7> kUnits = {{{"ps", 1.0},
                                         {"ns", 1e3},
                                         {"us", 1e6},
                                         {"\xC2\xB5s", 1e6},  // µs
                                         {"ms", 1e9},
                                         {"s", 1e12},
                                         {"min", 60e12}}};

}  // namespace

bool representable_seconds(double seconds) {
  return std::isfinite(seconds) && std::fabs(seconds) * 1e12 <= static_cast<double>(kMaxTimePs);
}

void throw_time_range(std::string_view field, std::string_view value, std::string_view what,
                      double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", seconds);
  throw InputError(
      "", std::string(field), std::string(value),
      std::string(what) + " takes " + buf + " s, beyond the 9.2e6 s Flux can represent");
}

void throw_sum_range(std::string_view field, TimePs a, TimePs b) {
  throw_time_range(field, "", "the total", ps_to_seconds(a) + ps_to_seconds(b));
}

TimePs seconds_to_ps(double seconds) {
  return std::llround(seconds * 1e12);
}

TimePs parse_duration(std::string_view text, std::string_view what) {
  auto fail = [&](const std::string& problem) -> TimePs {
    throw InputError("", std::string(what), std::string(text), problem);
  };
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || !std::isfinite(value)) {
    return fail("expected a number with a unit, e.g. 10us, 1.5ms, 2s");
  }
  std::string_view suffix(ptr, static_cast<std::size_t>(last - ptr));
  if (value < 0) return fail(std::string(kTimeRangeProblem));
  double ps = 0;
  if (suffix.empty()) {
    if (value != 0) return fail("needs a unit (ps, ns, us, ms, s), e.g. 10us");
  } else {
    bool found = false;
    for (const Unit& u : kUnits) {
      if (suffix == u.suffix) {
        ps = value * u.ps;
        found = true;
        break;
      }
    }
    if (!found) return fail("unknown unit '" + std::string(suffix) + "' (use ps, ns, us, ms, s)");
  }
  if (ps > static_cast<double>(kMaxTimePs)) return fail(std::string(kTimeRangeProblem));
  return std::llround(ps);
}

std::string format_duration(TimePs ps) {
  const double a = std::fabs(static_cast<double>(ps));
  const char* unit = "ps";
  double scale = 1;
  if (a >= 1e12) {
    unit = "s";
    scale = 1e12;
  } else if (a >= 1e9) {
    unit = "ms";
    scale = 1e9;
  } else if (a >= 1e6) {
    unit = "us";
    scale = 1e6;
  } else if (a >= 1e3) {
    unit = "ns";
    scale = 1e3;
  }
  char buf[64];
  const double v = static_cast<double>(ps) / scale;
  // Whole values in full ("3600 s", not "3.6e+03 s"); others to 4 digits.
  if (v == std::trunc(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, unit);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g %s", v, unit);
  }
  return buf;
}

}  // namespace flux::core
