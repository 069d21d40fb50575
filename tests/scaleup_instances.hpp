#pragma once
// Tiny random instances with scale-up domains (docs/model.md, "Scale-up
// domains") for the task-level schedulers' tests: brute_force.hpp's
// random_instance with about half of the sends moved inside their source's
// domain, so that the instances mix scale-up and optical sends.
#include <cstdint>
#include <string>

#include "brute_force.hpp"
#include "flux/core/system.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched::testing {

/// random_instance(seed, tasks, ranks) with domains of `k` (k divides
/// ranks): each send's destination is redrawn, with probability
/// `inside_percent` / 100 when k > 1, as another rank of its source's
/// domain; bytes, releases, tails and dependencies are kept. Deterministic
/// per seed.
inline core::Workload random_domain_instance(std::uint64_t seed, std::uint32_t tasks,
                                             std::uint32_t ranks, std::uint32_t k,
                                             std::uint32_t inside_percent = 50) {
  const core::Workload base = random_instance(seed, tasks, ranks);
  Lcg rng{~seed};
  workload::WorkloadBuilder b("domains" + std::to_string(seed), ranks);
  for (const core::Task& t : base.tasks()) {
    std::uint32_t dst = t.dst.value();
    if (k > 1 && rng.next(100) < inside_percent) {
      const std::uint32_t src = t.src.value();
      dst = src / k * k + rng.next(k - 1);
      if (dst >= src) ++dst;
    }
    const TaskIndex v = b.add_send(t.src, Rank(dst), t.bytes);
    b.raise_release(v, t.release_ps);
    b.raise_tail(v, t.tail_ps);
  }
  for (const core::Dep& d : base.deps()) b.add_dep(d.from, d.to, d.compute_ps);
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
