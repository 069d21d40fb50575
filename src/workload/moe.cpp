// MoE layers: the named models, their parameter counts, the checks a MoE
// job must pass and the compute of a MoE block (moe.hpp has the model;
// docs/model.md, "MoE layers").
//
// Compute per rank and micro-batch (T tokens routed by the rank, K = top_k,
// E = experts, F = moe_ffn, h = hidden, bf16):
//   router_fwd     GEMM T x h x E, softmax / top-k over T x E (memory), and
//                  the permutation reading and writing T * K rows of h;
//   unpermute_fwd  reading the T * K expert outputs and writing T rows;
//   router_bwd     the GEMM's dgrad and wgrad and twice the permutations;
//   expert(R)      for R received assignments over E / ep local experts: the
//                  grouped GEMMs R x h x 2F (gate and up) and R x F x h (down)
//                  reading every local expert's weights once, and SwiGLU
//                  (3 R F values); backward twice that;
//   shared         a SwiGLU MLP of S * F, TP-split, on the rank's tokens.
#include <algorithm>
#include <string>

#include "flux/core/error.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

constexpr double kBf16 = 2;

std::string str(std::uint64_t v) {
  return std::to_string(v);
}

core::TimePs gemm_ps(const GpuSpec& g, double m, double k, double n) {
  return roofline_ps(g, OpClass::kGemm, gemm_cost(m, k, n));
}
core::TimePs memory_ps(const GpuSpec& g, double bytes) {
  return roofline_ps(g, OpClass::kMemory, memory_cost(bytes));
}

}  // namespace

MoeModel moe_model(std::string_view name) {
  MoeModel m;
  ModelConfig& c = m.model;
  MoeConfig& e = m.moe;
  c.name = std::string(name);
  if (name == "mixtral-8x7b") {
    // mistralai/Mixtral-8x7B-v0.1 config.json; Jiang et al. 2024 (46.7B).
    c.layers = 32, c.hidden = 4096, c.ffn = 14336, c.heads = 32, c.kv_heads = 8, c.vocab = 32000;
    e.experts = 8, e.top_k = 2, e.moe_ffn = 14336;
    m.source = "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json; arXiv:2401.04088";
    m.published_params = 46'700'000'000;
  } else if (name == "mixtral-8x22b") {
    // mistralai/Mixtral-8x22B-Instruct-v0.1 config.json (vocab 32768); 141B.
    c.layers = 56, c.hidden = 6144, c.ffn = 16384, c.heads = 48, c.kv_heads = 8, c.vocab = 32768;
    e.experts = 8, e.top_k = 2, e.moe_ffn = 16384;
    m.source =
        "huggingface.co/mistralai/Mixtral-8x22B-Instruct-v0.1 config.json; mistral.ai (141B)";
    m.published_params = 141'000'000'000;
  } else if (name == "deepseek-v3") {
    // deepseek-ai/DeepSeek-V3 config.json; DeepSeek-AI 2024 (671B without
    // the multi-token-prediction module, which is not modelled).
    c.layers = 61, c.hidden = 7168, c.ffn = 18432, c.heads = 128, c.kv_heads = 128;
    c.vocab = 129280;
    c.mla = MlaConfig{1536, 512, 64, 128, 128};
    e.experts = 256, e.top_k = 8, e.moe_ffn = 2048, e.shared_experts = 1, e.dense_layers = 3;
    m.source = "huggingface.co/deepseek-ai/DeepSeek-V3 config.json; arXiv:2412.19437 (671B)";
    m.published_params = 671'000'000'000;
  } else if (name == "qwen3-235b-a22b") {
    // Qwen/Qwen3-235B-A22B config.json (head_dim 128, q/k norms); 235B.
    c.layers = 94, c.hidden = 4096, c.ffn = 12288, c.heads = 64, c.kv_heads = 4;
    c.vocab = 151936, c.head_size = 128;
    e.experts = 128, e.top_k = 8, e.moe_ffn = 1536;
    m.source = "huggingface.co/Qwen/Qwen3-235B-A22B config.json; arXiv:2505.09388 (235B)";
    m.published_params = 235'000'000'000;
  } else {
    std::string names;
    for (std::string_view n : moe_model_names())
      names += (names.empty() ? "" : ", ") + std::string(n);
    throw core::InputError("", "model", std::string(name), "unknown MoE model (use " + names + ")");
  }
  return m;
}

