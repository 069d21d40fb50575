#pragma once
// One source of truth per option. Every options struct (System,
// SchedulerOptions, TrainingConfig, ...) has one table, declared beside it,
// whose entries carry the field's name (as errors and files say it), its
// command-line flag, its help and its bounds. The struct's validate() checks
// the bounds from the table; the front ends (flux/frontend/options.hpp: the
// CLI's flags, Python's keywords) build their help texts and value parsing
// from the same table, so a bound or a help text is written once.
//
//   inline constexpr auto kSystemOptions = std::tuple{
//       core::NumberOption<System, std::uint32_t>{"switches", "--switches",
//           "number of optical circuit switches (s)", &System::switches, 1, 1 << 20},
//       ...};
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "flux/core/error.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/time.hpp"

namespace flux::core {

/// How a number is written on the command line and in messages.
enum class OptionUnit : std::uint8_t {
  kNone,         ///< a plain number
  kPicoseconds,  ///< a TimePs field; written as a duration with a unit ("10us")
  kSeconds,      ///< a double field of seconds; written as a duration with a unit
  kFraction,     ///< a double fraction; written "5%" or 0.05 (core/numbers.hpp)
};

/// A numeric field of S with inclusive bounds [min, max], or open ones
/// where `min_open` / `max_open` say so (for doubles).
template <class S, class T>
struct NumberOption {
  using Struct = S;
  using Value = T;
  std::string_view field;  ///< as errors name it: "link_gbps"
  std::string_view flag;   ///< on the command line: "--link-gbps"
  std::string_view help;
  T S::*member;
  T min;
  T max;
  bool min_open = false;
  bool max_open = false;
  OptionUnit unit = OptionUnit::kNone;

  [[nodiscard]] bool contains(T v) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v)) return false;
    }
    return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max);
  }

  /// A value as messages and help texts show it.
  [[nodiscard]] std::string show(T v) const {
    if (unit == OptionUnit::kFraction) return percent_text(static_cast<double>(v));
    if (unit != OptionUnit::kNone) {
      // Seconds from 1e5 on as "9.2e6 s", as the time range's message has it.
      const double seconds =
          unit == OptionUnit::kSeconds ? static_cast<double>(v) : static_cast<double>(v) / 1e12;
      if (v == 0) return "0";
      if (!std::isfinite(seconds) || std::fabs(seconds) >= 1e5) {
        return NumberOption<S, double>::show_number(seconds) + " s";
      }
      return format_duration(unit == OptionUnit::kSeconds ? seconds_to_ps(seconds)
                                                          : static_cast<TimePs>(v));
    }
    return show_number(v);
  }

  /// "between 1 and 1048576", "in (0, 1)", "at least 0".
  [[nodiscard]] std::string range_text() const {
    const bool unbounded = !max_open && max == max_value();
    if (unbounded) return std::string(min_open ? "greater than " : "at least ") + show(min);
    if (!min_open && !max_open) return "between " + show(min) + " and " + show(max);
    return std::string("in ") + (min_open ? "(" : "[") + show(min) + ", " + show(max) +
           (max_open ? ")" : "]");
  }

  /// Throws InputError naming the field when the value of `s` is out of bounds.
  void check(const S& s) const {
    const T v = s.*member;
    if (!contains(v)) {
      const char* kind =
          std::is_integral_v<T> && unit == OptionUnit::kNone ? "must be an integer " : "must be ";
      throw InputError("", std::string(field), show(v), kind + range_text());
    }
  }

  /// A number as messages show it: integers in full, others as %g with a
  /// short exponent ("1e9").
  static std::string show_number(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
      std::string s = buf;  // "1e+09" -> "1e9", "1e-05" -> "1e-5"
      if (const auto e = s.find('e'); e != std::string::npos) {
        std::size_t digits = e + 1;
        if (s[digits] == '+') s.erase(digits, 1);
        if (s[digits] == '-') ++digits;
        while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
      }
      return s;
    } else {
      return std::to_string(v);
    }
  }

 private:
  static constexpr T max_value() {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(1e300);
    } else {
      return static_cast<T>(~static_cast<std::make_unsigned_t<T>>(0) >>
                            (std::is_signed_v<T> ? 1 : 0));
    }
  }
};

/// A yes/no field of S, set by a flag; `negated`: the flag turns it off
/// ("--no-lp-bound" for lp_bound).
template <class S>
struct FlagOption {
  using Struct = S;
  std::string_view flag;
  std::string_view help;
  bool S::*member;
  bool negated = false;
};

/// A field of S chosen by name from a fixed set (an enum): `parse` maps a
/// name to its value (throwing InputError naming `field` for another name),
/// `name` maps a value back (a view of a static name for an enum, a string
/// for a value that carries text).
template <class S, class E, class Name = std::string_view (*)(E)>
struct ChoiceOption {
  using Struct = S;
  using Value = E;
  std::string_view field;
  std::string_view flag;
  std::string_view help;
  E S::*member;
  E (*parse)(std::string_view);
  Name name;
};

/// Calls f on every entry of a table (a std::tuple of options).
template <class Table, class F>
constexpr void for_each_option(const Table& table, F&& f) {
  std::apply([&](const auto&... option) { (f(option), ...); }, table);
}

/// Checks every numeric entry of `table` on `s` (see NumberOption::check).
template <class Table, class S>
void check_options(const Table& table, const S& s) {
  for_each_option(table, [&](const auto& option) {
    if constexpr (requires { option.min; }) option.check(s);
  });
}

/// The flag of the entry whose field is `field` ("" when none is).
template <class Table>
std::string_view flag_of(const Table& table, std::string_view field) {
  std::string_view flag;
  for_each_option(table, [&](const auto& option) {
    if constexpr (requires { option.field; }) {
      if (option.field == field) flag = option.flag;
    }
  });
  return flag;
}

}  // namespace flux::core
