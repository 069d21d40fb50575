#pragma once
// Time is an integer number of picoseconds everywhere inside Flux: exact,
// deterministic arithmetic (800 Gb/s moves one byte in exactly 10 ps) and a
// range of +-106 days in an int64. Files carry seconds as doubles; they are
// rounded to the nearest picosecond when read.
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

/// Seconds (as stored in files) to picoseconds, rounded to nearest.
/// Precondition: finite and |seconds| < ~9.2e6.
TimePs seconds_to_ps(double seconds);
/// Picoseconds to seconds, for files and display.
constexpr double ps_to_seconds(TimePs ps) {
  return static_cast<double>(ps) / 1e12;
}

/// True when `seconds` is finite and its picosecond value fits an int64.
bool representable_seconds(double seconds);

/// Parses a duration with a unit: "10us", "1.5ms", "2s", "800ns", "250ps",
/// "0" (unit optional only for zero). Also accepts "µs". Throws
/// flux::core::InputError naming `what` on anything else or a negative value.
TimePs parse_duration(std::string_view text, std::string_view what = "duration");

/// Human-readable duration with an adaptive unit, e.g. "12.3 us".
std::string format_duration(TimePs ps);

}  // namespace flux::core
