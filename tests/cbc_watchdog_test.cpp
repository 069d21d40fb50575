// flux-milp's watchdog keeps CBC's incumbent: the frames on the pipe, a
// child killed past its limit or dying after an incumbent (test hooks make
// both happen at a chosen point; no test asserts on a duration, though the
// kill path runs under a 1 s limit).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <thread>

#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "sched/milp/result_frame.hpp"
#include "sched/milp/solver.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

MilpResult sample_result(std::size_t columns) {
  MilpResult r;
  r.status = schedule::SolveStatus::kFeasible;
  r.nodes = 42;
  r.objective = 45.5;
  r.bound = 43.25;
  r.seconds = 1.5;
  r.values.resize(columns);
  std::iota(r.values.begin(), r.values.end(), 0.5);
  return r;
}

TEST(ResultFrame, RoundTripsByteByByte) {
  const MilpResult r = sample_result(5);
  const std::string bytes =
      encode_frame(FrameKind::kIncumbent, r) + encode_frame(FrameKind::kFinal, MilpResult{});
  FrameReader reader(5);
  std::vector<Frame> frames;
  for (const char c : bytes) {
    reader.append(&c, 1);
    while (auto f = reader.next()) frames.push_back(std::move(*f));
  }
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].kind, FrameKind::kIncumbent);
  EXPECT_EQ(frames[0].result.status, schedule::SolveStatus::kFeasible);
  EXPECT_EQ(frames[0].result.nodes, 42);
  EXPECT_EQ(frames[0].result.objective, 45.5);
  EXPECT_EQ(frames[0].result.bound, 43.25);
  EXPECT_EQ(frames[0].result.seconds, 1.5);
  EXPECT_EQ(frames[0].result.values, r.values);
  // A final result without a solution carries no values.
  EXPECT_EQ(frames[1].kind, FrameKind::kFinal);
  EXPECT_EQ(frames[1].result.status, schedule::SolveStatus::kError);
  EXPECT_TRUE(frames[1].result.values.empty());
  EXPECT_FALSE(reader.corrupt());
}

// A kill mid-write leaves a prefix of a frame: never a result.
TEST(ResultFrame, TruncatedFrameIsIgnored) {
  const std::string first = encode_frame(FrameKind::kIncumbent, sample_result(3));
  MilpResult better = sample_result(3);
  better.objective = 44;
  const std::string second = encode_frame(FrameKind::kIncumbent, better);
  for (std::size_t cut = 0; cut < second.size(); ++cut) {
    FrameReader reader(3);
    const std::string bytes = first + second.substr(0, cut);
    reader.append(bytes.data(), bytes.size());
    const auto f = reader.next();
    ASSERT_TRUE(f.has_value()) << cut;
    EXPECT_EQ(f->result.objective, 45.5) << cut;
    EXPECT_FALSE(reader.next().has_value()) << cut;
    EXPECT_FALSE(reader.corrupt()) << cut;
  }
}

TEST(ResultFrame, MalformedFramesEndTheStream) {
  const std::string good = encode_frame(FrameKind::kIncumbent, sample_result(3));
  auto rejects = [&](std::string bytes, std::size_t columns) {
    FrameReader reader(columns);
    bytes += good;  // nothing after a bad frame counts either
    reader.append(bytes.data(), bytes.size());
    const bool none = !reader.next().has_value();
    return none && reader.corrupt();
  };
  std::string flipped = good;
  flipped[40] ^= 1;  // a payload byte: the checksum fails
  EXPECT_TRUE(rejects(flipped, 3));
  std::string magic = good;
  magic[0] ^= 1;
  EXPECT_TRUE(rejects(magic, 3));
  // Another model's column count, even though the frame is well formed;
  // the length is checked before waiting for a huge payload.
  EXPECT_TRUE(rejects(good, 4));
  std::string huge(good, 0, 16);  // a header alone, announcing 2^60 bytes
  const std::uint64_t length = std::uint64_t{1} << 60;
  std::memcpy(&huge[8], &length, sizeof length);
  EXPECT_TRUE(rejects(huge, 3));
  // An incumbent must carry the values.
  MilpResult empty = sample_result(0);
  EXPECT_TRUE(rejects(encode_frame(FrameKind::kIncumbent, empty), 3));
}

