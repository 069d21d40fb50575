// Sweep files (include/flux/sweep/spec.hpp, docs/formats.md "Sweep files"):
// TOML (toml++) or JSON (nlohmann) read into one JSON tree (document.cpp), checked key by
// key, and expanded into points. A value is checked on its own when read (a
// known model, a positive integer, a duration); a combination that does not
// validate (tp not dividing the heads, layers < pp) becomes a point that is
// recorded as failed with the reason, so one odd corner does not stop a
// sweep of hundreds.
#include "flux/sweep/spec.hpp"
#include "flux/workload/split.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "document.hpp"
#include "setup.hpp"

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/core/numbers.hpp"
#include "flux/core/time.hpp"
#include "flux/runtime/failure.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::sweep {
namespace {

using Json = nlohmann::ordered_json;
using detail::read_document;

// Largest integer an integer axis takes (the option tables' bounds are at
// most this; the generator checks each one exactly).

std::string real_text(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

class Reader {
 public:
  Reader(std::string source, std::map<std::string, int> lines)
      : source_(std::move(source)), lines_(std::move(lines)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& value,
                         const std::string& problem) const {
    const auto line = lines_.find(path);
    const std::string where = line == lines_.end()
                                  ? shown(path)
                                  : "line " + std::to_string(line->second) + ", " + shown(path);
    throw core::InputError(source_, where, value, problem);
  }
  [[noreturn]] void fail_json(const std::string& path, const Json& v,
                              const std::string& problem) const {
    fail(path, v.is_string() ? v.get<std::string>() : v.dump(), problem);
  }

  SweepSpec read(const Json& root) const {
    if (!root.is_object()) fail_json("", root, "a sweep file is a table of keys");
    SweepSpec spec;
    spec.source = source_;
    for (const auto& [key, v] : root.items()) {
      if (key == "name") {
        spec.name = name(key, v);
      } else if (key == "axes") {
        read_axes(v, spec);
      } else if (key == "filter") {
        read_filters(v, spec);
      } else if (key == "plot") {
        read_plots(v, spec);
      } else if (key != "description") {
        fail_json(key, v, "unknown key (known: name, description, axes, filter, plot)");
      }
    }
    if (spec.axes.empty()) fail("axes", "", "missing: a sweep needs at least one axis");
    const auto scheduler = std::find_if(spec.axes.begin(), spec.axes.end(),
                                        [](const Axis& a) { return a.name == "scheduler"; });
    if (scheduler == spec.axes.end()) {
      fail("axes.scheduler", "", "missing: name the schedulers to compare");
    }
    for (std::size_t i = 0; i < scheduler->values.size() && !spec.robust(); ++i) {
      if (scheduler->values[i].ends_with("-robust")) {
        fail("axes.scheduler[" + std::to_string(i) + "]", scheduler->values[i],
             "a -robust scheduler plans for the point's jitter: it needs a robustness sweep "
             "(a trials axis)");
      }
    }
    for (const Expr& f : spec.filters) {
      try {
        f.check_names([&](std::string_view axis) -> std::optional<ExprValue> {
          for (const Axis& a : spec.axes) {
            if (a.name == axis) return ExprValue{};
          }
          return std::nullopt;
        });
      } catch (const core::InputError& e) {
        fail(e.field(), f.text(), e.problem());
      }
    }
    const std::vector<std::string> metrics = eval::csv_fields(spec.metrics_header());
    for (std::size_t i = 0; i < spec.plots.size(); ++i) {
      for (const std::string& y : spec.plots[i].y) {
        if (is_metric(y) && std::find(metrics.begin(), metrics.end(), y) != metrics.end()) continue;
        fail("plot[" + std::to_string(i) + "].y", y,
             std::string("not a numeric metric column") +
                 (spec.robust() ? " of a sweep with trials (iteration_p50_s, ...)" : ""));
      }
    }
    if (spec.name.empty()) spec.name = "sweep";
    return spec;
  }

 private:
  std::string name(const std::string& path, const Json& v) const {
    if (!v.is_string()) fail_json(path, v, "must be a string");
    const std::string s = v.get<std::string>();
    if (s.empty() || s.find_first_of("/\\,\" ") != std::string::npos || s[0] == '.' ||
        has_control(s)) {
      fail(path, s,
           "must be a plain name (no spaces, commas, quotes, slashes or control characters)");
    }
    return s;
  }

  void read_axes(const Json& axes, SweepSpec& spec) const {
    if (!axes.is_object()) fail_json("axes", axes, "must be a table of axis = [values]");
    const std::vector<AxisInfo> table = axis_table();
    for (const auto& [key, v] : axes.items()) {
      const std::string& name = key;  // clang 14 captures no structured binding
      if (std::none_of(table.begin(), table.end(),
                       [&](const AxisInfo& a) { return a.name == name; })) {
        std::string known;
        for (const AxisInfo& a : table) known += (known.empty() ? "" : ", ") + std::string(a.name);
        fail_json("axes." + key, v, "unknown axis (known: " + known + ")");
      }
    }
    for (const AxisInfo& info : table) {
      if (!axes.contains(info.name)) continue;
      const std::string path = "axes." + std::string(info.name);
      const Json& list = axes.at(std::string(info.name));
      Axis axis{std::string(info.name), {}};
      if (!list.is_array()) {
        axis.values.push_back(value(info, path, list));
      } else {
        if (list.empty()) fail(path, "[]", "empty list: give at least one value");
        for (std::size_t i = 0; i < list.size(); ++i) {
          const std::string at = path + "[" + std::to_string(i) + "]";
          std::string text = value(info, at, list[i]);
          if (std::find(axis.values.begin(), axis.values.end(), text) != axis.values.end()) {
            fail(at, text, "listed twice");
          }
          axis.values.push_back(std::move(text));
        }
      }
      spec.axes.push_back(std::move(axis));
    }
  }

  static bool has_control(std::string_view s) {
    return std::any_of(s.begin(), s.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  }

 public:
  // One value, checked on its own, as the CSV writes it.
  std::string value(const AxisInfo& info, const std::string& path, const Json& v) const {
    if (v.is_string() && has_control(v.get<std::string>())) {
      fail(path, v.get<std::string>(), "a control character (a newline, a NUL, ...)");
    }
    try {
      switch (info.type) {
        case AxisType::kName: {
          if (!v.is_string()) fail_json(path, v, "must be a string");
          const std::string s = v.get<std::string>();
          if (s.empty() || s.find_first_of(",\"\n\r") != std::string::npos) {
            fail(path, s, "must be a name without commas or quotes");
          }
          return checked(info, s);
        }
        case AxisType::kInteger: {
          if (!v.is_number_integer() || v.get<std::int64_t>() < info.min ||
              v.get<std::int64_t>() > info.max) {
            fail_json(path, v,
                      "must be an integer from " + std::to_string(info.min) + " to " +
                          std::to_string(info.max));
          }
          return checked(info, std::to_string(v.get<std::int64_t>()));
        }
        case AxisType::kReal: {  // within the option's bounds
          if (!v.is_number() || !info.contains(v.get<double>())) {
            fail_json(path, v, "must be a number " + info.range_text());
          }
          return real_text(v.get<double>());
        }
        case AxisType::kFactor: {
          if (!v.is_number() || !info.contains(v.get<double>())) {
            fail_json(path, v, "must be a factor " + info.range_text() + " (1.5 is x1.5)");
          }
          return checked(info, real_text(v.get<double>()));
        }
        case AxisType::kDuration: {
          if (!v.is_string()) fail_json(path, v, "must be a duration with a unit, e.g. \"10us\"");
          const std::string s = v.get<std::string>();
          (void)core::parse_duration(s, path);
          if (s.find_first_of(",\"") != std::string::npos) fail(path, s, "a comma or quote");
          return checked(info, s);
        }
        case AxisType::kPercent: {
          // A number is a fraction (0.05), a percentage a string ("5%"):
          // core/numbers.hpp; a number is kept as its percentage.
          std::string s = v.is_number()   ? core::percent_text(core::check_fraction(
                                                path, v.get<double>(), sim::kMaxComputeJitter))
                          : v.is_string() ? v.get<std::string>()
                                          : std::string();
          if (s.empty())
            fail_json(path, v, "must be a fraction or a percentage, e.g. 0.05 or \"5%\"");
          (void)sim::parse_percent(path, s);
          if (s.find_first_of(",\"") != std::string::npos) fail(path, s, "a comma or quote");
          return checked(info, s);
        }
      }
    } catch (const core::InputError& e) {
      if (!e.source().empty()) throw;
      fail_json(path, v, e.problem());
    }
    fail_json(path, v, "unknown axis type");
  }

 private:
  // `s` once applied on its own: the axis's own range (a straggler factor,
  // fail_at, a replan time limit; an unknown model, gpu, job, scheduler).
  static std::string checked(const AxisInfo& info, const std::string& s) {
    detail::EvalSetup probe;  // the value's form; a wiring file is read per sweep
    probe.apply(info.name, s);
    return s;
  }

  void read_filters(const Json& v, SweepSpec& spec) const {
    const auto one = [&](const std::string& path, const Json& f) {
      if (!f.is_string()) fail_json(path, f, "a filter is a string, e.g. \"tp * dp == 8\"");
      try {
        spec.filters.push_back(Expr::parse(f.get<std::string>(), path));
      } catch (const core::InputError& e) {
        fail(path, f.get<std::string>(), e.problem());  // fail() shows the text
      }
    };
    if (!v.is_array()) return one("filter", v);
    for (std::size_t i = 0; i < v.size(); ++i) one("filter[" + std::to_string(i) + "]", v[i]);
  }

  // A name or a list of names (at least one).
  std::vector<std::string> names(const std::string& path, const Json& v) const {
    if (!v.is_array()) return {name(path, v)};
    if (v.empty()) fail_json(path, v, "must name at least one");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back(name(path + "[" + std::to_string(i) + "]", v[i]));
    }
    return out;
  }

  void read_plots(const Json& v, SweepSpec& spec) const {
    if (!v.is_array()) fail_json("plot", v, "must be a list of tables {x = axis, y = metric}");
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string path = "plot[" + std::to_string(i) + "]";
      const Json& p = v[i];
      if (!p.is_object()) fail_json(path, p, "must be a table {x = axis, y = metric}");
      PlotSpec plot;
      for (const auto& [key, val] : p.items()) {
        const std::string at = path + "." + key;
        if (key == "x" || key == "series" || key == "name") {
          (key == "x" ? plot.x : key == "series" ? plot.series : plot.name) = name(at, val);
        } else if (key == "y" || key == "rows") {
          (key == "y" ? plot.y : plot.rows) = names(at, val);
        } else if (key == "log_x" || key == "log_y" || key == "svg") {
          if (!val.is_boolean()) fail_json(at, val, "must be true or false");
          (key == "log_x" ? plot.log_x : key == "log_y" ? plot.log_y : plot.svg) = val.get<bool>();
        } else if (key == "omit" || key == "unit") {
          if (!val.is_object()) fail_json(at, val, "must be a table of metric = value");
          for (const auto& [k, w] : val.items()) {
            if (key == "omit") {
              plot.omit[k] = names(at + "." + k, w);
            } else {
              plot.units[k] = name(at + "." + k, w);
            }
          }
        } else if (key == "where") {
          if (!val.is_string()) fail_json(at, val, "a filter is a string, e.g. \"jitter == 0\"");
          try {
            plot.where = Expr::parse(val.get<std::string>(), at);
          } catch (const core::InputError& e) {
            fail(at, val.get<std::string>(), e.problem());
          }
        } else {
          fail_json(at, val,
                    "unknown key (known: name, x, y, rows, series, omit, unit, where, svg, log_x, "
                    "log_y)");
        }
      }
      if (plot.x.empty() || plot.y.empty())
        fail_json(path, p, "needs x (an axis) and y (a metric)");
      const auto is_axis = [&](const std::string& n) {
        return std::any_of(spec.axes.begin(), spec.axes.end(),
                           [&](const Axis& a) { return a.name == n; });
      };
      std::vector<std::pair<std::string, std::string>> used = {{".x", plot.x}};
      for (const std::string& r : plot.rows) used.emplace_back(".rows", r);
      if (!plot.series.empty()) used.emplace_back(".series", plot.series);
      for (auto it = used.begin(); it != used.end(); ++it) {
        if (!is_axis(it->second)) fail(path + it->first, it->second, "not an axis of this sweep");
        if (std::any_of(used.begin(), it, [&](const auto& u) { return u.second == it->second; })) {
          fail(path + it->first, it->second, "already an axis of this plot (x, rows, series)");
        }
      }
      for (const auto& [metric, values] : plot.omit) {
        if (std::find(plot.y.begin(), plot.y.end(), metric) == plot.y.end()) {
          fail(path + ".omit." + metric, metric, "not a y of this plot");
        }
        if (plot.series.empty()) fail(path + ".omit", metric, "needs a series axis (series = ...)");
      }
      for (const auto& [column, unit] : plot.units) {
        if (std::find(plot.y.begin(), plot.y.end(), column) == plot.y.end() && column != plot.x) {
          fail(path + ".unit." + column, column, "not the x or a y of this plot");
        }
        if (plot_unit_scale(column, unit) == 0) {
          fail(path + ".unit." + column, unit,
               std::string("not a unit of this column (") +
                   (column.ends_with("_bytes") ? "bytes, KiB, MiB, GiB" : "s, ms, us, ns") + ")");
        }
      }
      if (plot.where) {
        try {
          plot.where->check_names([&](std::string_view axis) -> std::optional<ExprValue> {
            if (is_axis(std::string(axis))) return ExprValue{};
            return std::nullopt;
          });
        } catch (const core::InputError& e) {
          fail(path + ".where", plot.where->text(), e.problem());
        }
      }
      spec.plots.push_back(std::move(plot));
    }
  }

  static bool is_metric(const std::string& column) {
    static const char* const kMetrics[] = {
        "iteration_time_s", "schedule_makespan_s", "peak_nic_bytes", "reconfigurations",
        "circuits_set_up", "gap", "lower_bound_s", "solve_time_s", "circuit_utilization",
        "wait_mean_s", "bytes_relayed", "sends", "sim_events",
        // a sweep with trials (robustness rows)
        "iteration_p50_s", "iteration_p95_s", "iteration_p99_s", "iteration_max_s",
        "peak_nic_p50_bytes", "peak_nic_p95_bytes", "peak_nic_p99_bytes", "peak_nic_max_bytes",
        "sim_time_s", "planned_makespan_s", "fail_time_s", "replanned_sends_p50",
        "replanned_sends_max", "replan_wall_p50_s", "replan_wall_max_s",
        // the job, the wiring, and the MoE routing's later iterations (empty
        // cells where a point has none: not drawn)
        "cluster_ranks", "forwarded_bytes", "packet_bytes", "ocs_switches", "uncertain_runs",
        "planned_p50_s", "planned_max_s", "replanned_p50_s", "replanned_max_s", "online_p50_s",
        "online_p95_s", "online_max_s", "decisions", "decision_p50_s", "decision_p99_s",
        "decision_max_s", "planned_nic_max_bytes", "replanned_nic_max_bytes",
        "online_nic_max_bytes"};
    return std::find(std::begin(kMetrics), std::end(kMetrics), column) != std::end(kMetrics);
  }

  std::string source_;
  std::map<std::string, int> lines_;
};

}  // namespace

