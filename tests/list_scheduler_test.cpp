// The list scheduler (src/sched/heuristic/list_scheduler.hpp) on instances
// whose schedule is worked out by hand, and on random DAGs: valid, already
// left-shifted, deterministic for a seed.
#include <gtest/gtest.h>

#include "flux/core/dag.hpp"
#include "flux/sched/placement.hpp"
#include "flux/schedule/validator.hpp"
#include "sched/heuristic/list_scheduler.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::kPsPerUs;
using core::Rank;
using testing::kOneUsBytes;
using testing::system_with;

Placement run(const core::Workload& w, const core::System& sys, const ListOptions& o = {}) {
  const auto p = core::transmission_times(w, sys);
  return list_schedule(w, sys, p, core::ideal_timing(w, p), o);
}

// 0->1 and 0->2 share port 0: on one switch the second waits for the first
// and a reconfiguration (1 us + 10 us); with two switches both start at 0.
TEST(ListScheduler, SharedPortSerialisesOnOneSwitchAndSpreadsOverTwo) {
  workload::WorkloadBuilder b("fan", 3);
  b.add_send(Rank(0), Rank(1), kOneUsBytes);
  b.add_send(Rank(0), Rank(2), kOneUsBytes);
  const core::Workload w = std::move(b).build();
  const Placement one = run(w, system_with(10 * kPsPerUs, 1));
  const auto p = core::transmission_times(w, system_with(10 * kPsPerUs, 1));
  EXPECT_EQ(makespan(w, p, one), 12 * kPsPerUs);
  EXPECT_EQ(std::min(one.start_ps[0], one.start_ps[1]), 0);
  EXPECT_EQ(std::max(one.start_ps[0], one.start_ps[1]), 11 * kPsPerUs);
  const Placement two = run(w, system_with(10 * kPsPerUs, 2));
  EXPECT_EQ(two.start_ps, (std::vector<core::TimePs>{0, 0}));
  EXPECT_NE(two.sw[0], two.sw[1]);
  EXPECT_EQ(makespan(w, p, two), 1 * kPsPerUs);
}

// A send that reuses the circuit of the previous one on its ports pays no
// tau: 0->1, 5 us of compute, 0->1 again ends at 1 + 5 + 1 us. Given the
// choice it stays on the switch that holds the circuit.
TEST(ListScheduler, ReusesCircuitsWithoutReconfiguration) {
  workload::WorkloadBuilder b("reuse", 4);
  const auto a = b.add_send(Rank(0), Rank(1), kOneUsBytes);
  b.add_send(Rank(2), Rank(3), kOneUsBytes);
  const auto c = b.add_send(Rank(0), Rank(1), kOneUsBytes);
  b.add_dep(a, c, 5 * kPsPerUs);
  const core::Workload w = std::move(b).build();
  for (std::uint32_t switches : {1u, 2u, 3u}) {
    SCOPED_TRACE(std::to_string(switches) + " switches");
    const Placement pl = run(w, system_with(100 * kPsPerUs, switches));
    EXPECT_EQ(pl.start_ps[c.value()], 6 * kPsPerUs);
    EXPECT_EQ(pl.sw[c.value()], pl.sw[a.value()]);
  }
}

// Random DAGs: the placement packs into a schedule the validator accepts,
// every start is the left shift of its own decisions, and a seed fixes the
// result.
TEST(ListScheduler, RandomDagsAreValidLeftShiftedAndDeterministic) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const core::Workload w = testing::random_dag(seed, 12, 4);
    for (std::uint32_t switches : {1u, 2u, 3u}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(switches) + " switches");
      const core::System sys =
          system_with(static_cast<core::TimePs>(seed % 7) * kPsPerUs, switches);
      const auto p = core::transmission_times(w, sys);
      const ListOptions o{2 * kPsPerUs, seed};
      const Placement pl = run(w, sys, o);
      ASSERT_EQ(pl.sw.size(), w.num_tasks());
      const schedule::Schedule s = to_schedule(w, sys, p, pl);
      EXPECT_NO_THROW(schedule::check_schedule(w, s));
      std::vector<double> key(pl.start_ps.begin(), pl.start_ps.end());
      EXPECT_EQ(left_shift(w, p, sys, pl.sw, key), pl.start_ps);
      const Placement again = run(w, sys, o);
      EXPECT_EQ(again.sw, pl.sw);
      EXPECT_EQ(again.start_ps, pl.start_ps);
      // Never earlier than the ideal network allows.
      EXPECT_GE(makespan(w, p, pl), core::ideal_timing(w, p).makespan);
    }
  }
}

}  // namespace
}  // namespace flux::sched
