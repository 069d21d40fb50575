#pragma once
// Mixture-of-experts layers in the training generator (Megatron-Core style;
// docs/model.md, "MoE layers"). A TrainingConfig whose `moe.experts` is
// non-zero replaces the MLP of every layer from `dense_layers` on by a MoE
// block; the rest of the iteration (attention, TP / CP / PP / DP, 1F1B) is
// the dense generator's (llama.hpp).
//
// Expert parallelism. Within one pipeline stage and TP slice t, the dp * cp
// ranks (d, c) are indexed j = d * cp + c; EP group g holds j = g * ep ..
// g * ep + ep - 1 (position j mod ep), each member keeping experts / ep of
// the routed experts (ETP 1: whole experts, not TP-split). The ranks holding
// the same experts (same t-independent position j mod ep, every TP slice:
// tp * dp * cp / ep of them) form the expert-data-parallel (EDP) group that
// reduces the expert gradients. With tp > 1 Megatron requires sequence
// parallelism: each TP rank routes its own seq / tp tokens.
//
// Per MoE layer and micro-batch, with T = micro_batch * seq / cp / tp tokens
// per rank and the TokenMatrix n[src][dst] of routing.hpp (assignments of
// src's tokens to dst's experts):
//   forward   router (T x hidden x experts GEMM, top-k, permute); dispatch
//             all-to-all over the EP group, src -> dst carrying
//             n[src][dst] * hidden * 2 + H bytes; expert compute on dst for
//             the R = sum_src n[src][dst] assignments it received (SwiGLU:
//             3 GEMMs of hidden x moe_ffn per assignment, grouped over the
//             experts / ep local experts); combine all-to-all, dst -> src
//             carrying n[src][dst] * hidden * 2 + H; unpermute;
//   backward  combine-grad all-to-all (src -> dst, as the dispatch), expert
//             backward (twice the forward GEMMs), dispatch-grad all-to-all
//             (dst -> src), router and permute backward.
// H = experts / ep * 8 bytes: the per-expert token counts Megatron's
// all-to-all dispatcher exchanges before the tokens. Every ordered pair of
// distinct EP members gets a send even with 0 tokens (then H bytes), so the
// DAG's sends and deps do not depend on the routing: only bytes and compute
// times do. Self-pairs (src == dst) move no network bytes. Shared experts
// run on every rank like a dense MLP of shared_experts * moe_ffn, TP-split.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/workload/routing.hpp"

namespace flux::workload {

struct MoeConfig {
  std::uint32_t experts = 0;  ///< routed experts; 0: a dense model
  std::uint32_t top_k = 0;    ///< experts per token
  std::uint64_t moe_ffn = 0;  ///< intermediate size of one expert
  std::uint32_t shared_experts = 0;
  std::uint32_t dense_layers = 0;  ///< the first ones keep a dense MLP (of ModelConfig::ffn)
  std::uint32_t ep = 1;            ///< expert-parallel degree (inside DP x CP)
  std::uint32_t etp = 1;           ///< expert tensor parallelism: only 1
  RoutingSpec routing;             ///< token routing (routing.hpp)

  [[nodiscard]] bool enabled() const { return experts != 0; }
  /// True when layer `l` (0-based) has a MoE block.
  [[nodiscard]] bool is_moe_layer(std::uint32_t l) const { return enabled() && l >= dense_layers; }
  /// Bytes of the per-expert counts added to every all-to-all send.
  [[nodiscard]] std::uint64_t header_bytes() const { return std::uint64_t{experts / ep} * 8; }
};

/// The options of a MoE model and its expert parallelism (core/option.hpp).
/// The routing (--routing, --routing-seed, --capacity-factor) is parsed by
/// RoutingSpec.
inline constexpr auto kMoeOptions = std::tuple{
    core::NumberOption<MoeConfig, std::uint32_t>{"experts", "--experts", "routed experts",
                                                 &MoeConfig::experts, 1, 1u << 16},
    core::NumberOption<MoeConfig, std::uint32_t>{"top_k", "--top-k", "experts per token",
                                                 &MoeConfig::top_k, 1, 1u << 10},
    core::NumberOption<MoeConfig, std::uint64_t>{"moe_ffn", "--moe-ffn",
                                                 "intermediate size of one expert",
                                                 &MoeConfig::moe_ffn, 1, 1u << 22},
    core::NumberOption<MoeConfig, std::uint32_t>{"shared_experts", "--shared-experts",
                                                 "shared experts (every token, like a dense MLP)",
                                                 &MoeConfig::shared_experts, 0, 1u << 10},
    core::NumberOption<MoeConfig, std::uint32_t>{"dense_layers", "--dense-layers",
                                                 "the first layers keep a dense MLP (of --ffn)",
                                                 &MoeConfig::dense_layers, 0, 1u << 16},
    core::NumberOption<MoeConfig, std::uint32_t>{
        "ep", "--ep",
        "expert-parallel degree: EP groups of ranks differing only in their DP x CP index; "
        "must divide dp * cp and the experts",
        &MoeConfig::ep, 1, 1u << 20},
    core::NumberOption<MoeConfig, std::uint32_t>{
        "etp", "--etp", "expert tensor-parallel degree (only 1: whole experts per rank)",
        &MoeConfig::etp, 1, 1u << 20},
};

}  // namespace flux::workload
