#pragma once
// One training iteration of a Llama-3-style dense transformer under the
// parallelisms of Megatron-LM / Megatron-Core, as a DAG of point-to-point
// sends with compute on its edges: tensor parallelism (TP, with or without
// sequence parallelism), context parallelism (CP, ring attention), pipeline
// parallelism (PP, the 1F1B schedule, interleaved or not) and data
// parallelism (DP, its gradient group DP x CP, optionally sharded: ZeRO-1 /
// distributed optimizer or ZeRO-3 / FSDP). Ranks are numbered TP innermost, then CP, then DP and PP
// in the chosen order (RankOrder).
//
// Per micro-batch and layer (Megatron-LM): forward, an all-reduce of the
// activation (micro_batch * seq/cp * hidden bf16 values) after the attention
// block and after the MLP block (with sequence parallelism an all-gather
// before the block's column-parallel GEMM and a reduce-scatter after its
// row-parallel GEMM); backward, the same collectives mirrored. With CP the
// attention kernel runs in cp blocks between which the K and V blocks move
// one step around the CP ring (cp - 1 steps; backward with their
// gradients). Each TP collective blocks the rank's compute, as the paper's
// DAG (compute on edges between a rank's consecutive sends) implies. With
// PP each stage runs 1F1B over its layers and sends its activation (its
// gradient, backward) to the same TP/CP rank of the next (previous) stage.
// After the last micro-batch's backward of a layer its gradient reduction
// over the DP x CP group (an all-reduce; a reduce-scatter when sharded) is
// launched and overlaps the backward of earlier layers; the optimizer step
// waits for all of them (then, with the distributed optimizer, the updated
// parameters are all-gathered). docs/model.md gives every operation, its
// size and its source.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/compute.hpp"
#include "flux/workload/moe.hpp"
#include "flux/workload/program.hpp"

namespace flux::workload {

/// DeepSeek's multi-head latent attention (DeepSeek-V2/V3): queries and
/// keys/values through low-rank projections; 0 kv_lora_rank: not used.
struct MlaConfig {
  std::uint64_t q_lora_rank = 0;
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  [[nodiscard]] bool enabled() const { return kv_lora_rank != 0; }
};

struct ModelConfig {
  std::string name;
  std::uint32_t layers = 0;
  std::uint64_t hidden = 0;
  std::uint64_t ffn = 0;
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;
  std::uint64_t vocab = 0;
  /// Per-head size when it is not hidden / heads (Qwen3: 128 with hidden
  /// 4096 and 64 heads); 0: hidden / heads.
  std::uint64_t head_size = 0;
  MlaConfig mla{};  ///< DeepSeek's latent attention (replaces the Q, K, V projections)