std::vector<std::string_view> moe_model_names() {
  return {"mixtral-8x7b", "mixtral-8x22b", "deepseek-v3", "qwen3-235b-a22b"};
}

std::uint64_t total_params(const ModelConfig& m, const MoeConfig& moe) {
  const std::uint64_t h = m.hidden;
  const std::uint64_t attn = attention_params_per_rank(m, 1) + 2 * h;  // and the two norms
  std::uint64_t total = 2 * m.vocab * h + h;  // embedding, head, final norm
  for (std::uint32_t l = 0; l < m.layers; ++l) {
    if (!moe.is_moe_layer(l)) {
      total += attn + 3 * h * m.ffn;
      continue;
    }
    // Router (and DeepSeek's per-expert bias), routed and shared experts.
    const std::uint64_t router = h * moe.experts + (moe.shared_experts != 0 ? moe.experts : 0);
    total += attn + router + std::uint64_t{moe.experts + moe.shared_experts} * 3 * h * moe.moe_ffn;
  }
  return total;
}

std::uint64_t expert_params_per_rank(const TrainingConfig& c) {
  return std::uint64_t{c.moe.experts / c.moe.ep} * 3 * c.model.hidden * c.moe.moe_ffn;
}

std::uint64_t moe_tokens_per_rank(const TrainingConfig& c) {
  return c.micro_batch * (c.seq / c.cp) / c.tp;
}

std::uint64_t moe_layer_dense_params_per_rank(const TrainingConfig& c) {
  const std::uint64_t h = c.model.hidden;
  const MoeConfig& e = c.moe;
  const std::uint64_t shared = std::uint64_t{e.shared_experts} * e.moe_ffn / c.tp;
  return attention_params_per_rank(c.model, c.tp) + 2 * h + h * e.experts + 3 * h * shared;
}

MoeCompute moe_compute(const TrainingConfig& c) {
  const GpuSpec& g = c.gpu;
  const auto T = static_cast<double>(moe_tokens_per_rank(c));
  const auto h = static_cast<double>(c.model.hidden);
  const auto E = static_cast<double>(c.moe.experts);
  const double TK = T * c.moe.top_k;
  MoeCompute r;
  const core::TimePs permute = memory_ps(g, 2 * TK * h * kBf16);
  r.router_fwd = gemm_ps(g, T, h, E) + memory_ps(g, 2 * T * E * 4) + permute;
  r.unpermute_fwd = memory_ps(g, (TK + T) * h * kBf16);
  r.router_bwd = gemm_ps(g, T, E, h) + gemm_ps(g, h, T, E) + memory_ps(g, 3 * T * E * 4) +
                 2 * permute + r.unpermute_fwd;
  if (c.moe.shared_experts != 0) {
    // A dense SwiGLU MLP of S * F, TP-split, on all the rank's tokens (the
    // TP group's, gathered with sequence parallelism).
    const double Ts = T * c.tp;
    const double f =
        static_cast<double>(std::uint64_t{c.moe.shared_experts} * c.moe.moe_ffn / c.tp);
    r.shared_fwd =
        gemm_ps(g, Ts, h, 2 * f) + memory_ps(g, 3 * Ts * f * kBf16) + gemm_ps(g, Ts, f, h);
    r.shared_bwd = gemm_ps(g, Ts, h, f) + gemm_ps(g, f, Ts, h) + memory_ps(g, 5 * Ts * f * kBf16) +
                   gemm_ps(g, Ts, 2 * f, h) + gemm_ps(g, h, Ts, 2 * f);
  }
  return r;
}

