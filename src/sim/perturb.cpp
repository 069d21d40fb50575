// Seeded compute perturbations: the draw and its parametrisation are at the
// top of include/flux/sim/perturb.hpp and in docs/model.md ("Perturbed runs").
#include "flux/sim/perturb.hpp"

#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>

#include "flux/core/error.hpp"
#include "flux/core/hash.hpp"

namespace flux::sim {
namespace {

// Kinds of durations (part of the draw's key).
constexpr std::uint64_t kEdge = 1;
constexpr std::uint64_t kRelease = 2;
constexpr std::uint64_t kTail = 3;

double uniform_open(std::uint64_t x) {
  return (static_cast<double>(x >> 11) + 0.5) * 0x1.0p-53;
}

std::optional<double> parse_double(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

core::TimePs scaled(core::TimePs d, double factor, std::string_view what) {
  if (d == 0) return 0;
  const long double v = std::round(static_cast<long double>(d) * factor);
  if (!(v <= static_cast<long double>(core::kMaxTimePs))) {
    std::ostringstream m;
    m << "a perturbed duration (" << d << " ps x " << factor << ") is beyond the time range";
    throw core::InputError("", std::string(what), std::to_string(d), m.str());
  }
  return static_cast<core::TimePs>(v);
}

}  // namespace

void Perturbation::validate() const {
  core::check_options(kPerturbationOptions, *this);
  if (straggler && !kStragglerFactorOption.contains(straggler->factor)) {
    std::ostringstream v;
    v << straggler->rank << ':' << straggler->factor;
    throw core::InputError("", "straggler", v.str(),
                           "the factor must be " + kStragglerFactorOption.range_text());
  }
}

double parse_percent(std::string_view field, const std::string& text) {
  return core::parse_fraction(field, text, kMaxComputeJitter);
}

Straggler parse_straggler(const std::string& text) {
  const auto colon = text.find(':');
  const std::string_view s = text;
  std::uint32_t rank = 0;
  bool ok = colon != std::string::npos && colon > 0;
  if (ok) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + colon, rank);
    ok = ec == std::errc() && end == s.data() + colon;
  }
  const auto factor = ok ? parse_double(s.substr(colon + 1)) : std::nullopt;
  if (!factor) {
    throw core::InputError("", "straggler", text, "expected RANK:FACTOR, e.g. 3:1.5");
  }
  Straggler st{rank, *factor};
  Perturbation p;
  p.straggler = st;
  p.validate();
  return st;
}

double normal_draw(std::uint64_t seed, std::uint64_t trial, std::uint64_t kind, std::uint64_t a,
                   std::uint64_t b) {
  std::uint64_t key = core::splitmix64_mix(seed);
  for (const std::uint64_t part : {trial, kind, a, b}) key = core::splitmix64_mix(key ^ part);
  const double u1 = uniform_open(core::splitmix64(key));
  const double u2 = uniform_open(core::splitmix64(key + core::kSplitMixGamma));
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

double jitter_factor(double cv, std::uint64_t seed, std::uint64_t trial, std::uint64_t kind,
                     std::uint64_t a, std::uint64_t b) {
  if (cv == 0) return 1;
  const double sigma2 = std::log1p(cv * cv);
  return std::exp(-sigma2 / 2 + std::sqrt(sigma2) * normal_draw(seed, trial, kind, a, b));
}

core::Workload perturb(const core::Workload& w, const Perturbation& p, std::uint64_t trial) {
  p.validate();
  if (p.straggler && p.straggler->rank >= w.accelerators()) {
    throw core::InputError("", "straggler", std::to_string(p.straggler->rank),
                           "the rank is not an accelerator of the workload (it has " +
                               std::to_string(w.accelerators()) + ")");
  }
  core::WorkloadData d = w.data();
  auto factor = [&](std::uint32_t rank, std::uint64_t kind, std::uint64_t a, std::uint64_t b) {
    double f = jitter_factor(p.compute_jitter, p.seed, trial, kind, a, b);
    if (p.straggler && p.straggler->rank == rank) f *= p.straggler->factor;
    return f;
  };
  for (core::Dep& e : d.deps) {
    const core::Task& to = d.tasks[e.to.value()];
    e.compute_ps = scaled(
        e.compute_ps, factor(to.src.value(), kEdge, d.tasks[e.from.value()].id, to.id), "compute");
  }
  for (core::Task& t : d.tasks) {
    t.release_ps = scaled(t.release_ps, factor(t.src.value(), kRelease, t.id, 0), "release");
    t.tail_ps = scaled(t.tail_ps, factor(t.dst.value(), kTail, t.id, 0), "tail");
  }
  return core::Workload(std::move(d));
}

}  // namespace flux::sim
