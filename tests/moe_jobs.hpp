#pragma once
// A small Mixtral-shaped MoE job for the tests: Mixtral 8x7B's layers and
// experts, EP4 over DP4 (4 GPUs), `layers` layers, 1,024 tokens per rank.
#include <cstdint>

#include "flux/workload/llama.hpp"
#include "flux/workload/moe.hpp"

namespace flux::testing {

inline workload::TrainingConfig small_mixtral(std::uint32_t layers) {
  workload::TrainingConfig c;
  const workload::MoeModel m = workload::moe_model("mixtral-8x7b");
  c.model = m.model;
  c.moe = m.moe;
  c.model.layers = layers;
  c.dp = 4;
  c.moe.ep = 4;
  c.seq = 1024;
  return c;
}

}  // namespace flux::testing
