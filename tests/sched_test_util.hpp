#pragma once
// Small workloads for the scheduler tests: sends of 100 kB take exactly
// 1 us at 800 Gb/s, so expected times can be worked out by hand.
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"

namespace flux::sched::testing {

inline constexpr std::uint64_t kOneUsBytes = 100'000;  // 1 us at 800 Gb/s

/// Options for solving to proven optimality: gap 0, a generous limit.
inline SchedulerOptions exact_options() {
  SchedulerOptions o;
  o.time_limit_s = 60;
  o.relative_gap = 0;
  return o;
}

/// Llama 3 8B, `layers` layers, TP `tp` x DP `dp` on A100s.
inline core::Workload llama(std::uint32_t layers, std::uint32_t tp, std::uint32_t dp) {
  workload::TrainingConfig c;
  c.model.layers = layers;
  c.tp = tp;
  c.dp = dp;
  return workload::generate_llama(c);
}

/// The paper's Llama 3 8B iteration, TP4 x DP2 on 8 A100s, `layers` layers.
inline core::Workload llama_tp4_dp2(std::uint32_t layers) {
  return llama(layers, 4, 2);
}

inline core::System system_with(core::TimePs tau, std::uint32_t switches) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  return s;
}

/// A random DAG of n sends among `ranks` accelerators, up to two earlier
/// parents each, compute 0-20 us, 1-5 us sends; deterministic per seed.
inline core::Workload random_dag(std::uint64_t seed, std::uint32_t n, std::uint32_t ranks) {
  std::mt19937_64 rng(seed);
  workload::WorkloadBuilder b("random-" + std::to_string(seed), ranks);
  for (std::uint32_t v = 0; v < n; ++v) {
    const auto src = static_cast<std::uint32_t>(rng() % ranks);
    const auto dst = static_cast<std::uint32_t>((src + 1 + rng() % (ranks - 1)) % ranks);
    const core::TaskIndex t =
        b.add_send(core::Rank(src), core::Rank(dst), kOneUsBytes * (1 + rng() % 5));
    for (int k = 0; k < 2 && v > 0; ++k) {
      if (rng() % 3 == 0) continue;
      const auto u = static_cast<std::uint32_t>(rng() % v);
      bool dup = false;
      for (const core::Dep& d : b.deps()) dup = dup || (d.from.value() == u && d.to == t);
      if (!dup) b.add_dep(core::TaskIndex(u), t, static_cast<core::TimePs>(rng() % 20) * 1'000'000);
    }
  }
  return std::move(b).build();
}

/// Sends by start (ties by index): a linear extension of the DAG, since
/// every p > 0; the sequence a schedule's serial generation follows.
inline std::vector<std::uint32_t> by_start(const Placement& pl) {
  std::vector<std::uint32_t> order(pl.start_ps.size());
  for (std::uint32_t v = 0; v < order.size(); ++v) order[v] = v;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return pl.start_ps[a] != pl.start_ps[b] ? pl.start_ps[a] < pl.start_ps[b] : a < b;
  });
  return order;
}

/// Every send between domains on switch 0 and every send inside one on the
/// scale-up fabric, in topological order: a poor but valid schedule.
inline Placement serial_schedule(const core::Workload& w, const core::System& sys,
                                 std::span<const core::TimePs> p) {
  Placement serial;
  std::vector<double> keys(w.num_tasks());
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    serial.sw.push_back(sys.fabric(t.src, t.dst) == core::Fabric::kScaleUp ? core::kScaleUpSwitch
                                                                           : core::SwitchId(0));
    keys[v] = static_cast<double>(w.topo_position(core::TaskIndex(v)));
  }
  serial.start_ps = left_shift(w, p, sys, serial.sw, keys);
  return serial;
}

/// sys in full duplex (System::duplex).
inline core::System full_duplex(core::System sys) {
  sys.duplex = core::Duplex::kFull;
  return sys;
}

/// The model's constraints pair by pair, under sys.duplex, independent of
/// the validator's per-port argument: each send on its fabric (a switch in
/// range, or the scale-up fabric inside a domain), releases, DAG edges (p +
/// compute), and every two sends on one switch that share an accelerator
/// and take turns (System::take_turns) separated by R (0 for the same
/// directed pair, else tau) in one order; scale-up sends sharing a source
/// or a destination, R = 0. "" when `pl` meets them all, else the first
/// violation.
inline std::string pairwise_violation(const core::Workload& w, const core::System& sys,
                                      const Placement& pl) {
  const std::vector<core::TimePs> p = core::transmission_times(w, sys);
  const auto tasks = w.tasks();
  const std::size_t n = tasks.size();
  for (std::size_t v = 0; v < n; ++v) {
    const bool scaleup = sys.fabric(tasks[v].src, tasks[v].dst) == core::Fabric::kScaleUp;
    if (scaleup != (pl.sw[v] == core::kScaleUpSwitch)) return "fabric of " + std::to_string(v);
    if (!scaleup && pl.sw[v].value() >= sys.switches) return "switch of " + std::to_string(v);
    if (pl.start_ps[v] < tasks[v].release_ps) return "release of " + std::to_string(v);
  }
  for (const core::Dep& e : w.deps()) {
    const auto u = e.from.value(), v = e.to.value();
    if (pl.start_ps[v] < pl.start_ps[u] + p[u] + e.compute_ps) {
      return "edge " + std::to_string(u) + " -> " + std::to_string(v);
    }
  }
  for (std::size_t u = 0; u < n; ++u) {
    for (std::size_t v = u + 1; v < n; ++v) {
      if (pl.sw[u] != pl.sw[v]) continue;
      const core::Task& a = tasks[u];
      const core::Task& b = tasks[v];
      core::TimePs r = 0;
      if (pl.sw[u] == core::kScaleUpSwitch) {
        if (a.src != b.src && a.dst != b.dst) continue;
      } else {
        const bool share = a.src == b.src || a.src == b.dst || a.dst == b.src || a.dst == b.dst;
        if (!share || !sys.take_turns(a.src, a.dst, b.src, b.dst)) continue;
        r = reconfig_penalty(a, b, sys.reconfig_delay_ps);
      }
      if (pl.start_ps[u] + p[u] + r > pl.start_ps[v] &&
          pl.start_ps[v] + p[v] + r > pl.start_ps[u]) {
        return "sends " + std::to_string(u) + " and " + std::to_string(v) + " overlap";
      }
    }
  }
  return {};
}

}  // namespace flux::sched::testing
