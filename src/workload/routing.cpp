// MoE token routing (routing.hpp has the model; docs/model.md, "MoE
// routing"). Every matrix is built per source rank as counts per expert
// c[e] (summing to T * K, each at most T: a token picks K distinct
// experts), cut to the capacity C, and summed per destination rank
// (expert e on rank e / (experts / ep)). Cost O(ep * experts) per matrix.
//
// uniform: source src sends q = T*K / ep to every rank, plus one to ranks
// (src + 0 .. r - 1) mod ep for the remainder r; a rank's count is split
// over its L = experts / ep experts the same way (n / L each, one more to
// its first n mod L).
//
// zipf:S. Popularity rank p (0 = most popular) has weight
// w_p = (1 + p)^-S, computed as 2^(-S * log2(1 + p)) by series in + - * /
// only (frexp, ldexp, floor and llround are exact), compiled with
// -ffp-contract=off, then fixed to the integer W_p = max(1,
// llround(w_p * 2^40)): every later step is integer arithmetic.
// Expert pi^-1(p) has popularity rank p, pi a permutation of the experts
// drawn per (seed, iteration, layer) by Fisher-Yates.
// zipf-drift:S:D. pi is drawn once per (seed, layer), as zipf's at
// iteration 0, and walks: at iteration t = 1, 2, ..., for p = t mod 2,
// t mod 2 + 2, ... < experts - 1, ranks p and p + 1 trade their experts when
// a draw per (seed, t, layer, p) has its top 32 bits below
// floor(D * 2^32) (exact: ldexp and truncation). Iteration i applies steps
// 1 .. i, O(i * experts) per matrix.
// Top-K without repetition caps an expert at T of one source's T * K
// assignments, so the expected counts are water-filled: the j most popular
// get T each, j the least with (T*K - j*T) * W_j <= T * sum_{p>=j} W_p
// (j <= K, as K <= experts), and the rest R = T*K - j*T is shared by the
// others in proportion to W_p: x_p = R * W_p / D, D = sum_{p>=j} W_p, each
// <= T by the choice of j.
// Rounding (systematic sampling, a seeded largest-remainder): with one
// draw u uniform in [0, D) per (seed, iteration, layer, group,
// micro-batch, source), c_p = floor((R * S_p + u) / D) -
// floor((R * S_{p-1} + u) / D), S_p the running sum of W from j to p. Each
// c_p is floor(x_p) or ceil(x_p) (so <= T), E[c_p] = x_p, and the c_p sum
// to R exactly (the sum telescopes). An approximation of the multinomial
// that real routing is: its per-source noise is at most one assignment per
// expert, where a multinomial's is about sqrt(x_p).
//
// Draws: splitmix64. key(a, b, ...) = mix(... mix(mix(seed) + (a + 1) *
// gamma) + (b + 1) * gamma ...), mix splitmix64's finalizer; an integer in
// [0, m) from a draw x is floor(x * m / 2^64).
#include "flux/workload/routing.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "flux/core/error.hpp"
#include "flux/core/hash.hpp"
#include "flux/io/json_writer.hpp"

