#pragma once
// Solving a MilpModel with COIN-OR CBC (through its C++ library, with CBC's
// standard driver: preprocessing, cuts and heuristics), and the model's
// exchange formats: LP and MPS out, a solution file in the common ".sol"
// layout back in.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flux/schedule/schedule.hpp"
#include "model.hpp"

namespace flux::sched {

/// Tests only: makes the watchdog's child stop once it has sent an
/// incumbent of objective below `stall_below` (model units), as a solve
/// stuck past its limit would (it waits to be killed), or with `die` kill
/// itself at that point, as a crash would.
struct CbcTestHook {
  double stall_below = -std::numeric_limits<double>::infinity();  ///< off
  bool die = false;
};

struct CbcParams {
  double time_limit_s = 60;
  double relative_gap = 1e-4;
  int threads = 1;
  bool verbose = false;  ///< CBC's log on stderr
  /// Solve in a child process that streams every improving incumbent back,
  /// and kill it when the time limit plus a grace period (5%, 1 s to 3 s)
  /// has passed: CBC itself can overrun its limit.
  bool watchdog = true;
  CbcTestHook test_hook;
  /// SchedulerOptions::stop: with the watchdog, raising it kills the solve
  /// within 100 ms, keeping its last incumbent (CbcEnd::kStopped). Without
  /// the watchdog CBC does not look at it.
  const std::atomic<bool>* stop = nullptr;
};

/// How a solve ended.
enum class CbcEnd : std::uint8_t {
  kFinished,  ///< CBC returned its result
  kKilled,    ///< the watchdog killed it past the time limit
  kDied,      ///< the child ended without a result (a crash, a failed write)
  kStopped,   ///< the watchdog killed it when CbcParams::stop was raised
};

struct MilpResult {
  schedule::SolveStatus status = schedule::SolveStatus::kError;
  /// Column values of the best solution (empty if none). After a kill or a
  /// crash: the last incumbent the child sent, status feasible.
  std::vector<double> values;
  double objective = 0;  ///< model units (us)
  double bound = 0;      ///< a proven lower bound, model units (0: none)
  double seconds = 0;    ///< wall time of the solve
  long nodes = 0;
  CbcEnd end = CbcEnd::kFinished;
  int incumbents = 0;  ///< improving incumbents the child sent (watchdog only)
};

/// Solves `m` with CBC, optionally from `warm_start` (a feasible column
/// vector). Never writes to stdout: CBC's log goes to stderr when verbose.
MilpResult solve_with_cbc(const MilpModel& m, const CbcParams& params,
                          const std::vector<double>* warm_start);

/// flux-milp's run (MilpScheduler::run) with a test hook for CBC's child.
schedule::Schedule run_flux_milp(const core::Workload& w, const core::System& system,
                                 const SchedulerOptions& options, const CbcTestHook& hook);

/// The LP relaxation of the MILP (with the horizon of an incumbent of
/// makespan horizon_ps, without the combinatorial bound row) solved by Clp
/// within time_limit_s: a lower bound on the optimum in ps, rounded down;
/// nullopt when Clp did not finish (docs/model.md, "Lower bounds").
std::optional<core::TimePs> lp_relaxation_bound(const core::Workload& w, const core::System& system,
                                                std::span<const core::TimePs> p,
                                                const core::IdealTiming& timing,
                                                core::TimePs horizon_ps, double time_limit_s);

/// Throws core::InputError unless `path` names an LP (".lp") or MPS
/// (".mps"; ".mps.gz" not supported) file.
void check_model_format(const std::filesystem::path& path);

/// `m` as the text of an LP or MPS file, chosen by the extension of `path`
/// (check_model_format).
std::string milp_model_text(const MilpModel& m, const std::filesystem::path& path);

/// Writes milp_model_text(m, path) to `path` by the rules of every output
/// (io/save.hpp: a temporary renamed over a regular file).
void export_milp(const MilpModel& m, const std::filesystem::path& path);

/// Reads a solution file: Gurobi/HiGHS/SCIP/CBC ".sol" layouts all have
/// lines holding a column name followed by its value (CBC prefixes an index);
/// lines starting with '#' and unknown names are skipped. Columns not listed
/// are 0. Throws core::InputError naming the file when no column is found or
/// a value does not parse.
std::vector<double> read_solution(const MilpModel& m, const std::filesystem::path& path);

}  // namespace flux::sched
