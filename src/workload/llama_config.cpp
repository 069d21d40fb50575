// The Llama 3 training job's configuration: model presets, validation, rank
// numbering, the layer split over pipeline stages, the named jobs, and the
// per-layer compute and sizes (docs/model.md, "LLM training workload").
//
// Layer split (stage_layers, over the P = pp * vpp virtual stages): every
// stage gets floor(L / P) layers and the L mod P extra ones go one each to the middle stages 1, 2,
// ...; when there are P - 1 extra layers the last goes to stage 0. The first and last stages, which
// also hold the embedding and the LM head with its loss, so get the fewer layers: Llama 3 405B's
// 126 layers over 16 stages are 7, 8 x 14, 7, the split the Llama 3 paper describes ("we reduce one
// Transformer layer each from the first and the last stages"), which Megatron-Core expresses as
// num_layers_in_first_pipeline_stage = num_layers_in_last_pipeline_stage = 7.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "flux/core/error.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

using core::TimePs;

constexpr double kBf16 = 2;  // bytes per activation / gradient value

// a + b + ..., each sum checked against core::kMaxTimePs.
TimePs sum_compute(std::initializer_list<TimePs> terms) {
  TimePs total = 0;
  for (TimePs t : terms) total = core::add_time(total, t, "compute of one iteration");
  return total;
}

std::string str(std::uint64_t v) {
  return std::to_string(v);
}

void check_fold(const TrainingConfig& c) {
  if (c.fold_dp == 0 || c.fold_dp == c.dp) return;
  const auto f = str(c.fold_dp);
  if (c.fold_dp < 3 || c.dp % c.fold_dp != 0) {
    // With 2 replicas a DP ring's sends 0->1 and 1->0 would share one
    // circuit that stands for two different circuits of the job.
    throw core::InputError("", "fold_dp", f,
                           "must be at least 3 and divide dp (" + str(c.dp) + ")");
  }
  if (c.fold_dp % 2 == 1 && c.dp % 2 == 0) {
    // Two switches carry an even ring's circuits by alternating them; a
    // ring folded onto an odd number of replicas is an odd cycle, which
    // needs three: every schedule of the fold would be worse than the job's.
    throw core::InputError("", "fold_dp", f,
                           "must be even when dp is: a DP ring folded onto an odd number of "
                           "replicas cannot alternate its circuits as the even ring of dp does");
  }
  if (c.collective != Algorithm::kRing) {
    throw core::InputError("", "fold_dp", f,
                           "folding is exact only for ring collectives (collective is " +
                               std::string(to_string(c.collective)) + ")");
  }
  if (c.pp > 1 && c.order == RankOrder::kTpCpDpPp) {
    // A fold's copies are blocks of consecutive ranks (core::Fold); in this
    // order a DP replica's stages are dp * cp * tp ranks apart.
    throw core::InputError("", "fold_dp", f,
                           "not exact with --pp in order tp-cp-dp-pp: a DP replica is not a block "
                           "of consecutive ranks (use --order tp-cp-pp-dp)");
  }
  const std::uint64_t ring = std::uint64_t{c.dp} * c.cp;
  for (const std::uint64_t bytes : dp_allreduce_bytes(c)) {
    if (bytes % ring != 0) {
      throw core::InputError("", "fold_dp", f,
                             "not exact: a DP collective of " + str(bytes) +
                                 " bytes does not split into dp * cp = " + str(ring) +
                                 " equal chunks");
    }
  }
}

}  // namespace

std::string_view to_string(RankOrder o) {
  return o == RankOrder::kTpCpDpPp ? "tp-cp-dp-pp" : "tp-cp-pp-dp";
}

RankOrder rank_order_from_string(std::string_view name) {
  for (const RankOrder o : {RankOrder::kTpCpDpPp, RankOrder::kTpCpPpDp}) {
    if (name == to_string(o)) return o;
  }
  throw core::InputError("", "order", std::string(name),
                         "unknown rank order (use tp-cp-dp-pp or tp-cp-pp-dp)");
}

std::string_view to_string(DpSharding s) {
  switch (s) {
    case DpSharding::kNone:
      return "none";
    case DpSharding::kOptimizer:
      return "optimizer";
    case DpSharding::kFull:
      return "full";
  }
  return "none";
}

