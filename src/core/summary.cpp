#include "flux/core/summary.hpp"

#include <algorithm>
#include <limits>

#include "flux/core/dag.hpp"

namespace flux::core {

std::vector<std::uint64_t> traffic_matrix(const Workload& w) {
  const std::size_t n = w.accelerators();
  std::vector<std::uint64_t> m(n * n, 0);
  for (const Task& t : w.tasks()) m[t.src.value() * n + t.dst.value()] += t.bytes;
  return m;
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
  for (std::uint64_t b : traffic_matrix(w)) s.pairs += b != 0;
  const std::vector<TimePs> p = transmission_times(w, system);
  for (TimePs x : p) s.transmission_sum_ps += x;
  const IdealTiming timing = ideal_timing(w, p);
  s.critical_path_ps = timing.makespan;
  s.compute_on_path_ps = timing.compute_on_path;
  return s;
}

}  // namespace flux::core
