#include "flux/core/summary.hpp"

#include <algorithm>
#include <limits>

#include "flux/core/dag.hpp"

namespace flux::core {

std::vector<PairTraffic> traffic_pairs(const Workload& w) {
  std::vector<PairTraffic> pairs;
  pairs.reserve(w.num_tasks());
  for (const Task& t : w.tasks()) pairs.push_back({t.src, t.dst, t.bytes});
  std::sort(pairs.begin(), pairs.end(), [](const PairTraffic& a, const PairTraffic& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
  // Merge equal pairs in place; the Workload keeps the total within 2^64-1.
  std::size_t out = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (out > 0 && pairs[out - 1].src == pairs[i].src && pairs[out - 1].dst == pairs[i].dst) {
      pairs[out - 1].bytes += pairs[i].bytes;
    } else {
      pairs[out++] = pairs[i];
    }
  }
  pairs.resize(out);
  return pairs;
}

WorkloadSummary summarize(const Workload& w, const System& system) {
  WorkloadSummary s;
  s.tasks = w.num_tasks();
  s.deps = w.num_deps();
  s.labels = w.labels().size();
  s.min_bytes = w.num_tasks() ? std::numeric_limits<std::uint64_t>::max() : 0;
  for (const Task& t : w.tasks()) {
    s.total_bytes += t.bytes;
    s.min_bytes = std::min(s.min_bytes, t.bytes);
    s.max_bytes = std::max(s.max_bytes, t.bytes);
  }
  const std::vector<TimePs> p = transmission_times(w, system);  // range-checks the times
  s.pairs = traffic_pairs(w).size();
  for (TimePs x : p) s.transmission_sum_ps += x;
  const IdealTiming timing = ideal_timing(w, p);
  s.critical_path_ps = timing.makespan;
  s.compute_on_path_ps = timing.compute_on_path;
  return s;
}

}  // namespace flux::core
