// Large-neighbourhood search (sched/heuristic/lns.hpp): it never worsens a
// schedule, every schedule it returns is valid and left-shifted, a window
// covering the instance finds the brute-force optimum, and a seed fixes the
// result.
#include "sched/heuristic/lns.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/placement.hpp"
#include "flux/schedule/validator.hpp"
#include "sched/heuristic/list_scheduler.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

struct Instance {
  core::Workload w;
  core::System sys;
  std::vector<TimePs> p;
  core::IdealTiming timing;
  Instance(core::Workload work, core::System system)
      : w(std::move(work)),
        sys(system),
        p(core::transmission_times(w, sys)),
        timing(core::ideal_timing(w, p)) {}
  [[nodiscard]] Placement greedy() const { return list_schedule(w, sys, p, timing); }
  [[nodiscard]] LnsResult lns(const Placement& start, const LnsOptions& o) const {
    return large_neighbourhood_search(w, p, sys, timing, start, 0, o);
  }
};

LnsOptions budget(std::uint64_t windows, std::uint64_t seed = 1) {
  LnsOptions o;
  o.budget_s = 1e9;  // the window budget ends the search, so the result is reproducible
  o.max_windows = windows;
  o.window_nodes = 3'000;
  o.seed = seed;
  return o;
}

TEST(Lns, NeverWorseValidAndLeftShifted) {
  int improved = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (const std::uint32_t switches : {1u, 2u, 3u}) {
      const Instance in(testing::random_dag(seed, 40, 5),
                        testing::system_with(TimePs{4'000'000} * seed, switches));
      const Placement start = in.greedy();
      const TimePs before = makespan(in.w, in.p, start);
      const LnsResult r = in.lns(start, budget(30, seed));
      EXPECT_LE(r.makespan_ps, before) << "seed " << seed;
      EXPECT_EQ(r.makespan_ps, makespan(in.w, in.p, r.best));
      improved += r.makespan_ps < before;
      // Valid, and every send as early as its switch and port orders allow.
      const schedule::Schedule s = to_schedule(in.w, in.sys, in.p, r.best);
      EXPECT_TRUE(schedule::validate(in.w, s).ok()) << "seed " << seed;
      const std::vector<double> keys(r.best.start_ps.begin(), r.best.start_ps.end());
      EXPECT_EQ(left_shift(in.w, in.p, in.sys, r.best.sw, keys), r.best.start_ps);
    }
  }
  // The greedy schedules of these instances leave room (20 of 24 improved
  // when written).
  EXPECT_GT(improved, 10);
}

TEST(Lns, AWindowOverTheWholeInstanceFindsTheOptimum) {
  int from_worse = 0;  // instances whose greedy schedule was not optimal
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::uint32_t n = 4 + seed % 3;
    const Instance in(testing::random_instance(500 + seed, n, 3 + seed % 2),
                      testing::system_with(TimePs{20'000} * (seed % 4), 1 + seed % 2));
    LnsOptions o = budget(1);
    o.first_window = n;
    o.window_nodes = 1'000'000;
    const Placement start = in.greedy();
    const LnsResult r = in.lns(start, o);
    const TimePs optimum = testing::brute_force(in.w, in.sys);
    EXPECT_EQ(r.makespan_ps, optimum) << "seed " << seed;
    from_worse += makespan(in.w, in.p, start) > optimum;
  }
  EXPECT_GT(from_worse, 0);  // the window did the work on some (5 of 30 when written)
}

TEST(Lns, SameSeedSameSchedule) {
  const Instance in(testing::random_dag(7, 60, 6), testing::system_with(10'000'000, 2));
  const Placement start = in.greedy();
  const LnsResult a = in.lns(start, budget(80, 3));
  const LnsResult b = in.lns(start, budget(80, 3));
  EXPECT_EQ(a.best.start_ps, b.best.start_ps);
  EXPECT_EQ(a.best.sw, b.best.sw);
  EXPECT_EQ(a.windows, 80u);
}

}  // namespace
}  // namespace flux::sched