namespace flux::workload {
namespace {

__extension__ typedef unsigned __int128 U128;  // GCC/Clang extension, silences -Wpedantic

constexpr int kWeightBits = 40;
constexpr std::uint64_t kPermutationSlot = 1;  // purposes of the draws
constexpr std::uint64_t kOffsetSlot = 2;
constexpr std::uint64_t kDriftSlot = 3;

std::uint64_t key(std::uint64_t seed, std::initializer_list<std::uint64_t> address) {
  std::uint64_t h = core::splitmix64_mix(seed);
  for (std::uint64_t a : address) h = core::splitmix64_mix(h + (a + 1) * core::kSplitMixGamma);
  return h;
}

// floor(x * m / 2^64): an integer in [0, m).
std::uint64_t below(std::uint64_t x, std::uint64_t m) {
  return static_cast<std::uint64_t>((static_cast<U128>(x) * m) >> 64);
}

// ln(x) for x >= 1 from + - * / only: x = m 2^e, m in [sqrt(1/2), sqrt(2)),
// ln m = 2 atanh(z), z = (m - 1) / (m + 1), |z| < 0.172, 24 terms.
double ln_exact_ops(double x) {
  constexpr double kLn2 = 0.6931471805599453;
  constexpr double kSqrtHalf = 0.7071067811865476;
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2;
    --e;
  }
  const double z = (m - 1) / (m + 1);
  const double z2 = z * z;
  double sum = 0;
  for (int k = 23; k >= 0; --k) sum = sum * z2 + 1.0 / (2 * k + 1);
  return e * kLn2 + 2 * z * sum;
}

// 2^y for y <= 0 from + - * / only: y = n + f, f in [0, 1), 2^f = e^(f ln 2)
// by 24 Taylor terms (f ln 2 < 0.7), then ldexp by n.
double exp2_exact_ops(double y) {
  constexpr double kLn2 = 0.6931471805599453;
  if (!(y > -1100)) return 0;
  const double n = std::floor(y);
  const double t = (y - n) * kLn2;
  double sum = 1;
  for (int k = 24; k >= 1; --k) sum = 1 + sum * t / k;
  return std::ldexp(sum, static_cast<int>(n));
}

// A path as text that is valid UTF-8 (it becomes part of the workload's
// name): a path that is not has its bytes from 0x80 on escaped as \xHH.
std::string printable_path(const std::string& path) {
  if (io::is_valid_utf8(path)) return path;
  std::string out;
  for (const char ch : path) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x80) {
      out += ch;
      continue;
    }
    constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, r.ptr};
}

}  // namespace

RoutingSpec RoutingSpec::parse(std::string_view text) {
  RoutingSpec spec;
  auto bad = [&](const std::string& problem) {
    return core::InputError("", "routing", std::string(text), problem);
  };
  if (text == "uniform") return spec;
  if (text.starts_with("zipf:")) {
    const std::string_view arg = text.substr(5);
    double s = 0;
    const auto r = std::from_chars(arg.data(), arg.data() + arg.size(), s);
    if (arg.empty() || r.ec != std::errc{} || r.ptr != arg.data() + arg.size()) {
      throw bad("zipf needs a number, the skew S (zipf:1.2)");
    }
    spec.kind = RoutingKind::kZipf;
    spec.zipf_s = s;
    spec.validate();
    return spec;
  }
  if (text.starts_with("zipf-drift:")) {
    const std::string_view args = text.substr(11);
    const std::size_t colon = args.find(':');
    double s = 0, d = 0;
    const auto number = [](std::string_view a, double& v) {
      const auto r = std::from_chars(a.data(), a.data() + a.size(), v);
      return !a.empty() && r.ec == std::errc{} && r.ptr == a.data() + a.size();
    };
    if (colon == std::string_view::npos || !number(args.substr(0, colon), s) ||
        !number(args.substr(colon + 1), d)) {
      throw bad("zipf-drift needs two numbers, the skew S and the drift D (zipf-drift:1.2:0.05)");
    }
    spec.kind = RoutingKind::kZipf;
    spec.zipf_s = s;
    spec.drift = d;
    spec.validate();
    return spec;
  }
  if (text.starts_with("file:")) {
    spec.kind = RoutingKind::kFile;
    spec.file = std::string(text.substr(5));
    if (spec.file.empty()) throw bad("file needs a path (file:routing.json)");
    return spec;
  }
  throw bad("unknown routing (use uniform, zipf:S, zipf-drift:S:D or file:PATH)");
}

std::string RoutingSpec::to_string() const {
  switch (kind) {
    case RoutingKind::kUniform:
      return "uniform";
    case RoutingKind::kZipf:
      return drift ? "zipf-drift:" + number_text(zipf_s) + ":" + number_text(*drift)
                   : "zipf:" + number_text(zipf_s);
    case RoutingKind::kFile:
      return "file:" + printable_path(file);
    case RoutingKind::kMatrices:
      return "predicted:" + predicted_by;
  }
  return "uniform";
}