// Random DAG seed 6, 14 sends on 4 accelerators, 2 switches, tau 5 us: the
// greedy schedule takes 49 us, CBC proves 45 us after several incumbents.
struct Instance {
  core::Workload w = testing::random_dag(6, 14, 4);
  core::System sys = testing::system_with(5 * core::kPsPerUs, 2);
};

SchedulerOptions no_warm_start() {
  SchedulerOptions o;
  o.time_limit_s = 60;  // a proof takes ~1 s; under ASan on a loaded machine 20 s was too few
  o.relative_gap = 0;
  o.milp.warm_start = false;
  return o;
}

// A child that dies after an incumbent better than the greedy schedule (the
// fallback) leaves that incumbent: flux-milp returns it, decoded and
// validated, not the greedy schedule.
TEST(CbcWatchdog, CrashedSolveKeepsCbcsIncumbent) {
  const Instance in;
  const schedule::Schedule greedy = run_scheduler("greedy", in.w, in.sys, no_warm_start());
  const schedule::Schedule full = run_scheduler("flux-milp", in.w, in.sys, no_warm_start());
  ASSERT_EQ(greedy.makespan_ps, 49 * core::kPsPerUs);
  ASSERT_EQ(full.makespan_ps, 45 * core::kPsPerUs);
  ASSERT_EQ(full.status, schedule::SolveStatus::kOptimal);

  CbcTestHook hook;
  hook.stall_below = 48.5;  // model units (us): better than the greedy 49
  hook.die = true;
  const schedule::Schedule s = run_flux_milp(in.w, in.sys, no_warm_start(), hook);
  schedule::check_schedule(in.w, s);
  EXPECT_LT(s.makespan_ps, greedy.makespan_ps);
  EXPECT_GE(s.makespan_ps, full.makespan_ps);
  EXPECT_LE(s.lower_bound_ps.value(), full.makespan_ps);
}

// A bad but feasible MIP start: every send on switch 0, one after another
// in topological order.
std::vector<double> serial_start(const MilpModel& m, const Instance& in,
                                 std::span<const TimePs> p) {
  const std::uint32_t n = static_cast<std::uint32_t>(in.w.num_tasks());
  std::vector<core::SwitchId> sw(n, core::SwitchId(0));
  std::vector<TimePs> start(n);
  TimePs t = 0;
  for (const core::TaskIndex v : in.w.topo_order()) {
    TimePs ready = in.w.tasks()[v.value()].release_ps;
    for (const std::uint32_t id : in.w.in_edge_ids(v)) {
      const core::Dep& e = in.w.deps()[id];
      ready = std::max(ready, start[e.from.value()] + p[e.from.value()] + e.compute_ps);
    }
    start[v.value()] = std::max(t, ready) + in.sys.reconfig_delay_ps;
    t = start[v.value()] + p[v.value()];
  }
  return milp_solution_of(m, in.w, p, sw, start);
}

// The watchdog path itself: CBC stops answering after an incumbent better
// than its MIP start and is killed past its limit; its last incumbent is
// the answer, in the model's own columns although CBC solved a
// preprocessed copy.
TEST(CbcWatchdog, KilledSolveKeepsItsLastIncumbent) {
  const Instance in;
  const std::vector<TimePs> p = core::transmission_times(in.w, in.sys);
  const core::IdealTiming timing = core::ideal_timing(in.w, p);
  MilpOptions mo;
  mo.horizon_big_m = false;  // the bad start must stay feasible
  const MilpModel m = build_milp(in.w, in.sys, MilpInputs{p, &timing, std::nullopt, {}}, mo);
  const std::vector<double> start = serial_start(m, in, p);
  const double start_objective = start[m.c_col];
  ASSERT_GT(start_objective, 60);

  CbcParams params;
  params.time_limit_s = 1;  // the kill comes 1 s (the least grace) after it
  params.relative_gap = 0;
  params.test_hook.stall_below = start_objective - 1;
  const MilpResult r = solve_with_cbc(m, params, &start);
  EXPECT_EQ(r.end, CbcEnd::kKilled);
  EXPECT_EQ(r.status, schedule::SolveStatus::kFeasible);
  EXPECT_GE(r.incumbents, 1);
  ASSERT_EQ(r.values.size(), m.num_cols());
  EXPECT_LT(r.objective, start_objective - 1);
  EXPECT_GE(r.objective, 45 - 1e-6);  // the optimum
  EXPECT_NEAR(r.values[m.c_col], r.objective, 1e-6);
  // Decoded like flux-milp does: switches from x, port orders from t.
  const std::uint32_t n = static_cast<std::uint32_t>(in.w.num_tasks());
  Placement pl;
  std::vector<double> key(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    const bool second = r.values[m.x_col[v * 2 + 1]] > r.values[m.x_col[v * 2]];
    pl.sw.push_back(core::SwitchId(second ? 1 : 0));
    key[v] = r.values[m.t_col[v]];
  }
  pl.start_ps = left_shift(in.w, p, in.sys, pl.sw, key);
  EXPECT_LE(static_cast<double>(makespan(in.w, p, pl)), r.objective * 1e6 + 1);
}

