// flux.routing/v1 (docs/formats.md): measured or saved MoE routing, read
// by the schema-driven streaming reader and written by the JSON writer.
// Counts are integers throughout, so write -> read is exact.
#include <algorithm>
#include <array>
#include <charconv>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/io/json_reader.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/io/save.hpp"
#include "flux/workload/routing.hpp"

namespace flux::workload {
namespace {

using io::Field;
using io::Kind;
using io::Node;

constexpr std::string_view kRoutingFormat = "flux.routing/v1";

enum NodeId : int {
  kRoot,
  kFormat,
  kEp,
  kExperts,
  kTopK,
  kTokensPerRank,
  kMoeLayers,
  kSource,
  kLayers,
  kLayer,
  kTokens,
  kRow,
  kCount,
  kDropped,
  kDroppedCount,
  kIterations,
  kIteration,
  kIterationLayers,
  kNumNodes
};

constexpr std::array<Field, 9> kRootFields = {{{"format", kFormat, true},
                                               {"ep", kEp, true},
                                               {"experts", kExperts, true},
                                               {"top_k", kTopK, true},
                                               {"tokens_per_rank", kTokensPerRank, true},
                                               {"moe_layers", kMoeLayers, true},
                                               {"source", kSource, false},
                                               {"layers", kLayers, true},
                                               {"iterations", kIterations, false}}};
constexpr std::array<Field, 2> kLayerFields = {
    {{"tokens", kTokens, true}, {"dropped", kDropped, false}}};
constexpr std::array<Field, 1> kIterationFields = {{{"layers", kIterationLayers, true}}};

constexpr std::array<Node, kNumNodes> kNodes = {{
    {Kind::kObject, kRootFields},       // kRoot
    {Kind::kString},                    // kFormat
    {Kind::kUint},                      // kEp
    {Kind::kUint},                      // kExperts
    {Kind::kUint},                      // kTopK
    {Kind::kUint},                      // kTokensPerRank
    {Kind::kUint},                      // kMoeLayers
    {Kind::kString},                    // kSource
    {Kind::kArray, {}, kLayer},         // kLayers
    {Kind::kObject, kLayerFields},      // kLayer
    {Kind::kArray, {}, kRow},           // kTokens
    {Kind::kArray, {}, kCount},         // kRow
    {Kind::kUint},                      // kCount
    {Kind::kArray, {}, kDroppedCount},  // kDropped
    {Kind::kUint},                      // kDroppedCount
    {Kind::kArray, {}, kIteration},     // kIterations
    {Kind::kObject, kIterationFields},  // kIteration
    {Kind::kArray, {}, kLayer},         // kIterationLayers
}};

constexpr io::Schema kSchema{kNodes, kRoutingFormat};

struct RawLayer {
  std::vector<std::vector<std::uint64_t>> rows;
  std::vector<std::uint64_t> dropped;
  bool has_dropped = false;
};

// Collects the document; shape checks wait for the end (keys in any order).
class RoutingHandler final : public io::Handler {
 public:
  void begin(int node, const io::Cursor& /*at*/) override {
    if (node == kLayers) current_ = &layers_;
    if (node == kIteration) later_.emplace_back();
    if (node == kIterationLayers) current_ = &later_.back();
    if (node == kLayer) current_->emplace_back();
    if (node == kRow) current_->back().rows.emplace_back();
    if (node == kDropped) current_->back().has_dropped = true;
  }

  void leaf(int node, const io::Leaf& v, const io::Cursor& at) override {
    auto u32 = [&](std::uint32_t& out) {
      if (v.u > 0xffff'ffffULL) {
        throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^32-1");
      }
      out = static_cast<std::uint32_t>(v.u);
    };
    switch (node) {
      case kEp:
        u32(file_.ep);
        break;
      case kExperts:
        u32(file_.experts);
        break;
      case kTopK:
        u32(file_.top_k);
        break;
      case kTokensPerRank:
        file_.tokens_per_rank = v.u;
        break;
      case kMoeLayers:
        u32(moe_layers_);
        break;
      case kSource:
        file_.source = v.text;
        break;
      case kCount:
        current_->back().rows.back().push_back(v.u);
        break;
      case kDroppedCount:
        current_->back().dropped.push_back(v.u);
        break;
      default:
        break;
    }
  }

