// The combinatorial lower bounds (sched/bounds.hpp) against a direct
// evaluation of their definition: every set S(a, b) = {v touching x :
// head_v >= a, q_v >= b} of every port, one by one.
#include "flux/sched/bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

// The port-load bound by its definition, thresholds from all distinct values.
TimePs port_load_by_definition(const core::Workload& w, const core::System& system) {
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const TimePs s = system.switches;
  TimePs best = 0;
  for (std::uint32_t x = 0; x < w.accelerators(); ++x) {
    std::vector<std::uint32_t> touching;
    std::set<TimePs> heads, qs;
    for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
      if (w.tasks()[v].src.value() != x && w.tasks()[v].dst.value() != x) continue;
      touching.push_back(v);
      heads.insert(timing.earliest_start[v]);
      qs.insert(timing.to_end[v] - p[v]);
    }
    for (const TimePs a : heads) {
      for (const TimePs b : qs) {
        TimePs sum = 0, min_head = -1;
        std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (const std::uint32_t v : touching) {
          if (timing.earliest_start[v] < a || timing.to_end[v] - p[v] < b) continue;
          sum += p[v];
          pairs.emplace(w.tasks()[v].src.value(), w.tasks()[v].dst.value());
          min_head = min_head < 0 ? timing.earliest_start[v]
                                  : std::min(min_head, timing.earliest_start[v]);
        }
        if (min_head < 0) continue;
        const auto d = static_cast<TimePs>(pairs.size());
        const TimePs reconf = d > s ? (d - s) * system.reconfig_delay_ps : 0;
        best = std::max(best, min_head + (sum + reconf + s - 1) / s + b);
      }
    }
  }
  return best;
}

core::Workload random_workload(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::uint32_t>(3 + rng() % 4);
  std::string name = "random-";  // (not "r" + ...: GCC 12's false -Wrestrict)
  name += std::to_string(seed);
  workload::WorkloadBuilder b(name, n);
  const auto tasks = static_cast<std::uint32_t>(10 + rng() % 30);
  for (std::uint32_t i = 0; i < tasks; ++i) {
    const auto src = static_cast<std::uint32_t>(rng() % n);
    auto dst = static_cast<std::uint32_t>(rng() % (n - 1));
    if (dst >= src) ++dst;
    const TaskIndex v = b.add_send(Rank(src), Rank(dst), 1000 * (1 + rng() % 20));
    if (rng() % 3 == 0) b.raise_release(v, static_cast<TimePs>(rng() % 5) * 7000);
    if (rng() % 3 == 0) b.raise_tail(v, static_cast<TimePs>(rng() % 5) * 7000);
    for (std::uint32_t u = 0; u < i; ++u) {
      if (rng() % 8 == 0) b.add_dep(TaskIndex(u), v, static_cast<TimePs>(rng() % 4) * 3000);
    }
  }
  return std::move(b).build();
}

void expect_definition(const core::Workload& w, const core::System& system) {
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, system, p, timing);
  EXPECT_EQ(lb.critical_path_ps, timing.makespan);
  EXPECT_EQ(lb.port_load_ps, port_load_by_definition(w, system)) << w.name();
}

TEST(Bounds, PortLoadMatchesItsDefinitionOnRandomWorkloads) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const core::Workload w = random_workload(seed);
    for (const TimePs tau : {TimePs{0}, TimePs{5'000}, TimePs{60'000}}) {
      core::System system;
      system.switches = 1 + static_cast<std::uint32_t>(seed % 3);
      system.link_gbps = 8;  // 1000 bytes: 1 us
      system.reconfig_delay_ps = tau;
      expect_definition(w, system);
    }
  }
}

TEST(Bounds, PortLoadMatchesItsDefinitionOnATrainingIteration) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 4;
  c.dp = 2;
  c.gpu = workload::GpuSpec::preset("h100");
  const core::Workload w = workload::generate_llama(c);
  for (const TimePs tau : {TimePs{1'000'000}, TimePs{1'000'000'000}}) {
    expect_definition(w, core::System{2, 800, tau});
  }
}

}  // namespace
}  // namespace flux::sched
