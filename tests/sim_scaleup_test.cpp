// The simulator with scale-up domains (docs/model.md, "Scale-up domains" and
// "Simulator"): strict replay of task-level schedules with scale-up sends
// equals the makespan to the picosecond; circuit-only schedules send inside
// a domain when ready, one transfer per electrical egress and ingress at a
// time, in (release, index) order; ideal has no port contention and equals
// the critical path; electrical transfers hold no NIC memory and no circuit.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "flux/core/dag.hpp"
#include "flux/formats/chrome_trace.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/timeline.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/llama.hpp"

namespace flux {
namespace {

using core::Rank;
using core::SwitchId;
using core::TimePs;
using schedule::TaskAssignment;

// OCS links at 800 Gb/s (10 ps per byte), scale-up at 1600 Gb/s (5 ps per
// byte), one switch, tau = 1000 ps.
core::System scaleup_system(std::uint32_t k) {
  core::System s;
  s.switches = 1;
  s.link_gbps = 800;
  s.reconfig_delay_ps = 1000;
  s.scaleup_size = k;
  s.scaleup_gbps = 1600;
  return s;
}

schedule::Schedule task_schedule(const core::Workload& w, const core::System& sys,
                                 std::vector<TaskAssignment> tasks) {
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = w.name();
  s.system = sys;
  s.timelines = schedule::build_timelines(w, sys, tasks);
  s.tasks = std::move(tasks);
  TimePs end = 0;
  const auto p = core::transmission_times(w, sys);
  for (const TaskAssignment& a : s.tasks) {
    const auto v = *w.find(a.task_id);
    end = std::max(end, a.start_ps + p[v.value()] + w.task(v).tail_ps);
  }
  s.makespan_ps = end;
  return s;
}

// The validator's example (validator_test.cpp, scaleup_workload): domains
// {0, 1} and {2, 3}.
//   0: 0->1 100 B scale-up, p 500, at 0
//   1: 0->2 10 B OCS, p 100, at 0 (circuit {0, 2} set up before 0)
//   2: 0->1 100 B scale-up, at 500: right after 0 on egress 0 and ingress 1
//   3: 1->0 100 B scale-up, at 0: the reverse direction, other ports
TEST(SimulatorScaleUp, StrictReplayOfTheValidatorsExample) {
  workload::WorkloadBuilder b("scaleup", 4);
  b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(0), Rank(2), 10);
  b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(1), Rank(0), 100);
  const core::Workload w = std::move(b).build();
  const SwitchId su = core::kScaleUpSwitch;
  const schedule::Schedule s = task_schedule(
      w, scaleup_system(2), {{0, su, 0}, {1, SwitchId(0), 0}, {2, su, 500}, {3, su, 0}});
  EXPECT_EQ(s.makespan_ps, 1000);
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.metrics.iteration_time_ps, 1000);
  const std::vector<std::pair<TimePs, TimePs>> want = {{0, 500}, {0, 100}, {500, 1000}, {0, 500}};
  for (std::size_t v = 0; v < want.size(); ++v) {
    EXPECT_EQ(r.sends[v].issue_ps, want[v].first) << v;
    EXPECT_EQ(r.sends[v].finish_ps, want[v].second) << v;
  }
  // Only the OCS send passes a NIC: its packet on the wire, 10 B.
  EXPECT_EQ(r.metrics.nic_peak_bytes, (std::vector<std::uint64_t>{10, 0, 0, 0}));
  EXPECT_EQ(r.metrics.scaleup_sends, 3u);
  EXPECT_EQ(r.metrics.scaleup_bytes, 300u);
  EXPECT_EQ(r.metrics.wait_total_ps, 500);  // 2: ready at 0, held until 500
  EXPECT_EQ(r.metrics.bytes_delivered, 310u);
  EXPECT_EQ(r.metrics.reconfigurations, 1u);  // {0, 2} only
  // The OCS link carried data 100 ps of the circuit's 2 x 100 ps up time.
  EXPECT_DOUBLE_EQ(*r.metrics.circuit_utilization, 0.5);
}

