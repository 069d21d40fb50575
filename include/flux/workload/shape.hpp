#pragma once
// Collectives as shapes (core::CollectiveShape): one decomposition in
// positions 0 .. p-1, made once by running emit_collective on stand-in
// ranks, for every instance of it a lazily built workload holds
// (core::LazyWorkload; issue 33).
#include <cstdint>
#include <map>
#include <vector>

#include "flux/core/lazy_workload.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::workload {

/// The shape of `spec` as lower_collective decomposes it with one
/// algorithm (applied_algorithm of spec.algorithm; kAuto is refused with
/// std::invalid_argument: a choice group is not one shape). Ranks matter
/// only through their scale-up domains, for a hierarchical decomposition.
/// Throws what emit_collective throws on a bad spec.
core::CollectiveShape collective_shape(const CollectiveSpec& spec);

/// What decides a collective's decomposition with one algorithm (kind,
/// applied algorithm, group size, bytes, ring_size, pair_bytes, and for a
/// hierarchical decomposition the pattern of domains over the positions):
/// two specs with equal keys decompose alike up to their ranks. kAuto is
/// refused with std::invalid_argument.
std::vector<std::uint64_t> shape_key(const CollectiveSpec& spec);

/// Shapes by what decides them (kind, applied algorithm, group size, bytes,
/// ring_size, pair_bytes, and for a hierarchical decomposition the pattern
/// of domains over the positions), each added to a LazyWorkload once.
class ShapeCache {
 public:
  explicit ShapeCache(core::LazyWorkload& w) : w_(w) {}
  /// The index in the workload of `spec`'s shape, adding it when new.
  std::uint32_t shape_for(const CollectiveSpec& spec);
  /// The one-send shape of point-to-point sends.
  std::uint32_t single();

 private:
  core::LazyWorkload& w_;
  std::map<std::vector<std::uint64_t>, std::uint32_t> index_;
  std::uint32_t single_ = 0xffffffffu;
};

}  // namespace flux::workload
