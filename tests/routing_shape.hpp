#pragma once
// A routing shape for the routing and predictor tests (routing_test.cpp,
// predict_test.cpp): 2 EP groups, 2 micro-batches.
#include <cstdint>

#include "flux/workload/routing.hpp"

namespace flux::workload::testing {

inline RoutingShape shape(std::uint32_t ep, std::uint32_t experts, std::uint32_t top_k,
                          std::uint64_t tokens, std::uint32_t layers = 2) {
  RoutingShape s;
  s.moe_layers = layers;
  s.ep = ep;
  s.groups = 2;
  s.micro_batches = 2;
  s.experts = experts;
  s.top_k = top_k;
  s.tokens_per_rank = tokens;
  return s;
}

}  // namespace flux::workload::testing
