// Restriction relaxations; the argument is in restriction.hpp.
#include "restriction.hpp"

#include <algorithm>
#include <vector>

namespace flux::sched {

using core::TaskIndex;
using core::TimePs;

core::Workload restrict_workload(const core::Workload& w, std::span<const TimePs> p,
                                 const core::IdealTiming& timing,
                                 std::span<const TaskIndex> subset) {
  std::vector<TaskIndex> s(subset.begin(), subset.end());
  std::sort(s.begin(), s.end(),
            [&](TaskIndex a, TaskIndex b) { return w.topo_position(a) < w.topo_position(b); });
  const std::size_t n = s.size();
  core::WorkloadData data;
  data.name = w.name() + "-restricted";
  data.accelerators = w.accelerators();
  data.tasks.reserve(n);
  for (const TaskIndex v : s) {
    core::Task t = w.task(v);
    t.release_ps = timing.earliest_start[v.value()];
    t.tail_ps = timing.to_end[v.value()] - p[v.value()];
    t.label = core::kNoLabel;
    data.tasks.push_back(t);
  }
  if (n == 0) return core::Workload(std::move(data));
  // dist[i][j]: L(s_i, s_j), -1 when s_j does not descend from s_i.
  const std::uint32_t limit = w.topo_position(s.back());
  std::vector<std::vector<TimePs>> dist(n, std::vector<TimePs>(n, -1));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::vector<TimePs> from = core::longest_from(w, p, s[i], limit);
    for (std::size_t j = i + 1; j < n; ++j) dist[i][j] = from[s[j].value()];
  }
  // Keep (i, j) unless a path through some s_k already forces the gap:
  // L(s_i, s_k) + p_k + L(s_k, s_j) >= L(s_i, s_j).
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (dist[i][j] < 0) continue;
      bool implied = false;
      for (std::size_t k = i + 1; k < j && !implied; ++k) {
        implied = dist[i][k] >= 0 && dist[k][j] >= 0 &&
                  dist[i][k] + p[s[k].value()] + dist[k][j] >= dist[i][j];
      }
      if (!implied) {
        data.deps.push_back(core::Dep{TaskIndex(static_cast<std::uint32_t>(i)),
                                      TaskIndex(static_cast<std::uint32_t>(j)), dist[i][j]});
      }
    }
  }
  return core::Workload(std::move(data));
}

}  // namespace flux::sched
