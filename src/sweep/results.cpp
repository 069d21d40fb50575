// A sweep's CSV, summary and plots (include/flux/sweep/results.hpp). The CSV
// is appended one whole row per write(2), each followed by fsync(2): after a
// crash (kill -9, power loss) the file holds every row that was reported
// finished, and at most the last one is torn (no line end), which the next
// run cuts off before it appends.
#include "flux/sweep/results.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>
#include <sstream>
#include <utility>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/io/save.hpp"

namespace flux::sweep {
namespace {

std::vector<std::string> split(const std::string& line) {
  return eval::csv_fields(line);
}

std::string join(const std::vector<std::string>& v, std::size_t n, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < n && i < v.size(); ++i) s += (i == 0 ? "" : sep) + v[i];
  return s;
}

[[noreturn]] void io_fail(const std::filesystem::path& file, const char* what) {
  throw core::InputError(file.string(), "", "", std::string(what) + ": " + std::strerror(errno));
}

void write_all(int fd, const std::string& s, const std::filesystem::path& file) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_fail(file, "cannot append a row");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) io_fail(file, "cannot sync a row to disk");
}

std::string read_all(int fd, const std::filesystem::path& file) {
  std::string text;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_fail(file, "cannot read");
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
  }
}

std::optional<double> number(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::size_t column(const std::vector<std::string>& header, std::string_view name) {
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

// The axes that take more than one value, but `except`.
std::vector<std::size_t> varying(const SweepSpec& spec, std::string_view except) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    if (spec.axes[i].values.size() > 1 && spec.axes[i].name != except) out.push_back(i);
  }
  return out;
}

std::string label(const SweepSpec& spec, const Point& p, const std::vector<std::size_t>& axes) {
  std::string s;
  for (std::size_t i : axes) s += (s.empty() ? "" : " ") + spec.axes[i].name + "=" + p.values[i];
  return s.empty() ? std::string("all") : s;
}

}  // namespace

