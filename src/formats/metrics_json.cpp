// The metrics file, flux.metrics/v2 (v1 without scale-up domains;
// include/flux/formats/metrics_json.hpp).
#include "flux/formats/metrics_json.hpp"

#include "flux/io/json_writer.hpp"

namespace flux::formats {
namespace {

void write_percentiles(io::JsonWriter& j, const sim::Percentiles<std::int64_t>& p, bool seconds) {
  auto v = [&](const char* name, std::int64_t x) {
    if (seconds) {
      j.member(name, core::ps_to_seconds(x));
    } else {
      j.member(name, static_cast<std::uint64_t>(x));
    }
  };
  v("p50", p.p50);
  v("p95", p.p95);
  v("p99", p.p99);
  v("max", p.max);
}

// The failure and what it did to the trace trial (docs/formats.md).
void write_failure(io::JsonWriter& j, const runtime::FailureTrials& f) {
  const runtime::FailureOutcome& o = f.chosen.outcome;
  j.key("failure").begin_object();
  j.member("switch", f.failure.switch_index);
  j.member("time_ps", static_cast<std::uint64_t>(f.failure.time_ps));
  j.member("disrupted", o.disrupted);
  j.member("done_sends", o.done_sends).member("replanned_sends", o.replanned_sends);
  j.member("replanned_bytes", o.replanned_bytes);
  if (o.disrupted) {
    j.member("replan_scheduler", o.scheduler);
    j.member("replan_status", std::string(schedule::to_string(o.replan_status)));
    j.member("restart_s", core::ps_to_seconds(o.restart_ps));
    j.member("remainder_makespan_s", core::ps_to_seconds(o.remainder_makespan_ps));
    j.member("remainder_iteration_time_s", core::ps_to_seconds(o.remainder_iteration_ps));
    j.member("replan_wall_time_s", o.replan_wall_time_s);
  }
  j.end_object();
}

// Per trial, in the trials object.
void write_failure_trials(io::JsonWriter& j, const runtime::FailureTrials& f) {
  j.key("failure").begin_object();
  j.key("replanned_sends").begin_array();
  for (const auto& o : f.outcomes) j.value(o.replanned_sends);
  j.end_array();
  j.key("remainder_iteration_time_s").begin_array();
  for (const auto& o : f.outcomes) j.value(core::ps_to_seconds(o.remainder_iteration_ps));
  j.end_array();
  j.key("replan_wall_time_s").begin_array();
  for (const auto& o : f.outcomes) j.value(o.replan_wall_time_s);
  j.end_array();
  j.end_object();
}

void write_trials(io::JsonWriter& j, const sim::SimOptions& o, const sim::TrialsResult& t,
                  const runtime::FailureTrials* failure) {
  j.key("trials").begin_object();
  j.member("count", static_cast<std::uint64_t>(t.trials.size()));
  j.member("execution", std::string(sim::to_string(t.execution)));
  j.member("seed", o.perturbation.seed);
  j.member("compute_jitter_cv", o.perturbation.compute_jitter);
  if (o.perturbation.straggler) {
    j.key("straggler").begin_object();
    j.member("rank", o.perturbation.straggler->rank);
    j.member("factor", o.perturbation.straggler->factor);
    j.end_object();
  }
  j.member("trace_trial", o.trace_trial);
  j.member("all_bytes_delivered", t.all_delivered);
  j.key("iteration_time_s").begin_object();
  write_percentiles(j, t.iteration_time_ps, true);
  j.key("values").begin_array();
  for (const sim::Metrics& m : t.trials) j.value(core::ps_to_seconds(m.iteration_time_ps));
  j.end_array();
  j.end_object();
  j.key("peak_nic_bytes").begin_object();
  write_percentiles(j, t.peak_nic_bytes, false);
  j.key("values").begin_array();
  for (const sim::Metrics& m : t.trials) j.value(m.peak_nic_bytes);
  j.end_array();
  j.end_object();
  if (failure) write_failure_trials(j, *failure);
  j.end_object();
}

}  // namespace

void write_metrics(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                   const sim::SimOptions& options, const sim::Metrics& m,
                   const sim::TrialsResult* trials, const runtime::FailureTrials* failure,
                   const core::Workload* planned_for) {
  const std::string other = planned_for ? planned_for->name() : std::string();
  write_metrics(out, core::facts_of(w), s, options, m, trials, failure,
                planned_for ? &other : nullptr);
}

void write_metrics(std::ostream& out, const core::WorkloadFacts& w, const schedule::Schedule& s,
                   const sim::SimOptions& options, const sim::Metrics& m,
                   const sim::TrialsResult* trials, const runtime::FailureTrials* failure,
                   const std::string* planned_for) {
  io::JsonWriter j(out);
  j.begin_object();
  // v1 without domains: those files stay as they were, byte for byte.
  const bool v2 =
      s.system.has_scaleup() || s.system.duplex != core::Duplex::kHalf || s.system.has_packet();
  j.member("format", v2 ? kMetricsFormat : kMetricsFormatV1);
  j.member("workload", w.name);
  if (planned_for) j.member("planned_for", *planned_for);
  j.member("scheduler", s.scheduler);
  j.key("system").begin_object();
  j.member("switches", s.system.switches).member("link_gbps", s.system.link_gbps);
  j.member("reconfig_delay_s", core::ps_to_seconds(s.system.reconfig_delay_ps));
  if (v2) {
    j.member("scaleup_size", s.system.scaleup_size);
    j.member("scaleup_gbps", s.system.scaleup_gbps);
    if (s.system.duplex != core::Duplex::kHalf)
      j.member("duplex", core::to_string(s.system.duplex));
  }
  // Optional keys, only with a packet fabric: other files stay as they were.
  if (s.system.has_packet()) {
    j.member("wiring", core::to_string(s.system.wiring));
    j.member("ocs_radix", s.system.ocs_radix);
    j.member("packet_gbps", s.system.packet_gbps);
    j.member("packet_latency_s", core::ps_to_seconds(s.system.packet_latency_ps));
    j.member("packet_oversubscription", s.system.packet_oversubscription);
    j.member("route", core::to_string(s.system.route));
  }
  j.end_object();
  j.member("mtu_bytes", options.mtu_bytes);
  j.member("sends", w.sends);
  // A folded workload: the counts of sends, circuits, waits and bytes are one
  // copy's (docs/formats.md).
  j.member("copies", w.fold.copies);
  j.member("iteration_time_s", core::ps_to_seconds(m.iteration_time_ps));
  if (!s.tasks.empty()) j.member("schedule_makespan_s", core::ps_to_seconds(s.makespan_ps));
  j.member("peak_nic_bytes", m.peak_nic_bytes);
  j.member("reconfigurations", m.reconfigurations);
  j.member("circuits_set_up", m.circuits_set_up);
  if (m.circuit_utilization) j.member("circuit_utilization", *m.circuit_utilization);
  j.member("wait_total_s", core::ps_to_seconds(m.wait_total_ps));
  j.member(
      "wait_mean_s",
      w.sends == 0 ? 0.0 : core::ps_to_seconds(m.wait_total_ps) / static_cast<double>(w.sends));
  j.member("wait_max_s", core::ps_to_seconds(m.wait_max_ps));
  j.member("bytes_sent", m.bytes_sent).member("bytes_delivered", m.bytes_delivered);
  j.member("bytes_relayed", m.bytes_relayed);
  if (v2) {
    // The two fabrics side by side (one copy's, like the totals above).
    j.member("ocs_sends", w.sends - m.scaleup_sends - m.packet_sends);
    j.member("ocs_bytes", w.total_bytes - m.scaleup_bytes - m.packet_bytes);
    j.member("scaleup_sends", m.scaleup_sends).member("scaleup_bytes", m.scaleup_bytes);
    j.member("scaleup_wait_total_s", core::ps_to_seconds(m.scaleup_wait_total_ps));
    j.member("scaleup_wait_max_s", core::ps_to_seconds(m.scaleup_wait_max_ps));
  }
  if (s.system.has_packet()) {
    j.member("packet_sends", m.packet_sends).member("packet_bytes", m.packet_bytes);
  }
  j.member("events", m.events);
  j.key("nic_peak_bytes").begin_array();
  for (std::uint64_t b : m.nic_peak_bytes) j.value(b);
  j.end_array();
  if (failure) write_failure(j, *failure);
  if (trials) write_trials(j, options, *trials, failure);
  j.end_object();
  j.finish();
}
}  // namespace flux::formats
