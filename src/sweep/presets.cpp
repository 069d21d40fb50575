// The presets of `flux evaluate` as sweep files (include/flux/sweep/presets.hpp).
// A preset file is an ordinary sweep file: the rectangle jobs x delays x
// schedulers that eval::EvalConfig describes, the other axes fixed.
#include "flux/sweep/presets.hpp"

#include <algorithm>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"

namespace flux::sweep {
namespace {

// The CSV stem each preset has always written.
std::string file_stem(std::string_view preset) {
  if (preset == "paper-fig2") return "fig2";
  if (preset == "real-jobs") return "jobs";
  return std::string(preset);
}

template <typename T>
void add_unique(std::vector<T>& list, const T& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

}  // namespace

SweepSpec preset_spec(const std::string& name) {
  std::string known;
  for (const PresetFile& f : preset_files()) {
    if (f.name == name) return SweepSpec::parse(f.text, std::string(f.path), false);
    known += (known.empty() ? "" : ", ") + std::string(f.name);
  }
  throw core::InputError("", "preset", name, "unknown preset (known: " + known + ")");
}

eval::EvalConfig evaluation_config(const SweepSpec& spec) {
  const bool jobs = std::any_of(spec.axes.begin(), spec.axes.end(),
                                [](const Axis& a) { return a.name == "job"; });
  for (const Axis& a : spec.axes) {
    // A MoE job with each routing is a job of its own ("<job>-<routing>").
    const bool as_job = a.name == "job" || (jobs && a.name == "routing");
    if (a.values.size() > 1 && !as_job && a.name != "layers" && a.name != "tau" &&
        a.name != "scheduler") {
      throw core::InputError(spec.source, "axes." + a.name, a.values[1],
                             "an evaluation varies only job (and a MoE job's routing), layers, "
                             "tau and scheduler");
    }
  }
  if (!spec.filters.empty()) {
    throw core::InputError(spec.source, "filter", spec.filters.front().text(),
                           "an evaluation is a whole product: no filters");
  }
  const bool named = jobs;
  const std::vector<Point> points = spec.points();
  eval::EvalConfig c = points.front().config;
  c.preset = spec.name;
  c.file_stem = spec.name;
  c.named_jobs.clear();
  c.taus_ps.clear();
  c.schedulers.clear();
  for (const Point& p : points) {
    if (!p.invalid.empty()) throw core::InputError(spec.source, "axes", p.key(), p.invalid);
    const eval::EvalJob& job = p.config.named_jobs.front();
    if (named) {
      if (std::none_of(c.named_jobs.begin(), c.named_jobs.end(),
                       [&](const eval::EvalJob& j) { return j.name == job.name; })) {
        c.named_jobs.push_back(job);
      }
    } else {
      add_unique(c.layers, job.training.model.layers);
    }
    add_unique(c.taus_ps, p.config.taus_ps.front());
    add_unique(c.schedulers, p.config.schedulers.front());
  }
  // A layer sweep's jobs run on the system's scale-up fabric (EvalConfig::jobs).
  const eval::EvalJob& first = points.front().config.named_jobs.front();
  c.training = first.training;
  c.system.scaleup_size = first.scaleup_size;
  c.system.scaleup_gbps = first.scaleup_gbps;
  return c;
}

eval::EvalConfig evaluation_preset(const std::string& name) {
  eval::EvalConfig c = evaluation_config(preset_spec(name));
  c.preset = name;
  c.file_stem = file_stem(name);
  return c;
}

Point evaluation_point(const eval::EvalConfig& one) {
  Point p;
  p.values = {one.named_jobs.front().name, core::format_duration(one.taus_ps.front()),
              one.schedulers.front()};
  p.config = one;
  p.memory_bytes = point_memory_bytes(one);
  return p;
}

eval::RobustnessConfig robustness_config(const SweepSpec& spec) {
  if (!spec.robust()) {
    throw core::InputError(spec.source, "axes", "",
                           "not a robustness sweep: it needs a trials, straggler or failure axis");
  }
  const std::vector<Point> points = spec.points();
  eval::RobustnessConfig c;
  c.preset = spec.name;
  c.file_stem = spec.name;
  const eval::RobustPoint& first = *points.front().robust;
  c.training = first.job.training;
  c.straggler_rank = first.straggler_rank;
  c.fail_switch = first.fail_switch;
  c.replan_time_limit_s = first.replan_time_limit_s;
  c.replan_moves = first.replan_moves;
  c.seed = first.seed;
  c.execution = first.execution;
  c.system = first.system;
  c.sched = first.sched;
  std::vector<std::string> keys;
  for (const Point& p : points) {
    if (!p.invalid.empty()) throw core::InputError(spec.source, "axes", p.key(), p.invalid);
    const eval::RobustPoint& r = *p.robust;
    const eval::RobustPerturbation& q = r.perturbation;
    add_unique(c.layers, r.job.training.model.layers);
    add_unique(c.gpus, r.job.training.gpu.name);
    add_unique(c.taus_ps, r.tau_ps);
    add_unique(c.schedulers, r.scheduler);
    switch (q.kind) {
      case eval::PerturbationKind::kNone:
      case eval::PerturbationKind::kJitter:
        if (q.straggler_factor == 1) add_unique(c.jitters, q.jitter);
        break;
      case eval::PerturbationKind::kStraggler:
        if (q.jitter == 0) add_unique(c.straggler_factors, q.straggler_factor);
        break;
      case eval::PerturbationKind::kFailure:
        if (q.straggler_factor == 1) add_unique(c.failure_jitters, q.jitter);
        c.fail_fraction = r.fail_fraction;
        break;
    }
    if (q.jitter > 0) c.trials = q.trials;
    keys.push_back(r.job.name + "," + core::format_duration(r.tau_ps) + "," + r.scheduler + "," +
                   r.perturbation_text());
  }
  c.system.reconfig_delay_ps = core::System{}.reconfig_delay_ps;
  // The gathered study has exactly the file's points.
  std::vector<std::string> want;
  for (const eval::RobustPoint& r : c.point_list()) {
    want.push_back(r.job.name + "," + core::format_duration(r.tau_ps) + "," + r.scheduler + "," +
                   r.perturbation_text());
  }
  std::sort(keys.begin(), keys.end());
  std::sort(want.begin(), want.end());
  if (keys != want) {
    throw core::InputError(
        spec.source, "axes", spec.name,
        "a robustness evaluation is jobs (layers x gpu) x tau x scheduler x perturbations (a "
        "jitter, a straggler alone, a failure alone or under jitter) with one value of every "
        "other axis: the filters must leave exactly that product (" +
            std::to_string(keys.size()) + " points for " + std::to_string(want.size()) + ")");
  }
  return c;
}

eval::RobustnessConfig robustness_preset() {
  return robustness_config(preset_spec("robustness"));
}

Point robustness_point(const eval::RobustPoint& one) {
  Point p;
  p.values = {one.job.name, core::format_duration(one.tau_ps), one.scheduler,
              one.perturbation_text()};
  p.robust = one;
  eval::EvalConfig c;
  c.training = one.job.training;
  c.named_jobs = {one.job};
  p.config = c;
  p.memory_bytes = point_memory_bytes(c);
  return p;
}

}  // namespace flux::sweep
