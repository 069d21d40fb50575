// MoE token routing (include/flux/workload/routing.hpp has the model).
// Uniform routing only so far: zipf and file routing are being built.
#include "flux/workload/routing.hpp"

#include <string>

#include "flux/core/error.hpp"

namespace flux::workload {

RoutingSpec RoutingSpec::parse(std::string_view text) {
  RoutingSpec spec;
  if (text == "uniform") return spec;
  throw core::InputError("", "routing", std::string(text), "unknown routing (use uniform)");
}

std::string RoutingSpec::to_string() const {
  return "uniform";
}

void RoutingSpec::validate() const {
  if (kind != RoutingKind::kUniform) {
    throw core::InputError("", "routing", to_string(), "only uniform routing is supported");
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
  if (top_k > experts) {
    throw core::InputError("", "top_k", std::to_string(top_k),
                           "must not exceed experts (" + std::to_string(experts) + ")");
  }
}

std::uint64_t TokenMatrix::received(std::uint32_t dst) const {
  std::uint64_t sum = 0;
  for (std::uint32_t src = 0; src < ep; ++src) sum += at(src, dst);
  return sum;
}

Router::Router(RoutingSpec spec, RoutingShape shape) : spec_(std::move(spec)), shape_(shape) {
  spec_.validate();
  shape_.validate();
}

TokenMatrix Router::route(std::uint32_t /*moe_layer*/, std::uint32_t /*group*/,
                          std::uint32_t /*micro_batch*/) const {
  const std::uint32_t ep = shape_.ep;
  TokenMatrix m;
  m.ep = ep;
  m.tokens.assign(static_cast<std::size_t>(ep) * ep, 0);
  m.dropped.assign(ep, 0);
  const std::uint64_t total = shape_.tokens_per_rank * shape_.top_k;  // T*K: validated sizes
  for (std::uint32_t src = 0; src < ep; ++src) {
    const std::uint64_t r = total % ep;
    for (std::uint32_t i = 0; i < ep; ++i) {
      m.tokens[static_cast<std::size_t>(src) * ep + (src + i) % ep] = total / ep + (i < r ? 1 : 0);
    }
  }
  return m;
}

}  // namespace flux::workload