  RoutingFile finish() {
    RoutingShape shape;
    shape.moe_layers = moe_layers_;
    shape.ep = file_.ep;
    shape.experts = file_.experts;
    shape.top_k = file_.top_k;
    shape.tokens_per_rank = file_.tokens_per_rank;
    shape.validate();
    file_.layers = checked(shape, layers_, "");
    for (std::size_t i = 0; i < later_.size(); ++i) {
      file_.iterations.push_back(
          checked(shape, later_[i], "iterations[" + std::to_string(i) + "]."));
    }
    return std::move(file_);
  }

 private:
  // The matrices of one iteration's layers, each checked (`prefix` names
  // where they are: "" or "iterations[2].").
  std::vector<TokenMatrix> checked(const RoutingShape& shape, const std::vector<RawLayer>& layers,
                                   const std::string& prefix) const {
    const std::uint32_t ep = file_.ep;
    if (layers.size() != moe_layers_) {
      throw core::InputError("", prefix + "layers", std::to_string(layers.size()) + " layers",
                             "must have moe_layers (" + std::to_string(moe_layers_) + ") layers");
    }
    std::vector<TokenMatrix> out;
    const std::uint64_t total = shape.assignments();
    const std::uint64_t local = shape.experts / ep;
    const std::uint64_t most = shape.tokens_per_rank * std::min<std::uint64_t>(shape.top_k, local);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const RawLayer& raw = layers[l];
      const std::string where = prefix + "layers[" + std::to_string(l) + "]";
      if (raw.rows.size() != ep) {
        throw core::InputError("", where + ".tokens", std::to_string(raw.rows.size()) + " rows",
                               "must have ep (" + std::to_string(ep) + ") rows");
      }
      if (raw.has_dropped && raw.dropped.size() != ep) {
        throw core::InputError("", where + ".dropped",
                               std::to_string(raw.dropped.size()) + " entries",
                               "must have ep (" + std::to_string(ep) + ") entries");
      }
      TokenMatrix m;
      m.ep = ep;
      m.tokens.reserve(static_cast<std::size_t>(ep) * ep);
      m.dropped = raw.has_dropped ? raw.dropped : std::vector<std::uint64_t>(ep, 0);
      for (std::uint32_t s = 0; s < ep; ++s) {
        const std::string row = where + ".tokens[" + std::to_string(s) + "]";
        if (raw.rows[s].size() != ep) {
          throw core::InputError("", row, std::to_string(raw.rows[s].size()) + " entries",
                                 "must have ep (" + std::to_string(ep) + ") entries");
        }
        std::uint64_t sum = m.dropped[s];
        if (sum > total) {
          throw core::InputError("", where + ".dropped[" + std::to_string(s) + "]",
                                 std::to_string(sum),
                                 "more than tokens_per_rank * top_k = " + std::to_string(total));
        }
        for (std::uint32_t d = 0; d < ep; ++d) {
          const std::uint64_t c = raw.rows[s][d];
          if (c > most) {
            throw core::InputError(
                "", row + "[" + std::to_string(d) + "]", std::to_string(c),
                "more than a rank's experts can take from one source: tokens_per_rank * "
                "min(top_k, experts / ep) = " +
                    std::to_string(most));
          }
          sum += c;  // c <= 2^62 and sum <= total before: no overflow
          if (sum > total) break;
          m.tokens.push_back(c);
        }
        if (sum != total) {
          std::uint64_t written = m.dropped[s];
          for (std::uint64_t c : raw.rows[s])
            written = std::min(written + c, ~std::uint64_t{0} / 2);
          throw core::InputError("", row, "sum " + std::to_string(written),
                                 "tokens not conserved: a row plus its dropped must be "
                                 "tokens_per_rank * top_k = " +
                                     std::to_string(total));
        }
      }
      out.push_back(std::move(m));
    }
    return out;
  }

  RoutingFile file_;
  std::uint32_t moe_layers_ = 0;
  std::vector<RawLayer> layers_;
  std::vector<std::vector<RawLayer>> later_;  // "iterations"
  std::vector<RawLayer>* current_ = &layers_;
};

}  // namespace