std::string SweepSpec::metrics_header() const {
  return robust() ? eval::robust_csv_header() : eval::csv_header();
}

std::string Point::key() const {
  std::string k;
  for (const std::string& v : values) k += (k.empty() ? "" : ",") + v;
  return k;
}

std::uint64_t point_memory_bytes(const eval::EvalPoint& config) {
  const workload::WorkloadSize size = workload::estimate_llama_size(config.job.training);
  // Split sends: up to channels times the sends, channels^2 the dependencies.
  const std::uint64_t ch = config.channels;
  const std::uint64_t w = size.tasks > UINT64_MAX / ch || size.deps > UINT64_MAX / ch / ch
                              ? UINT64_MAX
                              : core::workload_memory_bytes(size.tasks * ch, size.deps * ch * ch);
  if (w > (UINT64_MAX - kPointMemoryBaseBytes) / kPointMemoryFactor) return UINT64_MAX;
  return w * kPointMemoryFactor + kPointMemoryBaseBytes;
}

std::filesystem::path SweepSpec::base_of(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::absolute(file, ec).parent_path();
  return ec ? std::filesystem::path() : base;
}

SweepSpec SweepSpec::read(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  return parse(text, file.string(), file.extension() == ".json", base_of(file));
}

SweepSpec SweepSpec::parse(std::string_view text, const std::string& source, bool json,
                           const std::filesystem::path& base) {
  std::map<std::string, int> lines;
  const Json root = read_document(text, source, json, lines);
  SweepSpec spec = Reader(source, std::move(lines)).read(root);
  spec.base = base;
  return spec;
}