core::TimePs expert_compute_ps(const TrainingConfig& c, std::uint64_t assignments) {
  const auto R = static_cast<double>(assignments);
  const auto h = static_cast<double>(c.model.hidden);
  const auto F = static_cast<double>(c.moe.moe_ffn);
  const auto local = static_cast<double>(c.moe.experts / c.moe.ep);
  // Grouped GEMMs: 2 R h (2F) + 2 R F h FLOPs; every local expert's three
  // weight matrices read once; activations in and out.
  const OpCost gemms{6 * R * h * F,
                     kBf16 * (local * 3 * h * F + R * h + R * 2 * F + R * F + R * h)};
  return roofline_ps(c.gpu, OpClass::kGemm, gemms) +
         roofline_ps(c.gpu, OpClass::kMemory, memory_cost(3 * R * F * kBf16));
}

void check_moe(const TrainingConfig& c) {
  const MoeConfig& e = c.moe;
  if (!e.enabled()) return;
  core::check_options(kMoeOptions, e);
  const std::uint64_t dpcp = std::uint64_t{c.dp} * c.cp;
  if (e.etp != 1) {
    throw core::InputError(
        "", "etp", str(e.etp),
        "only expert tensor parallelism 1 is supported (whole experts per rank)");
  }
  if (e.top_k > e.experts) {
    throw core::InputError("", "top_k", str(e.top_k),
                           "must not exceed the experts (" + str(e.experts) + ")");
  }
  if (e.experts % e.ep != 0) {
    throw core::InputError("", "ep", str(e.ep), "must divide the experts (" + str(e.experts) + ")");
  }
  if (dpcp % e.ep != 0) {
    throw core::InputError("", "ep", str(e.ep),
                           "must divide dp * cp (" + str(dpcp) +
                               "): EP groups are made of ranks differing in their DP x CP index");
  }
  if (e.dense_layers >= c.model.layers) {
    throw core::InputError("", "dense_layers", str(e.dense_layers),
                           "must be less than the layers (" + str(c.model.layers) +
                               "): a MoE model needs one MoE layer");
  }
  if (c.tp > 1 && !c.sequence_parallel) {
    throw core::InputError("", "tp", str(c.tp),
                           "MoE with tp > 1 needs --sequence-parallel (as Megatron-Core): each TP "
                           "rank routes its own tokens");
  }
  if (c.tp > 1 && e.shared_experts != 0 &&
      (std::uint64_t{e.shared_experts} * e.moe_ffn) % c.tp != 0) {
    throw core::InputError("", "tp", str(c.tp), "must divide the shared experts' size");
  }
  if (c.dp_sharding == DpSharding::kFull) {
    throw core::InputError("", "dp_sharding", "full",
                           "is not modelled with MoE (use none or optimizer)");
  }
  if (c.generated_dp() != c.dp) {
    throw core::InputError("", "fold_dp", str(c.fold_dp), "a MoE job cannot be folded");
  }
  // Every all-to-all's bytes (at most T * K * hidden * 2 per rank, summed
  // over ep ranks) stay within 2^62.
  const double a2a = static_cast<double>(moe_tokens_per_rank(c)) * e.top_k *
                     static_cast<double>(c.model.hidden) * 2 * e.ep;
  if (a2a > 0x1p62) {
    throw core::InputError("", "top_k", str(e.top_k),
                           "the tokens an all-to-all moves (micro_batch * seq / cp / tp * top_k * "
                           "hidden * 2 bytes per rank) exceed 2^62 bytes");
  }
  e.routing.validate();
  moe_routing_shape(c).validate();
}

RoutingShape moe_routing_shape(const TrainingConfig& c) {
  const MoeConfig& e = c.moe;
  RoutingShape shape;
  shape.moe_layers = c.model.layers - e.dense_layers;
  shape.ep = e.ep;
  shape.groups = static_cast<std::uint32_t>(std::uint64_t{c.tp} * c.pp * c.dp * c.cp / e.ep);
  shape.micro_batches = c.micro_batches;
  shape.experts = e.experts;
  shape.top_k = e.top_k;
  shape.tokens_per_rank = moe_tokens_per_rank(c);
  return shape;
}

std::uint32_t edp_size(const TrainingConfig& c) {
  return c.tp * c.dp * c.cp / c.moe.ep;
}

}  // namespace flux::workload
