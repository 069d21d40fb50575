// flux-milp with scale-up domains (docs/model.md, "Scale-up domains" and
// "The exact scheduler"): the model's optimum, the scheduler's schedule and
// the LP relaxation against brute force on tiny instances, hand-computed
// optima, and the shape of the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/builder.hpp"
#include "milp_test_util.hpp"
#include "sched/milp/solver.hpp"
#include "sched_test_util.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

using testing::brute_force;
using testing::random_instance;

// 110 tiny instances: 7 random sends on 4 or 6 accelerators, domains of
// k = 2 or 4 (4 ranks) and 2 or 3 (6 ranks), 1 or 2 switches, tau from 0 to
// 40 ns against sends of 10-50 ns on the OCS, scale-up at 2x or 3x the link.
void for_each_domain_instance(
    const std::function<void(const core::Workload&, const core::System&, const std::string&)>& f) {
  constexpr TimePs kTaus[] = {0, 2'000, 10'000, 40'000};
  for (std::uint64_t seed = 1; seed <= 55; ++seed) {
    const std::uint32_t ranks = seed % 2 == 1 ? 4 : 6;
    const core::Workload w = random_instance(1000 + seed, 7, ranks);
    for (const std::uint32_t k : {2u, ranks == 4 ? 4u : 3u}) {
      core::System sys;
      sys.switches = 1 + seed % 2;
      sys.reconfig_delay_ps = kTaus[(seed + k) % 4];
      sys.scaleup_size = k;
      sys.scaleup_gbps = seed % 3 == 0 ? 2400 : 1600;
      const std::string name = "seed " + std::to_string(seed) + " k " + std::to_string(k) + " s " +
                               std::to_string(sys.switches) + " tau " +
                               std::to_string(sys.reconfig_delay_ps);
      f(w, sys, name);
    }
  }
}

MilpOptions paper_model() {
  return MilpOptions{false, false, false, false, false, "", ""};
}

CbcParams exact_cbc() {
  CbcParams params;
  params.time_limit_s = 30;
  params.relative_gap = 0;
  params.watchdog = false;
  return params;
}

std::uint32_t scaleup_sends(const core::Workload& w, const core::System& sys) {
  std::uint32_t count = 0;
  for (const core::Task& t : w.tasks()) count += sys.fabric(t.src, t.dst) == core::Fabric::kScaleUp;
  return count;
}

// The model alone, solved by CBC: its optimum is brute force's, with the
// reductions (the horizon of the optimum itself) and as the paper writes it.
TEST(MilpScaleUp, ModelOptimumEqualsBruteForce) {
  int instances = 0, with_scaleup_order = 0;
  for_each_domain_instance([&](const core::Workload& w, const core::System& sys,
                               const std::string& name) {
    ++instances;
    const TimePs expected = brute_force(w, sys);
    const std::vector<TimePs> p = core::transmission_times(w, sys);
    const core::IdealTiming timing = core::ideal_timing(w, p);
    for (const bool reductions : {true, false}) {
      const MilpOptions mo = reductions ? MilpOptions{} : paper_model();
      const MilpModel m = build_milp(
          w, sys,
          MilpInputs{p, &timing, reductions ? std::optional(expected) : std::nullopt, std::nullopt},
          mo);
      // Scale-up sends have no switch columns; every other send has s.
      EXPECT_EQ(m.num_integers() - m.y_col.size(),
                (w.num_tasks() - scaleup_sends(w, sys)) * sys.switches)
          << name;
      for (const auto& [u, v] : m.y_pair) {
        with_scaleup_order += !reductions && m.x_col[u * sys.switches] < 0;
      }
      const MilpResult r = solve_with_cbc(m, exact_cbc(), nullptr);
      ASSERT_EQ(r.status, schedule::SolveStatus::kOptimal) << name;
      EXPECT_NEAR(r.objective * kPsPerModelUnit, static_cast<double>(expected), 2.0)
          << name << (reductions ? " reductions" : " paper");
    }
  });
  EXPECT_EQ(instances, 110);
  // The instances do exercise the electrical disjunction.
  EXPECT_GT(with_scaleup_order, 100);
}

// The whole scheduler, with its reductions and warm start and as the paper
// writes it (CBC from the list schedule, then decoded and left-shifted):
// optimal, equal to brute force, valid (run_scheduler validates; checked
// again here), every scale-up send on the scale-up fabric.
TEST(MilpScaleUp, ScheduleIsOptimalAndValid) {
  SchedulerOptions paper = testing::exact_options();
  paper.milp = paper_model();
  for_each_domain_instance([&](const core::Workload& w, const core::System& sys,
                               const std::string& name) {
    const TimePs expected = brute_force(w, sys);
    for (const SchedulerOptions& o : {testing::exact_options(), paper}) {
      const schedule::Schedule s = run_scheduler("flux-milp", w, sys, o);
      EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal) << name;
      EXPECT_EQ(s.makespan_ps, expected) << name;
      const schedule::ValidationReport report = schedule::validate(w, s);
      EXPECT_TRUE(report.ok()) << name << "\n" << report.to_string();
      for (const schedule::TaskAssignment& a : s.tasks) {
        const core::Task& t = w.task(*w.find(a.task_id));
        EXPECT_EQ(a.sw == core::kScaleUpSwitch, sys.fabric(t.src, t.dst) == core::Fabric::kScaleUp)
            << name << " task " << a.task_id;
      }
    }
  });
}