// A task-level schedule with compute between the fabrics: the host holds a
// scale-up send until its start even when it is ready earlier, and an OCS
// send waits for its circuit as before.
//   0: 0->1 200 B scale-up, p 1000, at 0
//   1: 1->2 100 B OCS, p 1000, after 0 + 300 compute: ready 1300, at 1500
//   2: 2->3 100 B scale-up, p 500, after 1 + 200 compute: at 2700, tail 40
//   3: 0->1 10 B scale-up, p 50, ready at 0, scheduled at 3000
TEST(SimulatorScaleUp, StrictReplayWithComputeAndHeldSends) {
  workload::WorkloadBuilder b("mixed", 4);
  const auto s0 = b.add_send(Rank(0), Rank(1), 200);
  const auto s1 = b.add_send(Rank(1), Rank(2), 100);
  const auto s2 = b.add_send(Rank(2), Rank(3), 100);
  b.raise_tail(s2, 40);
  b.add_send(Rank(0), Rank(1), 10);
  b.add_dep(s0, s1, 300);
  b.add_dep(s1, s2, 200);
  const core::Workload w = std::move(b).build();
  const SwitchId su = core::kScaleUpSwitch;
  const schedule::Schedule s = task_schedule(
      w, scaleup_system(2), {{0, su, 0}, {1, SwitchId(0), 1500}, {2, su, 2700}, {3, su, 3000}});
  schedule::check_schedule(w, s);
  EXPECT_EQ(s.makespan_ps, 3240);
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.metrics.iteration_time_ps, s.makespan_ps);
  EXPECT_EQ(r.sends[2].ready_ps, 2700);
  EXPECT_EQ(r.sends[2].finish_ps, 3200);
  EXPECT_EQ(r.sends[3].ready_ps, 0);
  EXPECT_EQ(r.sends[3].issue_ps, 3000);
  EXPECT_EQ(r.metrics.scaleup_wait_total_ps, 3000);  // send 3 held by its host
  EXPECT_EQ(r.metrics.scaleup_wait_max_ps, 3000);
  EXPECT_EQ(r.metrics.wait_total_ps, 3000 + 200);  // send 1: ready 1300, at 1500
}

// A circuit-only schedule with domains {0, 1, 2} and {3, 4, 5}; the one
// circuit {0, 3} is up over [2000, 3000). By hand:
//   A: 0->1 100 B, p 500, ready 0: egress 0, ingress 1 free: [0, 500)
//   B: 2->1 100 B, p 500, ready 0: ingress 1 taken by A (released at 0 like
//      B, lower index): [500, 1000)
//   C: 0->2 200 B, p 1000, released at 100: egress 0 taken by A: [500, 1500)
//   D: 1->0 100 B, p 500, ready 0: egress 1 and ingress 0 free (full
//      duplex beside A): [0, 500)
//   E: 0->3 10 B OCS, p 100, ready 0: NIC 0 takes it by 100, holds it until
//      the circuit is up at 2000: [0, 2100)
//   F: 0->1 50 B, p 250, after A + 50 compute: ready 550, egress 0 taken by
//      C: [1500, 1750)
// Iteration 2100. Waits: B 500, C 400, F 950 (scale-up 1850), E 2000.
core::Workload six_ranks() {
  workload::WorkloadBuilder b("six", 6);
  const auto a = b.add_send(Rank(0), Rank(1), 100);
  b.add_send(Rank(2), Rank(1), 100);
  b.raise_release(b.add_send(Rank(0), Rank(2), 200), 100);
  b.add_send(Rank(1), Rank(0), 100);
  b.add_send(Rank(0), Rank(3), 10);
  const auto f = b.add_send(Rank(0), Rank(1), 50);
  b.add_dep(a, f, 50);
  return std::move(b).build();
}