  /// Published Llama 3 / 3.1 configurations: "8b", "70b", "405b".
  static ModelConfig llama3(std::string_view size);
  void validate() const;
  [[nodiscard]] std::uint64_t head_dim() const {
    return head_size != 0 ? head_size : hidden / heads;
  }
};

/// How ranks are numbered: TP innermost, then CP, then the other two.
enum class RankOrder : std::uint8_t {
  kTpCpDpPp,  ///< Megatron-LM's default: rank = ((p * dp + d) * cp + c) * tp + t
  kTpCpPpDp,  ///< the Llama 3 paper's: rank = ((d * pp + p) * cp + c) * tp + t
};
std::string_view to_string(RankOrder o);
/// "tp-cp-dp-pp" or "tp-cp-pp-dp"; throws core::InputError ("order").
RankOrder rank_order_from_string(std::string_view name);

/// How data parallelism shards the training state.
enum class DpSharding : std::uint8_t {
  kNone,       ///< replicated: gradient all-reduce
  kOptimizer,  ///< ZeRO-1 / Megatron's distributed optimizer
  kFull,       ///< ZeRO-3 / FSDP: parameters sharded too
};
std::string_view to_string(DpSharding s);
/// "none", "optimizer" or "full"; throws core::InputError ("dp_sharding").
DpSharding dp_sharding_from_string(std::string_view name);

struct TrainingConfig {
  ModelConfig model = ModelConfig::llama3("8b");
  std::uint32_t tp = 1;
  std::uint32_t dp = 1;
  std::uint32_t pp = 1;  ///< pipeline stages (1F1B)
  /// Model chunks per pipeline stage (Megatron's interleaved 1F1B): the
  /// layers are split over pp * vpp virtual stages, virtual stage
  /// v * pp + s on stage s.
  std::uint32_t vpp = 1;
  std::uint32_t cp = 1;  ///< context-parallel degree (ring attention)
  RankOrder order = RankOrder::kTpCpDpPp;
  /// Megatron's sequence parallelism: each TP all-reduce becomes a
  /// reduce-scatter and an all-gather; norms run on seq / tp tokens.
  bool sequence_parallel = false;
  DpSharding dp_sharding = DpSharding::kNone;
  std::uint64_t seq = 8192;         ///< sequence length, tokens
  std::uint64_t micro_batch = 1;    ///< sequences per micro-batch
  std::uint32_t micro_batches = 1;  ///< per iteration (gradient accumulation)
  GpuSpec gpu = GpuSpec::preset("a100");
  Algorithm collective = Algorithm::kRing;
  /// Also model the vocabulary-parallel embedding, LM head and loss, and the
  /// DP all-reduce of their gradients. Off: `layers` transformer layers only.
  bool embeddings = false;
  /// Model the optimizer step (Adam, memory bound) as trailing compute.
  bool optimizer = true;
  /// Generate only `fold_dp` of the dp replicas: a folded workload
  /// (core::Fold, docs/model.md "Folding") of tp * cp * pp * fold_dp ranks
  /// standing for dp / fold_dp copies, each DP x CP ring folded onto fold_dp
  /// replicas (CollectiveSpec::ring_size). Exact by the rotation symmetry of
  /// the DP rings when a DP replica is a block of consecutive ranks (pp = 1
  /// or order tp-cp-pp-dp): needs the ring algorithm, 3 <= fold_dp, fold_dp
  /// dividing dp (and even when dp is: an odd cycle needs three switches
  /// where the ring needs two), and every DP collective's bytes a multiple
  /// of dp * cp. 0 (or dp): not folded.
  std::uint32_t fold_dp = 0;
  /// The scale-up (NVLink) domain size the job is laid out for, recorded in
  /// the workload (core::WorkloadData::scaleup_size), which `flux schedule`
  /// and `simulate` take as their --scaleup-size default. 0: not said. Must
  /// divide the generated ranks.
  std::uint32_t scaleup_size = 0;
  /// Mixture of experts (moe.hpp): experts 0 is a dense model.
  MoeConfig moe;

