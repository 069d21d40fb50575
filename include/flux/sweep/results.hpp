#pragma once
// The results of a sweep: <name>.csv, one row per point, appended as points
// finish (each row written whole and synced, so a crash leaves at most a
// torn last row, which the next run drops), rewritten in the points' order
// when the sweep ends; the summary and the gnuplot scripts.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flux/sweep/spec.hpp"

namespace flux::sweep {

/// How a point ended: its CSV's point_status.
enum class PointStatus : std::uint8_t {
  kOk,
  kError,    ///< the point threw (a scheduler or the simulator refused it)
  kInvalid,  ///< its configuration does not validate (never run)
  kTimeout,  ///< killed after the wall-clock limit (--point-timeout)
  kMemory,   ///< its memory estimate exceeds the budget (never run), or it ran out
  kCrashed,  ///< its process died of a signal
};
std::string_view to_string(PointStatus s);
/// The status a CSV's point_status names; nullopt for an unknown one.
std::optional<PointStatus> status_of(std::string_view text);

/// The result of one point.
struct Outcome {
  PointStatus status = PointStatus::kOk;
  std::string error;    ///< why it failed (one line, no commas)
  double wall_s = 0;    ///< wall time of its process
  std::string metrics;  ///< eval::csv_row() of its row; empty when it failed
};

/// Columns before the metrics (eval::csv_header()), after the axes.
inline constexpr const char* kPointColumns = "point_status,point_error,wall_s";
/// The suffix of a metric column named like an axis of the sweep whose value
/// may differ from the axis's (docs/formats.md, "Sweep files"): the row's
/// `trials` under a `trials` axis is `trials_measured`.
inline constexpr const char* kMeasuredSuffix = "_measured";

/// The metric columns of a sweep's CSV, one per metric of
/// SweepSpec::metrics_header(): each column name once. A metric named like an
/// axis is left out (empty) when it always equals the axis (scheduler,
/// layers, tp, dp, switches, seed, straggler_rank, scaleup_size), else
/// renamed <name>_measured (kMeasuredSuffix).
std::vector<std::string> metric_columns(const SweepSpec& spec);
/// The header of a sweep's CSV: its axes, kPointColumns, metric_columns().
std::string csv_header(const SweepSpec& spec);
/// One row (no line end): the point's values, its outcome and the metrics
/// of metric_columns().
std::string csv_row(const SweepSpec& spec, const Point& point, const Outcome& outcome);
/// The header flux wrote before metric_columns() (every metric, those named
/// like an axis again), which ResultFile still resumes (csv_upgrade).
std::string legacy_csv_header(const SweepSpec& spec);

/// The CSV of a sweep being run.
class ResultFile {
 public:
  /// Opens `file`, creating it with its header when missing (or `fresh`).
  /// An existing file must have `header`, and every row must be one of
  /// `points` with a known point_status (core::InputError otherwise, the
  /// file left as it was); then a last row without its line end (a crash
  /// while writing it) is cut off. A symlink or a file that is not regular
  /// is refused; a missing file is created (O_EXCL).
  /// A file with one of `upgrade.headers` instead is one of an earlier
  /// version: its rows are converted by `upgrade.row` (given the index of
  /// the header) and the file rewritten with `header`.
  struct Upgrade {
    std::vector<std::string> headers;
    std::function<std::string(std::size_t, const std::string&)> row;
  };
  ResultFile(std::filesystem::path file, std::string header, const std::vector<Point>& points,
             bool fresh, Upgrade upgrade = {});
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  /// Rows already in the file by point key (the later of two wins) and their
  /// point_status.
  [[nodiscard]] const std::map<std::string, std::string>& finished() const { return status_; }
  /// Appends one row and syncs it to disk before returning; when that fails
  /// (a full disk), cuts the file back to its last whole row and throws.
  void append(const std::string& key, const std::string& row);
  /// Rewrites the file (through a temporary and a rename) with one row per
  /// key: those of `order` first, in that order, then any others in the
  /// order they were written.
  void rewrite_sorted(const std::vector<std::string>& order);
  /// The rows by key.
  [[nodiscard]] const std::map<std::string, std::string>& rows() const { return rows_; }
  /// Rows cut off as torn when the file was opened (0 or 1).
  [[nodiscard]] std::size_t torn_rows() const { return torn_; }

 private:
  void load(const std::vector<Point>& points, bool fresh);

  std::filesystem::path file_;
  std::string header_;
  std::size_t key_columns_ = 0;
  int fd_ = -1;
  std::map<std::string, std::string> rows_;    ///< key -> row
  std::map<std::string, std::string> status_;  ///< key -> point_status
  std::vector<std::string> written_;           ///< keys in file order
  std::size_t torn_ = 0;
  Upgrade upgrade_;
};

/// Sweep CSVs of earlier versions, converted row by row: the version before
/// metric_columns() (legacy_csv_header(): every metric after the axes) and,
/// for evaluation rows, the ones before the last columns the row format
/// gained (eval::csv_header_of_version; those columns are left empty).
ResultFile::Upgrade csv_upgrade(const SweepSpec& spec);

/// A terminal summary: point counts by status, then per point of the other
/// axes the first scheduler's iteration time and each other's ratio to it.
std::string summary(const SweepSpec& spec, const std::vector<Point>& points,
                    const std::map<std::string, std::string>& rows);

/// A self-contained gnuplot script (data inline) drawing `plot` into `png`
/// and, unless `svg` is empty, again into `svg`: one panel per row of the
/// plot and metric (`set multiplot` when there are several), a line per
/// series, labels in words with units, no enhanced text, an integer axis
/// ticked at its values, log scales where asked or where the values span
/// more than two decades (never over a value <= 0).
std::string gnuplot_script(const SweepSpec& spec, const PlotSpec& plot,
                           const std::vector<Point>& points,
                           const std::map<std::string, std::string>& rows, const std::string& png,
                           const std::string& svg = "");

/// The file name stem of a plot: its `name`, else <sweep>-<y...>-by-<x>.
std::string plot_stem(const SweepSpec& spec, const PlotSpec& plot);

}  // namespace flux::sweep
