#pragma once
// A preset run into a directory, what `flux evaluate` and the Python
// bindings' flux.evaluate share. A preset is a shipped sweep file
// (sweeps/<preset>.toml, compiled in: sweep::preset_spec); the options given
// are axis overrides on it (the layers, the delays, the schedulers, the
// model and GPU, --tp and --dp, the system's options, the time limit and
// --full, the robustness lists and options: so the CSV, the sweep rows and
// the plots' titles agree) or applied to every point (the schedulers' other
// options). Its points run through the sweep runner, each in a process of
// its own, `jobs` at once, into <stem>.csv (fig2.csv, jobs.csv,
// robustness.csv, moe.csv, fabrics.csv: rewritten after every point, so an
// interrupted run resumes) and summary.txt. Nothing here prints: the lines a
// run reports go to its callback, the summary comes back as text.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flux/eval/robustness.hpp"
#include "flux/frontend/scheduler_run.hpp"
#include "flux/frontend/system.hpp"
#include "flux/frontend/training.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::frontend {

/// `flux evaluate`'s options, as given (empty lists: the preset's).
struct EvaluateOptions {
  std::string preset = "paper-fig2";
  std::vector<std::string> layers;      ///< --layers
  std::vector<std::string> taus;        ///< --tau
  std::vector<std::string> schedulers;  ///< --schedulers
  TrainingOptions training;
  SystemOptions system;
  SchedulerRun run;
  unsigned jobs = 1;  ///< points at once
  bool full = false;  ///< 600 s solves unless the time limit is given
  bool fresh = false;
  // The robustness preset's lists and options (eval::kRobustnessOptions).
  std::vector<std::string> jitters;
  std::vector<std::string> straggler_factors;
  std::vector<std::string> failure_jitters;  ///< {"none"}: no failure point
  std::vector<std::function<void(eval::RobustOptions&)>> robust;

  // Which options were given (their defaults do not count).
  bool time_limit_given = false;
  std::set<std::string, std::less<>> system_flags;    ///< flags of core::kSystemOptions
  std::set<std::string, std::less<>> training_flags;  ///< of workload::kTrainingOptions

  /// The bounds of the options not checked elsewhere (jobs); throws
  /// core::InputError naming the flag.
  void validate() const;
};

/// The jobs a run may have at once (--jobs).
inline constexpr unsigned kMaxEvaluateJobs = 4096;

/// A preset with the options given: its sweep (named by the CSV's stem) and
/// its points in the CSV's order.
struct EvaluatePlan {
  sweep::SweepSpec spec;
  std::vector<sweep::Point> points;
};

/// The preset with the options, every point validated; throws
/// core::InputError naming the option at fault.
EvaluatePlan make_points(const EvaluateOptions& o);

/// What a run did.
struct EvaluateResult {
  std::filesystem::path csv;            ///< <dir>/<stem>.csv
  std::filesystem::path summary_file;   ///< <dir>/summary.txt; empty when points failed
  std::string summary;                  ///< its text; empty when points failed
  std::size_t points = 0;               ///< the preset's
  std::size_t resumed = 0;              ///< rows already in the CSV
  std::size_t ran = 0;                  ///< points run now
  std::size_t measured = 0;             ///< of those, measured
  std::vector<std::string> cannot_run;  ///< "key: why": the configuration cannot run them
  std::vector<std::string> failures;    ///< "key: status: error": any other failure
  bool stopped = false;  ///< `stop` ended the run: no summary (the CSV has the rows finished)
  std::map<std::string, std::string> sweep_rows;  ///< by point key, for the plots

  /// The error a run with failures ends with: how many failed, where the
  /// others are, the first.
  [[nodiscard]] std::string failure_message() const;
};

/// Receives each line a run reports (no newline): what it runs, what it
/// resumes, each point as it ends ("[  3/40] ...").
using EvaluateReport = std::function<void(const std::string& line)>;

/// Runs the plan's points into `dir` (which the caller prepared and holds:
/// io::prepare_output_directory, io::DirectoryLock): the CSV resumed unless
/// `o.fresh`, each point's line reported as it ends, the CSV rewritten, and
/// unless points failed the summary (eval::summary_table or
/// eval::robustness_summary, then the points the configuration cannot run)
/// written to <dir>/summary.txt. Failed points do not throw: the caller
/// reads `failures` (failure_message()). `stop` (sweep::RunOptions::stop,
/// asked while points run): true kills the running points and ends the run
/// once the CSV is written, `stopped`.
EvaluateResult run_evaluate(const EvaluateOptions& o, const EvaluatePlan& plan,
                            const std::filesystem::path& dir, const EvaluateReport& report,
                            const std::function<bool()>& stop = {});

}  // namespace flux::frontend