  /// Throws core::InputError naming the field: zero sizes, tp not dividing
  /// heads / ffn / hidden, layers < pp, cp not dividing seq, a fold that
  /// would not be exact, no communication at all, ...
  void validate() const;
  [[nodiscard]] std::uint64_t ranks() const { return std::uint64_t{tp} * cp * pp * dp; }
  /// DP replicas generated: fold_dp when folding, else dp.
  [[nodiscard]] std::uint32_t generated_dp() const { return fold_dp != 0 ? fold_dp : dp; }
  /// The fold of the generated workload (docs/model.md, "Folding"): dp /
  /// generated_dp() copies of blocks of tp * cp * pp ranks; none unfolded.
  [[nodiscard]] core::Fold fold() const {
    return generated_dp() == dp ? core::Fold{} : core::Fold{dp / generated_dp(), tp * cp * pp};
  }
  /// Ranks of the generated workload: tp * cp * pp * generated_dp().
  [[nodiscard]] std::uint32_t generated_ranks() const { return tp * cp * pp * generated_dp(); }
  /// Rank of (TP index t, CP index c, DP index d, stage p) in the generated
  /// workload (d < generated_dp()).
  [[nodiscard]] std::uint32_t rank(std::uint32_t t, std::uint32_t c, std::uint32_t d,
                                   std::uint32_t p) const;
  /// Virtual pipeline stages: pp * vpp.
  [[nodiscard]] std::uint32_t virtual_stages() const { return pp * vpp; }
  /// Transformer layers of virtual stage `stage` (the stage itself without
  /// interleaving): layers / V each over the V = pp * vpp virtual stages,
  /// the layers mod V extra ones one each to the middle ones from 1 (and,
  /// when that is V - 1 of them, the last one to 0): the first and last,
  /// which also hold the embedding and the LM head, get fewer, as in the
  /// Llama 3 paper (126 layers over 16 stages: 7, 8 x 14, 7).
  [[nodiscard]] std::uint32_t stage_layers(std::uint32_t stage) const;
  /// Index of the first layer of virtual stage `stage`.
  [[nodiscard]] std::uint32_t first_layer(std::uint32_t stage) const;
};

/// A published training job: its configuration and the size of the
/// scale-up domains (NVLink servers) it assumes (docs/model.md, "Named jobs").
struct JobPreset {
  std::string name;
  TrainingConfig config;
  std::string source;  ///< where the layout comes from
};
/// "llama3-405b-16k", "llama3-405b-16k-long", "llama3-70b-1k" and the MoE
/// jobs "mixtral-8x7b-ep8", "deepseek-v3-256"; throws core::InputError
/// ("job").
JobPreset job_preset(std::string_view name);
/// The names job_preset() knows, in order.
std::vector<std::string_view> job_names();

/// The options of a model: names, flags, help and bounds (core/option.hpp).
/// The bounds keep every size product the generator forms (activations
/// micro_batch * seq * hidden * 2 bytes, parameters hidden * ffn) within 2^62.
inline constexpr auto kModelOptions = std::tuple{
    core::NumberOption<ModelConfig, std::uint32_t>{"layers", "--layers", "transformer layers",
                                                   &ModelConfig::layers, 1, 1u << 16},
    core::NumberOption<ModelConfig, std::uint64_t>{"hidden", "--hidden", "hidden size",
                                                   &ModelConfig::hidden, 1, 1u << 20},
    core::NumberOption<ModelConfig, std::uint64_t>{"ffn", "--ffn", "FFN intermediate size",
                                                   &ModelConfig::ffn, 1, 1u << 22},
    core::NumberOption<ModelConfig, std::uint32_t>{"heads", "--heads", "attention heads",
                                                   &ModelConfig::heads, 1, 1u << 16},
    core::NumberOption<ModelConfig, std::uint32_t>{"kv_heads", "--kv-heads", "key/value heads",
                                                   &ModelConfig::kv_heads, 1, 1u << 16},
    core::NumberOption<ModelConfig, std::uint64_t>{"vocab", "--vocab", "vocabulary size",
                                                   &ModelConfig::vocab, 1, 1u << 24},
};

/// The options of a training job (core/option.hpp).
inline constexpr auto kTrainingOptions = std::tuple{
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "tp", "--tp", "tensor-parallel degree (TP groups are consecutive ranks)",
        &TrainingConfig::tp, 1, 1u << 20},
    core::NumberOption<TrainingConfig, std::uint32_t>{"dp", "--dp", "data-parallel degree",
                                                      &TrainingConfig::dp, 1, 1u << 20},
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "fold_dp", "--fold-dp",
        "generate only this many DP replicas (>= 3, dividing dp, even if dp is; 0: all) standing "
        "for all dp of them: exact by the DP rings' symmetry (docs/model.md, Folding); ring "
        "collectives only; with --pp, --order tp-cp-pp-dp only",
        &TrainingConfig::fold_dp, 0, 1u << 20},
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "pp", "--pp", "pipeline stages (1F1B schedule; layers split as docs/model.md says)",
        &TrainingConfig::pp, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "vpp", "--vpp",
        "model chunks per pipeline stage (interleaved 1F1B; needs --pp and micro-batches a "
        "multiple of pp)",
        &TrainingConfig::vpp, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "cp", "--cp", "context-parallel degree (ring attention; 2 * cp must divide seq)",
        &TrainingConfig::cp, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint64_t>{"seq", "--seq", "sequence length in tokens",
                                                      &TrainingConfig::seq, 1, 1u << 24},
    core::NumberOption<TrainingConfig, std::uint64_t>{"micro_batch", "--micro-batch",
                                                      "sequences per micro-batch",
                                                      &TrainingConfig::micro_batch, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint32_t>{"micro_batches", "--micro-batches",
                                                      "micro-batches per iteration",
                                                      &TrainingConfig::micro_batches, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint32_t>{
        "scaleup_size", "--scaleup-size",
        "scale-up (NVLink) domain size the job is laid out for, recorded in the workload: "
        "schedule and simulate take it as their --scaleup-size (0: not said)",
        &TrainingConfig::scaleup_size, 0, 1u << 20},
};

/// Compute time of each phase of one transformer layer on one TP (and CP)
/// rank, per micro-batch, in picoseconds. Tokens per rank: micro_batch *
/// seq / cp; with sequence parallelism the norms and residuals run on 1/tp
/// of them.
struct LayerCompute {
  core::TimePs attn_fwd = 0;  ///< residual, norm, QKV, RoPE, attention, O-proj
  core::TimePs mlp_fwd = 0;   ///< residual, norm, gate/up, SwiGLU, down
  core::TimePs mlp_bwd = 0;   ///< down dgrad + wgrad, SwiGLU bwd, gate/up dgrad + wgrad
  core::TimePs attn_bwd = 0;  ///< O-proj dgrad + wgrad, attention bwd, RoPE bwd, QKV dgrad + wgrad
  core::TimePs norm_bwd = 0;  ///< after each backward all-reduce: norm bwd and residual
  // The parts, in order: attn_fwd = attn_norm + attn_qkv + attn_core +
  // attn_out; mlp_fwd = mlp_norm + mlp_body; attn_bwd = attn_bwd_out +
  // attn_bwd_core + attn_bwd_qkv. The *_core parts are the attention kernel
  // (all cp blocks: each block is 1/cp of it).
  core::TimePs attn_norm = 0;  ///< residual and norm before the QKV GEMM
  core::TimePs attn_qkv = 0;   ///< QKV GEMM and RoPE
  core::TimePs attn_core = 0;
  core::TimePs attn_out = 0;  ///< O-proj GEMM
  core::TimePs mlp_norm = 0;
  core::TimePs mlp_body = 0;
  core::TimePs attn_bwd_out = 0;  ///< O-proj dgrad + wgrad
  core::TimePs attn_bwd_core = 0;
  core::TimePs attn_bwd_qkv = 0;  ///< RoPE bwd, QKV dgrad + wgrad
};
LayerCompute layer_compute(const TrainingConfig& c);

/// Parameters of one transformer layer held by one TP rank.
std::uint64_t layer_params_per_rank(const ModelConfig& m, std::uint32_t tp);
/// Those of its attention block (projections and their norms).
std::uint64_t attention_params_per_rank(const ModelConfig& m, std::uint32_t tp);

/// The attention's shapes on one TP rank: query heads, per-head sizes, the
/// Q and K/V widths (kv: the K and V values per token, each), the input
/// projections (k x n GEMMs: one QKV GEMM, or MLA's four) and the output
/// projection's input width.
struct AttentionShape {
  double heads = 0, head_dim = 0, qk = 0, v = 0, q = 0, kv = 0, o = 0, norms = 0;
  std::vector<std::pair<double, double>> in;
};
AttentionShape attention_shape(const ModelConfig& m, std::uint32_t tp);
/// Throws core::InputError naming the field when `c.moe` does not fit `c`
/// (called by TrainingConfig::validate; nothing when dense).
void check_moe(const TrainingConfig& c);

/// The bytes of every distinct DP-group collective of the iteration, per
/// rank (gradient reductions and, when sharded, parameter all-gathers of the
/// same size): a layer's, and with embeddings the embedding's and the LM
/// head's.
std::vector<std::uint64_t> dp_allreduce_bytes(const TrainingConfig& c);

/// Bytes of one pipeline send (an activation or its gradient, bf16):
/// micro_batch * seq / cp / (tp with sequence parallelism) * hidden * 2.
std::uint64_t pipeline_send_bytes(const TrainingConfig& c);
/// Bytes one rank sends per ring-attention step in the forward pass (its K
/// and V blocks: 2 * micro_batch * seq / cp * kv_dim / tp * 2); the backward
/// steps carry twice that (K, V and their gradients).
std::uint64_t cp_step_bytes(const TrainingConfig& c);

/// Sends and dependencies of the iteration generate_llama would build, from
/// closed forms of the collectives (collectives.hpp), without generating:
/// the sends are exact up to zero-byte chunks, the deps an upper estimate.
/// Validates `c` first. For refusing a job that would not fit in memory
/// (core::workload_memory_bytes) before anything is allocated.
struct WorkloadSize {
  std::uint64_t tasks = 0;
  std::uint64_t deps = 0;
};
WorkloadSize estimate_llama_size(const TrainingConfig& c);

/// A named MoE model (docs/model.md, "MoE models"): its shapes, its MoE
/// block (ep 1) and where they come from.
struct MoeModel {
  ModelConfig model;
  MoeConfig moe;
  std::string source;
  std::uint64_t published_params = 0;  ///< total parameters the source states
};
/// "mixtral-8x7b", "mixtral-8x22b", "deepseek-v3", "qwen3-235b-a22b";
/// throws core::InputError ("model").
MoeModel moe_model(std::string_view name);
std::vector<std::string_view> moe_model_names();
/// Parameters of the whole model: embedding, every layer (attention, norms,
/// dense MLP or router, routed and shared experts) and the LM head.
std::uint64_t total_params(const ModelConfig& m, const MoeConfig& moe);
/// Expert parameters one rank holds in one MoE layer (experts / ep whole
/// experts): what its EDP group reduces.
std::uint64_t expert_params_per_rank(const TrainingConfig& c);
/// Tokens one rank routes per MoE layer and micro-batch:
/// micro_batch * seq / cp / tp.
std::uint64_t moe_tokens_per_rank(const TrainingConfig& c);
/// Parameters of a MoE layer's dense part on one TP rank (attention, norms,
/// router, shared experts): what the DP x CP group reduces.
std::uint64_t moe_layer_dense_params_per_rank(const TrainingConfig& c);

/// The routing's shape for `c`: its MoE layers, EP groups (tp * pp *
/// dp * cp / ep of them, numbered (stage * tp + t) * (dp * cp / ep) + g),
/// micro-batches and tokens per rank.
RoutingShape moe_routing_shape(const TrainingConfig& c);
/// Ranks of the expert-data-parallel group of a MoE layer's experts:
/// tp * dp * cp / ep.
std::uint32_t edp_size(const TrainingConfig& c);

/// Compute of a MoE block's fixed parts on one rank, per micro-batch, ps.
struct MoeCompute {
  core::TimePs router_fwd = 0;     ///< router GEMM, softmax / top-k, permute
  core::TimePs unpermute_fwd = 0;  ///< unpermute and the weighted sum of the k outputs
  core::TimePs router_bwd = 0;     ///< their backward
  core::TimePs shared_fwd = 0;     ///< shared experts (a TP-split SwiGLU MLP); 0 without
  core::TimePs shared_bwd = 0;
};
MoeCompute moe_compute(const TrainingConfig& c);
/// Forward time of the local experts on one rank that received
/// `assignments` token-expert assignments: three grouped GEMMs of
/// hidden x moe_ffn over experts / ep experts, and SwiGLU (backward: 2x).
core::TimePs expert_compute_ps(const TrainingConfig& c, std::uint64_t assignments);

/// Generates the iteration. Validates `c` first. With `program`, also
/// records the program the ranks run (for exporters, program.hpp).
core::Workload generate_llama(const TrainingConfig& c, Program* program = nullptr);

/// The program generate_llama(c, &program) records, without making a send
/// (Program::without_sends): memory grows with the collectives, not their
/// sends, so a job of any size can be written as Chakra traces
/// (chakra::to_chakra of a program). Validates `c` first; throws
/// core::InputError on a collective of several decompositions (--collective
/// auto: a choice needs the sends), or on more than 2^32 - 1 sends.
Program generate_llama_program(const TrainingConfig& c);

}  // namespace flux::workload