// The LP relaxation under the optimum's horizon never exceeds it.
TEST(MilpScaleUp, LpRelaxationBoundsTheOptimum) {
  for_each_domain_instance(
      [](const core::Workload& w, const core::System& sys, const std::string& name) {
        const TimePs optimum = brute_force(w, sys);
        const std::vector<TimePs> p = core::transmission_times(w, sys);
        const core::IdealTiming timing = core::ideal_timing(w, p);
        const auto lp = lp_relaxation_bound(w, sys, p, timing, optimum, 30);
        ASSERT_TRUE(lp.has_value()) << name;
        EXPECT_LE(*lp, optimum) << name;
        EXPECT_GE(*lp, timing.makespan - 2) << name;
      });
}

// Domains {0, 1}, {2, 3}; links 1 Gb/s (1000 B: 8 us), scale-up 2 Gb/s
// (1000 B: 4 us), tau 100 us, one switch.
core::System hand_system() {
  core::System sys;
  sys.switches = 1;
  sys.link_gbps = 1;
  sys.scaleup_gbps = 2;
  sys.reconfig_delay_ps = 100 * core::kPsPerUs;
  sys.scaleup_size = 2;
  return sys;
}

TimePs milp_makespan(const core::Workload& w, const core::System& sys) {
  return run_scheduler("flux-milp", w, sys, testing::exact_options()).makespan_ps;
}

// A: 0->1, B: 0->1, C: 0->2, D: 1->0, 1000 B each.
core::Workload duplex_workload() {
  workload::WorkloadBuilder b("duplex", 4);
  b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(0), Rank(2), 1000);
  b.add_send(Rank(1), Rank(0), 1000);
  return std::move(b).build();
}

TEST(MilpScaleUp, ElectricalPortsAreFullDuplexWithoutTau) {
  // A and B share 0's egress and 1's ingress: serial, no tau (4 + 4 us); D
  // uses the other directions, C the OCS port: both beside them. Optimum
  // 8 us. Without domains the one switch carries all four: 8 + 8 + tau + 8
  // (0->2) + tau + 8 (1->0) = 232 us.
  const core::Workload w = duplex_workload();
  core::System sys = hand_system();
  EXPECT_EQ(milp_makespan(w, sys), 8 * core::kPsPerUs);
  sys.scaleup_size = 1;
  EXPECT_EQ(milp_makespan(w, sys), 232 * core::kPsPerUs);
}

