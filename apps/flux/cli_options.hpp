#pragma once
// Command-line options built from the library's option tables
// (include/flux/core/option.hpp): a table entry gives the flag, the help
// text, the bounds and how a value is written, so no option is spelled or
// bounded twice. Values are parsed by the front end
// (flux::frontend::parse_value), not by CLI11, so that every bad value gets
// the same one-line error: "--switches = -1: must be an integer between 1
// and 1048576".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/option.hpp"
#include "flux/frontend/options.hpp"

namespace flux::cli {

/// What the help shows for a value: INT, NUM or TIME.
template <class O>
std::string type_name(const O& option) {
  if (option.unit == core::OptionUnit::kFraction) return "FRACTION";
  if (option.unit != core::OptionUnit::kNone) return "TIME";
  return std::is_integral_v<typename O::Value> ? "INT" : "NUM";
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
               target.*option.member = frontend::parse_value(option, text);
             },
             frontend::help_of(option, target))
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
          frontend::help_of(option, target));
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
               const auto v = frontend::parse_value(option, text);
               apply.push_back([option, v](S& s) { s.*option.member = v; });
             },
             defaults != nullptr ? frontend::help_of(option, *defaults)
                                 : std::string(option.help) + " [default: the preset's; " +
                                       option.range_text() + "]")
          ->type_name(type_name(option));
    }
  });
}

/// The option names of `table` given on `app` ("--switches, --tau"), in the
/// table's order; "" when none was given.
template <class Table>
std::string given_flags(const CLI::App& app, const Table& table) {
  std::string flags;
  core::for_each_option(table, [&](const auto& option) {
    const std::string flag(option.flag);
    if (flag.empty() || app.get_option_no_throw(flag) == nullptr || app.count(flag) == 0) return;
    flags += (flags.empty() ? "" : ", ") + flag;
  });
  return flags;
}

}  // namespace flux::cli