void RoutingSpec::validate() const {
  if (kind == RoutingKind::kZipf && !(zipf_s > 0 && zipf_s <= kMaxZipfS)) {
    throw core::InputError("", "routing", to_string(),
                           "zipf's S must be a finite number in (0, 1000]");
  }
  if (kind == RoutingKind::kZipf && drift && !(*drift >= 0 && *drift <= 1)) {  // NaN too
    throw core::InputError("", "routing", to_string(),
                           "zipf-drift's D must be a number in [0, 1] (the probability that "
                           "two neighbouring popularity ranks trade places per iteration)");
  }
  if (kind != RoutingKind::kZipf && drift) {
    throw core::InputError("", "routing", to_string(), "a drift needs zipf-drift:S:D");
  }
  if ((kind == RoutingKind::kMatrices) != (matrices != nullptr)) {
    throw core::InputError("", "routing", to_string(), "predicted matrices come with their kind");
  }
  if (kind == RoutingKind::kFile && file.empty()) {
    throw core::InputError("", "routing", "file:", "file needs a path (file:routing.json)");
  }
  if (!(capacity_factor >= 0 && capacity_factor <= kMaxCapacityFactor)) {
    throw core::InputError("", "capacity_factor", number_text(capacity_factor),
                           "must be a number between 0 and 1e6 (0: no dropping)");
  }
  if (kind == RoutingKind::kFile && capacity_factor != 0) {
    throw core::InputError("", "capacity_factor", number_text(capacity_factor),
                           "must be 0 with file routing: a file's counts are taken as measured");
  }
}

void RoutingShape::validate() const {
  auto positive = [](const char* field, std::uint64_t v) {
    if (v == 0) throw core::InputError("", field, "0", "must be at least 1");
  };
  positive("moe_layers", moe_layers);
  positive("ep", ep);
  positive("groups", groups);
  positive("micro_batches", micro_batches);
  positive("experts", experts);
  positive("top_k", top_k);
  positive("tokens_per_rank", tokens_per_rank);
  if (experts % ep != 0) {
    throw core::InputError("", "experts", std::to_string(experts),
                           "must be a multiple of ep (" + std::to_string(ep) + ")");
  }
  if (experts > kMaxExperts) {
    throw core::InputError("", "experts", std::to_string(experts),
                           "must be at most " + std::to_string(kMaxExperts));
  }
  if (top_k > experts) {
    throw core::InputError("", "top_k", std::to_string(top_k),
                           "must not exceed experts (" + std::to_string(experts) + ")");
  }
  if (tokens_per_rank > kMaxAssignments / top_k) {
    throw core::InputError("", "tokens_per_rank", std::to_string(tokens_per_rank),
                           "tokens_per_rank * top_k must be at most 2^62");
  }
}

std::uint64_t TokenMatrix::received(std::uint32_t dst) const {
  std::uint64_t sum = 0;
  for (std::uint32_t src = 0; src < ep; ++src) sum += at(src, dst);
  return sum;
}

std::uint64_t TokenMatrix::sent(std::uint32_t src) const {
  std::uint64_t sum = 0;
  for (std::uint32_t dst = 0; dst < ep; ++dst) sum += at(src, dst);
  return sum;
}

std::uint64_t expert_capacity(const RoutingShape& shape, double capacity_factor) {
  if (capacity_factor == 0) return 0;
  // Megatron: math.ceil((num_tokens / num_experts) * capacity_factor) with
  // num_tokens = T * K, in doubles (one division, one product: no FMA).
  const double c = std::ceil(static_cast<double>(shape.assignments()) /
                             static_cast<double>(shape.experts) * capacity_factor);
  if (c >= 0x1p63) return std::numeric_limits<std::uint64_t>::max();
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(c));
}

Router::Router(RoutingSpec spec, RoutingShape shape) : spec_(std::move(spec)), shape_(shape) {
  spec_.validate();
  shape_.validate();
  capacity_ = expert_capacity(shape_, spec_.capacity_factor);
  if (spec_.kind == RoutingKind::kFile) {
    load_file();
  } else if (spec_.kind == RoutingKind::kZipf) {
    prepare_zipf();
  } else if (spec_.kind == RoutingKind::kMatrices) {
    const RoutingShape& m = spec_.matrices->shape;
    if (m.moe_layers != shape_.moe_layers || m.ep != shape_.ep || m.groups != shape_.groups ||
        m.micro_batches != shape_.micro_batches || m.assignments() != shape_.assignments() ||
        spec_.matrices->matrices.size() != std::size_t{m.moe_layers} * m.groups * m.micro_batches) {
      throw core::InputError("", "routing", spec_.to_string(),
                             "the predicted matrices are not of this job's shape");
    }
  }
}

