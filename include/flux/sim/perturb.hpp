#pragma once
// Seeded perturbations of a workload's compute (docs/model.md, "Perturbed
// runs"): lognormal jitter on every compute duration and straggling ranks.
//
// Common random numbers: the factor of a duration depends only on (seed,
// trial, what the duration is: an edge's task ids, a task's release or tail),
// never on a schedule, so two schedulers' trial k see the same compute.
//
// Draw. key = splitmix64_mix chained over (seed, trial, kind, id1, id2);
// x1 = splitmix64(key), x2 = splitmix64(key + gamma) (the first two draws of
// a splitmix64 generator seeded with key); u_i = ((x_i >> 11) + 0.5) * 2^-53
// in (0, 1); z = sqrt(-2 ln u1) cos(2 pi u2) (Box-Muller), a standard normal.
// Jitter with coefficient of variation cv: factor = exp(mu + sigma z) with
// sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2 (mean 1, CV cv). A straggler's
// durations are further multiplied by its factor. A duration d becomes
// llround(d * factor) ps, range-checked against core::kMaxTimePs.
//
// Whose compute: an edge u -> v is computed by v's source rank (the GPU that
// computes before sending v); a release of v by v's source; a tail of v by
// v's destination (the GPU that computes after receiving v).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "flux/core/numbers.hpp"
#include "flux/core/option.hpp"
#include "flux/core/workload.hpp"

namespace flux::sim {

struct Straggler {
  std::uint32_t rank = 0;
  double factor = 1;  ///< > 0: every compute duration of the rank is scaled by it
};

struct Perturbation {
  /// Coefficient of variation of the lognormal compute factor, a fraction
  /// (0.05 for --compute-jitter 5% or 0.05); 0: no jitter.
  double compute_jitter = 0;
  std::optional<Straggler> straggler;
  std::uint64_t seed = 0;

  [[nodiscard]] bool any() const { return compute_jitter > 0 || straggler.has_value(); }
  /// Throws core::InputError naming the field (compute_jitter, seed, straggler).
  void validate() const;
};

/// The largest compute jitter, a fraction (1000%).
inline constexpr double kMaxComputeJitter = 10;

/// The largest straggler factor.
inline constexpr double kMaxStragglerFactor = 1000;

/// A straggler's factor and its bounds, (0, kMaxStragglerFactor]
/// (core/option.hpp): one source for --straggler RANK:FACTOR (flux simulate),
/// --straggler-factors (flux evaluate) and the sweep axis straggler_factor.
inline constexpr core::NumberOption<Straggler, double> kStragglerFactorOption{
    "factor",
    "--straggler",
    "the straggler's compute x this (1: none)",
    &Straggler::factor,
    0.0,
    kMaxStragglerFactor,
    true};

/// The perturbation's numeric options (core/option.hpp); the straggler is
/// RANK:FACTOR text (parse_straggler).
inline constexpr auto kPerturbationOptions = std::tuple{
    core::NumberOption<Perturbation, double>{
        "compute_jitter", "--compute-jitter",
        "lognormal jitter on every compute duration: its coefficient of variation, a fraction "
        "or a percentage (0.05 or 5%; a bare number must be below 1)",
        &Perturbation::compute_jitter, 0.0, kMaxComputeJitter, false, false,
        core::OptionUnit::kFraction},
    core::NumberOption<Perturbation, std::uint64_t>{
        "seed", "--perturb-seed",
        "seed of the perturbations (trial k of every schedule draws the same compute)",
        &Perturbation::seed, 0, core::kMaxSeed},
};

/// A compute jitter as text, by core::parse_fraction's rule: "5%" or "0.05"
/// -> 0.05, at most 1000%. Throws core::InputError naming `field`: not a
/// number, negative, beyond 1000%, a bare number of 1 or more (ambiguous).
double parse_percent(std::string_view field, const std::string& text);
/// "RANK:FACTOR" (e.g. "3:1.5"). Throws core::InputError naming the field straggler.
Straggler parse_straggler(const std::string& text);

/// A standard normal draw for (seed, trial, kind, a, b) (formula above).
double normal_draw(std::uint64_t seed, std::uint64_t trial, std::uint64_t kind, std::uint64_t a,
                   std::uint64_t b);
/// The jitter factor for that key: exp(mu + sigma z), mean 1, CV `cv`.
double jitter_factor(double cv, std::uint64_t seed, std::uint64_t trial, std::uint64_t kind,
                     std::uint64_t a, std::uint64_t b);

/// `w` with every compute duration perturbed for trial `trial`. Throws
/// core::InputError: the straggler's rank is not an accelerator of `w`, a
/// perturbed duration is beyond core::kMaxTimePs.
core::Workload perturb(const core::Workload& w, const Perturbation& p, std::uint64_t trial);

}  // namespace flux::sim