RoutingFile read_routing(const std::filesystem::path& file) {
  RoutingHandler handler;
  io::read_json_file(file, kSchema, handler);
  try {
    return handler.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(file.string());
  }
}

void write_routing(std::ostream& out, const RoutingFile& r) {
  io::check_utf8(r.source, "source");
  io::JsonWriter j(out, io::JsonWriter::Style::kPretty);
  j.begin_object();
  j.member("format", kRoutingFormat);
  j.member("ep", r.ep);
  j.member("experts", r.experts);
  j.member("top_k", r.top_k);
  j.member("tokens_per_rank", r.tokens_per_rank);
  j.member("moe_layers", r.layers.size());
  if (!r.source.empty()) j.member("source", r.source);
  const auto layers = [&](const std::vector<TokenMatrix>& ms) {
    j.key("layers").begin_array();
    for (const TokenMatrix& m : ms) {
      j.begin_object();
      j.key("tokens").begin_array();
      for (std::uint32_t s = 0; s < m.ep; ++s) {
        j.begin_inline_array();
        for (std::uint32_t d = 0; d < m.ep; ++d) j.value(m.at(s, d));
        j.end_array();
      }
      j.end_array();
      j.key("dropped").begin_inline_array();
      for (std::uint64_t x : m.dropped) j.value(x);
      j.end_array();
      j.end_object();
    }
    j.end_array();
  };
  layers(r.layers);
  if (!r.iterations.empty()) {
    j.key("iterations").begin_array();
    for (const std::vector<TokenMatrix>& it : r.iterations) {
      j.begin_object();
      layers(it);
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
  j.finish();
}

void save_routing(const std::filesystem::path& file, const RoutingFile& r) {
  try {
    io::save_atomically(file, [&](std::ostream& out) { write_routing(out, r); });
  } catch (const core::InputError& e) {
    throw e.with_source(file.string());
  }
}

RoutingFile routing_file(const Router& router, std::uint32_t group, std::uint32_t micro_batch) {
  const RoutingShape& shape = router.shape();
  const RoutingSpec& spec = router.spec();
  RoutingFile r;
  r.ep = shape.ep;
  r.experts = shape.experts;
  r.top_k = shape.top_k;
  r.tokens_per_rank = shape.tokens_per_rank;
  char cf[64];
  const auto end = std::to_chars(cf, cf + sizeof cf, spec.capacity_factor).ptr;
  r.source = spec.to_string() + " seed " + std::to_string(spec.seed) + " iteration " +
             std::to_string(spec.iteration) + " capacity_factor " + std::string(cf, end) +
             " group " + std::to_string(group) + " micro_batch " + std::to_string(micro_batch);
  for (std::uint32_t l = 0; l < shape.moe_layers; ++l) {
    r.layers.push_back(router.route(l, group, micro_batch));
  }
  return r;
}

void Router::load_file() {
  RoutingFile f = read_routing(spec_.file);
  auto same = [&](const char* field, std::uint64_t in_file, std::uint64_t in_job) {
    if (in_file != in_job) {
      throw core::InputError(spec_.file, field, std::to_string(in_file),
                             "the job has " + std::string(field) + " " + std::to_string(in_job));
    }
  };
  same("ep", f.ep, shape_.ep);
  same("experts", f.experts, shape_.experts);
  same("top_k", f.top_k, shape_.top_k);
  same("tokens_per_rank", f.tokens_per_rank, shape_.tokens_per_rank);
  same("moe_layers", f.layers.size(), shape_.moe_layers);
  if (spec_.iteration > f.iterations.size() && !f.iterations.empty()) {
    throw core::InputError(spec_.file, "iterations", std::to_string(f.iterations.size()),
                           "the file routes iterations 0 .. " +
                               std::to_string(f.iterations.size()) + ", not iteration " +
                               std::to_string(spec_.iteration));
  }
  // Iteration 0 is `layers`, iteration i >= 1 iterations[i - 1]; a file
  // without `iterations` replays its layers for every iteration.
  file_layers_ = spec_.iteration == 0 || f.iterations.empty()
                     ? std::move(f.layers)
                     : std::move(f.iterations[spec_.iteration - 1]);
}

}  // namespace flux::workload
