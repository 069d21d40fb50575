#pragma once
// The independent reference for the exact schedulers' tests: a brute force
// written from the paper's constraints, and tiny random instances.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched::testing {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

struct Lcg {
  std::uint64_t s;
  std::uint32_t next(std::uint32_t bound) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((s >> 33) % bound);
  }
};

/// Brute force, written from the paper's constraints: every switch
/// assignment, every orientation of every incomparable conflicting pair on a
/// common switch; start times are then the longest path through the DAG
/// edges (p_u + c_uv) and the pair edges (p_u + R_uv, earlier to later).
/// With scale-up domains (docs/model.md), a send inside a domain has no
/// switch to choose: it conflicts with the scale-up sends of the same source
/// or the same destination, with R = 0. With a packet fabric, a send
/// System::fabric puts on it likewise conflicts with the packet sends of the
/// same source (its packet egress) or the same destination (ingress), R = 0,
/// and with nothing else (the two electrical classes never conflict). In
/// full duplex (System::duplex) a
/// send and its reverse on one switch do not conflict. Under a wiring
/// (docs/model.md, "Wiring") a send may take any physical switch that has
/// both its endpoints (core::Wiring::joining, not the planes the schedulers
/// use), each switch a resource of its own; it returns the optimum in that
/// physical model.
inline TimePs brute_force(const core::Workload& w, const core::System& sys) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const auto p = core::transmission_times(w, sys);
  const auto tasks = w.tasks();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::uint32_t u = 0; u < n; ++u) {
    std::function<void(std::uint32_t)> dfs = [&](std::uint32_t x) {
      for (const core::Dep& e : w.out_edges(TaskIndex(x))) {
        if (!reach[u][e.to.value()]) {
          reach[u][e.to.value()] = true;
          dfs(e.to.value());
        }
      }
    };
    dfs(u);
  }
  // The pseudo-switch of an electrical send: one per class, never a real
  // switch's number, so only sends of one class are compared.
  constexpr std::uint32_t kScaleUp = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint32_t kPacket = kScaleUp - 1;
  std::vector<std::uint32_t> electrical(n, 0);  // 0: OCS, else kScaleUp or kPacket
  for (std::uint32_t i = 0; i < n; ++i) {
    const core::Fabric f = sys.fabric(tasks[i].src, tasks[i].dst);
    electrical[i] = f == core::Fabric::kScaleUp  ? kScaleUp
                    : f == core::Fabric::kPacket ? kPacket
                                                 : 0;
  }
  auto shares = [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = tasks[a];
    const auto& y = tasks[b];
    if (electrical[a]) return x.src == y.src || x.dst == y.dst;  // egress, ingress
    return (x.src == y.src || x.src == y.dst || x.dst == y.src || x.dst == y.dst) &&
           sys.take_turns(x.src, x.dst, y.src, y.dst);
  };
  auto R = [&](std::uint32_t a, std::uint32_t b) {
    if (electrical[a]) return TimePs{0};
    return tasks[a].src == tasks[b].src && tasks[a].dst == tasks[b].dst ? 0 : sys.reconfig_delay_ps;
  };
  TimePs best = std::numeric_limits<TimePs>::max();
  const core::Wiring wiring = sys.wiring_for(w.accelerators());
  std::vector<std::vector<core::SwitchId>> choices(n);
  std::uint64_t assignments = 1;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (electrical[i]) continue;
    choices[i] = wiring.joining(tasks[i].src, tasks[i].dst);
    assignments *= choices[i].size();
  }
  for (std::uint64_t a = 0; a < assignments; ++a) {
    std::vector<std::uint32_t> sw(n);
    std::uint64_t code = a;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (electrical[i]) {
        sw[i] = electrical[i];
        continue;
      }
      sw[i] = choices[i][code % choices[i].size()].value();
      code /= choices[i].size();
    }
    // Edges: (from, to, weight).
    std::vector<std::tuple<std::uint32_t, std::uint32_t, TimePs>> fixed;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> free_pairs;
    for (const core::Dep& e : w.deps())
      fixed.emplace_back(e.from.value(), e.to.value(), p[e.from.value()] + e.compute_ps);
    for (std::uint32_t u = 0; u < n; ++u) {
      for (std::uint32_t v = u + 1; v < n; ++v) {
        if (sw[u] != sw[v] || !shares(u, v)) continue;
        if (reach[u][v]) {
          fixed.emplace_back(u, v, p[u] + R(u, v));
        } else if (reach[v][u]) {
          fixed.emplace_back(v, u, p[v] + R(v, u));
        } else {
          free_pairs.emplace_back(u, v);
        }
      }
    }
    for (std::uint64_t bits = 0; bits < (1ull << free_pairs.size()); ++bits) {
      auto edges = fixed;
      for (std::size_t k = 0; k < free_pairs.size(); ++k) {
        const auto [u, v] = free_pairs[k];
        if ((bits >> k) & 1) {
          edges.emplace_back(u, v, p[u] + R(u, v));
        } else {
          edges.emplace_back(v, u, p[v] + R(v, u));
        }
      }
      // Longest path by relaxation; a cycle shows up as no fixpoint in n rounds.
      std::vector<TimePs> t(n);
      for (std::uint32_t v = 0; v < n; ++v) t[v] = tasks[v].release_ps;
      bool changed = true;
      std::uint32_t rounds = 0;
      while (changed && rounds <= n) {
        changed = false;
        ++rounds;
        for (const auto& [u, v, wgt] : edges) {
          if (t[u] + wgt > t[v]) {
            t[v] = t[u] + wgt;
            changed = true;
          }
        }
      }
      if (changed) continue;  // cyclic orientation
      TimePs ms = 0;
      for (std::uint32_t v = 0; v < n; ++v) ms = std::max(ms, t[v] + p[v] + tasks[v].tail_ps);
      best = std::min(best, ms);
    }
  }
  return best;
}

inline core::Workload random_instance(std::uint64_t seed, std::uint32_t tasks,
                                      std::uint32_t ranks) {
  Lcg rng{seed};
  workload::WorkloadBuilder b("rand" + std::to_string(seed), ranks);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const std::uint32_t src = rng.next(ranks);
    std::uint32_t dst = rng.next(ranks - 1);
    if (dst >= src) ++dst;
    const TaskIndex v = b.add_send(Rank(src), Rank(dst), 1000 * (1 + rng.next(5)));
    if (rng.next(4) == 0) b.raise_release(v, rng.next(3) * 5000);
    if (rng.next(4) == 0) b.raise_tail(v, rng.next(3) * 5000);
    for (std::uint32_t u = 0; u < i; ++u) {
      if (rng.next(100) < 25) b.add_dep(TaskIndex(u), v, rng.next(3) * 4000);
    }
  }
  return std::move(b).build();
}

}  // namespace flux::sched::testing