std::optional<PointStatus> status_of(std::string_view text) {
  for (PointStatus s : {PointStatus::kOk, PointStatus::kError, PointStatus::kInvalid,
                        PointStatus::kTimeout, PointStatus::kMemory, PointStatus::kCrashed}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

std::string_view to_string(PointStatus s) {
  switch (s) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kError:
      return "error";
    case PointStatus::kInvalid:
      return "invalid";
    case PointStatus::kTimeout:
      return "timeout";
    case PointStatus::kMemory:
      return "memory";
    case PointStatus::kCrashed:
      return "crashed";
  }
  return "?";
}

namespace {

// The metric columns of a sweep CSV for the metrics header `metrics`: each
// name once (metric_columns()).
std::vector<std::string> metric_columns_of(const SweepSpec& spec, const std::string& metrics) {
  // Metrics that are by construction the value of the axis of their name.
  static constexpr std::string_view kSameAsAxis[] = {"scheduler",
                                                     "layers",
                                                     "tp",
                                                     "dp",
                                                     "switches",
                                                     "seed",
                                                     "straggler_rank",
                                                     "scaleup_size",
                                                     "ocs_radix",
                                                     "packet_gbps",
                                                     "route",
                                                     "wiring",
                                                     "packet_oversubscription",
                                                     "collective"};
  std::vector<std::string> out = split(metrics);
  for (std::string& m : out) {
    if (spec.axis(m) == nullptr) continue;
    const bool same =
        std::find(std::begin(kSameAsAxis), std::end(kSameAsAxis), m) != std::end(kSameAsAxis);
    m = same ? std::string() : m + kMeasuredSuffix;
  }
  return out;
}

std::string key_header(const SweepSpec& spec) {
  std::string h;
  for (const Axis& a : spec.axes) h += a.name + ",";
  return h + kPointColumns;
}

std::string header_of(const SweepSpec& spec, const std::string& metrics) {
  std::string h = key_header(spec);
  for (const std::string& m : metric_columns_of(spec, metrics)) {
    if (!m.empty()) h += "," + m;
  }
  return h;
}

}  // namespace

std::vector<std::string> metric_columns(const SweepSpec& spec) {
  return metric_columns_of(spec, spec.metrics_header());
}

std::string csv_header(const SweepSpec& spec) {
  return header_of(spec, spec.metrics_header());
}

std::string legacy_csv_header(const SweepSpec& spec) {
  return key_header(spec) + "," + spec.metrics_header();
}

std::string metrics_of(const SweepSpec& spec, const std::string& metrics) {
  const std::vector<std::string> columns = metric_columns(spec);
  const std::vector<std::string> f = split(metrics);
  std::string out;
  bool first = true;
  for (std::size_t i = 0; i < f.size() && i < columns.size(); ++i) {
    if (columns[i].empty()) continue;
    out += (first ? "" : ",") + f[i];
    first = false;
  }
  return out;
}

ResultFile::Upgrade csv_upgrade(const SweepSpec& spec) {
  // The metrics headers of earlier versions, newest first: the robustness
  // rows' has not changed; the evaluation rows' down to version 2 (3 added
  // the wiring columns, 4 the fabric's; eval::csv_header_of_version).
  std::vector<std::string> metrics = {spec.metrics_header()};
  if (!spec.robust()) {
    for (unsigned v = eval::csv_version(); v-- > 2;) {
      metrics.push_back(eval::csv_header_of_version(v));
    }
  }
  ResultFile::Upgrade up;
  for (const std::string& m : metrics) {
    up.headers.push_back(key_header(spec) + "," + m);  // every metric after the axes
    if (&m != &metrics.front()) up.headers.push_back(header_of(spec, m));
  }
  const std::size_t keys = spec.axes.size() + split(kPointColumns).size();
  const std::vector<std::string> now = split(csv_header(spec));
  return {
      up.headers, [keys, now, headers = up.headers](std::size_t version, const std::string& line) {
        // Each column of this version from the column of its name (a
        // metric named like an axis: from its unsuffixed name in the
        // version before metric_columns()); empty when the file lacks it.
        const std::vector<std::string> names = split(headers[version]);
        const std::vector<std::string> f = split(line);
        std::string out = join(f, keys, ",");
        for (std::size_t c = keys; c < now.size(); ++c) {
          std::string name = now[c];
          auto it = std::find(names.begin() + static_cast<std::ptrdiff_t>(keys), names.end(), name);
          if (it == names.end() && name.ends_with(kMeasuredSuffix)) {
            name.resize(name.size() - std::string_view(kMeasuredSuffix).size());
            it = std::find(names.begin() + static_cast<std::ptrdiff_t>(keys), names.end(), name);
          }
          const auto at = static_cast<std::size_t>(it - names.begin());
          out += "," + (it == names.end() || at >= f.size() ? std::string() : f[at]);
        }
        return out;
      }};
}

std::string csv_row(const SweepSpec& spec, const Point& point, const Outcome& o) {
  std::string error = o.error;
  for (char& c : error) {
    if (c == ',' || c == '\n' || c == '\r' || c == '"') c = c == ',' ? ';' : ' ';
  }
  char wall[32];
  auto [end, ec] = std::to_chars(wall, wall + sizeof wall, std::round(o.wall_s * 1e3) / 1e3);
  std::string row = point.key() + "," + std::string(to_string(o.status)) + "," + error + "," +
                    std::string(wall, end) + ",";
  if (!o.metrics.empty()) return row + metrics_of(spec, o.metrics);
  // A failed point: every metric column empty.
  const std::vector<std::string> columns = metric_columns(spec);
  const auto kept = std::count_if(columns.begin(), columns.end(),
                                  [](const std::string& c) { return !c.empty(); });
  return row + std::string(static_cast<std::size_t>(kept) - 1, ',');
}

ResultFile::ResultFile(std::filesystem::path file, std::string header,
                       const std::vector<Point>& points, bool fresh, Upgrade upgrade)
    : file_(std::move(file)), header_(std::move(header)), upgrade_(std::move(upgrade)) {
  key_columns_ = column(split(header_), "point_status");
  // Never through a symlink, and a new file is this run's own (O_EXCL): the
  // CSV is not a user's path to follow (docs/formats.md, "Resume").
  constexpr int kFlags = O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  fd_ = ::open(file_.c_str(), kFlags);
  if (fd_ < 0 && errno == ENOENT) fd_ = ::open(file_.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
  if (fd_ < 0 && errno == ELOOP) {
    throw core::InputError(file_.string(), "", "",
                           "is a symlink: the sweep's CSV must be a file of its own (remove the "
                           "link or use another output directory, -o)");
  }
  if (fd_ < 0) io_fail(file_, "cannot open");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw core::InputError(file_.string(), "", "", "is not a regular file");
  }
  (void)::fcntl(fd_, F_SETFL, O_APPEND);
  try {
    load(points, fresh);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

void ResultFile::load(const std::vector<Point>& points, bool fresh) {
  std::string text = fresh ? std::string() : read_all(fd_, file_);
  // A torn last row (or header): cut back to the last line end.
  const std::size_t whole = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (whole < text.size()) ++torn_;
  text.resize(whole);
  if (text.empty()) {
    if (::ftruncate(fd_, 0) != 0) io_fail(file_, "cannot truncate");
    write_all(fd_, header_ + "\n", file_);
    return;
  }
  const std::size_t columns = split(header_).size();
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  const auto old_header = std::find(upgrade_.headers.begin(), upgrade_.headers.end(), line);
  const bool upgrade = line != header_ && upgrade_.row && old_header != upgrade_.headers.end();
  const auto version = static_cast<std::size_t>(old_header - upgrade_.headers.begin());
  if (line != header_ && !upgrade) {
    throw core::InputError(file_.string(), "line 1", shown(line.substr(0, 60)),
                           "written by another sweep (other axes or columns): use another "
                           "output directory (-o) or start over (--fresh)");
  }
  std::set<std::string> keys;
  for (const Point& p : points) keys.insert(p.key());
  const std::string again =
      ": use another output directory (-o), start over (--fresh) or remove the row";
  const std::size_t file_columns = upgrade ? split(*old_header).size() : columns;
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    std::vector<std::string> f = split(line);
    if (upgrade && f.size() == file_columns) {
      line = upgrade_.row(version, line);  // a row of an earlier version: its columns now
      f = split(line);
    }
    if (f.size() != columns) {
      throw core::InputError(file_.string(), "line " + std::to_string(n),
                             std::to_string(f.size()) + " columns",
                             "expected " + std::to_string(columns) + ": not a row of this sweep");
    }
    const std::string key = join(f, key_columns_, ",");
    if (keys.count(key) == 0) {
      throw core::InputError(file_.string(), "line " + std::to_string(n), key,
                             "not a point of this sweep (its axes' values or filters have "
                             "changed?)" +
                                 again);
    }
    if (!status_of(f[key_columns_])) {
      throw core::InputError(file_.string(), "line " + std::to_string(n) + ", point_status",
                             f[key_columns_],
                             "unknown status (known: ok, error, invalid, timeout, memory, "
                             "crashed)" +
                                 again);
    }
    if (rows_.count(key) == 0) written_.push_back(key);
    rows_[key] = line;
    status_[key] = f[key_columns_];
  }
  if (torn_ != 0 && ::ftruncate(fd_, static_cast<off_t>(whole)) != 0) {
    io_fail(file_, "cannot cut off a torn row");
  }
  if (upgrade) rewrite_sorted({});  // in this version's columns from now on
}

ResultFile::~ResultFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultFile::append(const std::string& key, const std::string& row) {
  // On a failed write or sync (a full disk), cut back to the last whole row.
  struct stat st {};
  if (::fstat(fd_, &st) != 0) io_fail(file_, "cannot append a row");
  try {
    write_all(fd_, row + "\n", file_);
  } catch (const core::InputError&) {
    while (::ftruncate(fd_, st.st_size) != 0 && errno == EINTR) {
    }
    throw;
  }
  if (rows_.count(key) == 0) written_.push_back(key);
  rows_[key] = row;
  status_[key] = split(row)[key_columns_];
}

void ResultFile::rewrite_sorted(const std::vector<std::string>& order) {
  std::set<std::string> placed;
  std::string text = header_ + "\n";
  for (const std::vector<std::string>* keys : {&order, &std::as_const(written_)}) {
    for (const std::string& k : *keys) {
      const auto it = rows_.find(k);
      if (it == rows_.end() || !placed.insert(k).second) continue;
      text += it->second + "\n";
    }
  }
  ::close(fd_);
  fd_ = -1;
  io::save_file(file_, [&](std::ostream& out) { out << text; });
  fd_ = ::open(file_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) io_fail(file_, "cannot reopen");
}

std::string summary(const SweepSpec& spec, const std::vector<Point>& points,
                    const std::map<std::string, std::string>& rows) {
  const std::vector<std::string> header = split(csv_header(spec));
  const std::size_t status_col = column(header, "point_status");
  // With trials: the median.
  const std::size_t time_col =
      column(header, spec.robust() ? "iteration_p50_s" : "iteration_time_s");
  std::map<std::string, std::size_t> counts;
  for (const Point& p : points) {
    const auto it = rows.find(p.key());
    ++counts[it == rows.end() ? std::string("not run") : split(it->second)[status_col]];
  }
  std::ostringstream out;
  out << "sweep " << spec.name << ": " << points.size() << " points:";
  for (const auto& [status, n] : counts) out << " " << n << " " << status;
  out << "\n";

  // Iteration time: the first scheduler's, the others' as ratios to it.
  const std::size_t sched_axis =
      static_cast<std::size_t>(std::find_if(spec.axes.begin(), spec.axes.end(),
                                            [](const Axis& a) { return a.name == "scheduler"; }) -
                               spec.axes.begin());
  const std::vector<std::string>& scheds = spec.axes[sched_axis].values;
  const std::vector<std::size_t> others = varying(spec, "scheduler");
  std::vector<std::string> groups;
  std::map<std::string, std::map<std::string, std::string>> cells;
  for (const Point& p : points) {
    const std::string g = label(spec, p, others);
    if (cells.count(g) == 0) groups.push_back(g);
    const auto it = rows.find(p.key());
    std::string cell = "-";
    if (it != rows.end()) {
      const std::vector<std::string> f = split(it->second);
      cell = f[status_col] == "ok" ? f[time_col] : f[status_col];
    }
    cells[g][p.values[sched_axis]] = cell;
  }
  out << "\niteration time: " << scheds.front() << " in ms, the others as a ratio to it\n";
  std::size_t width = 8;
  for (const std::string& g : groups) width = std::max(width, g.size());
  out << std::string(width, ' ');
  for (const std::string& s : scheds) out << "  " << s;
  out << "\n";
  for (const std::string& g : groups) {
    out << g << std::string(width - g.size(), ' ');
    const std::optional<double> base = number(cells[g][scheds.front()]);
    for (std::size_t k = 0; k < scheds.size(); ++k) {
      const std::string& cell = cells[g][scheds[k]];
      const std::optional<double> v = number(cell);
      char buf[64];
      if (v && k == 0) {
        std::snprintf(buf, sizeof buf, "%.3f", *v * 1e3);
      } else if (v && base && *base > 0) {
        std::snprintf(buf, sizeof buf, "x%.3f", *v / *base);
      } else {
        std::snprintf(buf, sizeof buf, "%s", v ? "?" : cell.c_str());
      }
      const std::string text = buf;
      out << std::string(
                 scheds[k].size() + 2 > text.size() ? scheds[k].size() + 2 - text.size() : 1, ' ')
          << text;
    }
    out << "\n";
  }
  return out.str();
}

std::string plot_stem(const SweepSpec& spec, const PlotSpec& plot) {
  if (!plot.name.empty()) return plot.name;
  std::string stem = spec.name;
  for (const std::string& y : plot.y) stem += "-" + y;
  return stem + "-by-" + plot.x;
}

namespace {

// A column or an axis in words with its unit: iteration_time_s ->
// "iteration time (s)", peak_nic_p95_bytes -> "peak NIC p95 (bytes)"; with
// `unit` (PlotSpec::units) the unit named instead: "iteration time (ms)".
std::string words(std::string_view name, const std::string& unit = "") {
  static const std::pair<std::string_view, std::string_view> kNames[] = {
      {"tau", "reconfiguration delay,s"},
      {"link_gbps", "link rate,Gb/s"},
      {"scaleup_gbps", "scale-up rate,Gb/s"},
      {"time_limit", "scheduler time limit,s"},
      {"jitter", "compute jitter,%"},
      {"fail_at", "switch failure at,% of ideal"},
      {"straggler_factor", "straggler compute,x"},
      {"peak_nic_bytes", "peak NIC memory,bytes"}};
  std::string text(name);
  for (char& c : text) c = c == '_' ? ',' : c;
  std::vector<std::string> parts = split(text);
  std::string given;
  for (const auto& [n, w] : kNames) {
    if (n == name) {
      parts = split(std::string(w));
      given = parts.back();
      parts.pop_back();
      break;
    }
  }
  if (given.empty() && parts.size() > 1 && (parts.back() == "s" || parts.back() == "bytes")) {
    given = parts.back();
    parts.pop_back();
  }
  std::string out;
  for (const std::string& w : parts) {
    out += (out.empty() ? "" : " ") + (w == "nic" ? std::string("NIC") : w);
  }
  if (!unit.empty()) given = unit;
  return given.empty() ? out : out + " (" + given + ")";
}

// Metrics that count something: whole numbers.
bool integer_metric(std::string_view y) {
  static constexpr std::string_view kCounts[] = {
      "reconfigurations", "circuits_set_up",     "sends",
      "sim_events",       "replanned_sends_p50", "replanned_sends_max",
      "cluster_ranks",    "uncertain_runs",      "ocs_switches",
      "decisions"};
  return y.ends_with("_bytes") ||
         std::find(std::begin(kCounts), std::end(kCounts), y) != std::end(kCounts);
}

// More than two decades between the least and the largest positive value.
bool spans_decades(double lo, double hi) {
  return lo > 0 && hi / lo > 100;
}

AxisType type_of(std::string_view axis) {
  const auto info = axis_table();
  return std::find_if(info.begin(), info.end(), [&](const AxisInfo& a) { return a.name == axis; })
      ->type;
}

std::size_t axis_index(const SweepSpec& spec, std::string_view name) {
  return static_cast<std::size_t>(std::find_if(spec.axes.begin(), spec.axes.end(),
                                               [&](const Axis& a) { return a.name == name; }) -
                                  spec.axes.begin());
}

// A row of panels' title: "8 layers", "llama3-70b-1k, tau 10us".
std::string row_title(const SweepSpec& spec, const Point& p, const std::vector<std::size_t>& axes) {
  std::string t;
  for (std::size_t i : axes) {
    const std::string& n = spec.axes[i].name;
    const AxisType type = type_of(n);
    t += t.empty() ? "" : ", ";
    if (type == AxisType::kName) {
      t += p.values[i];
    } else if (type == AxisType::kInteger) {
      t += p.values[i] + " " + n;
    } else {
      t += n + " " + p.values[i];
    }
  }
  return t;
}

// The range of a panel's values, and whether one is not positive (no log).
struct Range {
  double lo = INFINITY;
  double hi = -INFINITY;
  bool non_positive = false;
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    non_positive = non_positive || v <= 0;
  }
};

}  // namespace

std::string gnuplot_script(const SweepSpec& spec, const PlotSpec& plot,
                           const std::vector<Point>& points,
                           const std::map<std::string, std::string>& rows, const std::string& png,
                           const std::string& svg) {
  const std::vector<std::string> header = split(csv_header(spec));
  const std::size_t status_col = column(header, "point_status");
  const std::size_t x_axis = axis_index(spec, plot.x);
  const std::vector<std::string>& xs = spec.axes[x_axis].values;
  const AxisType type = type_of(plot.x);
  const bool named = type == AxisType::kName;
  const auto scale_of = [&](const std::string& c) {
    const auto u = plot.units.find(c);
    return u == plot.units.end() ? 1.0 : plot_unit_scale(c, u->second);
  };
  const auto unit_of = [&](const std::string& c) {
    const auto u = plot.units.find(c);
    return u == plot.units.end() ? std::string() : u->second;
  };
  const double x_scale = scale_of(plot.x);
  // The x values as plotted.
  const auto x_of = [&](const std::string& xv) {
    if (named) return static_cast<double>(std::find(xs.begin(), xs.end(), xv) - xs.begin());
    if (type == AxisType::kDuration) return x_scale * core::ps_to_seconds(core::parse_duration(xv));
    std::string v = xv;
    if (!v.empty() && v.back() == '%') v.pop_back();
    return std::stod(v);
  };
  std::vector<std::size_t> row_axes;
  for (const std::string& r : plot.rows) row_axes.push_back(axis_index(spec, r));
  const std::size_t series_axis =
      plot.series.empty() ? spec.axes.size() : axis_index(spec, plot.series);
  // The points drawn: finished, kept by the plot's filter.
  std::vector<std::pair<const Point*, std::vector<std::string>>> drawn;
  for (const Point& p : points) {
    const auto it = rows.find(p.key());
    if (it == rows.end()) continue;
    if (plot.where && !plot.where->holds(spec.lookup(p.values))) continue;
    std::vector<std::string> f = split(it->second);
    if (f[status_col] == "ok") drawn.emplace_back(&p, std::move(f));
  }
  // The lines: the series axis's value, then every other axis that varies
  // among the points drawn.
  std::vector<std::size_t> others;
  for (std::size_t i : varying(spec, plot.x)) {
    if (i == series_axis || std::find(row_axes.begin(), row_axes.end(), i) != row_axes.end()) {
      continue;
    }
    if (std::any_of(drawn.begin(), drawn.end(), [&](const auto& d) {
          return d.first->values[i] != drawn.front().first->values[i];
        })) {
      others.push_back(i);
    }
  }
  std::vector<std::size_t> y_cols;
  for (const std::string& y : plot.y) y_cols.push_back(column(header, y));
  // Per row of panels and line, the data; per panel the values' range.
  std::vector<std::string> row_names, series;
  std::map<std::string, std::string> series_value;  // a line's value of the series axis
  std::map<std::pair<std::string, std::string>, std::string> data;
  std::map<std::tuple<std::string, std::string, std::size_t>, Range> ranges;  // (row, line, y)
  for (const auto& [point, f] : drawn) {
    const Point& p = *point;
    const std::string r = row_title(spec, p, row_axes);
    const bool by_series = series_axis < spec.axes.size();
    const std::string s = !by_series       ? label(spec, p, others)
                          : others.empty() ? p.values[series_axis]
                                           : p.values[series_axis] + " " + label(spec, p, others);
    if (std::find(row_names.begin(), row_names.end(), r) == row_names.end()) row_names.push_back(r);
    if (series_value.count(s) == 0) {
      series.push_back(s);
      series_value[s] = by_series ? p.values[series_axis] : "";
    }
    std::ostringstream line;
    line << x_of(p.values[x_axis]);
    for (std::size_t k = 0; k < y_cols.size(); ++k) {
      const std::optional<double> y = number(f[y_cols[k]]);
      if (y) {
        const double v = *y * scale_of(plot.y[k]);
        ranges[{r, s, k}].add(v);
        line << ' ' << v;
      } else {
        line << " NaN";
      }
    }
    data[{r, s}] += line.str() + "\n";
  }
  if (row_names.empty()) row_names.emplace_back();
  const auto block = [&](std::size_t r, std::size_t k) {
    return row_names.size() == 1 ? "$s" + std::to_string(k)
                                 : "$r" + std::to_string(r) + "_s" + std::to_string(k);
  };
  double x_lo = INFINITY, x_hi = -INFINITY;
  for (const std::string& v : xs) {
    x_lo = std::min(x_lo, x_of(v));
    x_hi = std::max(x_hi, x_of(v));
  }
  const bool log_x = x_lo > 0 && (plot.log_x || (!named && spans_decades(x_lo, x_hi)));
  const std::size_t n_rows = row_names.size(), n_cols = plot.y.size();
  const bool multi = n_rows * n_cols > 1;
  std::string joined;
  for (const std::string& y : plot.y) joined += (joined.empty() ? "" : ", ") + y;
  std::ostringstream g;
  g << "# " << joined << " by " << plot.x << " of sweep " << spec.name
    << " (flux sweep; data inline)\n";
  for (std::size_t r = 0; r < n_rows; ++r) {
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto d = data.find({row_names[r], series[k]});
      if (d != data.end()) g << block(r, k) << " << EOD\n" << d->second << "EOD\n";
    }
  }
  // The panels, drawn once per output.
  std::ostringstream draw;
  // The figure's title: the axes of one value, and the plot's filter.
  std::string title;
  for (const Axis& a : spec.axes) {
    if (a.values.size() == 1) title += (title.empty() ? "" : ", ") + a.name + " " + a.values[0];
  }
  if (plot.where) title += (title.empty() ? "" : "; ") + std::string("where ") + plot.where->text();
  draw << "set grid\nset xlabel '" << words(plot.x, unit_of(plot.x)) << "'\n";
  if (multi) {
    draw << "set multiplot layout " << n_rows << "," << n_cols << " title '" << title << "'\n";
  } else {
    draw << "set key outside right\n";
  }
  if (log_x) draw << "set logscale x\n";
  if (named || (type == AxisType::kInteger && !log_x)) {
    // Ticks at the axis's values alone: an integer axis has no 1.5.
    draw << "set xtics (";
    for (std::size_t i = 0; i < xs.size(); ++i) {
      draw << (i ? ", " : "") << "'" << xs[i] << "' " << x_of(xs[i]);
    }
    draw << ")\n";
    if (named) draw << "set xrange [-0.5:" << xs.size() - 0.5 << "]\n";
  }
  for (std::size_t r = 0; r < n_rows; ++r) {
    for (std::size_t c = 0; c < n_cols; ++c) {
      const std::string& y = plot.y[c];
      // The lines of this panel (its series but those omitted) and their range.
      Range range;
      const auto omitted = plot.omit.find(y);
      std::string lines;
      for (std::size_t k = 0; k < series.size(); ++k) {
        if (data.count({row_names[r], series[k]}) == 0) continue;
        if (omitted != plot.omit.end() &&
            std::find(omitted->second.begin(), omitted->second.end(), series_value[series[k]]) !=
                omitted->second.end()) {
          continue;
        }
        const auto kept = ranges.find({row_names[r], series[k], c});
        if (kept != ranges.end()) {
          range.add(kept->second.lo);
          range.add(kept->second.hi);
        }
        // A line keeps its colour and point type in every panel.
        lines += (lines.empty() ? "" : ", \\\n     ") + block(r, k) +
                 " using 1:" + std::to_string(c + 2) + " with linespoints linetype " +
                 std::to_string(k + 1) + " title '" + series[k] + "'";
      }
      // Asked for, a log axis leaves out the values <= 0; chosen, never.
      const bool log_y = (plot.log_y && range.hi > 0) ||
                         (!range.non_positive && spans_decades(range.lo, range.hi));
      draw << "set ylabel '" << words(y, unit_of(y)) << "'\n";
      if (multi) {
        draw << "set title '" << row_names[r] << "'\n"
             << (c == 0 ? "set key top left font ',9'\n" : "unset key\n")
             << (log_y ? "set logscale y\n" : "unset logscale y\n")
             << "set format y '%g'\nset ytics autofreq\n";
      } else if (log_y) {
        draw << "set logscale y\n";
      }
      if (integer_metric(y) && scale_of(y) == 1 && !log_y) {
        draw << "set format y '%.0f'\n";
        if (range.hi - range.lo <= 10) draw << "set ytics 1\n";
      }
      if (lines.empty()) {
        // A constant below the range: gnuplot refuses a plot of no point.
        draw << "set label 1 '" << (series.empty() ? "no finished points" : "nothing to draw")
             << "' at graph 0.5, graph 0.5 center\nset yrange [0:1]\n"
             << "plot -1 notitle\nunset label 1\nset yrange [*:*]\n";
      } else {
        draw << "plot " << lines << "\n";
      }
    }
  }
  if (multi) draw << "unset multiplot\n";
  const std::size_t width = multi ? 500 * n_cols : 900, height = multi ? 430 * n_rows + 60 : 600;
  // noenhanced: an underscore in a label or a title is an underscore.
  g << "set terminal pngcairo size " << width << "," << height
    << " font ',10' noenhanced\nset output '" << png << "'\n"
    << draw.str() << "set output\n";
  if (!svg.empty()) {
    g << "reset\nset terminal svg size " << width << "," << height
      << " dynamic font 'sans,10' noenhanced\nset output '" << svg << "'\n"
      << draw.str() << "set output\n";
  }
  return g.str();
}

}  // namespace flux::sweep
