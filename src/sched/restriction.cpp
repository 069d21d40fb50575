// Restriction relaxations; the argument is in restriction.hpp.
#include "restriction.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "exact/branch_and_bound.hpp"
#include "heuristic/list_scheduler.hpp"

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

TimePs restriction_bound(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing, TimePs target,
                         const RestrictionLimits& limits) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto out_of_time = [&] {
    return std::chrono::duration<double>(Clock::now() - t0).count() > limits.time_s;
  };
  // Sends per port, by head (ties: the larger tail first, then index): the
  // OCS sends touching each accelerator, then with scale-up domains the
  // electrical sends leaving it (egress) and entering it (ingress).
  //
  // Full duplex: the OCS windows hold the sends leaving x (at x's index) or
  // those entering x (after all the others), never both. Such a window holds
  // no send together with its reverse, so on it the full-duplex model (K_full)
  // is the half-duplex one (K), and the windows are searched in half duplex:
  // a window's optimum and root bound are the full-duplex ones, whatever the
  // branch and bound assumes about duplex. (A restriction's optimum bounds the
  // full instance's in either model: the constraints are pairwise.)
  const std::size_t n = w.accelerators();
  const bool full = system.duplex == core::Duplex::kFull;
  const std::size_t received = system.has_scaleup() ? 3 * n : n;
  std::vector<std::vector<TaskIndex>> by_port(received + (full ? n : 0));
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    if (system.fabric(t.src, t.dst) == core::Fabric::kScaleUp) {
      by_port[n + t.src.value()].emplace_back(v);
      by_port[2 * n + t.dst.value()].emplace_back(v);
    } else {
      by_port[t.src.value()].emplace_back(v);
      by_port[(full ? received : 0) + t.dst.value()].emplace_back(v);
    }
  }
  core::System window_system = system;
  window_system.duplex = core::Duplex::kHalf;
  TimePs best = 0;
  std::uint64_t nodes = 0;
  std::size_t k = std::max<std::size_t>(limits.window, 2);
  for (std::vector<TaskIndex>& sends : by_port) {
    if (sends.size() < 2) continue;
    std::sort(sends.begin(), sends.end(), [&](TaskIndex a, TaskIndex b) {
      const TimePs ha = timing.earliest_start[a.value()], hb = timing.earliest_start[b.value()];
      if (ha != hb) return ha < hb;
      const TimePs qa = timing.to_end[a.value()] - p[a.value()];
      const TimePs qb = timing.to_end[b.value()] - p[b.value()];
      return qa != qb ? qa > qb : a < b;
    });
    for (std::size_t first = 0;;) {
      if (best >= target || nodes >= limits.total_nodes || out_of_time()) return best;
      const std::size_t len = std::min(k, sends.size());
      first = std::min(first, sends.size() - len);
      const core::Workload r =
          restrict_workload(w, p, timing, std::span(sends).subspan(first, len));
      const std::vector<TimePs> rp = core::transmission_times(r, window_system);
      const core::IdealTiming rt = core::ideal_timing(r, rp);
      const Placement start = list_schedule(r, window_system, rp, rt);
      ExactLimits el;
      el.max_nodes = std::min(limits.window_nodes, limits.total_nodes - nodes);
      el.time_s =
          std::max(0.0, limits.time_s - std::chrono::duration<double>(Clock::now() - t0).count());
      const ExactResult res = branch_and_bound(r, rp, window_system, rt, &start, el);
      nodes += res.nodes;
      best = std::max(best, res.complete ? res.makespan_ps : res.root_bound_ps);
      // The next windows grow while the search finishes well within its
      // budget and shrink when it does not finish.
      if (res.complete && res.nodes * 4 <= el.max_nodes) {
        k = std::min(k + k / 4 + 1, limits.max_window);
      } else if (!res.complete) {
        k = std::max<std::size_t>(k - k / 4, 4);
      }
      if (first + len >= sends.size()) break;
      first += std::max<std::size_t>(len / 2, 1);
    }
  }
  return best;
}

}  // namespace flux::sched
