#pragma once
// A sweep file (TOML or JSON; docs/formats.md, "Sweep files"): named axes
// with lists of values, their cartesian product cut by filters, and the
// outputs: the one grid of a study (`flux sweep`, `flux evaluate --preset`,
// flux.sweep). Each point is one eval::EvalPoint (one job, one delay, one
// scheduler), measured by eval::measure; in a robustness sweep (an axis of
// AxisInfo::robust: trials, stragglers, failures), one eval::RobustPoint
// measured by eval::run_robust_point.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sweep/expr.hpp"

namespace flux::sweep {

/// How an axis's values are written in the file.
enum class AxisType : std::uint8_t {
  kName,      ///< a string (model, gpu, job, scheduler)
  kInteger,   ///< a non-negative integer
  kReal,      ///< a number within its option's bounds (Gb/s, a capacity factor)
  kDuration,  ///< a string with a unit: "10us"
  kPercent,   ///< a fraction (0.05) or "5%" (core/numbers.hpp); in filters, the percentage
  kFactor,    ///< a factor within its bounds (1.5: x1.5); in filters, x100 rounded (150)
};

/// Limits of a sweep file (docs/formats.md, "Sweep files"): its size, the
/// nesting of its JSON or TOML values (toml++ stops at 256 too), the
/// combinations of its axes (the product of the lists' lengths, checked
/// before any is built) and the points the filters keep (each held in
/// memory, about kPointHoldBytes, while the sweep runs).
inline constexpr std::size_t kMaxSweepFileBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxSweepDepth = 256;
inline constexpr std::uint64_t kMaxSweepCombinations = 10'000'000;
inline constexpr std::uint64_t kMaxSweepPoints = 1'000'000;
inline constexpr std::uint64_t kPointHoldBytes = 2560;

/// The largest value of an integer axis unless its entry says otherwise.
inline constexpr std::int64_t kMaxAxisInteger = std::int64_t{1} << 24;

struct AxisInfo {
  std::string_view name;
  AxisType type;
  std::string_view help;
  std::int64_t min = 1;                ///< kInteger: the least value
  std::int64_t max = kMaxAxisInteger;  ///< kInteger: the largest value
  /// The axis makes every point of the sweep a robustness point
  /// (eval::RobustPoint: trials with common random numbers, p50/p95/p99/max).
  bool robust = false;
  /// kReal, kFactor: the bounds of a value, its option table entry's
  /// (core::NumberOption: min, max, min_open, max_open), one source with the
  /// option's flag; the reader refuses a value outside them.
  double real_min = 0;
  double real_max = kUnboundedReal;
  bool real_min_open = true;
  bool real_max_open = false;

  /// An axis whose number is unbounded above (core::NumberOption's 1e300).
  static constexpr double kUnboundedReal = 1e300;
  /// kReal, kFactor: whether `v` is within the bounds (finite).
  [[nodiscard]] bool contains(double v) const;
  /// kReal, kFactor: the bounds as the option's messages say them:
  /// "in (0, 1e9]", "between 0 and 1e6", "greater than 0".
  [[nodiscard]] std::string range_text() const;
};

/// Every axis a sweep can have, in the order of the CSV's columns and of the
/// cartesian product (the last one varies fastest).
std::vector<AxisInfo> axis_table();

/// One axis of a sweep: its values as written in the CSV.
struct Axis {
  std::string name;
  std::vector<std::string> values;
};

/// A plot (docs/formats.md, "Plots"): panels of metrics over axis `x`, one
/// column of panels per metric of `y`, one row per combination of the
/// `rows` axes' values; in each panel one line per value of `series` (and of
/// every other axis that varies, unless `where` fixes it).
struct PlotSpec {
  std::string name;               ///< the output stem; empty: <sweep>-<y>-by-<x>
  std::string x;                  ///< an axis
  std::vector<std::string> y;     ///< metric columns, one column of panels each
  std::vector<std::string> rows;  ///< axes: a row of panels per combination
  std::string series;             ///< the axis whose values are the lines; empty: every one varying
  /// Per metric, the `series` values left out of its panels (ideal has no
  /// peak NIC memory worth drawing).
  std::map<std::string, std::vector<std::string>> omit;
  /// Per metric or the x axis, the unit drawn: s, ms, us, ns for times,
  /// bytes, KiB, MiB, GiB for sizes; absent: the column's (s, bytes).
  std::map<std::string, std::string> units;
  std::optional<Expr> where;  ///< the points drawn (a filter); none: all
  bool svg = false;           ///< an SVG too, beside the PNG
  bool log_x = false;
  bool log_y = false;
};

/// One point of the product.
struct Point {
  std::vector<std::string> values;  ///< one per SweepSpec::axes
  eval::EvalPoint config;           ///< one job, one delay, one scheduler
  /// In a robustness sweep (SweepSpec::robust()): the point as a robustness
  /// point (one job, delay, scheduler and perturbation; its trials with
  /// common random numbers), run by eval::run_robust_point into a
  /// robustness.csv row (p50/p95/p99/max).
  std::optional<eval::RobustPoint> robust;
  /// Why the point cannot run (its configuration does not validate); empty
  /// when it can. Such a point is recorded as failed, not run.
  std::string invalid;
  /// Estimated peak memory of the process running it, bytes.
  std::uint64_t memory_bytes = 0;
  /// The point's identity in the CSV: its values joined by commas.
  [[nodiscard]] std::string key() const;
};

struct SweepSpec {
  std::string source;      ///< the file, for messages
  std::string name;        ///< output stem: <name>.csv, <name>-summary.txt, ...
  std::vector<Axis> axes;  ///< those the file gives, in axis_table() order
  std::vector<Expr> filters;
  std::vector<PlotSpec> plots;
  /// The directory a relative `file:` routing path is resolved against: the
  /// sweep file's, made absolute (so MPI workers read the same file
  /// wherever they run); empty (the working directory) for text.
  std::filesystem::path base;

