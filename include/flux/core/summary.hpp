#pragma once
// Aggregate views of a workload: the traffic matrix the demand-oblivious
// schedulers see, and the summary `flux info` prints. Both are O(sends):
// nothing here is n x n in the number of accelerators.
#include <cstdint>
#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// Bytes sent from `src` to `dst` in all.
struct PairTraffic {
  Rank src;
  Rank dst;
  std::uint64_t bytes = 0;
};

/// The traffic matrix, sparse: one entry per (src, dst) with traffic, sorted
/// by (src, dst). O(sends) time and memory, whatever the number of ranks.
std::vector<PairTraffic> traffic_pairs(const Workload& w);

struct WorkloadSummary {
  std::uint64_t tasks = 0;
  std::uint64_t deps = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  std::uint64_t pairs = 0;         ///< distinct (src, dst) with traffic
  std::uint64_t labels = 0;        ///< distinct labels
  TimePs total_compute_ps = 0;     ///< sum over edges, releases and tails
  TimePs critical_path_ps = 0;     ///< on an ideal network (every pair connected, no tau)
  TimePs compute_on_path_ps = 0;   ///< compute along that critical path
  TimePs transmission_sum_ps = 0;  ///< sum of p_v
};

WorkloadSummary summarize(const Workload& w, const System& system);

}  // namespace flux::core
