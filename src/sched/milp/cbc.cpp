// CBC back end: loads a MilpModel into OsiClpSolverInterface and runs CBC's
// standard driver (CbcMain0/CbcMain1: preprocessing, cut generators,
// heuristics, threads) with a time limit, a relative gap and a MIP start.
//
// Watchdog. CBC checks its time limit between nodes only; preprocessing, a
// root LP or its own clean-up can run far past it (measured: 66 s for a 30 s
// limit, minutes for 60 s, on 180k-row models). So the solve runs in a
// forked child that sends its result back through a pipe; the parent waits
// until the limit plus a grace period (10%, at least 2 s, at most 60 s) and
// then kills it. A killed solve reports no solution: the caller keeps its
// warm start. The child shares nothing else with the parent (copy-on-write
// memory, its own stdout redirection) and leaves with _exit.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "flux/core/error.hpp"
#include "osi_load.hpp"
#include "solver.hpp"

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

namespace {

MilpResult solve_here(const MilpModel& m, const CbcParams& params,
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

// The result on the pipe: a fixed header, then the values.
struct Header {
  std::int32_t status;
  std::int64_t nodes;
  double objective;
  double bound;
  double seconds;
  std::uint64_t values;
};

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Reads everything the child writes until EOF or `deadline`; false on timeout.
bool read_until(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    const int r = poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // EOF (or an error: treated as the end)
    out.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

MilpResult solve_with_cbc(const MilpModel& m, const CbcParams& params,
                          const std::vector<double>* warm_start) {
  if (!params.watchdog) return solve_here(m, params, warm_start);
  const auto t0 = std::chrono::steady_clock::now();
  int fds[2];
  if (pipe(fds) != 0) return solve_here(m, params, warm_start);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return solve_here(m, params, warm_start);
  }
  if (pid == 0) {  // the child: solve, send, leave without running the parent's exit code
    close(fds[0]);
    MilpResult r;
    try {
      r = solve_here(m, params, warm_start);
    } catch (...) {
      r.status = schedule::SolveStatus::kError;
    }
    const Header h{static_cast<std::int32_t>(r.status),
                   r.nodes,
                   r.objective,
                   r.bound,
                   r.seconds,
                   r.values.size()};
    const bool ok = write_all(fds[1], &h, sizeof h) &&
                    write_all(fds[1], r.values.data(), r.values.size() * sizeof(double));
    close(fds[1]);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  // CBC can overrun its own limit (presolve, a long node); the caller's
  // whole run must stay within a few seconds of its limit.
  const double grace = std::clamp(0.05 * params.time_limit_s, 1.0, 3.0);
  const auto deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(params.time_limit_s + grace));
  std::string data;
  const bool finished = read_until(fds[0], data, deadline);
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  MilpResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Header h{};
  if (!finished || data.size() < sizeof h) {
    result.status = schedule::SolveStatus::kNoSolution;
    result.killed = !finished;
    return result;
  }
  std::memcpy(&h, data.data(), sizeof h);
  if (data.size() != sizeof h + h.values * sizeof(double)) {
    result.status = schedule::SolveStatus::kError;
    return result;
  }
  result.status = static_cast<schedule::SolveStatus>(h.status);
  result.nodes = h.nodes;
  result.objective = h.objective;
  result.bound = h.bound;
  result.values.resize(h.values);
  std::memcpy(result.values.data(), data.data() + sizeof h, h.values * sizeof(double));
  return result;
}

}  // namespace flux::sched
