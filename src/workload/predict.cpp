// Predicting an iteration's MoE routing (include/flux/workload/predict.hpp).
#include "flux/workload/predict.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <system_error>

#include "flux/core/error.hpp"

namespace flux::workload {

PredictorSpec PredictorSpec::parse(std::string_view text, std::string_view field) {
  if (text == "last") return {};
  if (text.starts_with("ewma:")) {
    const std::string_view arg = text.substr(5);
    double a = 0;
    const auto r = std::from_chars(arg.data(), arg.data() + arg.size(), a);
    if (!arg.empty() && r.ec == std::errc{} && r.ptr == arg.data() + arg.size() && a > 0 &&
        a <= 1) {
      return {a};
    }
    throw core::InputError("", std::string(field), std::string(text),
                           "ewma needs the newest iteration's weight A in (0, 1] (ewma:0.5)");
  }
  throw core::InputError("", std::string(field), std::string(text), "must be last or ewma:A");
}

std::string PredictorSpec::to_string() const {
  if (alpha == 1) return "last";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, alpha);
  return "ewma:" + std::string(buf, r.ptr);
}

void Predictor::observe(const RoutingMatrices& actual) {
  const RoutingShape& s = actual.shape;
  if (observed_ > 0 &&
      (s.moe_layers != shape_.moe_layers || s.ep != shape_.ep || s.groups != shape_.groups ||
       s.micro_batches != shape_.micro_batches || s.assignments() != shape_.assignments())) {
    throw core::InputError("", "routing", "iteration " + std::to_string(observed_),
                           "a routing of another shape than the iterations before it");
  }
  std::size_t n = 0;
  for (const TokenMatrix& m : actual.matrices) n += m.tokens.size();
  if (observed_ == 0) {
    shape_ = s;
    tokens_.assign(n, 0.0);
  }
  if (n != tokens_.size()) {
    throw core::InputError("", "routing", "iteration " + std::to_string(observed_),
                           "matrices of another size than the iterations before it");
  }
  const double a = observed_ == 0 ? 1.0 : spec_.alpha;
  std::size_t k = 0;
  for (const TokenMatrix& m : actual.matrices) {
    for (const std::uint64_t y : m.tokens) {
      tokens_[k] = a * static_cast<double>(y) + (1 - a) * tokens_[k];
      ++k;
    }
  }
  ++observed_;
}

RoutingSpec Predictor::predicted() const {
  if (observed_ == 0) throw std::logic_error("Predictor::predicted: nothing observed");
  auto out = std::make_shared<RoutingMatrices>();
  out->shape = shape_;
  const std::uint32_t ep = shape_.ep;
  const std::uint64_t row_max = shape_.assignments();
  const std::size_t count = std::size_t{shape_.moe_layers} * shape_.groups * shape_.micro_batches;
  out->matrices.resize(count);
  std::vector<std::uint32_t> order(ep);
  std::size_t k = 0;
  for (TokenMatrix& m : out->matrices) {
    m.ep = ep;
    m.tokens.assign(std::size_t{ep} * ep, 0);
    m.dropped.assign(ep, 0);
    for (std::uint32_t src = 0; src < ep; ++src) {
      const double* x = tokens_.data() + k + std::size_t{src} * ep;
      double sum = 0;
      std::uint64_t floors = 0;
      for (std::uint32_t d = 0; d < ep; ++d) {
        sum += x[d];
        m.tokens[std::size_t{src} * ep + d] = static_cast<std::uint64_t>(std::floor(x[d]));
        floors += m.tokens[std::size_t{src} * ep + d];
      }
      const std::uint64_t total =
          std::min<std::uint64_t>(row_max, static_cast<std::uint64_t>(std::llround(sum)));
      // The largest remainders get the units left (ties to the lower rank).
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return x[a] - std::floor(x[a]) > x[b] - std::floor(x[b]);
      });
      for (std::uint64_t u = 0; floors + u < total && u < ep; ++u) {
        ++m.tokens[std::size_t{src} * ep + order[u]];
      }
      std::uint64_t row = 0;
      for (std::uint32_t d = 0; d < ep; ++d) row += m.tokens[std::size_t{src} * ep + d];
      m.dropped[src] = row_max - std::min(row, row_max);
    }
    k += std::size_t{ep} * ep;
  }
  RoutingSpec spec;
  spec.kind = RoutingKind::kMatrices;
  spec.matrices = std::move(out);
  spec.predicted_by = spec_.to_string();
  return spec;
}

}  // namespace flux::workload