DpSharding dp_sharding_from_string(std::string_view name) {
  for (const DpSharding s : {DpSharding::kNone, DpSharding::kOptimizer, DpSharding::kFull}) {
    if (name == to_string(s)) return s;
  }
  throw core::InputError("", "dp_sharding", std::string(name),
                         "unknown sharding (use none, optimizer or full)");
}

ModelConfig ModelConfig::llama3(std::string_view size) {
  // Llama 3 / 3.1 model cards (Grattafiori et al. 2024, Table 3).
  if (size == "8b") return ModelConfig{"8b", 32, 4096, 14336, 32, 8, 128256};
  if (size == "70b") return ModelConfig{"70b", 80, 8192, 28672, 64, 8, 128256};
  if (size == "405b") return ModelConfig{"405b", 126, 16384, 53248, 128, 8, 128256};
  throw core::InputError("", "model", std::string(size),
                         "unknown Llama 3 model (use 8b, 70b, 405b)");
}

void ModelConfig::validate() const {
  core::check_options(kModelOptions, *this);
  if (head_size == 0 && !mla.enabled() && hidden % heads != 0) {
    throw core::InputError("", "heads", str(heads), "must divide hidden (" + str(hidden) + ")");
  }
  if (heads % kv_heads != 0) {
    throw core::InputError("", "kv_heads", str(kv_heads), "must divide heads (" + str(heads) + ")");
  }
}

void TrainingConfig::validate() const {
  model.validate();
  gpu.validate();
  core::check_options(kTrainingOptions, *this);
  const auto t = str(tp);
  if (ranks() > (1u << 20)) {
    throw core::InputError("", "dp", str(dp), "tp * cp * pp * dp exceeds 2^20 ranks");
  }
  if (scaleup_size != 0 && generated_ranks() % scaleup_size != 0) {
    throw core::InputError("", "scaleup_size", str(scaleup_size),
                           "must divide the " + str(generated_ranks()) +
                               " generated ranks into whole scale-up domains");
  }
  if (ranks() < 2) {
    throw core::InputError("", "tp", t,
                           "tp * cp * pp * dp must be at least 2 (one rank sends nothing)");
  }
  if (vpp > 1 && pp == 1) {
    throw core::InputError("", "vpp", str(vpp),
                           "needs pipeline parallelism (--pp > 1): it interleaves stages' chunks");
  }
  if (vpp > 1 && micro_batches % pp != 0) {
    // Megatron's interleaved schedule runs micro-batches in groups of pp.
    throw core::InputError("", "vpp", str(vpp),
                           "needs micro-batches (" + str(micro_batches) +
                               ") to be a multiple of pp (" + str(pp) + ")");
  }
  if (std::uint64_t{pp} * vpp > model.layers) {
    throw core::InputError("", vpp > 1 ? "vpp" : "pp", str(vpp > 1 ? vpp : pp),
                           (vpp > 1 ? "pp * vpp exceeds the layers (" : "exceeds the layers (") +
                               str(model.layers) + "): every " + (vpp > 1 ? "virtual " : "") +
                               "stage needs one");
  }
  if (cp > 1 && seq % (2 * std::uint64_t{cp}) != 0) {
    // Causal load balancing cuts the sequence into 2 * cp chunks.
    throw core::InputError("", "cp", str(cp),
                           "2 * cp must divide seq (" + str(seq) +
                               "): ring attention balances 2 * cp chunks of the sequence");
  }
  if (sequence_parallel && (seq / cp) % tp != 0) {
    throw core::InputError(
        "", "sequence_parallel", "on",
        "tp (" + t + ") must divide the tokens per CP rank, seq / cp = " + str(seq / cp));
  }
  check_fold(*this);
  check_moe(*this);
  if (model.heads % tp != 0) {
    throw core::InputError("", "tp", t,
                           "must divide the attention heads (" + str(model.heads) + ")");
  }
  if (model.ffn % tp != 0) {
    throw core::InputError("", "tp", t, "must divide the FFN size (" + str(model.ffn) + ")");
  }
  if (model.kv_heads % tp != 0 && tp % model.kv_heads != 0) {
    throw core::InputError(
        "", "tp", t, "must divide or be a multiple of the KV heads (" + str(model.kv_heads) + ")");
  }
}

