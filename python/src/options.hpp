#pragma once
// Keyword arguments to option structs through the library's option tables
// (include/flux/core/option.hpp): one table entry gives a keyword's name
// (its flag: "--time-limit" -> time_limit; a negated flag "--no-lp-bound" ->
// lp_bound), its bounds and its help, so no option is spelled or bounded
// twice. A value out of bounds raises the InputError the CLI would print
// ("--switches = 0: must be an integer between 1 and 1048576"); a value of
// the wrong Python type raises TypeError.
//
// Numbers: int or float (an integer option takes an int). Times: seconds as
// int or float, or a string with a unit parsed as on the command line
// ("10us"); any number may also be given as the CLI's text ("5").
#include <pybind11/pybind11.h>

#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/option.hpp"
#include "flux/frontend/options.hpp"

namespace flux::python {

namespace py = pybind11;

/// The keyword of a flag: "--link-gbps" -> "link_gbps", "-v,--verbose" ->
/// "verbose", and with `negated` "--no-lp-bound" -> "lp_bound".
std::string keyword_of(std::string_view flag, bool negated = false);

/// Removes `name` from `kwargs` and returns its value (none when absent).
py::object take(py::dict& kwargs, const char* name);

/// Throws TypeError naming the first keyword left in `kwargs`, as Python
/// does for an unexpected keyword argument of `function`.
void reject_unknown(const py::dict& kwargs, std::string_view function);

/// The text of a value for messages: str(value).
std::string text_of(py::handle value);

/// A string argument (TypeError naming `name` otherwise).
std::string string_arg(py::handle value, std::string_view name);
/// A bool argument (TypeError naming `name` otherwise).
bool bool_arg(py::handle value, std::string_view name);
/// A path: a str or an os.PathLike (TypeError naming `name` otherwise).
std::string path_arg(py::handle value, std::string_view name);

namespace detail {

/// An integer within T, or nothing (out of range or not an int).
template <class T>
std::optional<T> integer_of(py::handle value) {
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value)) return std::nullopt;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow == 0) {
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0) return std::nullopt;
      if (static_cast<unsigned long long>(v) > std::numeric_limits<T>::max()) return std::nullopt;
    } else {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        return std::nullopt;
      }
    }
    return static_cast<T>(v);
  }
  if constexpr (std::is_same_v<T, unsigned long long> || std::is_same_v<T, unsigned long>) {
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(value.ptr());
      if (!PyErr_Occurred()) return static_cast<T>(u);
      PyErr_Clear();
    }
  }
  return std::nullopt;
}

}  // namespace detail

/// The value of a numeric table entry given as `value` (see the top).
template <class O>
typename O::Value number_of(const O& option, py::handle value) {
  using T = typename O::Value;
  const std::string name = keyword_of(option.flag);
  if (py::isinstance<py::str>(value))
    return frontend::parse_value(option, value.cast<std::string>());
  if (py::isinstance<py::bool_>(value) ||
      !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value))) {
    throw py::type_error(name + ": expected a number, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  const bool integer = std::is_integral_v<T> && option.unit == core::OptionUnit::kNone;
  auto bad = [&] {
    return core::InputError(
        "", std::string(option.flag), text_of(value),
        std::string(integer ? "must be an integer " : "must be ") + option.range_text());
  };
  T v{};
  if (option.unit == core::OptionUnit::kFraction) {
    // A fraction (0.05), never a percentage: that one is the string "5%".
    v = static_cast<T>(
        core::check_fraction(option.flag, value.cast<double>(), static_cast<double>(option.max)));
  } else if (option.unit != core::OptionUnit::kNone) {
    const double seconds = value.cast<double>();
    if (!core::representable_seconds(seconds)) throw bad();
    if constexpr (std::is_floating_point_v<T>) {
      v = static_cast<T>(seconds);
    } else {
      v = static_cast<T>(core::seconds_to_ps(seconds));
    }
  } else if constexpr (std::is_integral_v<T>) {
    const std::optional<T> i = detail::integer_of<T>(value);
    if (!i) throw bad();
    v = *i;
  } else {
    v = value.cast<T>();
  }
  if (!option.contains(v)) throw bad();
  return v;
}

/// Calls set(option, value) for every entry of `table` whose keyword is in
/// `kwargs`, removing it from `kwargs`; value is the entry's value type
/// (bool for a flag: the keyword's meaning, not the flag's).
template <class Table, class F>
void for_each_given(const Table& table, py::dict& kwargs, F&& set) {
  core::for_each_option(table, [&](const auto& option) {
    if (option.flag.empty()) return;
    bool negated = false;
    if constexpr (requires { option.negated; }) negated = option.negated;
    const std::string name = keyword_of(option.flag, negated);
    const py::object value = take(kwargs, name.c_str());
    if (!value) return;
    if constexpr (requires { option.min; }) {
      set(option, number_of(option, value));
    } else if constexpr (requires { option.parse; }) {
      const std::string text = string_arg(value, name);
      try {
        set(option, option.parse(text));
      } catch (const core::InputError& e) {
        throw core::InputError("", std::string(option.flag), e.value(), e.problem());
      }
    } else {
      if (!py::isinstance<py::bool_>(value)) {
        throw py::type_error(name + ": expected a bool, got " +
                             std::string(py::str(value.get_type().attr("__name__"))));
      }
      set(option, value.cast<bool>());
    }
  });
}

/// Sets the fields of `target` given in `kwargs` (and removes them).
template <class Table, class S>
void apply_options(const Table& table, S& target, py::dict& kwargs) {
  for_each_given(table, kwargs, [&](const auto& option, auto v) { target.*option.member = v; });
}

/// Like apply_options, for a struct known later (a preset the caller
/// names): each value given becomes a setter appended to `apply`.
template <class Table, class S>
void collect_options(const Table& table, std::vector<std::function<void(S&)>>& apply,
                     py::dict& kwargs) {
  for_each_given(table, kwargs, [&](const auto& option, auto v) {
    apply.push_back([option, v](S& s) { s.*option.member = v; });
  });
}

/// One line per keyword of `table`: "name: help [default; bounds]", for
/// docstrings (defaults from `defaults`).
template <class Table, class S>
std::string options_doc(const Table& table, const S& defaults) {
  std::string doc;
  core::for_each_option(table, [&](const auto& option) {
    if (option.flag.empty()) return;
    bool negated = false;
    if constexpr (requires { option.negated; }) negated = option.negated;
    doc += "    " + keyword_of(option.flag, negated) + ": ";
    if constexpr (requires { option.min; }) {
      doc += frontend::help_of(option, defaults);
    } else if constexpr (requires { option.parse; }) {
      doc += std::string(option.help) + " [default " +
             std::string(option.name(defaults.*option.member)) + "]";
    } else {
      // A negated flag's help says what turning the keyword off does.
      doc += std::string(negated ? "False: " : "") + std::string(option.help) + " [default " +
             ((defaults.*option.member) ? "True" : "False") + "]";
    }
    doc += "\n";
  });
  return doc;
}

}  // namespace flux::python
