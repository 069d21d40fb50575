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
//    seeded permutation pi per (iteration, layer), assignments drawn per
//    source rank: exactly T * K, at most T per expert (water-filled
//    expected counts, rounded by a seeded systematic sampling);
//  - zipf-drift:S:D: the same popularity law, but pi drifts over the
//    iterations instead of being drawn afresh: pi at iteration 0 as zipf's,
//    then at each iteration t >= 1 every pair of neighbouring popularity
//    ranks (p, p + 1) with p = t mod 2, t mod 2 + 2, ... trades places with
//    probability D (a seeded odd-even random transposition walk); D = 0
//    keeps the popularity of iteration 0 for ever;
//  - file:PATH: measured counts per MoE layer (docs/formats.md,
//    "flux.routing/v1"), checked for shape, sign and conservation; per
//    training iteration when the file has `iterations` (else the same for
//    every iteration).
// Capacity factor cf > 0 (Megatron-Core's moe_expert_capacity_factor, as
// its router applies it: get_capacity and apply_router_token_dropping in
// megatron/core/transformer/moe/moe_utils.py): each expert accepts at most
// C = ceil((T * K / experts) * cf) assignments from each source rank (the
// router sees only its rank's T tokens); the excess is dropped at the
// source, before the dispatch (counted in `dropped`). 0: no dropping.
// A file's counts are taken as measured: with file routing cf must be 0.
//
// Same spec, shape and seed: the same matrices, bit for bit, on every
// platform (splitmix64 draws addressed by (seed, iteration, layer, group,
// micro-batch, source), no std::*_distribution; src/workload/routing.cpp
// has the algorithm).
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/option.hpp"

namespace flux::workload {

enum class RoutingKind : std::uint8_t {
  kUniform,
  kZipf,
  kFile,
  kMatrices,  ///< given matrices per (layer, group, micro-batch): a prediction (predict.hpp)
};

struct RoutingMatrices;

/// Largest zipf exponent accepted (beyond it every rank but the first is
/// already at the minimum weight).
inline constexpr double kMaxZipfS = 1000;
/// Largest expert count a shape may have (keeps the integer arithmetic of
/// the draws inside 128 bits).
inline constexpr std::uint32_t kMaxExperts = 65536;
/// Largest T * K a shape may have.
inline constexpr std::uint64_t kMaxAssignments = std::uint64_t{1} << 62;

/// The largest capacity factor (--capacity-factor; RoutingSpec::validate).
inline constexpr double kMaxCapacityFactor = 1e6;

struct RoutingSpec {
  RoutingKind kind = RoutingKind::kUniform;
  double zipf_s = 0;  ///< kZipf: the skew exponent S (> 0)
  /// kZipf: the popularity's drift per iteration D in [0, 1] (zipf-drift:S:D);
  /// none: each iteration's popularity drawn afresh (zipf:S).
  std::optional<double> drift{};
  std::string file;            ///< kFile: path of a flux.routing/v1 file
  std::uint64_t seed = 1;      ///< --routing-seed
  double capacity_factor = 0;  ///< 0: no dropping; else in (0, kMaxCapacityFactor]
  /// Which training iteration's routing to draw (zipf): each iteration is
  /// its own deterministic draw (popularity permutation and rounding).
  std::uint64_t iteration = 0;
  /// kMatrices: the matrices and what made them ("last", "ewma:0.5"); not
  /// a text parse() reads (to_string: "predicted:last").
  std::shared_ptr<const RoutingMatrices> matrices{};
  std::string predicted_by{};

