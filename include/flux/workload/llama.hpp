#pragma once
// One training iteration of a Llama-3-style dense transformer under
// Megatron-LM tensor parallelism (TP, innermost: a TP group is tp consecutive
// ranks) and data parallelism (DP, outer: rank = dp_index * tp + tp_index),
// as a DAG of point-to-point sends with compute on its edges.
//
// Per micro-batch and layer (Megatron-LM): forward, an all-reduce of the
// activation (micro_batch * seq * hidden bf16 values) after the attention
// block and after the MLP block; backward, an all-reduce of the activation
// gradient of the same size after the MLP block's and after the attention
// block's backward GEMMs (input and weight gradients, as Megatron-LM does
// without its optional asynchronous overlap). Each all-reduce blocks the
// rank's compute, as the paper's DAG (compute on edges between a rank's
// consecutive sends) implies. After the last micro-batch's backward of a layer,
// the layer's gradient all-reduce over its DP group (the layer's parameters
// / tp, bf16) is launched and overlaps the backward of earlier layers; the
// optimizer step (trailing compute) waits for all of them. Collectives become
// sends by the chosen algorithm (collectives.hpp). Compute comes from the
// roofline model (compute.hpp), placed on edges between a rank's consecutive
// sends; compute before a rank's first send is its release, after its last
// sends their tail. docs/model.md gives every operation and its size.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/compute.hpp"
#include "flux/workload/program.hpp"

namespace flux::workload {

struct ModelConfig {
  std::string name;
  std::uint32_t layers = 0;
  std::uint64_t hidden = 0;
  std::uint64_t ffn = 0;
  std::uint32_t heads = 0;
  std::uint32_t kv_heads = 0;
  std::uint64_t vocab = 0;

  /// Published Llama 3 / 3.1 configurations: "8b", "70b", "405b".
  static ModelConfig llama3(std::string_view size);
  void validate() const;
  [[nodiscard]] std::uint64_t head_dim() const { return hidden / heads; }
};

struct TrainingConfig {
  ModelConfig model = ModelConfig::llama3("8b");
  std::uint32_t tp = 1;
  std::uint32_t dp = 1;
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
  /// (core::Fold, docs/model.md "Folding") of tp * fold_dp ranks standing for
  /// dp / fold_dp copies, each DP ring folded onto fold_dp positions
  /// (CollectiveSpec::ring_size). Exact by the rotation symmetry of the DP
  /// rings: needs the ring algorithm, 3 <= fold_dp, fold_dp dividing dp (and
  /// even when dp is: an odd cycle needs three switches where the ring needs two), and
  /// every DP all-reduce's bytes a multiple of dp. 0 (or dp): not folded.
  std::uint32_t fold_dp = 0;

  /// Throws core::InputError naming the field: zero sizes, tp not dividing
  /// heads / ffn / hidden, tp*dp == 1 (no communication), ...
  void validate() const;
  [[nodiscard]] std::uint32_t ranks() const { return tp * dp; }
  /// DP replicas generated: fold_dp when folding, else dp.
  [[nodiscard]] std::uint32_t generated_dp() const { return fold_dp != 0 ? fold_dp : dp; }
  /// Ranks of the generated workload: tp * generated_dp().
  [[nodiscard]] std::uint32_t generated_ranks() const { return tp * generated_dp(); }
};

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
        "collectives only",
        &TrainingConfig::fold_dp, 0, 1u << 20},
    core::NumberOption<TrainingConfig, std::uint64_t>{"seq", "--seq", "sequence length in tokens",
                                                      &TrainingConfig::seq, 1, 1u << 24},
    core::NumberOption<TrainingConfig, std::uint64_t>{"micro_batch", "--micro-batch",
                                                      "sequences per micro-batch",
                                                      &TrainingConfig::micro_batch, 1, 1u << 16},
    core::NumberOption<TrainingConfig, std::uint32_t>{"micro_batches", "--micro-batches",
                                                      "micro-batches per iteration",
                                                      &TrainingConfig::micro_batches, 1, 1u << 16},
};

/// Compute time of each phase of one transformer layer on one TP rank, per
/// micro-batch, in picoseconds.
struct LayerCompute {
  core::TimePs attn_fwd = 0;  ///< residual, norm, QKV, RoPE, attention, O-proj
  core::TimePs mlp_fwd = 0;   ///< residual, norm, gate/up, SwiGLU, down
  core::TimePs mlp_bwd = 0;   ///< down dgrad + wgrad, SwiGLU bwd, gate/up dgrad + wgrad
  core::TimePs attn_bwd = 0;  ///< O-proj dgrad + wgrad, attention bwd, RoPE bwd, QKV dgrad + wgrad
  core::TimePs norm_bwd = 0;  ///< after each backward all-reduce: norm bwd and residual
};
LayerCompute layer_compute(const TrainingConfig& c);

/// Parameters of one transformer layer held by one TP rank.
std::uint64_t layer_params_per_rank(const ModelConfig& m, std::uint32_t tp);

/// The bytes of every distinct DP gradient all-reduce of the iteration, per
/// rank: a layer's, and with embeddings the embedding's and the LM head's.
std::vector<std::uint64_t> dp_allreduce_bytes(const TrainingConfig& c);

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

/// Generates the iteration. Validates `c` first. With `program`, also
/// records the program every rank runs (for exporters, program.hpp).
core::Workload generate_llama(const TrainingConfig& c, Program* program = nullptr);

}  // namespace flux::workload