TEST(MilpScaleUp, SharedIngressSerializesInsideADomain) {
  // One domain of 4: A: 0->1, B: 2->1 share 1's ingress (4 + 4 us); C: 1->3
  // after A with 1 us of compute, on 1's egress (free): 4 + 1 + 4 = 9 us.
  workload::WorkloadBuilder b("ingress", 4);
  const TaskIndex a = b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(2), Rank(1), 1000);
  const TaskIndex c = b.add_send(Rank(1), Rank(3), 1000);
  b.add_dep(a, c, core::kPsPerUs);
  const core::Workload w = std::move(b).build();
  core::System sys = hand_system();
  sys.scaleup_size = 4;
  EXPECT_EQ(milp_makespan(w, sys), 9 * core::kPsPerUs);
  EXPECT_EQ(brute_force(w, sys), 9 * core::kPsPerUs);
}

// The model of the duplex instance, row by row: C alone has switch columns,
// the one incomparable scale-up pair (A, B) one binary and two rows.
TEST(MilpScaleUp, ModelShape) {
  const core::Workload w = duplex_workload();
  core::System sys = hand_system();
  sys.switches = 2;
  const std::vector<TimePs> p = core::transmission_times(w, sys);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const MilpModel m =
      build_milp(w, sys, MilpInputs{p, &timing, std::nullopt, std::nullopt}, paper_model());
  // t_0..t_3, x_2_0, x_2_1, C, y_0_1.
  EXPECT_EQ(m.num_cols(), 8u);
  EXPECT_EQ(m.col_names[4], "x_2_0");
  EXPECT_EQ(m.col_names[7], "y_0_1");
  ASSERT_EQ(m.y_pair.size(), 1u);
  EXPECT_EQ(m.y_pair[0], (std::pair<std::uint32_t, std::uint32_t>{0, 1}));
  // Rows: 4 makespan (1), 1 assignment (2) for C, 2 for the pair.
  EXPECT_EQ(m.num_rows(), 7u);
  EXPECT_EQ(m.incomparable_pairs, 1u);
  const MilpSize est = estimate_milp_size(w, sys);
  EXPECT_EQ(est.pairs, 2u);  // A, B on 0's egress and on 1's ingress: an upper estimate
  EXPECT_GE(est.rows, m.num_rows());
  EXPECT_GE(est.cols, m.num_cols());
  EXPECT_GE(est.nonzeros, m.row_col.size());
}

// With no send inside a domain the model is the paper-model one, entry for
// entry: domains change nothing but the sends they hold.
TEST(MilpScaleUp, NoSendInsideADomainLeavesTheModelUnchanged) {
  workload::WorkloadBuilder b("across", 4);
  const TaskIndex a = b.add_send(Rank(0), Rank(2), 1000);
  b.add_dep(a, b.add_send(Rank(3), Rank(0), 2000), 500);
  b.add_send(Rank(1), Rank(3), 1000);
  b.add_send(Rank(2), Rank(1), 1000);
  b.add_send(Rank(0), Rank(3), 1000);
  const core::Workload w = std::move(b).build();
  core::System plain = hand_system();
  plain.switches = 2;
  plain.scaleup_size = 1;
  core::System domains = plain;
  domains.scaleup_size = 2;
  const std::vector<TimePs> p = core::transmission_times(w, plain);
  ASSERT_EQ(p, core::transmission_times(w, domains));
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const MilpInputs in{p, &timing, TimePs{200 * core::kPsPerUs}, TimePs{16 * core::kPsPerUs}};
  const MilpModel x = build_milp(w, plain, in, MilpOptions{});
  const MilpModel y = build_milp(w, domains, in, MilpOptions{});
  EXPECT_EQ(x.col_names, y.col_names);
  EXPECT_EQ(x.col_lb, y.col_lb);
  EXPECT_EQ(x.col_ub, y.col_ub);
  EXPECT_EQ(x.row_start, y.row_start);
  EXPECT_EQ(x.row_col, y.row_col);
  EXPECT_EQ(x.row_val, y.row_val);
  EXPECT_EQ(x.row_lb, y.row_lb);
  EXPECT_EQ(x.row_ub, y.row_ub);
  EXPECT_GT(x.y_col.size(), 0u);
  const MilpSize ex = estimate_milp_size(w, plain), ey = estimate_milp_size(w, domains);
  EXPECT_EQ(std::tie(ex.pairs, ex.rows, ex.cols, ex.nonzeros, ex.bytes),
            std::tie(ey.pairs, ey.rows, ey.cols, ey.nonzeros, ey.bytes));
}

