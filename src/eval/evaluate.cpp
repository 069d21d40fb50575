// The sweep behind `flux evaluate`: presets, validation and the run loop
// (include/flux/eval/evaluate.hpp). Each point: generate the workload (once
// per layer count), run the scheduler through the registry (which validates
// its schedule), replay it in the simulator, keep the metrics.
#include "flux/eval/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <tuple>

#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::eval {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;

std::size_t scheduler_rank(const EvalConfig& c, const std::string& name) {
  auto it = std::find(c.schedulers.begin(), c.schedulers.end(), name);
  return static_cast<std::size_t>(it - c.schedulers.begin());
}

void sort_rows(const EvalConfig& c, std::vector<EvalRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [&](const EvalRow& a, const EvalRow& b) {
    return std::tuple(a.layers, a.tau_ps, scheduler_rank(c, a.scheduler)) <
           std::tuple(b.layers, b.tau_ps, scheduler_rank(c, b.scheduler));
  });
}

// The configuration columns of a row must be the sweep's.
void check_same_config(const EvalConfig& c, const EvalRow& r, std::size_t index) {
  auto mismatch = [&](const std::string& field, const std::string& have, const std::string& want) {
    std::ostringstream m;
    m << "row " << index + 1 << " was measured with " << field << " = " << have
      << ", this sweep uses " << want
      << ": write to another directory (-o) or start over (--fresh)";
    throw core::InputError("", field, have, m.str());
  };
  if (r.model != c.training.model.name) mismatch("model", r.model, c.training.model.name);
  if (r.gpu != c.training.gpu.name) mismatch("gpu", r.gpu, c.training.gpu.name);
  if (r.tp != c.training.tp) mismatch("tp", std::to_string(r.tp), std::to_string(c.training.tp));
  if (r.dp != c.training.dp) mismatch("dp", std::to_string(r.dp), std::to_string(c.training.dp));
  if (r.switches != c.system.switches) {
    mismatch("switches", std::to_string(r.switches), std::to_string(c.system.switches));
  }
  if (r.link_gbps != c.system.link_gbps) {
    mismatch("link_gbps", std::to_string(r.link_gbps), std::to_string(c.system.link_gbps));
  }
  if (r.time_limit_s != c.sched.time_limit_s) {
    mismatch("time_limit_s", std::to_string(r.time_limit_s), std::to_string(c.sched.time_limit_s));
  }
}

}  // namespace

EvalConfig EvalConfig::preset_named(const std::string& name) {
  if (name != "paper-fig2") {
    throw core::InputError("", "preset", name, "unknown preset (known: paper-fig2)");
  }
  EvalConfig c;
  c.preset = name;
  c.training.model = workload::ModelConfig::llama3("8b");
  c.training.tp = 4;
  c.training.dp = 2;
  c.training.gpu = workload::GpuSpec::preset("a100");
  c.layers = {8, 16};
  c.taus_ps = {kPsPerUs,       3 * kPsPerUs,   10 * kPsPerUs, 30 * kPsPerUs,
               100 * kPsPerUs, 300 * kPsPerUs, kPsPerMs};
  c.schedulers = {"flux-milp", "rotornet", "rotornet-vlb", "bvn", "ideal"};
  return c;
}

void EvalConfig::validate() const {
  if (layers.empty()) throw core::InputError("", "layers", "", "at least one layer count");
  for (std::uint32_t l : layers) {
    if (l == 0) throw core::InputError("", "layers", "0", "must be positive");
  }
  if (taus_ps.empty()) throw core::InputError("", "tau", "", "at least one delay");
  if (schedulers.empty()) throw core::InputError("", "schedulers", "", "at least one scheduler");
  const auto names = sched::scheduler_names();
  for (const std::string& s : schedulers) {
    if (std::find(names.begin(), names.end(), s) == names.end()) (void)sched::make_scheduler(s);
    if (std::count(schedulers.begin(), schedulers.end(), s) > 1) {
      throw core::InputError("", "schedulers", s, "listed twice");
    }
  }
  core::System sys = system;
  for (core::TimePs tau : taus_ps) {
    sys.reconfig_delay_ps = tau;
    sys.validate();
  }
  sim.validate();
  sched.validate();
  workload::TrainingConfig t = training;
  t.model.layers = layers.front();
  t.validate();
}

void run_evaluation(const EvalConfig& config, std::vector<EvalRow>& rows, const Progress& on_row) {
  config.validate();
  std::map<std::tuple<std::uint32_t, core::TimePs, std::string>, bool> have;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    check_same_config(config, rows[i], i);
    have[{rows[i].layers, rows[i].tau_ps, rows[i].scheduler}] = true;
  }
  const std::size_t total = config.layers.size() * config.taus_ps.size() * config.schedulers.size();
  std::size_t done = 0;
  for (std::uint32_t layers : config.layers) {
    std::optional<core::Workload> w;  // generated when first needed
    for (core::TimePs tau : config.taus_ps) {
      for (const std::string& name : config.schedulers) {
        if (have.count({layers, tau, name})) {
          ++done;
          auto it = std::find_if(rows.begin(), rows.end(), [&](const EvalRow& r) {
            return r.layers == layers && r.tau_ps == tau && r.scheduler == name;
          });
          if (on_row) on_row(done, total, *it, true);
          continue;
        }
        if (!w) {
          workload::TrainingConfig t = config.training;
          t.model.layers = layers;
          w.emplace(workload::generate_llama(t));
        }
        core::System sys = config.system;
        sys.reconfig_delay_ps = tau;
        const auto t0 = std::chrono::steady_clock::now();
        const schedule::Schedule s = sched::run_scheduler(name, *w, sys, config.sched);
        const double solve_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const sim::SimResult r = sim::simulate(*w, s, config.sim);

        EvalRow row;
        row.layers = layers;
        row.tau_ps = tau;
        row.scheduler = name;
        row.iteration_time_s = core::ps_to_seconds(r.metrics.iteration_time_ps);
        if (!s.tasks.empty()) row.schedule_makespan_s = core::ps_to_seconds(s.makespan_ps);
        row.peak_nic_bytes = r.metrics.peak_nic_bytes;
        row.reconfigurations = r.metrics.reconfigurations;
        row.circuits_set_up = r.metrics.circuits_set_up;
        row.status = std::string(schedule::to_string(s.status));
        row.gap = s.gap;
        if (s.lower_bound_ps) row.lower_bound_s = core::ps_to_seconds(*s.lower_bound_ps);
        row.solve_time_s = solve_s;
        row.circuit_utilization = r.metrics.circuit_utilization;
        row.wait_mean_s = w->num_tasks() == 0 ? 0.0
                                              : core::ps_to_seconds(r.metrics.wait_total_ps) /
                                                    static_cast<double>(w->num_tasks());
        row.bytes_relayed = r.metrics.bytes_relayed;
        row.sends = w->num_tasks();
        row.sim_events = r.metrics.events;
        row.model = config.training.model.name;
        row.gpu = config.training.gpu.name;
        row.tp = config.training.tp;
        row.dp = config.training.dp;
        row.switches = config.system.switches;
        row.link_gbps = config.system.link_gbps;
        row.time_limit_s = config.sched.time_limit_s;
        rows.push_back(row);
        sort_rows(config, rows);
        ++done;
        if (on_row) on_row(done, total, row, false);
      }
    }
  }
}

}  // namespace flux::eval
