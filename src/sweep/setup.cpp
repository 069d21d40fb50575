// A sweep point's configuration, axis by axis (setup.hpp).
#include "setup.hpp"

#include <algorithm>
#include <string>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"
#include "flux/formats/wiring_json.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/workload/split.hpp"

namespace flux::sweep::detail {

void EvalSetup::apply(std::string_view axis, const std::string& v) {
  workload::TrainingConfig& t = job.training;
  const auto integer = [&] { return static_cast<std::uint32_t>(std::stoull(v)); };
  using T = workload::TrainingConfig;
  static constexpr std::pair<std::string_view, std::uint32_t T::*> kDegrees[] = {
      {"tp", &T::tp},
      {"pp", &T::pp},
      {"dp", &T::dp},
      {"cp", &T::cp},
      {"vpp", &T::vpp},
      {"fold_dp", &T::fold_dp},
      {"micro_batches", &T::micro_batches}};
  for (const auto& [name, field] : kDegrees) {
    if (axis == name) {
      t.*field = integer();
      return;
    }
  }
  if (axis == "job") {
    const workload::JobPreset p = workload::job_preset(v);
    t = p.config;
    job.scaleup_size = std::max<std::uint32_t>(1, p.config.scaleup_size);
    job.scaleup_gbps = p.config.gpu.nvlink_gbps;
    job_name = p.name;
  } else if (axis == "model") {
    const auto moe_names = workload::moe_model_names();
    if (std::find(moe_names.begin(), moe_names.end(), v) != moe_names.end()) {
      const workload::MoeModel m = workload::moe_model(v);
      t.model = m.model;
      t.moe = m.moe;
    } else {
      t.model = workload::ModelConfig::llama3(v.starts_with("llama3-") ? v.substr(7) : v);
      t.moe = {};
    }
  } else if (axis == "ep") {
    t.moe.ep = integer();
  } else if (axis == "routing") {
    t.moe.routing = workload::RoutingSpec::parse(v);
    std::string& file = t.moe.routing.file;
    if (t.moe.routing.kind == workload::RoutingKind::kFile && !base.empty() &&
        std::filesystem::path(file).is_relative()) {
      file = (base / file).lexically_normal().string();
    }
  } else if (axis == "routing_seed") {
    t.moe.routing.seed = std::stoull(v);
  } else if (axis == "capacity_factor") {
    t.moe.routing.capacity_factor = std::stod(v);
    t.moe.routing.validate();
  } else if (axis == "routing_iterations") {
    routing_iterations = integer();
  } else if (axis == "plan_routing") {
    plan_routing = eval::plan_routing_from_string(v);
  } else if (axis == "channels") {
    channels = integer();
  } else if (axis == "decision_budget") {
    if (v == "off") {
      online.reset();
    } else {
      if (!online) online.emplace();
      online->budget_ps = core::parse_duration(v, "decision_budget");
      online->validate();
    }
  } else if (axis == "decision_latency") {
    const runtime::DecisionLatency l = runtime::decision_latency_from_string(v);
    latency = l;
    if (online) online->latency = l;
  } else if (axis == "decision_reserve") {
    reserve_ps = core::parse_duration(v, "decision_reserve");
    runtime::OnlineOptions probe;  // its bounds, from the option's entry
    probe.reserve_ps = reserve_ps;
    core::check_options(runtime::kOnlineOptions, probe);
  } else if (axis == "routing_replan_limit") {
    routing_replan_limit_s = core::ps_to_seconds(core::parse_duration(v, "routing_replan_limit"));
  } else if (axis == "layers") {
    t.model.layers = integer();
  } else if (axis == "seq") {
    t.seq = std::stoull(v);
  } else if (axis == "gpu") {
    t.gpu = workload::GpuSpec::preset(v);
  } else if (axis == "collective") {
    t.collective = workload::algorithm_from_string(v);

  } else if (axis == "scaleup_size") {
    job.scaleup_size = integer();
  } else if (axis == "scaleup_gbps") {
    job.scaleup_gbps = std::stod(v);
  } else if (axis == "switches") {
    system.switches = integer();
    switches_given = true;
  } else if (axis == "link_gbps") {
    system.link_gbps = std::stod(v);
  } else if (axis == "duplex") {
    system.duplex = core::duplex_from_string(v);
  } else if (axis == "wiring") {
    system.wiring = core::wiring_from_string(v);
    system.wiring_ports.reset();
    if (system.wiring.kind == core::WiringKind::kExplicit && wiring_files != nullptr) {
      std::filesystem::path file = system.wiring.file;
      if (!base.empty() && file.is_relative()) file = (base / file).lexically_normal();
      auto& read = (*wiring_files)[file];
      if (!read) read = std::make_shared<const core::Wiring>(formats::read_wiring(file));
      system.wiring_ports = read;
      // A file's planes are its links per accelerator, unless a switches
      // axis says otherwise (then checked against them), as --switches.
      if (!switches_given && read->grouped()) system.switches = read->planes();
    }
  } else if (axis == "ocs_radix") {
    system.ocs_radix = integer();
  } else if (axis == "packet_gbps") {
    system.packet_gbps = std::stod(v);
  } else if (axis == "packet_latency") {
    system.packet_latency_ps = core::parse_duration(v, "packet_latency");
  } else if (axis == "packet_oversubscription") {
    system.packet_oversubscription = std::stod(v);
  } else if (axis == "route") {
    system.route = core::route_from_string(v);
  } else if (axis == "tau") {
    tau_ps = core::parse_duration(v, "tau");
  } else if (axis == "time_limit") {
    sched.time_limit_s = core::ps_to_seconds(core::parse_duration(v, "time_limit"));
  } else if (axis == "jitter") {
    sim.perturbation.compute_jitter = sim::parse_percent("jitter", v);
  } else if (axis == "seed") {
    sim.perturbation.seed = std::stoull(v);
  } else if (axis == "trials") {
    trials = integer();
  } else if (axis == "straggler_factor") {
    robust.perturbation.straggler_factor = std::stod(v);
    sim::Perturbation p;
    p.straggler = sim::Straggler{0, robust.perturbation.straggler_factor};
    p.validate();
  } else if (axis == "straggler_rank") {
    robust.straggler_rank = integer();
  } else if (axis == "fail_at") {
    const double at = sim::parse_percent("fail_at", v);
    if (at > 1) throw core::InputError("", "fail_at", v, "must be from 0% (no failure) to 100%");
    failure = at > 0;
    if (failure) robust.fail_fraction = at;
  } else if (axis == "fail_switch") {
    robust.fail_switch = integer();
  } else if (axis == "replan_time_limit") {
    runtime::ReplanOptions r;
    r.time_limit_s = core::ps_to_seconds(core::parse_duration(v, "replan_time_limit"));
    r.validate();
    robust.replan_time_limit_s = r.time_limit_s;
  } else if (axis == "replan_moves") {
    robust.replan_moves = std::stoull(v);
  } else if (axis == "scheduler") {
    if (v.ends_with("-robust")) {
      (void)eval::scheduler_variant(v);
    } else {
      (void)sched::make_scheduler(v);
    }
    scheduler = v;
  }
}

std::string EvalSetup::name(bool robust_point) const {
  if (!job_name.empty()) {
    // A MoE job is one per routing: "mixtral-8x7b-ep8-zipf:1.2".
    const workload::MoeConfig& moe = job.training.moe;
    return moe.enabled() ? job_name + "-" + moe.routing.to_string() : job_name;
  }
  std::string n = eval::layer_job_name(job.training.model.layers);
  return robust_point ? n + "-" + job.training.gpu.name : n;
}

eval::EvalPoint EvalSetup::config() const {
  eval::EvalPoint c;
  c.job = job;
  c.job.name = name(false);
  c.tau_ps = tau_ps;
  c.scheduler = scheduler;
  c.system = system;
  c.sched = sched;
  c.sim = sim;
  c.routing_iterations = routing_iterations;
  c.plan_routing = plan_routing;
  c.routing_replan_limit_s = routing_replan_limit_s;
  c.channels = channels;
  c.online = online;
  if (c.online) {
    c.online->latency = latency;
    // A modelled decision runs to completion: it has nothing to reserve.
    if (latency == runtime::DecisionLatency::kMeasured) c.online->reserve_ps = reserve_ps;
  }
  return c;
}

eval::RobustPoint EvalSetup::robust_point() const {
  eval::RobustPoint p = robust;
  p.job = job;
  p.job.name = name(true);
  p.tau_ps = tau_ps;
  p.scheduler = scheduler;
  eval::RobustPerturbation& q = p.perturbation;
  q.jitter = sim.perturbation.compute_jitter;
  q.kind = failure                   ? eval::PerturbationKind::kFailure
           : q.straggler_factor != 1 ? eval::PerturbationKind::kStraggler
           : q.jitter > 0            ? eval::PerturbationKind::kJitter
                                     : eval::PerturbationKind::kNone;
  // Without jitter every trial is the same: one.
  q.trials = q.jitter > 0 ? (trials > 0 ? trials : eval::RobustOptions{}.trials) : 1;
  p.seed = sim.perturbation.seed;
  p.system = system;
  p.system.scaleup_size = job.scaleup_size;
  p.system.scaleup_gbps = job.scaleup_gbps;
  p.system.reconfig_delay_ps = tau_ps;
  p.sched = sched;
  return p;
}

}  // namespace flux::sweep::detail
