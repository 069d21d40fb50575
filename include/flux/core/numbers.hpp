#pragma once
// Numbers read the same way on every surface (command line, sweep files,
// Python; docs/formats.md, "Fractions, percentages and seeds"):
//
// - A fraction is a fraction: 0.05 is 5%. A percentage carries its sign:
//   "5%". A bare number of 1 or more is refused as ambiguous ("5" could mean
//   5% or 500%): the message suggests "5%". So a coefficient of variation of
//   150% is written "150%", and a fraction of 1 "100%".
// - A seed is an integer from 0 to kMaxSeed (2^63 - 1, the largest integer
//   TOML and every JSON reader hold exactly); nothing wraps or clamps.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace flux::core {

/// The largest seed any option takes (--seed, --routing-seed,
/// --perturb-seed, the sweep axes seed and routing_seed, Python's seed=).
inline constexpr std::uint64_t kMaxSeed =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

/// "5%" -> 0.05, "0.05" -> 0.05, within [0, max] (a fraction: 10 is 1000%).
/// Throws InputError naming `field`: not a number ("5%%", "nan", ""),
/// negative, beyond max, or a bare number >= 1 (ambiguous).
double parse_fraction(std::string_view field, const std::string& text, double max);

/// A fraction given as a number (Python, a TOML or JSON number): `value`
/// itself, by the same rules as a bare number in parse_fraction.
double check_fraction(std::string_view field, double value, double max);

/// A fraction as a percentage: 0.05 -> "5%", 0.125 -> "12.5%".
std::string percent_text(double fraction);

}  // namespace flux::core