const Axis* SweepSpec::axis(std::string_view axis_name) const {
  const auto it =
      std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis_name; });
  return it == axes.end() ? nullptr : &*it;
}

void SweepSpec::set_axis(std::string_view axis_name, const std::vector<std::string>& values) {
  const std::vector<AxisInfo> table = axis_table();
  const auto info = std::find_if(table.begin(), table.end(),
                                 [&](const AxisInfo& a) { return a.name == axis_name; });
  if (info == table.end())
    throw core::InputError("", std::string(axis_name), "", "not a sweep axis");
  const std::string field(axis_name);
  if (values.empty()) throw core::InputError("", field, "", "give at least one value");
  const Reader reader(source, {});
  Axis axis{field, {}};
  std::vector<double> seen;  // the values as numbers, for "listed twice"
  for (const std::string& text : values) {
    Json v = text;
    if (info->type == AxisType::kInteger) {
      std::int64_t n = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || end != text.data() + text.size()) {
        throw core::InputError("", field, text, "must be an integer");
      }
      v = n;
    } else if (info->type == AxisType::kReal || info->type == AxisType::kFactor) {
      double d = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (ec != std::errc() || end != text.data() + text.size()) {
        throw core::InputError("", field, text, "must be a number");
      }
      v = d;
    }
    std::string value;
    try {
      value = reader.value(*info, field, v);
    } catch (const core::InputError& e) {
      throw core::InputError("", field, text, e.problem());
    }
    double number = 0;
    std::string shown = text;
    switch (info->type) {
      case AxisType::kName:
        number =
            static_cast<double>(std::find(values.begin(), values.end(), text) - values.begin());
        break;
      case AxisType::kDuration: {
        const core::TimePs ps = core::parse_duration(value, field);
        number = static_cast<double>(ps);
        shown = core::format_duration(ps);
        break;
      }
      case AxisType::kPercent:
        number = sim::parse_percent(field, value);
        break;
      default:
        number = std::stod(value);
    }
    if (std::find(seen.begin(), seen.end(), number) != seen.end()) {
      throw core::InputError("", field, shown, "listed twice");
    }
    seen.push_back(number);
    axis.values.push_back(std::move(value));
  }
  const auto at =
      std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis_name; });
  if (at != axes.end()) {
    *at = std::move(axis);
    return;
  }
  // A new axis, in axis_table() order.
  const auto rank = [&](const std::string& n) {
    return std::find_if(table.begin(), table.end(),
                        [&](const AxisInfo& a) { return a.name == n; }) -
           table.begin();
  };
  const auto before = std::find_if(axes.begin(), axes.end(),
                                   [&](const Axis& a) { return rank(a.name) > rank(field); });
  axes.insert(before, std::move(axis));
}

