#include <gtest/gtest.h>

#include <cmath>

#include "flux/core/error.hpp"
#include "flux/workload/compute.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

TEST(Roofline, GemmCostFormula) {
  // [2 x 3] * [3 x 4]: 2*2*3*4 = 48 FLOPs; bf16 bytes 2*(6 + 12 + 8) = 52.
  const OpCost c = gemm_cost(2, 3, 4);
  EXPECT_DOUBLE_EQ(c.flops, 48);
  EXPECT_DOUBLE_EQ(c.bytes, 52);
}

TEST(Roofline, ComputeBoundGemmOnA100) {
  const GpuSpec a100 = GpuSpec::preset("a100");
  // 2 * 8192 * 4096 * 4096 FLOPs / (312e12 * 0.7) = 1.258597...e-3 s.
  const double expected_s = 2.0 * 8192 * 4096 * 4096 / (312e12 * 0.7);
  EXPECT_EQ(roofline_ps(a100, OpClass::kGemm, gemm_cost(8192, 4096, 4096)),
            std::llround(expected_s * 1e12));
  EXPECT_NEAR(expected_s, 1.2586e-3, 1e-7);
}

TEST(Roofline, MemoryBoundKernel) {
  const GpuSpec a100 = GpuSpec::preset("a100");
  // 1e9 bytes / (2039e9 B/s * 0.8) = 613.05 us.
  EXPECT_EQ(roofline_ps(a100, OpClass::kMemory, memory_cost(1e9)),
            std::llround(1e9 / (2039e9 * 0.8) * 1e12));
  // A skinny GEMM is memory bound: [1 x 8192] * [8192 x 8192].
  const OpCost skinny = gemm_cost(1, 8192, 8192);
  EXPECT_EQ(roofline_ps(a100, OpClass::kGemm, skinny),
            std::llround(skinny.bytes / (2039e9 * 0.8) * 1e12));
}

TEST(Roofline, H100IsFasterAndPresetsAreChecked) {
  const GpuSpec h100 = GpuSpec::preset("h100");
  EXPECT_DOUBLE_EQ(h100.peak_flops, 989e12);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes_per_s, 3350e9);
  EXPECT_LT(roofline_ps(h100, OpClass::kGemm, gemm_cost(8192, 4096, 4096)),
            roofline_ps(GpuSpec::preset("a100"), OpClass::kGemm, gemm_cost(8192, 4096, 4096)));
  EXPECT_THROW(GpuSpec::preset("v100"), core::InputError);
  GpuSpec bad = h100;
  bad.gemm_efficiency = 1.5;
  EXPECT_THROW(bad.validate(), core::InputError);
}

TEST(LayerCompute, Llama8bTp4OnA100ByHand) {
  TrainingConfig c;
  c.tp = 4;
  c.dp = 2;
  const LayerCompute lc = layer_compute(c);
  // T = 8192 tokens, h = 4096, per rank q = 1024, kv = 256, f = 3584.
  const double T = 8192, h = 4096, q = 1024, kv = 256, f = 3584;
  const double peak = 312e12 * 0.7, bw = 2039e9 * 0.8;
  auto gemm = [&](double m, double k, double n) {
    return std::llround(std::max(2 * m * k * n / peak, 2 * (m * k + k * n + m * n) / bw) * 1e12);
  };
  auto mem = [&](double bytes) { return std::llround(bytes / bw * 1e12); };
  const double attn_flops = 0.5 * 4 * 8192.0 * 8192.0 * 128 * 8;  // causal, 8 local heads
  const double attn_bytes = 2 * T * (2 * q + 2 * kv);
  const auto attn = std::llround(std::max(attn_flops / (312e12 * 0.5), attn_bytes / bw) * 1e12);
  const auto expected_attn_fwd = mem(3 * T * h * 2) + mem(2 * T * h * 2) + gemm(T, h, q + 2 * kv) +
                                 mem(2 * T * (q + kv) * 2) + attn + gemm(T, q, h);
  EXPECT_EQ(lc.attn_fwd, expected_attn_fwd);
  const auto expected_mlp_fwd = mem(3 * T * h * 2) + mem(2 * T * h * 2) + gemm(T, h, 2 * f) +
                                mem(3 * T * f * 2) + gemm(T, f, h);
  EXPECT_EQ(lc.mlp_fwd, expected_mlp_fwd);
  // Sanity: a forward layer on an A100 with TP4 takes a few milliseconds.
  EXPECT_GT(lc.attn_fwd + lc.mlp_fwd, 3 * core::kPsPerMs);
  EXPECT_LT(lc.attn_fwd + lc.mlp_fwd, 8 * core::kPsPerMs);
  // Backward costs about twice the forward.
  const double ratio = static_cast<double>(lc.mlp_bwd + lc.attn_bwd + 2 * lc.norm_bwd) /
                       static_cast<double>(lc.attn_fwd + lc.mlp_fwd);
  EXPECT_GT(ratio, 1.8);
  EXPECT_LT(ratio, 2.6);
}

TEST(LayerParams, Llama8bMatchesPublishedSize) {
  const ModelConfig m = ModelConfig::llama3("8b");
  // 32 layers * 218,112,000 + embeddings and head 2 * 128256 * 4096 + final
  // norm 4096 = 8,030,261,248 parameters: Llama 3 8B.
  const std::uint64_t layer = layer_params_per_rank(m, 1);
  EXPECT_EQ(layer, 218'112'000u);
  EXPECT_EQ(32 * layer + 2 * m.vocab * m.hidden + m.hidden, 8'030'261'248u);
  // TP4 splits all but the two norm vectors.
  EXPECT_EQ(layer_params_per_rank(m, 4), (layer - 2 * 4096) / 4 + 2 * 4096);
}

}  // namespace
}  // namespace flux::workload
