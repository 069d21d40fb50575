#pragma once
// Tiny systems under wirings and random DAGs for the wiring and packet
// fabric tests (wiring_sched_test.cpp, packet_sched_test.cpp).
#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include "flux/core/system.hpp"
#include "flux/workload/builder.hpp"
#include "sched_test_util.hpp"

namespace flux::sched::testing {

/// Rails of `radix` domains of `k` ranks each over `planes` planes.
inline core::System rails(std::uint32_t k, std::uint32_t radix, std::uint32_t planes,
                          core::TimePs tau) {
  core::System s = system_with(tau, planes);
  s.scaleup_size = k;
  s.wiring = {core::WiringKind::kRails, ""};
  s.ocs_radix = radix;
  return s;
}

/// `sends` sends between distinct ranks of `n`, 1 to 4 x kOneUsBytes, a
/// third of them after an earlier send (0, 2 or 4 us of compute); the
/// system routes them (a circuit, a forwarder or the packet fabric).
inline core::Workload any_dag(std::uint64_t seed, std::uint32_t sends, std::uint32_t n,
                              const std::string& prefix = "any-") {
  std::mt19937_64 rng(seed);
  workload::WorkloadBuilder b(prefix + std::to_string(seed), n);
  for (std::uint32_t v = 0; v < sends; ++v) {
    const auto src = static_cast<std::uint32_t>(rng() % n);
    const auto dst = static_cast<std::uint32_t>((src + 1 + rng() % (n - 1)) % n);
    const core::TaskIndex t =
        b.add_send(core::Rank(src), core::Rank(dst), kOneUsBytes * (1 + rng() % 4));
    if (v > 0 && rng() % 3 == 0) {
      b.add_dep(core::TaskIndex(static_cast<std::uint32_t>(rng() % v)), t,
                static_cast<core::TimePs>(rng() % 3) * 2 * core::kPsPerUs);
    }
  }
  return std::move(b).build();
}

}  // namespace flux::sched::testing