schedule::Schedule one_circuit(const core::Workload& w) {
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = w.name();
  s.system = scaleup_system(3);
  s.timelines.resize(1);
  s.timelines[0].circuits = {{Rank(0), Rank(3), 1000, 2000, 3000}};
  return s;
}

TEST(SimulatorScaleUp, CircuitOnlyScheduleSendsInsideDomainsWhenPortsAreFree) {
  const core::Workload w = six_ranks();
  const schedule::Schedule s = one_circuit(w);
  const sim::SimResult r = sim::simulate(w, s);
  const std::vector<std::pair<TimePs, TimePs>> want = {{0, 500}, {500, 1000}, {500, 1500},
                                                       {0, 500}, {0, 2100},   {1500, 1750}};
  for (std::size_t v = 0; v < want.size(); ++v) {
    EXPECT_EQ(r.sends[v].issue_ps, want[v].first) << v;
    EXPECT_EQ(r.sends[v].finish_ps, want[v].second) << v;
  }
  EXPECT_EQ(r.sends[2].ready_ps, 100);
  EXPECT_EQ(r.sends[5].ready_ps, 550);
  EXPECT_EQ(r.metrics.iteration_time_ps, 2100);
  EXPECT_EQ(r.metrics.scaleup_sends, 5u);
  EXPECT_EQ(r.metrics.scaleup_bytes, 550u);
  EXPECT_EQ(r.metrics.scaleup_wait_total_ps, 1850);
  EXPECT_EQ(r.metrics.scaleup_wait_max_ps, 950);
  EXPECT_EQ(r.metrics.wait_total_ps, 1850 + 2000);
  EXPECT_EQ(r.metrics.wait_max_ps, 2000);
  // NIC 0 holds E's 10 B; electrical transfers hold nothing.
  EXPECT_EQ(r.metrics.nic_peak_bytes, (std::vector<std::uint64_t>{10, 0, 0, 0, 0, 0}));
  EXPECT_EQ(r.metrics.bytes_delivered, w.total_bytes());
  EXPECT_EQ(r.metrics.reconfigurations, 1u);

  // Ideal (every pair connected): no port contention on either fabric, so
  // every send goes when ready and the replay is the critical path.
  schedule::Schedule ideal = s;
  ideal.circuit_model = schedule::CircuitModel::kAllConnected;
  ideal.timelines.assign(1, {});
  const auto p = core::transmission_times(w, ideal.system);
  ideal.makespan_ps = core::ideal_timing(w, p).makespan;
  EXPECT_EQ(ideal.makespan_ps, 1100);  // C: 100 + 1000
  const sim::SimResult ri = sim::simulate(w, ideal);
  EXPECT_EQ(ri.metrics.iteration_time_ps, 1100);
  EXPECT_EQ(ri.metrics.wait_total_ps, 0);
  EXPECT_EQ(ri.sends[1].issue_ps, 0);  // beside A on ingress 1
}

// VLB never relays through a peer of the destination's domain (the second
// hop would need a circuit inside a domain): 0 -> 2 waits for {0, 2}, though
// {0, 3} comes up first and 3 shares 2's domain.
TEST(SimulatorScaleUp, VlbRelaysOverCircuitsOnly) {
  workload::WorkloadBuilder b("vlb", 4);
  b.add_send(Rank(0), Rank(2), 100);
  const core::Workload w = std::move(b).build();
  schedule::Schedule s;
  s.scheduler = "hand";
  s.workload = w.name();
  s.system = scaleup_system(2);
  s.routing = schedule::Routing::kVlb;
  s.timelines.resize(1);
  s.timelines[0].circuits = {{Rank(0), Rank(3), 0, 1000, 5000},
                             {Rank(0), Rank(2), 5000, 6000, 9000}};
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.metrics.bytes_relayed, 0u);
  EXPECT_EQ(r.sends[0].finish_ps, 7000);
}

