#pragma once
// Command-line options built from the library's option tables
// (include/flux/core/option.hpp): a table entry gives the flag, the help
// text, the bounds and how a value is written, so no option is spelled or
// bounded twice. Values are parsed here, not by CLI11, so that every bad
// value gets the same one-line error: "--switches = -1: must be an integer
// between 1 and 1048576".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/option.hpp"
#include "flux/core/time.hpp"

namespace flux::cli {

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

/// What the help shows for a value: INT, NUM or TIME.
template <class O>
std::string type_name(const O& option) {
  if (option.unit == core::OptionUnit::kFraction) return "FRACTION";
  if (option.unit != core::OptionUnit::kNone) return "TIME";
  return std::is_integral_v<typename O::Value> ? "INT" : "NUM";
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

/// Adds every entry of `table` that has a flag to `app`, writing into
/// `target` (which must outlive the parse). Entries whose flag is listed in
/// `skip` are left out.
template <class Table, class S>
void add_options(CLI::App& app, const Table& table, S& target,
                 std::initializer_list<std::string_view> skip = {}) {
  core::for_each_option(table, [&](const auto& option) {
    if (option.flag.empty()) return;
    for (std::string_view s : skip) {
      if (s == option.flag) return;
    }
    const std::string flag(option.flag);
    if constexpr (requires { option.min; }) {
      app.add_option_function<std::string>(
             flag,
             [&target, option](const std::string& text) {
               target.*option.member = parse_value(option, text);
             },
             help_of(option, target))
          ->type_name(type_name(option));
    } else if constexpr (requires { option.parse; }) {
      app.add_option_function<std::string>(
             flag,
             [&target, option](const std::string& text) {
               try {
                 target.*option.member = option.parse(text);
               } catch (const core::InputError& e) {
                 throw core::InputError("", std::string(option.flag), e.value(), e.problem());
               }
             },
             std::string(option.help) + " [default " +
                 std::string(option.name(target.*option.member)) + "]")
          ->type_name("NAME");
    } else {
      app.add_flag_function(
          flag,
          [&target, option](std::int64_t count) {
            target.*option.member = option.negated ? count == 0 : count != 0;
          },
          help_of(option, target));
    }
  });
}

/// Like add_options, for a struct that is only known after parsing (a
/// preset the user names): each given value becomes a setter in `apply`,
/// run on the struct once it exists. `defaults`, when given, are shown in
/// the help; a non-empty `only` limits the entries to those flags.
template <class Table, class S>
void add_overrides(CLI::App& app, const Table& table, std::vector<std::function<void(S&)>>& apply,
                   const S* defaults = nullptr, std::initializer_list<std::string_view> only = {}) {
  core::for_each_option(table, [&](const auto& option) {
    if (option.flag.empty()) return;
    if (only.size() != 0 && std::find(only.begin(), only.end(), option.flag) == only.end()) {
      return;
    }
    if constexpr (requires { option.min; }) {
      app.add_option_function<std::string>(
             std::string(option.flag),
             [&apply, option](const std::string& text) {
               const auto v = parse_value(option, text);
               apply.push_back([option, v](S& s) { s.*option.member = v; });
             },
             defaults != nullptr ? help_of(option, *defaults)
                                 : std::string(option.help) + " [default: the preset's; " +
                                       option.range_text() + "]")
          ->type_name(type_name(option));
    }
  });
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

}  // namespace flux::cli