namespace {

std::string count_text(double n) {
  if (n < 1e15) return std::to_string(static_cast<std::uint64_t>(n));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", n);
  return buf;
}

}  // namespace

namespace {

std::vector<AxisType> axis_types(const std::vector<Axis>& axes) {
  std::vector<AxisType> types;
  const std::vector<AxisInfo> table = axis_table();
  for (const Axis& a : axes) {
    types.push_back(std::find_if(table.begin(), table.end(), [&](const AxisInfo& i) {
                      return i.name == a.name;
                    })->type);
  }
  return types;
}

ExprLookup lookup_with(const std::vector<Axis>& axes, std::vector<AxisType> types,
                       std::vector<std::string> values) {
  return [&axes, values = std::move(values),
          types = std::move(types)](std::string_view axis) -> std::optional<ExprValue> {
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (axes[i].name != axis) continue;
      const std::string& v = values[i];
      switch (types[i]) {
        case AxisType::kName:
          return ExprValue{true, 0, v};
        case AxisType::kInteger:
          return ExprValue{false, std::stoll(v), {}};
        case AxisType::kReal:
          return ExprValue{false, std::llround(std::stod(v)), {}};
        case AxisType::kDuration:
          return ExprValue{false, static_cast<std::int64_t>(core::parse_duration(v)), {}};
        case AxisType::kPercent:
          return ExprValue{false, std::llround(100 * sim::parse_percent(axis, v)), {}};
        case AxisType::kFactor:
          return ExprValue{false, std::llround(100 * std::stod(v)), {}};
      }
    }
    return std::nullopt;
  };
}

}  // namespace

