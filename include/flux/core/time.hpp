#pragma once
// Time is an integer number of picoseconds everywhere inside Flux: exact,
// deterministic arithmetic (800 Gb/s moves one byte in exactly 10 ps) and a
// range of +-106 days in an int64. Files carry seconds as doubles; they are
// rounded to the nearest picosecond when read.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace flux::core {

/// A duration or an instant, in picoseconds.
using TimePs = std::int64_t;

inline constexpr TimePs kPsPerNs = 1'000;
inline constexpr TimePs kPsPerUs = 1'000'000;
inline constexpr TimePs kPsPerMs = 1'000'000'000;
inline constexpr TimePs kPsPerS = 1'000'000'000'000;

/// The longest time Flux represents, 9.2e6 s (int64 picoseconds reach
/// 9.22e6 s). Every time read, computed or summed stays within [0, this]:
/// inputs are checked against it where they enter (files, options, and where
/// a workload meets a system), so inner loops need no checks.
inline constexpr TimePs kMaxTimePs = 9'200'000 * kPsPerS;
/// The one message for a time outside [0, kMaxTimePs].
inline constexpr std::string_view kTimeRangeProblem = "must be between 0 and 9.2e6 s";

/// Throws InputError naming `field`: the sum a + b is beyond kMaxTimePs.
[[noreturn]] void throw_sum_range(std::string_view field, TimePs a, TimePs b);
/// a + b for a, b <= kMaxTimePs (inline: it sits in the simulator's loop).
/// Throws InputError naming `field` when the sum is beyond kMaxTimePs.
inline TimePs add_time(TimePs a, TimePs b, std::string_view field) {
  TimePs r = 0;
  if (__builtin_add_overflow(a, b, &r) || r > kMaxTimePs) throw_sum_range(field, a, b);
  return r;
}
/// Throws InputError naming `field` and `seconds`: "takes <seconds> s, beyond
/// the 9.2e6 s Flux can represent", after `what` (e.g. "transmission at 800
/// Gb/s").
[[noreturn]] void throw_time_range(std::string_view field, std::string_view value,
                                   std::string_view what, double seconds);

/// Seconds (as stored in files) to picoseconds, rounded to nearest.
/// Precondition: representable_seconds(seconds).
TimePs seconds_to_ps(double seconds);
/// Picoseconds to seconds, for files and display.
constexpr double ps_to_seconds(TimePs ps) {
  return static_cast<double>(ps) / 1e12;
}

/// True when `seconds` is finite and |seconds| * 1e12 <= kMaxTimePs.
bool representable_seconds(double seconds);

/// Parses a duration with a unit: "10us", "1.5ms", "2s", "800ns", "250ps",
/// "0" (unit optional only for zero). Also accepts "µs". Throws
/// flux::core::InputError naming `what` on anything else or a negative value.
TimePs parse_duration(std::string_view text, std::string_view what = "duration");

/// Human-readable duration with an adaptive unit, e.g. "12.3 us".
std::string format_duration(TimePs ps);

/// Wall-clock seconds since `t0` on the steady clock: solver budgets and
/// the wall times reported beside simulated ones (never a simulated time).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace flux::core
