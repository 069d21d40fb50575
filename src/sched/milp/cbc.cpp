// CBC back end: loads a MilpModel into OsiClpSolverInterface and runs CBC's
// standard driver (CbcMain0/CbcMain1: preprocessing, cut generators,
// heuristics, threads) with a time limit, a relative gap and a MIP start.
#include <fcntl.h>
#include <unistd.h>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "flux/core/error.hpp"
#include "flux/sched/milp_solver.hpp"
#include "osi_load.hpp"

namespace flux::sched {
namespace {

// CBC's driver prints on stdout; for the duration of a solve its file
// descriptor points at stderr (verbose) or /dev/null, then is restored.
class StdoutRedirect {
 public:
  explicit StdoutRedirect(bool to_stderr) {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int target = to_stderr ? dup(STDERR_FILENO) : open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && target >= 0) dup2(target, STDOUT_FILENO);
    if (target >= 0) close(target);
  }
  ~StdoutRedirect() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
    }
  }
  StdoutRedirect(const StdoutRedirect&) = delete;
  StdoutRedirect& operator=(const StdoutRedirect&) = delete;

 private:
  int saved_ = -1;
};

int no_callback(CbcModel*, int) {
  return 0;
}

}  // namespace

void load_into_osi(const MilpModel& m, OsiClpSolverInterface& solver) {
  const int rows = static_cast<int>(m.num_rows());
  const int cols = static_cast<int>(m.num_cols());
  std::vector<CoinBigIndex> start(m.row_start.begin(), m.row_start.end());
  std::vector<int> length(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) length[r] = static_cast<int>(start[r + 1] - start[r]);
  const CoinPackedMatrix matrix(false, cols, rows, start.back(), m.row_val.data(), m.row_col.data(),
                                start.data(), length.data());
  solver.loadProblem(matrix, m.col_lb.data(), m.col_ub.data(), m.obj.data(), m.row_lb.data(),
                     m.row_ub.data());
  solver.setIntParam(OsiNameDiscipline, 2);
  for (int c = 0; c < cols; ++c) {
    if (m.is_integer[c]) solver.setInteger(c);
    solver.setColName(c, m.col_names[c]);
  }
  // With column names set, rows need names too: Clp's presolve reads them
  // (without, CBC 2.10 crashes in ClpPresolve: coin-or/Cbc issue 515).
  for (int r = 0; r < rows; ++r) {
    std::string name(1, 'r');
    name.append(std::to_string(r));
    solver.setRowName(r, name);
  }
  solver.setObjSense(1.0);
}

MilpResult solve_with_cbc(const MilpModel& m, const CbcParams& params,
                          const std::vector<double>* warm_start) {
  const auto t0 = std::chrono::steady_clock::now();
  MilpResult result;
  OsiClpSolverInterface solver;
  load_into_osi(m, solver);
  solver.messageHandler()->setLogLevel(0);

  CbcModel model(solver);
  CbcSolverUsefulData data;
  std::vector<std::string> args = {"flux-milp",
                                   "-timeMode",
                                   "elapsed",
                                   "-seconds",
                                   std::to_string(params.time_limit_s),
                                   "-ratioGap",
                                   std::to_string(params.relative_gap),
                                   "-threads",
                                   std::to_string(params.threads),
                                   "-log",
                                   params.verbose ? "1" : "0",
                                   "-solve",
                                   "-quit"};
  {
    StdoutRedirect redirect(params.verbose);
    CbcMain0(model, data);
    if (warm_start != nullptr) {
      std::vector<const char*> names;
      for (const std::string& s : m.col_names) names.push_back(s.c_str());
      model.setMIPStart(static_cast<int>(names.size()), names.data(), warm_start->data());
    }
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    CbcMain1(static_cast<int>(argv.size()), argv.data(), model, no_callback, data);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.nodes = model.getNodeCount();
  result.bound = model.getBestPossibleObjValue();
  const double* best = model.bestSolution();
  if (best != nullptr) {
    result.values.assign(best, best + m.num_cols());
    result.objective = model.getObjValue();
  }
  if (model.isProvenInfeasible()) {
    result.status = schedule::SolveStatus::kInfeasible;
  } else if (best == nullptr) {
    result.status =
        model.status() == 2 ? schedule::SolveStatus::kError : schedule::SolveStatus::kNoSolution;
  } else if (model.isProvenOptimal()) {
    result.status = schedule::SolveStatus::kOptimal;
  } else {
    result.status = schedule::SolveStatus::kFeasible;
  }
  return result;
}

}  // namespace flux::sched
