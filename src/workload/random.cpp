// Random DAGs of sends (random.hpp; docs/model.md, "Random DAGs").
//
// Randomness. draw(v, slot) = splitmix64's output number v * 256 + slot + 1
// from the state mix(seed): mix(mix(seed) + (v * 256 + slot + 1) * gamma),
// where mix is splitmix64's finalizer and gamma = 0x9e3779b97f4a7c15. Each
// draw is addressed by its send and purpose (`slot`), so a knob changes only
// the draws it uses: the sizes of a workload do not move when its shape
// knobs change. Integers: below(x, m) = floor(x * m / 2^64) in [0, m).
// Coins: x < floor(p * 2^64) (p = 1: always).
//
// Log-uniform values: median * F[i], i = below(x, K + 1), K = 2^16, with
// F[i] = spread^(2i / K - 1) tabulated as F[0] = 1 / spread and
// F[i] = F[i-1] * r, r = spread^(1/2^15) from 15 square roots: only
// correctly rounded or exact operations (division, multiplication, square
// root, ldexp, llround), so the table is the same on every platform. The
// value x is clamped to [median / spread, median * spread]; times are x
// rounded to the nearest picosecond, bytes round(x / 10 ps) of the
// unrounded x (the transfer time at 800 Gb/s), at least 1.
#include "flux/workload/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/hash.hpp"
#include "flux/workload/builder.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

constexpr std::uint64_t kGamma = core::kSplitMixGamma;
constexpr auto mix = core::splitmix64_mix;

// The purposes of a send's draws; parent j (in draw order) uses three slots
// from kParent + 3j. fan_in <= 64 keeps every slot below 256.
enum Slot : std::uint32_t {
  kLocal,    // coin: repeat a recent pair
  kPick,     // which recent send
  kSrc,      // a fresh pair's source
  kDst,      // ... and destination
  kSize,     // transfer time
  kCount,    // number of parents
  kRelease,  // release of a send without parents
  kTail,     // tail of a send without children
  kParent,   // parent j: coin (older level), which send, edge compute
};

class Draws {
 public:
  explicit Draws(std::uint64_t seed) : state_(mix(seed)) {}
  [[nodiscard]] std::uint64_t operator()(std::uint32_t v, std::uint32_t slot) const {
    return mix(state_ + ((std::uint64_t{v} << 8) + slot + 1) * kGamma);
  }
  /// Uniform in [0, m).
  [[nodiscard]] std::uint64_t below(std::uint32_t v, std::uint32_t slot, std::uint64_t m) const {
    __extension__ typedef unsigned __int128 U128;  // GCC/Clang; silences -Wpedantic
    return static_cast<std::uint64_t>((static_cast<U128>((*this)(v, slot)) * m) >> 64);
  }

 private:
  std::uint64_t state_;
};

/// A coin of probability p: draw < threshold.
class Coin {
 public:
  explicit Coin(double p)
      : always_(p >= 1), threshold_(p >= 1 ? 0 : static_cast<std::uint64_t>(std::ldexp(p, 64))) {}
  [[nodiscard]] bool operator()(std::uint64_t draw) const { return always_ || draw < threshold_; }

 private:
  bool always_;
  std::uint64_t threshold_;
};

/// median * spread^(2u - 1), u uniform: quantised to K + 1 values.
class LogUniform {
 public:
  static constexpr std::uint64_t kSteps = 1 << 16;

  explicit LogUniform(double spread) : spread_(spread), factor_(kSteps + 1) {
    double r = spread;
    for (int i = 0; i < 15; ++i) r = std::sqrt(r);  // spread^(2 / kSteps)
    factor_[0] = 1 / spread;
    for (std::uint64_t i = 1; i <= kSteps; ++i) factor_[i] = factor_[i - 1] * r;
  }

  /// A value around `median` ps (0 stays 0).
  [[nodiscard]] double value(TimePs median, const Draws& draw, std::uint32_t v,
                             std::uint32_t slot) const {
    if (median == 0) return 0;
    const auto m = static_cast<double>(median);
    const double x = m * factor_[draw.below(v, slot, kSteps + 1)];
    return std::clamp(x, m / spread_, m * spread_);
  }
  [[nodiscard]] TimePs time(TimePs median, const Draws& draw, std::uint32_t v,
                            std::uint32_t slot) const {
    return std::llround(value(median, draw, v, slot));
  }

 private:
  double spread_;
  std::vector<double> factor_;
};

/// A time as the name shows it: "10us", "1500ns", "0".
std::string compact_time(TimePs ps) {
  static constexpr std::pair<TimePs, const char*> kUnits[] = {
      {core::kPsPerS, "s"}, {core::kPsPerMs, "ms"}, {core::kPsPerUs, "us"}, {core::kPsPerNs, "ns"}};
  if (ps == 0) return "0";
  for (const auto& [unit, name] : kUnits) {
    if (ps % unit == 0) return std::to_string(ps / unit) + name;
  }
  return std::to_string(ps) + "ps";
}

