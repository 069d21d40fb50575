#pragma once
// The presets of `flux evaluate` (paper-fig2, real-jobs, robustness, moe,
// fabrics) are
// shipped sweep files, sweeps/<name>.toml, compiled into flux
// (cmake/EmbedSweeps.cmake) so a binary finds them wherever it runs. `flux
// evaluate --preset NAME` reads one, sets its options as axis overrides
// (SweepSpec::set_axis), and runs the points through the sweep runner
// (runner.hpp), as `flux sweep` does, into the CSV users know (fig2.csv,
// jobs.csv, robustness.csv, moe.csv, fabrics.csv: PresetCsv).
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::sweep {

/// A sweep file compiled into flux.
struct PresetFile {
  std::string_view name;  ///< the preset: the file's stem
  std::string_view path;  ///< where it is in the source tree, for messages
  std::string_view text;  ///< its TOML
};
/// Every shipped sweep file, in name order (generated at build time).
const std::vector<PresetFile>& preset_files();

/// The preset's sweep file, parsed. Throws core::InputError naming "preset"
/// and the name when there is no such preset.
SweepSpec preset_spec(const std::string& name);

/// The stem of a preset's CSV: paper-fig2: fig2, real-jobs: jobs, else its name.
std::string preset_stem(std::string_view preset);

/// Puts the points in a preset CSV's row order: by job (in the order the
/// points first have it), fabric (eval::RowFabric, in the order the points
/// first have it), tau (ascending), scheduler (the axis's order) and,
/// in a robustness study, perturbation (none, the jitters, the stragglers,
/// the failures, each in its axis's order).
void preset_order(const SweepSpec& spec, std::vector<Point>& points);

/// A preset's CSV: the metric columns alone (eval::csv_header() or
/// eval::robust_csv_header(): a row says its job, tau, scheduler and fabric
/// or perturbation), one row per point in the points' order, then the rows of
/// points the run does not have, as they were. Rewritten whole (through a
/// temporary and a rename) after every point.
class PresetCsv {
 public:
  /// Reads `file` unless `fresh` or missing (a CSV of an earlier version
  /// too: eval::read_csv); a row of a point measured under another
  /// configuration is a core::InputError (eval::check_resume).
  PresetCsv(std::filesystem::path file, const std::vector<Point>& points, bool fresh);

  /// The points without a row.
  [[nodiscard]] std::vector<std::size_t> pending() const;
  /// Rows read from the file.
  [[nodiscard]] std::size_t resumed() const { return resumed_; }
  /// Point `index`'s row (its metrics), then the file rewritten.
  void add(std::size_t index, const std::string& metrics);
  void write() const;
  /// The rows of the points in the sweep's layout (sweep::csv_row), by point
  /// key: for the sweep's summary and plots.
  [[nodiscard]] std::map<std::string, std::string> sweep_rows(const SweepSpec& spec) const;
  /// The rows of the points, parsed.
  [[nodiscard]] std::vector<eval::EvalRow> eval_rows() const;
  [[nodiscard]] std::vector<eval::RobustRow> robust_rows() const;

 private:
  std::filesystem::path file_;
  const std::vector<Point>* points_;
  bool robust_ = false;
  std::vector<std::string> rows_;    ///< per point: its metrics, empty when not measured
  std::vector<std::string> others_;  ///< rows of no point of this run, in file order
  std::size_t resumed_ = 0;
};

}  // namespace flux::sweep
