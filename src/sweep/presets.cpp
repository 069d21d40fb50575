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
  throw core::InputError("", "preset", name, "unknown preset (known: " + known + ", robustness)");
}

eval::EvalConfig evaluation_config(const SweepSpec& spec) {
  for (const Axis& a : spec.axes) {
    if (a.values.size() > 1 && a.name != "job" && a.name != "layers" && a.name != "tau" &&
        a.name != "scheduler") {
      throw core::InputError(spec.source, "axes." + a.name, a.values[1],
                             "an evaluation varies only job, layers, tau and scheduler");
    }
  }
  if (!spec.filters.empty()) {
    throw core::InputError(spec.source, "filter", spec.filters.front().text(),
                           "an evaluation is a whole product: no filters");
  }
  const bool named = std::any_of(spec.axes.begin(), spec.axes.end(),
                                 [](const Axis& a) { return a.name == "job"; });
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

}  // namespace flux::sweep