// A model with scale-up sends exported as LP and MPS solves, read back by
// Clp and CBC, to brute force's optimum; a hand-written solution decodes.
TEST(MilpScaleUp, ExportedModelAndSolutionFile) {
  const core::Workload w = random_instance(1003, 7, 4);
  core::System sys;
  sys.switches = 2;
  sys.reconfig_delay_ps = 10'000;
  sys.scaleup_size = 2;
  sys.scaleup_gbps = 1600;
  ASSERT_GT(scaleup_sends(w, sys), 1u);
  const TimePs expected = brute_force(w, sys);
  const auto dir = std::filesystem::temp_directory_path() / "flux_milp_scaleup_test";
  std::filesystem::create_directories(dir);
  for (const char* ext : {".lp", ".mps"}) {
    SchedulerOptions o = testing::exact_options();
    o.milp.export_path = (dir / (std::string("model") + ext)).string();
    (void)run_scheduler("flux-milp", w, sys, o);
    const std::optional<double> optimum = testing::solve_model_file(o.milp.export_path);
    ASSERT_TRUE(optimum.has_value()) << ext;
    EXPECT_NEAR(*optimum * kPsPerModelUnit, static_cast<double>(expected), 2.0) << ext;
  }
  // The duplex instance: A, B (0->1) in one order by hand, C on switch 0.
  const auto sol = dir / "duplex.sol";
  {
    std::ofstream f(sol);
    f << "t_0 0\nt_1 4\nt_2 0\nt_3 0\nx_2_0 1\ny_0_1 1\nC 8\n";
  }
  SchedulerOptions o = testing::exact_options();
  o.milp.solution_path = sol.string();
  const schedule::Schedule s = run_scheduler("flux-milp", duplex_workload(), hand_system(), o);
  EXPECT_EQ(s.makespan_ps, 8 * core::kPsPerUs);
  ASSERT_EQ(s.tasks.size(), 4u);
  EXPECT_EQ(s.tasks[0].sw, core::kScaleUpSwitch);
  EXPECT_EQ(s.tasks[1].start_ps, 4 * core::kPsPerUs);
  EXPECT_EQ(s.tasks[2].sw, core::SwitchId(0));
  EXPECT_EQ(s.tasks[3].start_ps, 0);
  std::filesystem::remove_all(dir);
}

// The size estimate bounds every model on the random instances too.
TEST(MilpScaleUp, SizeEstimateBoundsTheModel) {
  for_each_domain_instance(
      [](const core::Workload& w, const core::System& sys, const std::string& name) {
        const std::vector<TimePs> p = core::transmission_times(w, sys);
        const core::IdealTiming timing = core::ideal_timing(w, p);
        const MilpModel m =
            build_milp(w, sys, MilpInputs{p, &timing, std::nullopt, std::nullopt}, paper_model());
        const MilpSize est = estimate_milp_size(w, sys);
        EXPECT_GE(est.pairs, m.conflicting_pairs) << name;
        EXPECT_GE(est.rows, m.num_rows()) << name;
        EXPECT_GE(est.cols, m.num_cols()) << name;
        EXPECT_GE(est.nonzeros, m.row_col.size()) << name;
      });
}

}  // namespace
}  // namespace flux::sched