double plot_unit_scale(std::string_view column, std::string_view unit) {
  static constexpr std::pair<std::string_view, double> kTimes[] = {
      {"s", 1}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}};
  static constexpr std::pair<std::string_view, double> kSizes[] = {
      {"bytes", 1}, {"KiB", 1.0 / 1024}, {"MiB", 1.0 / (1 << 20)}, {"GiB", 1.0 / (1 << 30)}};
  const std::vector<AxisInfo> table = axis_table();
  const bool duration = std::any_of(table.begin(), table.end(), [&](const AxisInfo& a) {
    return a.name == column && a.type == AxisType::kDuration;
  });
  if (column.ends_with("_bytes")) {
    for (const auto& [u, f] : kSizes) {
      if (u == unit) return f;
    }
  } else if (column.ends_with("_s") || duration) {
    for (const auto& [u, f] : kTimes) {
      if (u == unit) return f;
    }
  }
  return 0;
}

ExprLookup SweepSpec::lookup(const std::vector<std::string>& values) const {
  return lookup_with(axes, axis_types(axes), values);
}

std::vector<Point> SweepSpec::points() const {
  // The combinations, from the lists' lengths alone, before any is built.
  double combinations = 1;
  std::string factors;
  for (const Axis& a : axes) {
    combinations *= static_cast<double>(a.values.size());
    factors += (factors.empty() ? "" : " x ") + std::to_string(a.values.size());
  }
  if (combinations > static_cast<double>(kMaxSweepCombinations)) {
    throw core::InputError(source, "axes", factors,
                           count_text(combinations) + " combinations of the axes' values, over " +
                               "the limit of " + count_text(kMaxSweepCombinations) +
                               " a sweep enumerates: split it into several sweep files");
  }
  const std::vector<AxisType> types = axis_types(axes);
  const auto lookup_in = [&](const std::vector<std::string>& values) {
    return lookup_with(axes, types, values);
  };
  // Every combination in order, the last axis fastest: calls `f(values)`.
  const auto each = [&](const auto& f) {
    std::vector<std::size_t> at(axes.size(), 0);
    std::vector<std::string> values(axes.size());
    while (true) {
      for (std::size_t i = 0; i < axes.size(); ++i) values[i] = axes[i].values[at[i]];
      f(values);
      std::size_t i = axes.size();
      while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
      if (i == 0) break;
    }
  };
  // First the filters alone: the points kept, counted before any is built.
  std::vector<bool> kept;
  kept.reserve(static_cast<std::size_t>(combinations));
  std::uint64_t count = 0;
  each([&](const std::vector<std::string>& values) {
    bool keep = true;
    try {
      const auto lookup = lookup_in(values);
      for (const Expr& f : filters) keep = keep && f.holds(lookup);
    } catch (const core::InputError& e) {
      throw e.with_source(source);
    }
    kept.push_back(keep);
    count += keep ? 1 : 0;
  });
  if (count == 0) {
    throw core::InputError(source, "filter", filters.empty() ? "" : filters.front().text(),
                           "the filters leave no point of " + count_text(combinations));
  }
  if (count > kMaxSweepPoints) {
    throw core::InputError(
        source, "axes", factors,
        count_text(static_cast<double>(count)) + " points (about " +
            core::format_bytes(static_cast<double>(count * kPointHoldBytes)) +
            " to hold), over the limit of " + count_text(kMaxSweepPoints) +
            " points a sweep holds: narrow it with a filter or split it into several sweep files");
  }
  std::vector<Point> out;
  out.reserve(static_cast<std::size_t>(count));
  const bool is_robust = robust();
  std::size_t k = 0;
  detail::WiringFiles wiring_files;
  each([&](const std::vector<std::string>& values) {
    if (!kept[k++]) return;
    Point p;
    p.values = values;
    detail::EvalSetup setup;
    setup.base = base;
    setup.wiring_files = &wiring_files;
    for (std::size_t i = 0; i < axes.size(); ++i) setup.apply(axes[i].name, p.values[i]);
    p.config = setup.config();
    if (is_robust) p.robust = setup.robust_point();
    try {
      if (p.robust) {
        p.robust->validate();
        if (p.config.channels != 1) {
          throw core::InputError("", "channels", std::to_string(p.config.channels),
                                 "a robustness point runs whole sends");
        }
      } else {
        p.config.validate();
      }
      p.memory_bytes = point_memory_bytes(p.config);
    } catch (const core::InputError& e) {
      p.invalid = e.field() + " = " + e.value() + ": " + e.problem();
    }
    out.push_back(std::move(p));
  });
  return out;
}

}  // namespace flux::sweep
