#pragma once
// Tiny random instances with scale-up domains (docs/model.md, "Scale-up
// domains") for the task-level schedulers' tests: brute_force.hpp's
// random_instance with half of the sends kept inside their source's domain,
// so that every instance mixes scale-up and optical sends.
#include <cstdint>
#include <string>

#include "brute_force.hpp"
#include "flux/core/system.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched::testing {

/// `tasks` sends among `ranks` accelerators in domains of `k` (k divides
/// ranks): each destination is, with probability `inside_percent` / 100
/// when k > 1, another rank of the source's domain, else any other rank;
/// 1-5 kB, releases, tails and dependencies as random_instance's.
/// Deterministic per seed.
inline core::Workload random_domain_instance(std::uint64_t seed, std::uint32_t tasks,
                                             std::uint32_t ranks, std::uint32_t k,
                                             std::uint32_t inside_percent = 50) {
  Lcg rng{seed};
  workload::WorkloadBuilder b("domains" + std::to_string(seed), ranks);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const std::uint32_t src = rng.next(ranks);
    std::uint32_t dst = 0;
    if (k > 1 && rng.next(100) < inside_percent) {
      dst = src / k * k + rng.next(k - 1);
      if (dst >= src) ++dst;
    } else {
      dst = rng.next(ranks - 1);
      if (dst >= src) ++dst;
    }
    const TaskIndex v = b.add_send(Rank(src), Rank(dst), 1000 * (1 + rng.next(5)));
    if (rng.next(4) == 0) b.raise_release(v, rng.next(3) * 5000);
    if (rng.next(4) == 0) b.raise_tail(v, rng.next(3) * 5000);
    for (std::uint32_t u = 0; u < i; ++u) {
      if (rng.next(100) < 25) b.add_dep(TaskIndex(u), v, rng.next(3) * 4000);
    }
  }
  return std::move(b).build();
}

/// A system of `switches` switches, reconfiguration delay `tau`, domains of
/// `k` at `scaleup_gbps` per direction (the optical links at 800 Gb/s).
inline core::System domain_system(std::uint32_t switches, TimePs tau, std::uint32_t k,
                                  double scaleup_gbps = core::kNvlink3Gbps) {
  core::System s;
  s.switches = switches;
  s.reconfig_delay_ps = tau;
  s.scaleup_size = k;
  s.scaleup_gbps = scaleup_gbps;
  return s;
}

}  // namespace flux::sched::testing