  /// "uniform", "zipf:1.2", "zipf-drift:1.2:0.05" or "file:R.json" (the
  /// kind and its arguments;
  /// seed, capacity_factor and iteration keep their defaults). Throws
  /// core::InputError naming the field routing.
  static RoutingSpec parse(std::string_view text);
  /// The text parse() reads ("zipf:1.2"): parse(to_string()) has the same
  /// kind, zipf_s (shortest round-trip form) and file, except a file path
  /// that is not valid UTF-8, whose bytes from 0x80 on are written \xHH (the
  /// text goes into the workload's name, which must be UTF-8).
  [[nodiscard]] std::string to_string() const;
  /// Throws core::InputError naming the field (routing, capacity_factor):
  /// S finite in (0, kMaxZipfS], a drift D in [0, 1], a file path, cf
  /// finite >= 0 (0 for a file).
  void validate() const;
};

/// The routing options beside --routing (RoutingSpec's fields) of
/// `flux generate moe` (and of the Python flux.generate.moe) and of the sweep
/// axes routing_seed and capacity_factor (core/option.hpp).
inline constexpr auto kRoutingOptions = std::tuple{
    core::NumberOption<RoutingSpec, std::uint64_t>{"seed", "--routing-seed",
                                                   "seed of the random routings (zipf)",
                                                   &RoutingSpec::seed, 0, core::kMaxSeed},
    core::NumberOption<RoutingSpec, double>{
        "capacity_factor", "--capacity-factor",
        "expert capacity factor: each expert takes at most ceil(cf * T * K / experts) assignments "
        "per source rank, the rest dropped (0: no dropping)",
        &RoutingSpec::capacity_factor, 0.0, kMaxCapacityFactor},
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
  /// Throws core::InputError naming the field: every count >= 1, experts a
  /// multiple of ep and at most kMaxExperts, top_k <= experts, T * K at most
  /// kMaxAssignments.
  void validate() const;
  /// T * K: the assignments each source rank makes.
  [[nodiscard]] std::uint64_t assignments() const { return tokens_per_rank * top_k; }
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
  /// Assignments rank src sends (stays local included), after drops.
  [[nodiscard]] std::uint64_t sent(std::uint32_t src) const;
  friend bool operator==(const TokenMatrix&, const TokenMatrix&) = default;
};

/// A routing as its matrices: one per (MoE layer, group, micro-batch) of
/// `shape`, at (layer * groups + group) * micro_batches + micro_batch.
struct RoutingMatrices {
  RoutingShape shape;
  std::vector<TokenMatrix> matrices;
  [[nodiscard]] static std::size_t index(const RoutingShape& shape, std::uint32_t moe_layer,
                                         std::uint32_t group, std::uint32_t micro_batch) {
    return (std::size_t{moe_layer} * shape.groups + group) * shape.micro_batches + micro_batch;
  }
};

/// Expert capacity per source rank (Megatron-Core's get_capacity over one
/// rank's tokens): ceil((T * K / experts) * cf) in IEEE double arithmetic,
/// as Python computes it; 0 when cf is 0 (no capacity).
[[nodiscard]] std::uint64_t expert_capacity(const RoutingShape& shape, double capacity_factor);

class Router {
 public:
  /// Validates spec and shape; a file is read and checked here. Throws
  /// core::InputError (file, field, value): wrong shape, negative or
  /// non-integer counts, rows that do not conserve T * K.
  Router(RoutingSpec spec, RoutingShape shape);
  /// The routing of `moe_layer` (0-based among MoE layers) in EP group
  /// `group` for `micro_batch`. A file's counts apply to every group and
  /// micro-batch; zipf draws differ per (layer, group, micro-batch).
  /// Throws std::out_of_range outside the shape.
  [[nodiscard]] TokenMatrix route(std::uint32_t moe_layer, std::uint32_t group,
                                  std::uint32_t micro_batch) const;
  /// Source rank src's assignments per expert (experts entries, after the
  /// capacity): what route() sums per destination rank, e.g. for the
  /// experts' GEMMs. uniform and zipf only (a file holds rank totals):
  /// throws std::logic_error for file routing, std::out_of_range outside
  /// the shape.
  [[nodiscard]] std::vector<std::uint64_t> expert_counts(std::uint32_t moe_layer,
                                                         std::uint32_t group,
                                                         std::uint32_t micro_batch,
                                                         std::uint32_t src) const;
  /// Per-expert capacity from each source rank (expert_capacity), 0: none.
  [[nodiscard]] std::uint64_t capacity() const { return capacity_; }
  [[nodiscard]] const RoutingSpec& spec() const { return spec_; }
  [[nodiscard]] const RoutingShape& shape() const { return shape_; }

 private:
  void load_file();     // routing_file.cpp
  void prepare_zipf();  // routing.cpp
  void check_range(std::uint32_t moe_layer, std::uint32_t group, std::uint32_t micro_batch) const;
  [[nodiscard]] std::vector<std::uint32_t> zipf_order(std::uint32_t moe_layer) const;
  // src's counts per expert before the capacity into `count`.
  void draw_counts(std::uint32_t moe_layer, std::uint32_t group, std::uint32_t micro_batch,
                   std::uint32_t src, const std::vector<std::uint32_t>& expert_at,
                   std::vector<std::uint64_t>& count) const;

  RoutingSpec spec_;
  RoutingShape shape_;
  std::vector<TokenMatrix> file_layers_;  ///< kFile: one per MoE layer
  // kZipf, the same for every layer (routing.cpp): the popularity ranks
  // 0 .. zipf_capped_ - 1 get T each; the rest share zipf_rest_ in
  // proportion to their weights, whose running sums are zipf_prefix_.
  std::uint32_t zipf_capped_ = 0;
  std::uint64_t zipf_rest_ = 0;
  std::vector<std::uint64_t> zipf_prefix_;
  std::uint64_t capacity_ = 0;
};

/// A flux.routing/v1 file (docs/formats.md): a shape and one matrix per MoE
/// layer, for one EP group and micro-batch (replayed for all of them), and
/// optionally per later training iteration.
struct RoutingFile {
  std::uint32_t ep = 0;
  std::uint32_t experts = 0;
  std::uint32_t top_k = 0;
  std::uint64_t tokens_per_rank = 0;
  std::string source;               ///< optional: what produced it ("zipf:1.2 seed 1 ...")
  std::vector<TokenMatrix> layers;  ///< moe_layers of them, each ep x ep
  /// Optional: the routings of training iterations 1, 2, ... (`layers` is
  /// iteration 0's), each moe_layers matrices; none: `layers` for every
  /// iteration.
  std::vector<std::vector<TokenMatrix>> iterations;
  friend bool operator==(const RoutingFile&, const RoutingFile&) = default;
};

/// Reads and checks a flux.routing/v1 file on its own (shape, every count
/// within T * min(K, experts / ep), every row plus its dropped equal to
/// T * K). Throws core::InputError naming the file, the field
/// ("layers[2].tokens[3][1]") and the value.
[[nodiscard]] RoutingFile read_routing(const std::filesystem::path& file);
/// Writes `r` as flux.routing/v1 (counts as integers: round trip exact).
void write_routing(std::ostream& out, const RoutingFile& r);
/// write_routing to `file` atomically (io::save_atomically; "-": stdout).
void save_routing(const std::filesystem::path& file, const RoutingFile& r);
/// Every matrix `router` gives, per (MoE layer, group, micro-batch).
[[nodiscard]] RoutingMatrices routing_matrices(const Router& router);

/// The matrices `router` draws for one EP group and micro-batch, every MoE
/// layer, as a file to save and replay (`source` names spec and seed).
[[nodiscard]] RoutingFile routing_file(const Router& router, std::uint32_t group = 0,
                                       std::uint32_t micro_batch = 0);

}  // namespace flux::workload
