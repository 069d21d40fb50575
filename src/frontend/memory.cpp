// The memory a job may use (include/flux/frontend/memory.hpp).
#include "flux/frontend/memory.hpp"

#include <cmath>
#include <exception>
#include <fstream>

#include "flux/core/format.hpp"

namespace flux::frontend {
namespace {

// Default budget: this fraction of MemAvailable.
constexpr double kBudgetFraction = 0.8;

}  // namespace

std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

void refuse_if_too_large(std::uint64_t need, const core::InputError& where) {
  const std::uint64_t have = available_memory();
  if (have == 0 || need <= have) return;
  throw core::InputError(where.source(), where.field(), where.value(),
                         "the job would need about " + core::format_bytes(need) + ", and " +
                             core::format_bytes(have) + " is available: " + where.problem());
}

std::uint64_t parse_memory_budget(const std::string& text) {
  const std::uint64_t available = available_memory();
  if (text.empty())
    return static_cast<std::uint64_t>(kBudgetFraction * static_cast<double>(available));
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  if (unit.ends_with("iB") || unit.ends_with("B"))
    unit.resize(unit.size() - (unit.ends_with("iB") ? 2 : 1));
  double scale = 0;
  if (unit.empty()) scale = 1;
  if (unit == "K" || unit == "k") scale = 0x1p10;
  if (unit == "M") scale = 0x1p20;
  if (unit == "G") scale = 0x1p30;
  if (unit == "T") scale = 0x1p40;
  if (unit == "%") scale = static_cast<double>(available) / 100;
  if (used == 0 || scale == 0 || !(v > 0) || !std::isfinite(v * scale) || v * scale > 0x1p62) {
    throw core::InputError("", "--memory-budget", text,
                           "expected a size such as 8GiB, 512M or 50% (of the available memory)");
  }
  return static_cast<std::uint64_t>(v * scale);
}

}  // namespace flux::frontend
