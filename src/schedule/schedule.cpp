#include "flux/schedule/schedule.hpp"

#include <array>
#include <string>
#include <utility>

#include "flux/core/error.hpp"

namespace flux::schedule {
namespace {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<SolveStatus, 5> kStatusNames = {{
    {SolveStatus::kOptimal, "optimal"},
    {SolveStatus::kFeasible, "feasible"},
    {SolveStatus::kInfeasible, "infeasible"},
    {SolveStatus::kNoSolution, "no_solution"},
    {SolveStatus::kError, "error"},
}};

constexpr Names<CircuitModel, 2> kCircuitModelNames = {{
    {CircuitModel::kTimeline, "timeline"},
    {CircuitModel::kAllConnected, "all_connected"},
}};

constexpr Names<Routing, 2> kRoutingNames = {{
    {Routing::kDirect, "direct"},
    {Routing::kVlb, "vlb"},
}};

template <class E, std::size_t N>
std::string_view name_of(const Names<E, N>& names, E e) {
  for (const auto& [value, name] : names) {
    if (value == e) return name;
  }
  return "unknown";
}

// Throws core::InputError naming `field` and listing the valid names.
template <class E, std::size_t N>
E value_of(const Names<E, N>& names, std::string_view s, const char* field, const char* what) {
  std::string known;
  for (const auto& [value, name] : names) {
    if (name == s) return value;
    known += known.empty() ? "" : ", ";
    known += name;
  }
  throw core::InputError("", field, std::string(s),
                         std::string("unknown ") + what + " (one of: " + known + ")");
}

}  // namespace

std::string_view to_string(SolveStatus s) {
  return name_of(kStatusNames, s);
}

SolveStatus solve_status_from_string(std::string_view s) {
  return value_of(kStatusNames, s, "status", "status");
}

std::string_view to_string(CircuitModel m) {
  return name_of(kCircuitModelNames, m);
}

CircuitModel circuit_model_from_string(std::string_view s) {
  return value_of(kCircuitModelNames, s, "circuit_model", "circuit model");
}

std::string_view to_string(Routing r) {
  return name_of(kRoutingNames, r);
}

Routing routing_from_string(std::string_view s) {
  return value_of(kRoutingNames, s, "routing", "routing");
}

}  // namespace flux::schedule