RoutingMatrices routing_matrices(const Router& router) {
  RoutingMatrices r{router.shape(), {}};
  const RoutingShape& s = router.shape();
  r.matrices.reserve(std::size_t{s.moe_layers} * s.groups * s.micro_batches);
  for (std::uint32_t l = 0; l < s.moe_layers; ++l) {
    for (std::uint32_t g = 0; g < s.groups; ++g) {
      for (std::uint32_t mb = 0; mb < s.micro_batches; ++mb) {
        r.matrices.push_back(router.route(l, g, mb));
      }
    }
  }
  return r;
}

void Router::prepare_zipf() {
  const std::uint32_t experts = shape_.experts;
  std::vector<std::uint64_t> w(experts);
  for (std::uint32_t p = 0; p < experts; ++p) {
    const double x = exp2_exact_ops(-spec_.zipf_s * (ln_exact_ops(1.0 + p) / 0.6931471805599453));
    w[p] = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::llround(std::ldexp(x, kWeightBits))));
  }
  // Suffix sums fit: experts <= 2^16 weights of at most 2^40.
  std::vector<std::uint64_t> suffix(experts + 1, 0);
  for (std::uint32_t p = experts; p-- > 0;) suffix[p] = suffix[p + 1] + w[p];
  const std::uint64_t t = shape_.tokens_per_rank;
  const std::uint64_t total = shape_.assignments();
  std::uint32_t j = 0;
  while (j < experts) {
    const U128 left = static_cast<U128>(total - std::uint64_t{j} * t) * w[j];
    if (left <= static_cast<U128>(t) * suffix[j]) break;
    ++j;
  }
  zipf_capped_ = j;
  zipf_rest_ = total - std::uint64_t{j} * t;
  zipf_prefix_.assign(experts - j, 0);
  std::uint64_t run = 0;
  for (std::uint32_t p = j; p < experts; ++p) zipf_prefix_[p - j] = run += w[p];
}

void Router::check_range(std::uint32_t moe_layer, std::uint32_t group,
                         std::uint32_t micro_batch) const {
  if (moe_layer >= shape_.moe_layers || group >= shape_.groups ||
      micro_batch >= shape_.micro_batches) {
    throw std::out_of_range("Router: MoE layer, group or micro-batch outside the shape");
  }
}

// The expert at each popularity rank of `moe_layer` (zipf; empty otherwise).
std::vector<std::uint32_t> Router::zipf_order(std::uint32_t moe_layer) const {
  std::vector<std::uint32_t> expert_at;
  if (spec_.kind != RoutingKind::kZipf) return expert_at;
  const std::uint32_t experts = shape_.experts;
  expert_at.resize(experts);
  for (std::uint32_t e = 0; e < experts; ++e) expert_at[e] = e;
  const bool drifts = spec_.drift.has_value();
  const std::uint64_t k =
      key(spec_.seed, {drifts ? 0 : spec_.iteration, moe_layer, kPermutationSlot});
  for (std::uint32_t i = experts; i-- > 1;) {
    const std::uint64_t x = core::splitmix64_mix(k + (std::uint64_t{i} + 1) * core::kSplitMixGamma);
    std::swap(expert_at[i], expert_at[below(x, std::uint64_t{i} + 1)]);
  }
  if (!drifts) return expert_at;
  const auto threshold = static_cast<std::uint64_t>(std::ldexp(*spec_.drift, 32));
  for (std::uint64_t t = 1; t <= spec_.iteration; ++t) {
    const std::uint64_t step = key(spec_.seed, {t, moe_layer, kDriftSlot});
    for (std::uint32_t p = static_cast<std::uint32_t>(t % 2); p + 1 < experts; p += 2) {
      const std::uint64_t x =
          core::splitmix64_mix(step + (std::uint64_t{p} + 1) * core::kSplitMixGamma);
      if ((x >> 32) < threshold) std::swap(expert_at[p], expert_at[p + 1]);
    }
  }
  return expert_at;
}

