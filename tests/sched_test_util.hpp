#pragma once
// Small workloads for the scheduler tests: sends of 100 kB take exactly
// 1 us at 800 Gb/s, so expected times can be worked out by hand.
#include <cstdint>
#include <random>
#include <string>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched::testing {

inline constexpr std::uint64_t kOneUsBytes = 100'000;  // 1 us at 800 Gb/s

/// Options for solving to proven optimality: gap 0, a generous limit.
inline SchedulerOptions exact_options() {
  SchedulerOptions o;
  o.time_limit_s = 60;
  o.relative_gap = 0;
  return o;
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

}  // namespace flux::sched::testing
