#pragma once
// Mixture-of-experts token routing (docs/model.md, "MoE routing"): how many
// of a rank's token-expert assignments go to each rank of its expert-parallel
// (EP) group, per MoE layer and micro-batch. The MoE generator turns a
// TokenMatrix into the dispatch and combine all-to-alls and the expert
// compute; this module knows nothing of DAGs.
//
// Model. An EP group has `ep` ranks, each holding experts / ep experts
// (expert e on rank e / (experts / ep)). Each rank routes
// `tokens_per_rank` tokens, each to `top_k` distinct experts: T * K
// token-expert assignments per source rank. tokens[src * ep + dst] counts
// the assignments of src's tokens to the experts on dst (dst == src
// included: those stay local). Conservation: for every src,
// sum_dst tokens[src][dst] + dropped[src] == T * K.
//
// Routing kinds:
//  - uniform: exact, T * K / ep to every rank when divisible (the remainder
//    r goes one each to ranks (src + 0 .. r - 1) mod ep);
//  - zipf:S: expert popularity p_e proportional to 1 / (1 + pi(e))^S for a
//    seeded permutation pi per layer, assignments drawn per source rank;
//  - file:PATH: measured counts per MoE layer (docs/formats.md,
//    "flux.routing/v1"), checked for shape, sign and conservation.
// Capacity factor cf > 0 (Megatron's moe_expert_capacity_factor, drop
// policy "probs" simplified to dropping the excess): each expert accepts at
// most ceil(cf * T * K / experts) assignments from each source rank; the
// excess is dropped at the source (counted in `dropped`). 0: no dropping.
//
// Same spec, shape and seed: the same matrices, bit for bit, on every
// platform (splitmix64 draws addressed by (seed, layer, group, micro-batch,
// source), no std::*_distribution).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flux::workload {

enum class RoutingKind : std::uint8_t { kUniform, kZipf, kFile };

struct RoutingSpec {
  RoutingKind kind = RoutingKind::kUniform;
  double zipf_s = 0;           ///< kZipf: the skew exponent S (> 0)
  std::string file;            ///< kFile: path of a flux.routing/v1 file
  std::uint64_t seed = 1;      ///< --routing-seed
  double capacity_factor = 0;  ///< 0: no dropping; else > 0

  /// "uniform", "zipf:1.2" or "file:R.json". Throws core::InputError naming
  /// the field routing.
  static RoutingSpec parse(std::string_view text);
  /// The text parse() reads ("zipf:1.2").
  [[nodiscard]] std::string to_string() const;
  /// Throws core::InputError naming the field (routing, capacity_factor).
  void validate() const;
};

/// What a routing is for: one job's MoE layers and EP groups.
struct RoutingShape {
  std::uint32_t moe_layers = 0;       ///< MoE layers of the model (dense layers excluded)
  std::uint32_t ep = 0;               ///< ranks per EP group
  std::uint32_t groups = 1;           ///< EP groups
  std::uint32_t micro_batches = 1;    ///< micro-batches per iteration
  std::uint32_t experts = 0;          ///< routed experts (a multiple of ep)
  std::uint32_t top_k = 0;            ///< experts per token (<= experts)
  std::uint64_t tokens_per_rank = 0;  ///< T: tokens a rank routes per layer and micro-batch
  /// Throws core::InputError naming the field.
  void validate() const;
};

/// One EP group's routing for one MoE layer and micro-batch.
struct TokenMatrix {
  std::uint32_t ep = 0;
  std::vector<std::uint64_t> tokens;   ///< [src * ep + dst] assignments, after drops
  std::vector<std::uint64_t> dropped;  ///< [src] assignments dropped by the capacity factor
  [[nodiscard]] std::uint64_t at(std::uint32_t src, std::uint32_t dst) const {
    return tokens[static_cast<std::size_t>(src) * ep + dst];
  }
  /// Assignments rank dst receives (its experts' work).
  [[nodiscard]] std::uint64_t received(std::uint32_t dst) const;
};

class Router {
 public:
  /// Validates spec and shape; a file is read and checked here. Throws
  /// core::InputError (file, field, value): wrong shape, negative or
  /// non-integer counts, rows that do not conserve T * K.
  Router(RoutingSpec spec, RoutingShape shape);
  /// The routing of `moe_layer` (0-based among MoE layers) in EP group
  /// `group` for `micro_batch`. A file's counts apply to every group and
  /// micro-batch; zipf draws differ per (layer, group, micro-batch).
  [[nodiscard]] TokenMatrix route(std::uint32_t moe_layer, std::uint32_t group,
                                  std::uint32_t micro_batch) const;
  [[nodiscard]] const RoutingSpec& spec() const { return spec_; }
  [[nodiscard]] const RoutingShape& shape() const { return shape_; }

 private:
  RoutingSpec spec_;
  RoutingShape shape_;
  std::vector<TokenMatrix> file_layers_;  ///< kFile: one per MoE layer
};

}  // namespace flux::workload
