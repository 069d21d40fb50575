// Robust planning: the workload a plan is made for when compute jitters.
// Math at the top of include/flux/workload/robust.hpp and in docs/model.md
// ("Robust planning"): every compute duration d -> round(d * F),
// F = exp(mu + z95 sigma), sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
#include "flux/workload/robust.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include "flux/core/error.hpp"

namespace flux::workload {
namespace {

constexpr double kMaxFactor = 1000;

core::TimePs scaled(core::TimePs d, double factor, const char* field) {
  const long double v = std::round(static_cast<long double>(d) * factor);
  if (!(v <= static_cast<long double>(core::kMaxTimePs))) {
    std::ostringstream m;
    m << "planned at " << factor << "x its compute, the duration is beyond the time range";
    throw core::InputError("", field, std::to_string(d), m.str());
  }
  return static_cast<core::TimePs>(v);
}

}  // namespace

void RobustPlanning::validate() const {
  core::check_options(kRobustPlanningOptions, *this);
}

double RobustPlanning::compute_factor() const {
  return lognormal_quantile_factor(jitter, kNormalP95);
}

double lognormal_quantile_factor(double cv, double z) {
  if (cv == 0) return 1;
  const double sigma2 = std::log1p(cv * cv);
  return std::exp(-sigma2 / 2 + z * std::sqrt(sigma2));
}

core::Workload scale_compute(const core::Workload& w, double factor) {
  if (!(factor > 0 && factor <= kMaxFactor)) {
    std::ostringstream v;
    v << factor;
    throw core::InputError("", "compute_factor", v.str(), "must be in (0, 1000]");
  }
  core::WorkloadData d = w.data();
  for (core::Dep& e : d.deps) e.compute_ps = scaled(e.compute_ps, factor, "compute");
  for (core::Task& t : d.tasks) {
    t.release_ps = scaled(t.release_ps, factor, "release");
    t.tail_ps = scaled(t.tail_ps, factor, "tail");
  }
  return core::Workload(std::move(d));
}

core::Workload robust_plan_workload(const core::Workload& w, const RobustPlanning& r) {
  r.validate();
  if (!r.any()) return w;
  return scale_compute(w, r.compute_factor());
}

}  // namespace flux::workload
