#pragma once
// Option values as every front end reads them (the command line, the Python
// bindings), through the library's option tables
// (include/flux/core/option.hpp): a table entry gives the flag, the help
// text, the bounds and how a value is written, so no option is spelled or
// bounded twice and a bad value reads the same everywhere: "--switches = -1:
// must be an integer between 1 and 1048576".
#include <charconv>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "flux/core/error.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/option.hpp"
#include "flux/core/time.hpp"

namespace flux::frontend {

/// Parses `text` as a value of `option` and checks its bounds; throws
/// core::InputError naming the flag.
template <class O>
typename O::Value parse_value(const O& option, const std::string& text) {
  using T = typename O::Value;
  T v{};
  bool ok = false;
  if (option.unit == core::OptionUnit::kFraction) {
    // "5%" or a fraction below 1; the rule's own message (core/numbers.hpp).
    v = static_cast<T>(core::parse_fraction(option.flag, text, static_cast<double>(option.max)));
    ok = true;
  } else if (option.unit != core::OptionUnit::kNone) {
    const core::TimePs ps = core::parse_duration(text, option.flag);
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(core::ps_to_seconds(ps));
    } else {
      v = static_cast<T>(ps);
    }
    ok = true;
  } else if constexpr (std::is_integral_v<T>) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    ok = !text.empty() && ec == std::errc() && ptr == end;
  } else {
    char* end = nullptr;
    v = static_cast<T>(std::strtod(text.c_str(), &end));
    ok = !text.empty() && end == text.c_str() + text.size() &&
         text.find_first_of(" \t") == std::string::npos;
  }
  if (!ok || !option.contains(v)) {
    const char* kind = std::is_integral_v<T> && option.unit == core::OptionUnit::kNone
                           ? "must be an integer "
                           : "must be ";
    throw core::InputError("", std::string(option.flag), text, kind + option.range_text());
  }
  return v;
}

/// The help text of an entry: its help, default and bounds.
template <class O>
std::string help_of(const O& option, const typename O::Struct& defaults) {
  if constexpr (requires { option.min; }) {
    return std::string(option.help) + " [default " + option.show(defaults.*option.member) + "; " +
           option.range_text() + "]";
  } else {
    return std::string(option.help);
  }
}

/// The error `e` of a validate() naming its field, renamed to the flag that
/// sets it in the first of `tables` that knows the field; a field none knows
/// becomes "--field-name".
template <class... Tables>
core::InputError option_error(const core::InputError& e, const Tables&... tables) {
  std::string flag;
  ((flag.empty() ? (void)(flag = std::string(core::flag_of(tables, e.field()))) : (void)0), ...);
  if (flag.empty() && e.field().starts_with("--")) flag = e.field();  // named by its flag already
  if (flag.empty()) {
    flag = "--" + e.field();
    for (char& ch : flag) ch = ch == '_' ? '-' : ch;
  }
  return core::InputError(e.source(), flag, e.value(), e.problem());
}

}  // namespace flux::frontend
