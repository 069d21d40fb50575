#pragma once
// Robust planning (docs/model.md, "Robust planning"): a plan made for
// compute at its 95th percentile instead of its mean. Under the simulator's
// jitter model (sim/perturb.hpp) a compute duration d is d * exp(mu + sigma z)
// with sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2, z standard normal; its p95
// is d * exp(mu + z95 sigma), z95 = 1.6448536269514722. The transform
// multiplies every compute duration of the workload (edge compute, releases,
// tails) by that factor and rounds to the picosecond. It is scheduler-
// independent: any scheduler plans the inflated workload, and
// sched::adopt_plan() turns its schedule back into one of the real workload.
#include <tuple>

#include "flux/core/option.hpp"
#include "flux/core/workload.hpp"

namespace flux::workload {

/// The standard normal's 95th percentile.
inline constexpr double kNormalP95 = 1.6448536269514722;

struct RobustPlanning {
  /// Coefficient of variation of the compute jitter the plan protects
  /// against (0.1 for --robust-jitter 10%); 0: plan for the mean (no change).
  double jitter = 0;

  /// Throws core::InputError naming the field (bounds in kRobustPlanningOptions).
  void validate() const;
  /// The factor every compute duration is planned at: exp(mu + z95 sigma).
  [[nodiscard]] double compute_factor() const;
  [[nodiscard]] bool any() const { return jitter > 0; }
};

/// The option of robust planning (core/option.hpp): a fraction or a
/// percentage ("10%" or 0.1; core/numbers.hpp).
inline constexpr auto kRobustPlanningOptions = std::tuple{
    core::NumberOption<RobustPlanning, double>{
        "robust_jitter", "--robust-jitter",
        "plan every compute duration at its p95 under lognormal jitter of this coefficient of "
        "variation, a fraction or a percentage (0.1 or 10%; 0: plan for the mean)",
        &RobustPlanning::jitter, 0.0, 10.0, false, false, core::OptionUnit::kFraction},
};

/// exp(mu + z sigma) for a lognormal of mean 1 and coefficient of variation
/// `cv` (sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2); 1 for cv = 0.
double lognormal_quantile_factor(double cv, double z);

/// `w` with every compute duration d (edge compute, release, tail) replaced
/// by round(d * factor). Throws core::InputError naming the field
/// compute_factor when factor is not in (0, 1000], or a duration beyond
/// core::kMaxTimePs.
core::Workload scale_compute(const core::Workload& w, double factor);

/// The workload to plan on: `w` scaled by r.compute_factor() (w itself when
/// r.jitter is 0).
core::Workload robust_plan_workload(const core::Workload& w, const RobustPlanning& r);

}  // namespace flux::workload
