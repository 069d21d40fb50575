// Sends split into channels (workload/split.hpp): bytes, ids, releases and
// tails per part, every parent's part before every child's part, sends
// inside a scale-up domain whole, the errors; and what it is for: on a
// 4-rank all-to-all over 2 switches, whole sends need 2 rounds of circuits
// per rank (3 peers on 2 links), halves 1.5 (docs/model.md, "Channels").
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "a2a_instances.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/split.hpp"

namespace flux::workload {
namespace {

using core::kPsPerUs;
using core::Rank;
using core::TaskIndex;

core::Workload chain() {
  WorkloadBuilder b("chain", 4);
  const TaskIndex a = b.add_send(Rank(0), Rank(2), 1001);  // between domains of 2
  b.raise_release(a, 5);
  b.raise_tail(a, 7);
  const TaskIndex c = b.add_send(Rank(2), Rank(3), 600);  // inside domain 1
  const TaskIndex z = b.add_send(Rank(1), Rank(2), 2);    // 2 bytes, between domains
  b.add_dep(a, c, 40);
  b.add_dep(c, z, 9);
  return std::move(b).build();
}

TEST(SplitSends, PartsBytesIdsAndDependencies) {
  const core::Workload w = split_sends(chain(), 3, 2);
  EXPECT_EQ(w.name(), "chain-ch3");
  ASSERT_EQ(w.num_tasks(), 6u);  // 3 parts of the first, the second whole, 2 of the third
  const auto t = w.tasks();
  EXPECT_EQ(t[0].bytes + t[1].bytes + t[2].bytes, 1001u);
  EXPECT_EQ(t[0].bytes, 334u);
  EXPECT_EQ(t[2].bytes, 333u);
  for (std::uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(t[k].id, k);  // id 0 * 3 + k
    EXPECT_EQ(t[k].src, Rank(0));
    EXPECT_EQ(t[k].dst, Rank(2));
    EXPECT_EQ(t[k].release_ps, 5);
    EXPECT_EQ(t[k].tail_ps, 7);
  }
  EXPECT_EQ(t[3].id, 3u);  // send 1, whole: 1 * 3 + 0
  EXPECT_EQ(t[3].bytes, 600u);
  EXPECT_EQ(t[4].id, 6u);  // 2 bytes: 2 parts of one byte, none empty
  EXPECT_EQ(t[5].id, 7u);
  EXPECT_EQ(t[4].bytes, 1u);
  EXPECT_EQ(t[5].bytes, 1u);
  // Every part of the first before the second, with its compute.
  ASSERT_EQ(w.num_deps(), 5u);
  std::map<std::pair<std::uint32_t, std::uint32_t>, core::TimePs> deps;
  for (const core::Dep& e : w.deps()) deps[{e.from.value(), e.to.value()}] = e.compute_ps;
  EXPECT_EQ(deps.at({0, 3}), 40);
  EXPECT_EQ(deps.at({1, 3}), 40);
  EXPECT_EQ(deps.at({2, 3}), 40);
  EXPECT_EQ(deps.at({3, 4}), 9);
  EXPECT_EQ(deps.at({3, 5}), 9);
  // Without domains every send is split.
  EXPECT_EQ(split_sends(chain(), 2, 1).num_tasks(), 6u);
  EXPECT_EQ(split_sends(chain(), 2, 1).num_deps(), 4u + 4u);
  EXPECT_EQ(split_sends(chain(), 1, 1).num_tasks(), 3u);
}

TEST(SplitSends, Errors) {
  const auto field = [](auto f) {
    try {
      f();
    } catch (const core::InputError& e) {
      return e.field() + ": " + e.problem();
    }
    return std::string("no error");
  };
  EXPECT_EQ(field([] { (void)split_sends(chain(), 0, 1); }), "channels: must be from 1 to 64");
  EXPECT_EQ(field([] { (void)split_sends(chain(), 65, 1); }), "channels: must be from 1 to 64");
  EXPECT_EQ(field([] { (void)split_sends(chain(), 2, 0); }), "scaleup_size: must be at least 1");
  core::WorkloadData d;
  d.name = "big-id";
  d.accelerators = 2;
  d.tasks.push_back({std::uint64_t{1} << 63, Rank(0), Rank(1), 10});
  const core::Workload big(std::move(d));
  EXPECT_EQ(field([&] { (void)split_sends(big, 2, 1); }),
            "channels: task ids of workload 'big-id' overflow when split");
}

// 4 ranks, a dispatch all-to-all of 12 sends (168 us each), full duplex, 2
// switches, tau 1 us. Whole: each rank has 3 peers on 2 links, so some link
// carries 2 of them: 2 x 168 us + one reconfiguration. In halves (84 us):
// 6 half-peers per rank, 3 per link, two of them one peer's (both halves on
// one circuit, no reconfiguration between): 3 x 84 us + one
// reconfiguration. flux proves both optimal.
TEST(SplitSends, HalvesBalanceAnAllToAllOverTwoSwitches) {
  sched::testing::A2aSpec spec;
  spec.ranks = 4;
  spec.bytes_per_pair = sched::testing::mixtral_pair_bytes(4);
  const core::Workload whole = sched::testing::a2a_workload(spec);
  const core::Workload halves = split_sends(whole, 2, 1);
  core::System sys;
  sys.switches = 2;
  sys.reconfig_delay_ps = kPsPerUs;
  sys.duplex = core::Duplex::kFull;
  sched::SchedulerOptions o;
  o.time_limit_s = 60;
  const schedule::Schedule a = sched::run_scheduler("flux", whole, sys, o);
  const schedule::Schedule b = sched::run_scheduler("flux", halves, sys, o);
  const core::TimePs p = core::transmission_times(whole, sys)[0];
  EXPECT_EQ(p, 167'772'160);  // 16.8 MB at 800 Gb/s
  EXPECT_EQ(a.status, schedule::SolveStatus::kOptimal);
  EXPECT_EQ(b.status, schedule::SolveStatus::kOptimal);
  EXPECT_EQ(a.makespan_ps, 2 * p + kPsPerUs);
  EXPECT_EQ(b.makespan_ps, 3 * (p / 2) + kPsPerUs);
}

}  // namespace
}  // namespace flux::workload