std::uint32_t TrainingConfig::rank(std::uint32_t t, std::uint32_t c, std::uint32_t d,
                                   std::uint32_t p) const {
  const std::uint32_t outer = order == RankOrder::kTpCpDpPp ? p * generated_dp() + d : d * pp + p;
  return (outer * cp + c) * tp + t;
}

std::uint32_t TrainingConfig::stage_layers(std::uint32_t stage) const {
  const std::uint32_t v = virtual_stages();
  const std::uint32_t base = model.layers / v, extra = model.layers % v;
  if (v == 1) return model.layers;
  if (stage == 0) return base + (extra == v - 1 ? 1 : 0);
  if (stage + 1 == v) return base;
  return base + (stage <= extra ? 1 : 0);
}

std::uint32_t TrainingConfig::first_layer(std::uint32_t stage) const {
  std::uint32_t first = 0;
  for (std::uint32_t s = 0; s < stage; ++s) first += stage_layers(s);
  return first;
}

JobPreset job_preset(std::string_view name) {
  JobPreset j;
  j.name = std::string(name);
  TrainingConfig& c = j.config;
  c.scaleup_size = 8;  // 8-GPU NVLink servers (H100 HGX)
  c.gpu = GpuSpec::preset("h100");
  c.order = RankOrder::kTpCpPpDp;
  c.sequence_parallel = true;
  c.dp_sharding = DpSharding::kOptimizer;
  c.embeddings = true;
  c.seq = 8192;
  c.micro_batch = 1;
  c.micro_batches = 16;
  c.tp = 8;
  if (name == "llama3-405b-16k" || name == "llama3-405b-16k-long") {
    c.model = ModelConfig::llama3("405b");
    c.pp = 16;
    const bool long_context = name == "llama3-405b-16k-long";
    c.cp = long_context ? 16 : 1;
    c.dp = long_context ? 8 : 128;
    if (long_context) c.seq = 131072;
    j.source =
        "Grattafiori et al., The Llama 3 Herd of Models (2024), Table 4 and section 3.3.2: 16,384 "
        "H100s, TP8 CP" +
        std::string(long_context ? "16" : "1") + " PP16 DP" + (long_context ? "8" : "128") +
        ", 16 micro-batches of 1 per DP rank, order [TP, CP, PP, DP]";
    return j;
  }
  if (name == "llama3-70b-1k") {
    c.model = ModelConfig::llama3("70b");
    c.pp = 4;
    c.dp = 32;
    j.source =
        "Flux's choice in the Llama 3 style: 1,024 H100s, TP8 inside a server, PP4 (80 layers, 20 "
        "per stage), DP32, 16 micro-batches of 1, order [TP, CP, PP, DP]";
    return j;
  }
  // Mixture-of-experts jobs (issue 13; docs/model.md, "Named jobs"): TP1
  // (whole experts per GPU, no sequence parallelism), sequence 4,096.
  const auto moe_job = [&](std::string_view model, std::uint32_t pp, std::uint32_t dp,
                           std::uint32_t ep, std::uint32_t micro_batches) {
    const MoeModel m = moe_model(model);
    c.model = m.model;
    c.moe = m.moe;
    c.tp = 1;
    c.sequence_parallel = false;
    c.pp = pp;
    c.dp = dp;
    c.moe.ep = ep;
    c.seq = 4096;
    c.micro_batches = micro_batches;
  };
  if (name == "mixtral-8x7b-ep8") {
    moe_job("mixtral-8x7b", 1, 8, 8, 1);
    c.scaleup_size = 1;  // the paper's setting: every GPU on the OCS
    j.source =
        "Flux's choice at the paper's scale: Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 "
        "config.json) on 8 H100s, each on the optical fabric (no scale-up), EP8 = DP8 (one expert "
        "per GPU), sequence 4,096, one micro-batch of 1";
    return j;
  }
  if (name == "deepseek-v3-256") {
    moe_job("deepseek-v3", 4, 64, 16, 4);
    j.source =
        "Flux's choice, DeepSeek-V3-like (deepseek-ai/DeepSeek-V3 config.json, arXiv:2412.19437, "
        "which trains with PP16 and EP64 on 2,048 H800s): 256 H100s in 8-GPU NVLink servers, PP4 x "
        "DP64, EP16 (each EP group spans two servers, so its all-to-alls cross the optical "
        "fabric), "
        "sequence 4,096, 4 micro-batches of 1";
    return j;
  }
  std::string names;
  for (std::string_view n : job_names()) names += (names.empty() ? "" : ", ") + std::string(n);
  throw core::InputError("", "job", std::string(name), "unknown job (use " + names + ")");
}

