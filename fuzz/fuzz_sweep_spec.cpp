// libFuzzer target: the readers of a sweep file (src/sweep/spec.cpp: TOML
// through toml++, JSON through nlohmann with its depth and duplicate-key
// watch) and the filter language (src/sweep/expr.cpp: its parser, name
// check and evaluator). The first byte chooses: 0 mod 3 a TOML sweep file,
// 1 a JSON one, 2 a filter. Every input must be read (and a small sweep's
// points built, a filter evaluated) or refused with core::InputError; a
// crash, a hang or any other exception is a finding.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flux/core/error.hpp"
#include "flux/sweep/expr.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/spec.hpp"

namespace {

// Building a point sets up its job (the layout's estimate): a few only.
constexpr std::size_t kMaxFuzzPoints = 16;

void sweep_file(std::string_view text, bool json) {
  const flux::sweep::SweepSpec spec =
      flux::sweep::SweepSpec::parse(text, json ? "f.json" : "f.toml", json);
  std::size_t product = 1;
  for (const flux::sweep::Axis& a : spec.axes) {
    product *= a.values.size();
    if (product > kMaxFuzzPoints) return;
  }
  for (const flux::sweep::Point& p : spec.points()) (void)flux::sweep::csv_row(spec, p, {});
  (void)flux::sweep::csv_header(spec);
}

void filter(std::string_view text) {
  const flux::sweep::Expr e = flux::sweep::Expr::parse(text, "filter");
  const auto lookup = [](std::string_view name) -> std::optional<flux::sweep::ExprValue> {
    if (name == "scheduler") return flux::sweep::ExprValue{true, 0, "flux"};
    if (name == "tp") return flux::sweep::ExprValue{false, 8, {}};
    if (name == "big") return flux::sweep::ExprValue{false, INT64_MIN, {}};
    return std::nullopt;
  };
  e.check_names(lookup);
  (void)e.holds(lookup);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        sweep_file(text, false);
        break;
      case 1:
        sweep_file(text, true);
        break;
      default:
        filter(text);
        break;
    }
  } catch (const flux::core::InputError&) {
    // refused: fine
  }
  return 0;
}
