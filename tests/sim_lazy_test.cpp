// The simulator on a workload whose collectives stay whole
// (sim::simulate_lazy over a core::LazyWorkload; issue 33) against
// sim::simulate on the materialised import of the same traces: under the
// ideal network the same records send by send, the same event count and
// the same metrics, with and without scale-up domains, cut half way, and
// without records; what it does not run (a schedule naming sends, a
// perturbation, another wiring) is refused by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chakra_test_util.hpp"
#include "flux/chakra/export.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/program.hpp"

namespace flux::sim {
namespace {

using core::kPsPerUs;

struct Imported {
  core::Workload material;
  core::LazyWorkload lazy;
};

Imported import_both(const workload::TrainingConfig& c, chakra::CollectiveEncoding e) {
  workload::Program program;
  const core::Workload w = workload::generate_llama(c, &program);
  const chakra::ChakraTrace t = chakra::to_chakra(w, program, e);
  std::vector<chakra::EtFile> files;
  for (const chakra::EtFile& f : t.ranks) {
    files.push_back(chakra::parse_et(chakra::serialize_et(f), f.source));
  }
  chakra::ImportOptions o;
  if (!t.groups.empty()) o.comm_groups = t.groups;
  return {chakra::import_traces(files, o, "t").workload,
          chakra::import_traces_lazy(files, o, "t").workload};
}

// Every metric but the wall times.
void expect_same_metrics(const Metrics& a, const Metrics& b) {
  EXPECT_EQ(a.iteration_time_ps, b.iteration_time_ps);
  EXPECT_EQ(a.wait_total_ps, b.wait_total_ps);
  EXPECT_EQ(a.wait_max_ps, b.wait_max_ps);
  EXPECT_EQ(a.bytes_sent, b.bytes_sent);
  EXPECT_EQ(a.bytes_delivered, b.bytes_delivered);
  EXPECT_EQ(a.scaleup_sends, b.scaleup_sends);
  EXPECT_EQ(a.scaleup_bytes, b.scaleup_bytes);
  EXPECT_EQ(a.scaleup_wait_total_ps, b.scaleup_wait_total_ps);
  EXPECT_EQ(a.scaleup_wait_max_ps, b.scaleup_wait_max_ps);
  EXPECT_EQ(a.packet_sends, b.packet_sends);
  EXPECT_EQ(a.nic_peak_bytes, b.nic_peak_bytes);
  EXPECT_EQ(a.peak_nic_bytes, b.peak_nic_bytes);
  EXPECT_EQ(a.events, b.events);
}

void expect_same_runs(const Imported& in, const core::System& system,
                      const std::string& scheduler = "ideal") {
  SCOPED_TRACE(scheduler);
  const schedule::Schedule s =
      sched::run_scheduler(scheduler, in.material, system, sched::SchedulerOptions{});
  const SimResult m = simulate(in.material, s);
  const SimResult l = simulate_lazy(in.lazy, s);
  ASSERT_EQ(l.sends.size(), m.sends.size());
  std::size_t differ = 0;
  for (std::size_t v = 0; v < m.sends.size(); ++v) {
    differ += m.sends[v].ready_ps != l.sends[v].ready_ps ||
                      m.sends[v].issue_ps != l.sends[v].issue_ps ||
                      m.sends[v].finish_ps != l.sends[v].finish_ps
                  ? 1
                  : 0;
  }
  EXPECT_EQ(differ, 0u);
  expect_same_metrics(l.metrics, m.metrics);
  EXPECT_GT(m.metrics.events, 2 * m.sends.size() - 1);  // a ready and a finish each
  // The ideal network's iteration is the longest path the scheduler found.
  if (scheduler == "ideal") {
    EXPECT_EQ(l.metrics.iteration_time_ps, s.makespan_ps);
  }
  EXPECT_EQ(l.metrics.reconfigurations, m.metrics.reconfigurations);
  EXPECT_EQ(l.metrics.bytes_relayed, m.metrics.bytes_relayed);
  // Cut half way, and without records.
  SimOptions cut;
  cut.cut_ps = m.metrics.iteration_time_ps / 2;
  cut.keep_records = false;
  const SimResult mc = simulate(in.material, s, cut);
  const SimResult lc = simulate_lazy(in.lazy, s, cut);
  EXPECT_TRUE(lc.sends.empty());
  ASSERT_TRUE(mc.at_cut && lc.at_cut);
  expect_same_metrics(lc.metrics, mc.metrics);
  expect_same_metrics(*lc.at_cut, *mc.at_cut);
}

core::System links(std::uint32_t scaleup) {
  core::System s;
  s.switches = 2;
  s.reconfig_delay_ps = 10 * kPsPerUs;
  if (scaleup > 1) {
    s.scaleup_size = scaleup;
    s.scaleup_gbps = 3600;
  }
  return s;
}

TEST(SimLazy, IdealRunsAreTheMaterialisedOnes) {
  using workload::Algorithm;
  std::vector<workload::TrainingConfig> configs = {chakra::small(4, 2, Algorithm::kRing),
                                                   chakra::small(2, 3, Algorithm::kHalvingDoubling),
                                                   chakra::small(4, 4, Algorithm::kDirect)};
  configs[1].micro_batches = 2;
  workload::TrainingConfig pp = chakra::small(2, 2, Algorithm::kRing);
  pp.model.layers = 3;
  pp.pp = 2;
  pp.cp = 2;
  pp.micro_batches = 3;
  configs.push_back(pp);
  for (const auto& c : configs) {
    for (auto e : {chakra::CollectiveEncoding::kCommColl, chakra::CollectiveEncoding::kSendRecv}) {
      for (const std::uint32_t scaleup : {1u, 2u}) {
        SCOPED_TRACE(std::to_string(c.tp) + "x" + std::to_string(c.dp) + " pp " +
                     std::to_string(c.pp) +
                     (e == chakra::CollectiveEncoding::kCommColl ? " comm-coll" : " send-recv") +
                     " domains of " + std::to_string(scaleup));
        expect_same_runs(import_both(c, e), links(scaleup));
      }
    }
  }
}

TEST(SimLazy, CircuitSchedulesOfTheBaselinesRunAlike) {
  // Schedules that name no sends: RotorNet's matchings, VLB relaying
  // through them, BvN's decomposition, on 8 ranks of TP 2 x DP 4.
  const Imported in = import_both(chakra::small(2, 4, workload::Algorithm::kRing),
                                  chakra::CollectiveEncoding::kCommColl);
  for (const std::string name : {"rotornet", "rotornet-vlb", "bvn"}) {
    expect_same_runs(in, links(1), name);
  }
}

TEST(SimLazy, WhatItDoesNotRunIsRefused) {
  const Imported in = import_both(chakra::small(2, 2, workload::Algorithm::kRing),
                                  chakra::CollectiveEncoding::kCommColl);
  const core::System system = links(1);
  // A schedule that names every send.
  const schedule::Schedule greedy =
      sched::run_scheduler("greedy", in.material, system, sched::SchedulerOptions{});
  EXPECT_THROW(simulate_lazy(in.lazy, greedy), schedule::ScheduleError);
  const schedule::Schedule ideal =
      sched::run_scheduler("ideal", in.material, system, sched::SchedulerOptions{});
  SimOptions jitter;
  jitter.perturbation.compute_jitter = 0.1;
  EXPECT_THROW(simulate_lazy(in.lazy, ideal, jitter), core::InputError);
  // Rails: routes need the sends one by one.
  schedule::Schedule rails = ideal;
  rails.system.wiring.kind = core::WiringKind::kRails;
  rails.system.ocs_radix = 2;
  rails.system.scaleup_size = 2;
  rails.system.scaleup_gbps = 3600;
  EXPECT_THROW(simulate_lazy(in.lazy, rails), schedule::ScheduleError);
}

}  // namespace
}  // namespace flux::sim
