// Combinatorial lower bounds; the formulas are in bounds.hpp and docs/model.md.
#include "flux/sched/bounds.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace flux::sched {
namespace {

using core::TimePs;

constexpr std::size_t kMaxThresholds = 256;

// Candidate thresholds: the distinct values, or kMaxThresholds quantiles.
std::vector<TimePs> thresholds(std::vector<TimePs> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() <= kMaxThresholds) return values;
  std::vector<TimePs> q;
  for (std::size_t k = 0; k < kMaxThresholds; ++k)
    q.push_back(values[k * values.size() / kMaxThresholds]);
  return q;
}

struct PortTask {
  TimePs head, q, p;
  std::uint64_t pair;  // src * n + dst
};

TimePs ceil_div(TimePs a, TimePs b) {
  return (a + b - 1) / b;
}

TimePs port_bound(std::vector<PortTask>& tasks, std::uint32_t switches, TimePs tau) {
  std::vector<TimePs> heads, qs;
  for (const PortTask& t : tasks) {
    heads.push_back(t.head);
    qs.push_back(t.q);
  }
  const std::vector<TimePs> a_values = thresholds(std::move(heads));
  // Tasks by q descending: a prefix is {q >= b}.
  std::sort(tasks.begin(), tasks.end(), [](const PortTask& x, const PortTask& y) {
    return x.q != y.q ? x.q > y.q : x.head < y.head;
  });
  const std::vector<TimePs> b_values = thresholds(std::move(qs));
  TimePs best = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> pairs;
  for (TimePs a : a_values) {
    pairs.clear();
    TimePs sum_p = 0, min_head = -1;
    std::size_t k = 0;
    for (auto b = b_values.rbegin(); b != b_values.rend(); ++b) {  // b descending
      while (k < tasks.size() && tasks[k].q >= *b) {
        const PortTask& t = tasks[k++];
        if (t.head < a) continue;
        sum_p += t.p;
        ++pairs[t.pair];
        min_head = min_head < 0 ? t.head : std::min(min_head, t.head);
      }
      if (min_head < 0) continue;
      const auto d = static_cast<TimePs>(pairs.size());
      const TimePs reconf = d > switches ? (d - switches) * tau : 0;
      // min q over the subset is >= b (and the subset's own minimum is one of the b values).
      best = std::max(best, min_head + ceil_div(sum_p + reconf, switches) + *b);
    }
  }
  return best;
}

}  // namespace

LowerBounds lower_bounds(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing) {
  LowerBounds lb;
  lb.critical_path_ps = timing.makespan;
  const std::uint32_t n = w.accelerators();
  std::vector<std::vector<PortTask>> by_port(n);
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const PortTask pt{timing.earliest_start[v], timing.to_end[v] - p[v], p[v],
                      std::uint64_t{t.src.value()} * n + t.dst.value()};
    by_port[t.src.value()].push_back(pt);
    by_port[t.dst.value()].push_back(pt);
  }
  for (std::uint32_t x = 0; x < n; ++x) {
    if (by_port[x].empty()) continue;
    const TimePs b = port_bound(by_port[x], system.switches, system.reconfig_delay_ps);
    if (b > lb.port_load_ps) {
      lb.port_load_ps = b;
      lb.port = core::Rank(x);
    }
  }
  return lb;
}

}  // namespace flux::sched
