#pragma once
// Small workloads for the scheduler tests: sends of 100 kB take exactly
// 1 us at 800 Gb/s, so expected times can be worked out by hand.
#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

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

/// The paper's Llama 3 8B iteration, TP4 x DP2 on 8 A100s, `layers` layers.
inline core::Workload llama_tp4_dp2(std::uint32_t layers) {
  workload::TrainingConfig c;
  c.model.layers = layers;
  c.tp = 4;
  c.dp = 2;
  return workload::generate_llama(c);
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
  serial.start_ps = left_shift(w, p, sys.reconfig_delay_ps, serial.sw, keys);
  return serial;
}

}  // namespace flux::sched::testing
