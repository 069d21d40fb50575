#include "flux/schedule/schedule.hpp"

#include <array>
#include <string>
#include <utility>

#include "flux/core/error.hpp"

namespace flux::schedule {
namespace {

constexpr std::array<std::pair<SolveStatus, std::string_view>, 5> kStatusNames = {{
    {SolveStatus::kOptimal, "optimal"},
    {SolveStatus::kFeasible, "feasible"},
    {SolveStatus::kInfeasible, "infeasible"},
    {SolveStatus::kNoSolution, "no_solution"},
    {SolveStatus::kError, "error"},
}};

}  // namespace

std::string_view to_string(SolveStatus s) {
  for (const auto& [status, name] : kStatusNames) {
    if (status == s) return name;
  }
  return "unknown";
}

SolveStatus solve_status_from_string(std::string_view s) {
  std::string names;
  for (const auto& [status, name] : kStatusNames) {
    if (name == s) return status;
    names += names.empty() ? "" : ", ";
    names += name;
  }
  throw core::InputError("", "status", std::string(s), "unknown status (one of: " + names + ")");
}

}  // namespace flux::schedule
