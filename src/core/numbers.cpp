// Fractions and percentages (numbers.hpp): one rule for every surface.
#include "flux/core/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string range_problem(double max) {
  return "expected a fraction (0.05) or a percentage (5%) from 0% to " + percent_text(max);
}

std::string ambiguous_problem(const std::string& bare) {
  return "ambiguous: a bare number is a fraction below 1 (0.05 is 5%); for a percentage write " +
         bare + "%";
}

}  // namespace

double parse_fraction(std::string_view field, const std::string& text, double max) {
  std::string_view s = text;
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.remove_suffix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0) {
    throw InputError("", std::string(field), text, range_problem(max));
  }
  if (!percent && v >= 1) throw InputError("", std::string(field), text, ambiguous_problem(text));
  const double fraction = percent ? v / 100 : v;
  if (!(fraction <= max)) throw InputError("", std::string(field), text, range_problem(max));
  return fraction;
}

double check_fraction(std::string_view field, double value, double max) {
  if (!std::isfinite(value) || value < 0) {
    throw InputError("", std::string(field), number_text(value), range_problem(max));
  }
  if (value >= 1) {
    throw InputError("", std::string(field), number_text(value),
                     ambiguous_problem(number_text(value)));
  }
  if (!(value <= max)) {
    throw InputError("", std::string(field), number_text(value), range_problem(max));
  }
  return value;
}

std::string percent_text(double fraction) {
  return number_text(100 * fraction) + "%";
}

}  // namespace flux::core