std::string compact_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// First send of level k of D over N sends.
std::uint32_t level_begin(std::uint64_t k, const RandomOptions& o) {
  return static_cast<std::uint32_t>(k * o.sends / o.levels());
}

}  // namespace

void RandomOptions::validate() const {
  core::check_options(kRandomOptions, *this);
}

std::uint64_t RandomOptions::max_deps() const {
  return static_cast<std::uint64_t>(sends - level_begin(1, *this)) * fan_in;
}

std::string RandomOptions::name() const {
  const RandomOptions d;
  std::string s = "random-r" + std::to_string(ranks) + "-n" + std::to_string(sends);
  const auto add = [&s](bool differs, const char* code, const std::string& value) {
    if (differs) s += std::string("-") + code + value;
  };
  add(depth != d.depth, "d", std::to_string(depth));
  add(fan_in != d.fan_in, "f", std::to_string(fan_in));
  add(skip != d.skip, "k", compact_number(skip));
  add(locality != d.locality, "l", compact_number(locality));
  add(transfer_ps != d.transfer_ps, "t", compact_time(transfer_ps));
  add(size_spread != d.size_spread, "x", compact_number(size_spread));
  add(compute_ps != d.compute_ps, "c", compact_time(compute_ps));
  add(compute_spread != d.compute_spread, "y", compact_number(compute_spread));
  add(release_ps != d.release_ps, "rl", compact_time(release_ps));
  add(tail_ps != d.tail_ps, "tl", compact_time(tail_ps));
  return s + "-s" + std::to_string(seed);
}

core::Workload generate_random(const RandomOptions& o) {
  o.validate();
  const Draws draw(o.seed);
  const Coin local(o.locality), older(o.skip);
  const LogUniform sizes(o.size_spread), computes(o.compute_spread);
  const std::uint32_t n = o.ranks;

  WorkloadBuilder b(o.name(), n);
  b.reserve(o.sends, o.max_deps());
  std::vector<bool> has_child(o.sends, false);
  std::vector<std::uint32_t> parents;  // of one send, distinct, in draw order
  for (std::uint32_t k = 0; k < o.levels(); ++k) {
    const std::uint32_t begin = level_begin(k, o), end = level_begin(k + 1, o);
    const std::uint32_t prev = k == 0 ? 0 : level_begin(k - 1, o);
    for (std::uint32_t v = begin; v < end; ++v) {
      std::uint32_t src = 0, dst = 0;
      if (v > 0 && local(draw(v, kLocal))) {
        const auto j = static_cast<std::uint32_t>(v - 1 - draw.below(v, kPick, std::min(v, n)));
        src = b.task(TaskIndex(j)).src.value();
        dst = b.task(TaskIndex(j)).dst.value();
      } else {
        src = static_cast<std::uint32_t>(draw.below(v, kSrc, n));
        dst = static_cast<std::uint32_t>((src + 1 + draw.below(v, kDst, n - 1)) % n);
      }
      // bytes = transfer time / 10 ps at 800 Gb/s; <= 1e17 by the bounds.
      const double transfer = sizes.value(o.transfer_ps, draw, v, kSize);
      const auto bytes = static_cast<std::uint64_t>(std::max(1LL, std::llround(transfer / 10)));
      b.add_send(Rank(src), Rank(dst), bytes);
      if (k == 0) {
        if (o.release_ps > 0) {
          b.raise_release(TaskIndex(v), computes.time(o.release_ps, draw, v, kRelease));
        }
        continue;
      }
      const auto count = static_cast<std::uint32_t>(1 + draw.below(v, kCount, o.fan_in));
      parents.clear();
      for (std::uint32_t j = 0; j < count; ++j) {
        const std::uint32_t slot = kParent + 3 * j;
        const bool from_older = k >= 2 && older(draw(v, slot));
        const std::uint32_t lo = from_older ? 0 : prev;
        const std::uint32_t hi = from_older ? prev : begin;
        const auto p = static_cast<std::uint32_t>(lo + draw.below(v, slot + 1, hi - lo));
        if (std::find(parents.begin(), parents.end(), p) != parents.end()) continue;
        parents.push_back(p);
        b.add_dep(TaskIndex(p), TaskIndex(v), computes.time(o.compute_ps, draw, v, slot + 2));
        has_child[p] = true;
      }
    }
  }
  if (o.tail_ps > 0) {
    for (std::uint32_t v = 0; v < o.sends; ++v) {
      if (!has_child[v]) b.raise_tail(TaskIndex(v), computes.time(o.tail_ps, draw, v, kTail));
    }
  }
  return std::move(b).build();
}

}  // namespace flux::workload