  /// Reads a .toml or .json file (by extension; otherwise TOML). Throws
  /// core::InputError naming the file, the key and the value.
  static SweepSpec read(const std::filesystem::path& file);
  /// The bytes of a sweep file: a directory, an unreadable file or one over
  /// kMaxSweepFileBytes (read no further: /dev/zero) is a core::InputError.
  static std::string read_text(const std::filesystem::path& file);
  /// The directory a sweep file's relative routing paths are read from
  /// (`base`): the file's own, absolute; empty if it cannot be made absolute.
  static std::filesystem::path base_of(const std::filesystem::path& file);
  /// Parses TOML or JSON text; `source` names it in errors; relative `file:`
  /// routing paths are resolved against `base` (empty: left as they are).
  static SweepSpec parse(std::string_view text, const std::string& source, bool json,
                         const std::filesystem::path& base = {});

  /// The product in axis order, filtered. Throws core::InputError when the
  /// filters leave no point or fail on one (division by zero, ...), and
  /// when the axes have more than kMaxSweepCombinations combinations
  /// (before any is built) or the filters keep more than kMaxSweepPoints.
  [[nodiscard]] std::vector<Point> points() const;
  /// True with an axis of AxisInfo::robust (trials, straggler_factor,
  /// fail_at, ...): every point is a robustness point, and the CSV's metrics
  /// are eval::robust_csv_header()'s.
  [[nodiscard]] bool robust() const;
  /// The metric columns of this sweep's rows (eval::csv_header() or
  /// eval::robust_csv_header()).
  [[nodiscard]] std::string metrics_header() const;
  /// The axis named `name`, or nullptr.
  [[nodiscard]] const Axis* axis(std::string_view axis_name) const;
  /// Sets axis `name` to `values` (adds it, in axis_table() order, when the
  /// file has none): an override, as `flux evaluate`'s options are over a
  /// preset. Each value is checked as the file's are (given as text: an
  /// integer axis's as digits); two that mean the same (1us and 1000ns, 5%
  /// and 0.05) are refused. core::InputError naming the axis and the value.
  void set_axis(std::string_view axis_name, const std::vector<std::string>& values);
  /// A filter's view of a point's `values` (one per axis): names, integers,
  /// durations in ps, percentages, factors x100.
  [[nodiscard]] ExprLookup lookup(const std::vector<std::string>& values) const;
};

/// What a plot multiplies `column`'s values by to draw them in `unit`
/// (PlotSpec::units): ms of a time (a column in s, a duration axis) 1e3, MiB
/// of a size (a column in bytes) 2^-20; 0 when `unit` is not one of its.
double plot_unit_scale(std::string_view column, std::string_view unit);

/// Memory a point is expected to need at its peak, bytes: the workload's
/// estimate (core::workload_memory_bytes) times kPointMemoryFactor for the
/// schedule, the simulator's state and the solver, plus kPointMemoryBaseBytes.
std::uint64_t point_memory_bytes(const eval::EvalPoint& config);
inline constexpr std::uint64_t kPointMemoryFactor = 4;
inline constexpr std::uint64_t kPointMemoryBaseBytes = std::uint64_t{64} << 20;

}  // namespace flux::sweep