// The paper's TP4 x DP2 layer with TP inside 4-GPU domains: ideal's replay
// is its critical path (what `ideal` reports) with each send's p on its
// fabric, and the faster NVLink shortens it.
TEST(SimulatorScaleUp, IdealReplayIsTheCriticalPathWithDomains) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 4;
  c.dp = 2;
  const core::Workload w = workload::generate_llama(c);
  core::System sys;
  sys.scaleup_size = 4;
  const schedule::Schedule s = sched::run_scheduler("ideal", w, sys, {});
  const sim::SimResult r = sim::simulate(w, s);
  EXPECT_EQ(r.metrics.iteration_time_ps, s.makespan_ps);
  EXPECT_EQ(r.metrics.wait_total_ps, 0);
  EXPECT_GT(r.metrics.scaleup_sends, 0u);
  EXPECT_LT(r.metrics.scaleup_sends, w.num_tasks());  // DP crosses domains
  core::System flat = sys;
  flat.scaleup_size = 1;
  const sim::SimResult rf = sim::simulate(w, sched::run_scheduler("ideal", w, flat, {}));
  EXPECT_LT(r.metrics.iteration_time_ps, rf.metrics.iteration_time_ps);
  EXPECT_EQ(rf.metrics.scaleup_sends, 0u);
}

// flux.metrics/v2 carries the system's domains and both fabrics' sends,
// bytes and waits; the trace puts scale-up transfers on their domain.
TEST(SimulatorScaleUp, MetricsAndTraceShowBothFabrics) {
  const core::Workload w = six_ranks();
  const schedule::Schedule s = one_circuit(w);
  const sim::SimResult r = sim::simulate(w, s);
  std::ostringstream m;
  formats::write_metrics(m, w, s, {}, r.metrics);
  const std::string text = m.str();
  for (const char* part :
       {R"("format": "flux.metrics/v2")", R"("scaleup_size": 3, "scaleup_gbps": 1600})",
        R"("ocs_sends": 1,)", R"("ocs_bytes": 10,)", R"("scaleup_sends": 5,)",
        R"("scaleup_bytes": 550,)", R"("scaleup_wait_total_s": 1.85e-09,)",
        R"("scaleup_wait_max_s": 9.5e-10,)"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  std::ostringstream t;
  formats::write_chrome_trace(t, w, s, r);
  const std::string trace = t.str();
  // Processes: GPUs 0-5, OCS 0 (pid 6), scale-up domains 0 and 1 (7, 8).
  for (const char* part : {R"("pid": 7, "tid": 0, "args": {"name": "scale-up domain 0"})",
                           R"("pid": 8, "tid": 0, "args": {"name": "scale-up domain 1"})",
                           R"("pid": 7, "tid": 2, "args": {"name": "GPU 2 egress"})",
                           R"("cat": "scaleup", "ph": "X", "pid": 7, "tid": 0, "ts": 0.0015)"}) {
    EXPECT_NE(trace.find(part), std::string::npos) << part << "\n" << trace;
  }
  // Only E (0 -> 3) is a send of GPU 0's process.
  EXPECT_EQ(trace.find(R"("cat": "send", "ph": "X", "pid": 0, "tid": 1)"), std::string::npos);
}

TEST(SimulatorScaleUp, Deterministic) {
  const core::Workload w = six_ranks();
  const auto a = sim::simulate(w, one_circuit(w));
  const auto b = sim::simulate(w, one_circuit(w));
  for (std::size_t v = 0; v < a.sends.size(); ++v) {
    EXPECT_EQ(a.sends[v].issue_ps, b.sends[v].issue_ps);
    EXPECT_EQ(a.sends[v].finish_ps, b.sends[v].finish_ps);
  }
  EXPECT_EQ(a.metrics.events, b.metrics.events);
}

}  // namespace
}  // namespace flux