// SchedulerOptions::stop reaches the watchdog: a flag raised before the
// solve kills the child at once (nothing found yet); one raised while the
// child waits after an incumbent (the stall hook; its limit is 10 minutes)
// kills it and keeps that incumbent.
TEST(CbcWatchdog, StopFlagKillsTheSolve) {
  const Instance in;
  const std::vector<TimePs> p = core::transmission_times(in.w, in.sys);
  const core::IdealTiming timing = core::ideal_timing(in.w, p);
  MilpOptions mo;
  mo.horizon_big_m = false;
  const MilpModel m = build_milp(in.w, in.sys, MilpInputs{p, &timing, std::nullopt, {}}, mo);
  const std::vector<double> start = serial_start(m, in, p);

  std::atomic<bool> stop{true};
  CbcParams params;
  params.time_limit_s = 600;
  params.relative_gap = 0;
  params.stop = &stop;
  const MilpResult before = solve_with_cbc(m, params, &start);
  EXPECT_EQ(before.end, CbcEnd::kStopped);
  EXPECT_EQ(before.status, schedule::SolveStatus::kNoSolution);
  EXPECT_TRUE(before.values.empty());

  stop = false;
  params.test_hook.stall_below = start[m.c_col] + 1;  // stall at the first incumbent
  std::thread raise([&] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    stop = true;
  });
  const MilpResult during = solve_with_cbc(m, params, &start);
  raise.join();
  EXPECT_EQ(during.end, CbcEnd::kStopped);
  EXPECT_EQ(during.status, schedule::SolveStatus::kFeasible);
  EXPECT_GE(during.incumbents, 1);
  ASSERT_EQ(during.values.size(), m.num_cols());
  EXPECT_LE(during.objective, start[m.c_col] + 1e-6);
}

// Frames larger than the pipe (64 KiB): the parent reads while the child
// writes, and a 20,000-column incumbent arrives whole.
TEST(CbcWatchdog, IncumbentLargerThanThePipeArrives) {
  // min sum c_i x_i, sum a_i x_i >= b, x binary: a knapsack CBC does not
  // solve in preprocessing.
  MilpModel m;
  std::mt19937_64 rng(7);
  std::vector<int> cols;
  std::vector<double> a;
  double sum_a = 0;
  for (int i = 0; i < 20000; ++i) {
    const double ai = 10 + static_cast<double>(rng() % 90);
    std::string name(1, 'x');
    name.append(std::to_string(i));
    cols.push_back(m.add_col(0, 1, ai + static_cast<double>(rng() % 7), true, name));
    a.push_back(ai);
    sum_a += ai;
  }
  m.add_row(cols, a, std::floor(sum_a / 3) + 0.5, 1e30);
  CbcParams params;
  params.time_limit_s = 20;
  params.test_hook.stall_below = 1e30;  // the first incumbent
  params.test_hook.die = true;
  const MilpResult r = solve_with_cbc(m, params, nullptr);
  EXPECT_EQ(r.end, CbcEnd::kDied);
  EXPECT_EQ(r.incumbents, 1);
  ASSERT_EQ(r.values.size(), m.num_cols());
  double activity = 0;
  double cost = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    activity += a[i] * r.values[i];
    cost += m.obj[i] * r.values[i];
  }
  EXPECT_GE(activity, m.row_lb[0] - 1e-6);
  EXPECT_NEAR(cost, r.objective, 1e-6 * cost);
}

}  // namespace
}  // namespace flux::sched