std::vector<std::string_view> job_names() {
  return {"llama3-405b-16k", "llama3-405b-16k-long", "llama3-70b-1k", "mixtral-8x7b-ep8",
          "deepseek-v3-256"};
}

LayerCompute layer_compute(const TrainingConfig& c) {
  const ModelConfig& m = c.model;
  const GpuSpec& g = c.gpu;
  // Tokens per rank: CP splits the sequence; sequence parallelism runs the
  // norms and residuals on 1/tp of them.
  const double T = static_cast<double>(c.micro_batch * (c.seq / c.cp));
  const double Tn = c.sequence_parallel ? T / c.tp : T;
  const double h = static_cast<double>(m.hidden);
  const AttentionShape at = attention_shape(m, c.tp);
  const double d = at.head_dim, q = at.q, kv = at.kv;
  const double f = static_cast<double>(m.ffn / c.tp);
  auto gemm = [&](double a, double k, double n) {
    return roofline_ps(g, OpClass::kGemm, gemm_cost(a, k, n));
  };
  auto mem = [&](double bytes) { return roofline_ps(g, OpClass::kMemory, memory_cost(bytes)); };
  // Causal flash attention: QK^T and PV are 2 * seq^2 * head_dim FLOPs each
  // per head and sequence, halved by the causal mask; with CP each rank
  // does 1/cp of it (load balanced) and reads every K/V block once.
  const double seq = static_cast<double>(c.seq);
  const double all_tokens = static_cast<double>(c.micro_batch) * seq;
  // MLA: QK^T over the qk head size and PV over the v head size per head.
  const double core_flops = m.mla.enabled() ? 0.5 * 2 * static_cast<double>(c.micro_batch) * seq *
                                                  seq * at.heads * (at.qk + at.v) / c.cp
                                            : 0.5 * 4 * static_cast<double>(c.micro_batch) * seq *
                                                  seq * d * (q / d) / c.cp;
  const OpCost attn{core_flops, c.cp == 1 ? kBf16 * T * (2 * q + 2 * kv)
                                          : kBf16 * (2 * T * q + 2 * all_tokens * kv)};
  const TimePs residual = mem(3 * Tn * h * kBf16);
  const TimePs norm = mem(2 * Tn * h * kBf16);
  const TimePs norm_bwd = mem(3 * Tn * h * kBf16);
  const TimePs rope = mem(2 * T * (q + kv) * kBf16);

  LayerCompute r;
  r.attn_norm = sum_compute({residual, norm});
  // The input projections: Q, K, V as one GEMM, or MLA's four.
  TimePs in_fwd = 0, in_bwd = rope;
  for (const auto& [k, n] : at.in) {
    in_fwd = sum_compute({in_fwd, gemm(T, k, n)});
    in_bwd = sum_compute({in_bwd, gemm(T, n, k), gemm(k, T, n)});
  }
  r.attn_qkv = sum_compute({in_fwd, rope});
  r.attn_core = roofline_ps(g, OpClass::kAttention, attn);
  r.attn_out = gemm(T, at.o, h);
  r.attn_fwd = sum_compute({r.attn_norm, r.attn_qkv, r.attn_core, r.attn_out});
  r.mlp_norm = sum_compute({residual, norm});
  r.mlp_body = sum_compute({gemm(T, h, 2 * f), mem(3 * T * f * kBf16), gemm(T, f, h)});
  r.mlp_fwd = sum_compute({r.mlp_norm, r.mlp_body});
  // Backward of a GEMM: an input-gradient (dgrad) and a weight-gradient
  // (wgrad) GEMM of the same size.
  r.mlp_bwd = sum_compute(
      {gemm(T, h, f), gemm(f, T, h), mem(5 * T * f * kBf16), gemm(T, 2 * f, h), gemm(h, T, 2 * f)});
  // Flash-attention backward: 2.5x the forward FLOPs (five GEMMs instead of
  // two), twice the forward memory traffic.
  const OpCost attn_bwd{2.5 * attn.flops, 2 * attn.bytes};
  r.attn_bwd_out = sum_compute({gemm(T, h, at.o), gemm(at.o, T, h)});
  r.attn_bwd_core = roofline_ps(g, OpClass::kAttention, attn_bwd);
  r.attn_bwd_qkv = in_bwd;
  r.attn_bwd = sum_compute({r.attn_bwd_out, r.attn_bwd_core, r.attn_bwd_qkv});
  r.norm_bwd = sum_compute({norm_bwd, residual});
  return r;
}

