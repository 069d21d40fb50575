#pragma once
// All-to-all (mixture-of-experts) instances for the schedulers' tests and
// bench/a2a_compare, built directly (the MoE DAG generator lives elsewhere).
//
// One layer = an expert-parallel *dispatch* all-to-all among p ranks: a send
// i -> j for every ordered pair i != j (p (p - 1) sends). With `combine`, the
// experts compute and a mirrored *combine* all-to-all follows: the send
// j -> i depends on every dispatch send into j (its source rank: j's expert
// needs all its tokens) with `expert_compute_ps` of compute on each edge. A
// chain of L layers: the dispatch from rank i of layer l + 1 depends on every
// send of layer l into i (the combine sends, or the dispatch sends without
// combine) with `layer_compute_ps` on each edge.
//
// Bytes: `bytes_per_pair` each (uniform routing), or zipf-skewed by
// destination expert: expert j has popularity (1 + rank_j)^-s, where the
// popularity order rank_j = (j * 5 + 3) mod p for p not divisible by 5
// (a fixed permutation, so that the hot expert is not always rank 0) and
// j otherwise; source i sends its total (p - 1) * bytes_per_pair split over
// the experts j != i in proportion to their popularity (at least 1 byte).
// Combine sends carry the same bytes as their mirrored dispatch send. All
// integer arithmetic except the popularity weights, computed once per
// instance in double: deterministic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched::testing {

struct A2aSpec {
  std::uint32_t ranks = 8;   ///< p, the expert-parallel group
  std::uint32_t layers = 1;  ///< L
  bool combine = false;      ///< expert compute then a mirrored all-to-all
  std::uint64_t bytes_per_pair = 100'000;
  double zipf_s = 0;  ///< 0: uniform routing
  core::TimePs expert_compute_ps = 0;
  core::TimePs layer_compute_ps = 0;
};

/// Mixtral 8x7B, top-2 routing, 4096 tokens per rank, hidden 4096, bf16:
/// T K hidden 2 / EP bytes from each rank to each expert rank.
inline std::uint64_t mixtral_pair_bytes(std::uint32_t ep) {
  return std::uint64_t{4096} * 2 * 4096 * 2 / ep;
}

/// bytes[i * p + j] of the dispatch send i -> j (0 on the diagonal).
inline std::vector<std::uint64_t> a2a_bytes(const A2aSpec& spec) {
  const std::uint32_t p = spec.ranks;
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(p) * p, 0);
  std::vector<double> pop(p, 1.0);
  if (spec.zipf_s > 0) {
    for (std::uint32_t j = 0; j < p; ++j) {
      const std::uint32_t r = p % 5 != 0 ? (j * 5 + 3) % p : j;
      pop[j] = std::pow(1.0 + r, -spec.zipf_s);
    }
  }
  for (std::uint32_t i = 0; i < p; ++i) {
    double sum = 0;
    for (std::uint32_t j = 0; j < p; ++j) sum += j == i ? 0.0 : pop[j];
    const double total = static_cast<double>(spec.bytes_per_pair) * (p - 1);
    for (std::uint32_t j = 0; j < p; ++j) {
      if (j == i) continue;
      const double b = spec.zipf_s > 0 ? std::floor(total * pop[j] / sum)
                                       : static_cast<double>(spec.bytes_per_pair);
      bytes[static_cast<std::size_t>(i) * p + j] =
          std::max<std::uint64_t>(1, static_cast<std::uint64_t>(b));
    }
  }
  return bytes;
}

inline core::Workload a2a_workload(const A2aSpec& spec) {
  const std::uint32_t p = spec.ranks;
  const std::vector<std::uint64_t> bytes = a2a_bytes(spec);
  workload::WorkloadBuilder b("a2a-p" + std::to_string(p), p);
  const std::size_t per_phase = static_cast<std::size_t>(p) * (p - 1);
  const std::size_t phases = static_cast<std::size_t>(spec.layers) * (spec.combine ? 2 : 1);
  b.reserve(per_phase * phases, per_phase * (p - 1) * phases);
  // into[x]: the sends of the previous phase whose destination is x.
  std::vector<std::vector<core::TaskIndex>> into(p), next(p);
  for (std::size_t phase = 0; phase < phases; ++phase) {
    const bool is_combine = spec.combine && phase % 2 == 1;
    const core::TimePs compute = is_combine ? spec.expert_compute_ps : spec.layer_compute_ps;
    for (auto& v : next) v.clear();
    for (std::uint32_t i = 0; i < p; ++i) {
      for (std::uint32_t j = 0; j < p; ++j) {
        if (i == j) continue;
        // Combine: i here is the expert rank sending back to j.
        const std::uint64_t size = is_combine ? bytes[static_cast<std::size_t>(j) * p + i]
                                              : bytes[static_cast<std::size_t>(i) * p + j];
        const core::TaskIndex t = b.add_send(core::Rank(i), core::Rank(j), size);
        for (core::TaskIndex u : into[i]) b.add_dep(u, t, compute);
        next[j].push_back(t);
      }
    }
    std::swap(into, next);
  }
  return std::move(b).build();
}

}  // namespace flux::sched::testing
