// The presets of `flux evaluate` as sweep files (include/flux/sweep/presets.hpp):
// their points' row order and their CSV (fig2.csv, jobs.csv, moe.csv,
// robustness.csv: the metric columns alone).
#include "flux/sweep/presets.hpp"

#include <algorithm>
#include <charconv>
#include <tuple>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"
#include "flux/io/save.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sweep/results.hpp"

namespace flux::sweep {
namespace {

std::string text(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// The fabric a row was measured on (eval::RowFabric), as text.
std::string fabric_key(const eval::RowFabric& f) {
  return f.wiring + "," + std::to_string(f.ocs_radix) + "," + text(f.packet_gbps) + "," +
         std::to_string(f.packet_latency_ps) + "," + text(f.packet_oversubscription) + "," +
         f.route;
}

// A row's identity in a preset's CSV, from its point or from the row: its
// job, tau, scheduler and fabric (a robustness row: its perturbation).
std::string key_of(const Point& p) {
  if (p.robust) {
    const eval::RobustPoint& r = *p.robust;
    return r.job.name + "," + std::to_string(r.tau_ps) + "," + r.scheduler + "," +
           std::string(eval::to_string(r.perturbation.kind)) + "," + text(r.perturbation.jitter) +
           "," + text(r.perturbation.straggler_factor);
  }
  return p.config.job.name + "," + std::to_string(p.config.tau_ps) + "," + p.config.scheduler +
         "," + fabric_key(eval::fabric_of(p.config.system));
}
std::string key_of(const eval::RobustRow& r) {
  return r.job + "," + std::to_string(r.tau_ps) + "," + r.scheduler + "," +
         std::string(eval::to_string(r.perturbation)) + "," + text(r.jitter) + "," +
         text(r.straggler_factor);
}
std::string key_of(const eval::EvalRow& r) {
  return r.job + "," + std::to_string(r.tau_ps) + "," + r.scheduler + "," + fabric_key(r.fabric);
}

// The index of `v` among an axis's values read as numbers by `read`; 0 without the axis.
template <class Read>
std::size_t index_in(const SweepSpec& spec, std::string_view axis, double v, Read read) {
  const Axis* a = spec.axis(axis);
  if (a == nullptr) return 0;
  for (std::size_t i = 0; i < a->values.size(); ++i) {
    if (read(a->values[i]) == v) return i;
  }
  return a->values.size();
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

std::string preset_stem(std::string_view preset) {
  if (preset == "paper-fig2") return "fig2";
  if (preset == "real-jobs") return "jobs";
  return std::string(preset);
}

void preset_order(const SweepSpec& spec, std::vector<Point>& points) {
  std::vector<std::string> jobs;
  std::vector<std::string> fabrics;
  const Axis* schedulers = spec.axis("scheduler");
  using Rank = std::tuple<std::size_t, std::size_t, core::TimePs, std::size_t, int, std::size_t,
                          std::size_t>;
  const auto first_seen = [](std::vector<std::string>& seen, const std::string& v) {
    auto it = std::find(seen.begin(), seen.end(), v);
    if (it == seen.end()) it = seen.insert(it, v);
    return static_cast<std::size_t>(it - seen.begin());
  };
  std::vector<std::pair<Rank, std::size_t>> ranks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const std::string& job = p.robust ? p.robust->job.name : p.config.job.name;
    const std::string& scheduler = p.robust ? p.robust->scheduler : p.config.scheduler;
    Rank r{first_seen(jobs, job),
           first_seen(fabrics,
                      fabric_key(eval::fabric_of(p.robust ? p.robust->system : p.config.system))),
           p.robust ? p.robust->tau_ps : p.config.tau_ps,
           schedulers == nullptr
               ? 0
               : static_cast<std::size_t>(
                     std::find(schedulers->values.begin(), schedulers->values.end(), scheduler) -
                     schedulers->values.begin()),
           0,
           0,
           0};
    if (p.robust) {
      const eval::RobustPerturbation& q = p.robust->perturbation;
      std::get<4>(r) = static_cast<int>(q.kind);
      std::get<5>(r) = index_in(spec, "jitter", q.jitter, [](const std::string& v) {
        return sim::parse_percent("jitter", v);
      });
      std::get<6>(r) = index_in(spec, "straggler_factor", q.straggler_factor,
                                [](const std::string& v) { return std::stod(v); });
    }
    ranks.push_back({r, i});
  }
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Point> sorted;
  sorted.reserve(points.size());
  for (const auto& [rank, i] : ranks) sorted.push_back(std::move(points[i]));
  points = std::move(sorted);
}

PresetCsv::PresetCsv(std::filesystem::path file, const std::vector<Point>& points, bool fresh)
    : file_(std::move(file)),
      points_(&points),
      robust_(!points.empty() && points.front().robust.has_value()),
      rows_(points.size()) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < points.size(); ++i) index.emplace(key_of(points[i]), i);
  if (fresh || !std::filesystem::exists(file_)) return;
  const auto keep = [&](const std::string& key, const auto& row, std::size_t n, const auto& check,
                        const std::string& metrics) {
    ++resumed_;
    const auto it = index.find(key);
    if (it == index.end()) {
      others_.push_back(metrics);
      return;
    }
    check(points[it->second], row, n);
    rows_[it->second] = metrics;
  };
  if (robust_) {
    const std::vector<eval::RobustRow> rows = eval::read_robust_csv(file_);
    for (std::size_t n = 0; n < rows.size(); ++n) {
      keep(
          key_of(rows[n]), rows[n], n,
          [](const Point& p, const eval::RobustRow& r, std::size_t i) {
            eval::check_resume(*p.robust, r, i);
          },
          eval::robust_csv_row(rows[n]));
    }
  } else {
    const std::vector<eval::EvalRow> rows = eval::read_csv(file_);
    for (std::size_t n = 0; n < rows.size(); ++n) {
      keep(
          key_of(rows[n]), rows[n], n,
          [](const Point& p, const eval::EvalRow& r, std::size_t i) {
            eval::check_resume(p.config, r, i);
          },
          eval::csv_row(rows[n]));
    }
  }
}

std::vector<std::size_t> PresetCsv::pending() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].empty()) out.push_back(i);
  }
  return out;
}

void PresetCsv::add(std::size_t index, const std::string& metrics) {
  rows_.at(index) = metrics;
  write();
}

void PresetCsv::write() const {
  std::string text = (robust_ ? eval::robust_csv_header() : eval::csv_header()) + "\n";
  for (const std::string& r : rows_) {
    if (!r.empty()) text += r + "\n";
  }
  for (const std::string& r : others_) text += r + "\n";
  io::save_file(file_, [&](std::ostream& out) { out << text; });
}

std::map<std::string, std::string> PresetCsv::sweep_rows(const SweepSpec& spec) const {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].empty()) continue;
    Outcome o;
    o.metrics = rows_[i];
    out[(*points_)[i].key()] = csv_row(spec, (*points_)[i], o);
  }
  return out;
}

std::vector<eval::EvalRow> PresetCsv::eval_rows() const {
  std::vector<eval::EvalRow> out;
  for (const std::string& r : rows_) {
    if (!r.empty()) out.push_back(eval::parse_csv_row(r));
  }
  return out;
}

std::vector<eval::RobustRow> PresetCsv::robust_rows() const {
  std::vector<eval::RobustRow> out;
  for (const std::string& r : rows_) {
    if (!r.empty()) out.push_back(eval::parse_robust_csv_row(r));
  }
  return out;
}

}  // namespace flux::sweep