std::uint64_t layer_params_per_rank(const ModelConfig& m, std::uint32_t tp) {
  const std::uint64_t h = m.hidden;
  const std::uint64_t f = m.ffn / tp;
  // Attention; gate, up and down; two RMSNorm weight vectors (replicated on
  // every TP rank).
  return attention_params_per_rank(m, tp) + 3 * h * f + 2 * h;
}

std::uint64_t attention_params_per_rank(const ModelConfig& m, std::uint32_t tp) {
  const AttentionShape a = attention_shape(m, tp);
  double params = a.o * static_cast<double>(m.hidden) + a.norms;
  for (const auto& [k, n] : a.in) params += k * n;
  return static_cast<std::uint64_t>(params);
}

AttentionShape attention_shape(const ModelConfig& m, std::uint32_t tp) {
  AttentionShape a;
  const auto h = static_cast<double>(m.hidden);
  a.heads = static_cast<double>(m.heads / tp);
  if (m.mla.enabled()) {
    // DeepSeek-V2/V3 MLA: h -> q_lora (norm) -> heads * (nope + rope); h ->
    // kv_lora + rope (norm) -> heads * (nope + v). Per head, K and V of
    // nope + rope and v values; the down projections are replicated on the
    // TP ranks.
    const MlaConfig& l = m.mla;
    const auto ql = static_cast<double>(l.q_lora_rank), kl = static_cast<double>(l.kv_lora_rank);
    const auto rope = static_cast<double>(l.qk_rope_head_dim);
    a.qk = static_cast<double>(l.qk_nope_head_dim) + rope;
    a.v = static_cast<double>(l.v_head_dim);
    a.head_dim = a.qk;
    a.q = a.heads * a.qk;
    a.kv = a.heads * (a.qk + a.v) / 2;
    a.in = {{h, ql}, {ql, a.q}, {h, kl + rope}, {kl, a.heads * (l.qk_nope_head_dim + a.v)}};
    a.o = a.heads * a.v;
    a.norms = ql + kl;
    return a;
  }
  a.head_dim = static_cast<double>(m.head_dim());
  a.qk = a.v = a.head_dim;
  a.q = a.heads * a.head_dim;
  // With tp > kv_heads each rank keeps one (replicated) KV head.
  a.kv = static_cast<double>(std::max<std::uint32_t>(1, m.kv_heads / tp)) * a.head_dim;
  a.in = {{h, a.q + 2 * a.kv}};
  a.o = a.q;
  // Qwen3's per-head RMSNorm of queries and keys (a head size of its own).
  a.norms = m.head_size != 0 ? 2 * a.head_dim : 0;
  return a;
}

std::uint64_t pipeline_send_bytes(const TrainingConfig& c) {
  const std::uint64_t tokens = c.micro_batch * (c.seq / c.cp) / (c.sequence_parallel ? c.tp : 1);
  return tokens * c.model.hidden * 2;
}

std::uint64_t cp_step_bytes(const TrainingConfig& c) {
  const auto kv = static_cast<std::uint64_t>(attention_shape(c.model, c.tp).kv);
  return 2 * c.micro_batch * (c.seq / c.cp) * kv * 2;
}

}  // namespace flux::workload