void Router::draw_counts(std::uint32_t moe_layer, std::uint32_t group, std::uint32_t micro_batch,
                         std::uint32_t src, const std::vector<std::uint32_t>& expert_at,
                         std::vector<std::uint64_t>& count) const {
  const std::uint32_t ep = shape_.ep;
  const std::uint32_t experts = shape_.experts;
  const std::uint32_t local = experts / ep;
  const std::uint64_t total = shape_.assignments();
  count.assign(experts, 0);
  if (spec_.kind == RoutingKind::kUniform) {
    for (std::uint32_t i = 0; i < ep; ++i) {
      const std::uint32_t dst = (src + i) % ep;
      const std::uint64_t n = total / ep + (i < total % ep ? 1 : 0);
      for (std::uint32_t l = 0; l < local; ++l) {
        count[std::size_t{dst} * local + l] = n / local + (l < n % local ? 1 : 0);
      }
    }
    return;
  }
  for (std::uint32_t p = 0; p < zipf_capped_; ++p) count[expert_at[p]] = shape_.tokens_per_rank;
  if (zipf_prefix_.empty()) return;
  const std::uint64_t d = zipf_prefix_.back();
  const std::uint64_t u =
      below(key(spec_.seed, {spec_.iteration, moe_layer, group, micro_batch, src, kOffsetSlot}), d);
  std::uint64_t before = 0;  // floor(u / d)
  for (std::uint32_t p = zipf_capped_; p < experts; ++p) {
    const auto after = static_cast<std::uint64_t>(
        (static_cast<U128>(zipf_rest_) * zipf_prefix_[p - zipf_capped_] + u) / d);
    count[expert_at[p]] = after - before;
    before = after;
  }
}

std::vector<std::uint64_t> Router::expert_counts(std::uint32_t moe_layer, std::uint32_t group,
                                                 std::uint32_t micro_batch,
                                                 std::uint32_t src) const {
  check_range(moe_layer, group, micro_batch);
  if (src >= shape_.ep) throw std::out_of_range("Router::expert_counts: src outside the EP group");
  if (spec_.kind == RoutingKind::kFile || spec_.kind == RoutingKind::kMatrices) {
    throw std::logic_error("Router::expert_counts: a routing file holds rank totals only");
  }
  std::vector<std::uint64_t> count;
  draw_counts(moe_layer, group, micro_batch, src, zipf_order(moe_layer), count);
  if (capacity_ != 0) {
    for (std::uint64_t& c : count) c = std::min(c, capacity_);
  }
  return count;
}

TokenMatrix Router::route(std::uint32_t moe_layer, std::uint32_t group,
                          std::uint32_t micro_batch) const {
  check_range(moe_layer, group, micro_batch);
  if (spec_.kind == RoutingKind::kFile) return file_layers_[moe_layer];
  if (spec_.kind == RoutingKind::kMatrices) {
    return spec_.matrices->matrices[RoutingMatrices::index(shape_, moe_layer, group, micro_batch)];
  }
  const std::uint32_t ep = shape_.ep;
  const std::uint32_t local = shape_.experts / ep;
  TokenMatrix m;
  m.ep = ep;
  m.tokens.assign(static_cast<std::size_t>(ep) * ep, 0);
  m.dropped.assign(ep, 0);
  const std::vector<std::uint32_t> expert_at = zipf_order(moe_layer);
  std::vector<std::uint64_t> count;
  for (std::uint32_t src = 0; src < ep; ++src) {
    draw_counts(moe_layer, group, micro_batch, src, expert_at, count);
    for (std::uint32_t e = 0; e < shape_.experts; ++e) {
      std::uint64_t c = count[e];
      if (capacity_ != 0 && c > capacity_) {  // dropped at the source, before the dispatch
        m.dropped[src] += c - capacity_;
        c = capacity_;
      }
      m.tokens[static_cast<std::size_t>(src) * ep + e / local] += c;
    }
  }
  return m;
}

}  // namespace flux::workload
