// CBC back end: loads a MilpModel into OsiClpSolverInterface and runs CBC's
// standard driver (CbcMain0/CbcMain1: preprocessing, cut generators,
// heuristics, threads) with a time limit, a relative gap and a MIP start.
//
// Watchdog. CBC checks its time limit between nodes only; preprocessing, a
// root LP or its own clean-up can run far past it (measured: 66 s for a 30 s
// limit, minutes for 60 s, on 180k-row models). So the solve runs in a
// forked child; the parent waits until the limit plus a grace period (5%,
// 1 s to 3 s) and then kills it. The child shares nothing else with the
// parent (copy-on-write memory, its own stdout redirection) and leaves with
// _exit, and dies with the thread that forked it (PR_SET_PDEATHSIG: a
// sweep's point killed for its time limit takes its solve with it). A raised
// CbcParams::stop (the Python bindings' Ctrl-C) kills it within 100 ms.
//
// Incumbents. A kill must not lose what CBC found, so the child streams
// every improving incumbent as CBC finds it (a CbcEventHandler on the
// `solution` and `heuristicSolution` events; one installed before the
// branch and bound goes at its first node or heuristic event), then its
// final result, as frames on a pipe (result_frame.hpp: length, payload,
// checksum). CBC solves a preprocessed copy of the model (columns dropped,
// fixed or substituted), so the handler maps the incumbent back to the
// model's own columns first (CbcModel::postProcessedSolver: the integers
// fixed, an LP, CglPreProcess's postsolve), checks it against every bound,
// row and integrality of the model, and sends it only when its objective
// improves on the last one sent. With it goes CBC's best bound at that
// moment (getBestPossibleObjValue, when it lies below the incumbent: before
// the root LP it is the incumbent itself, not a bound). The parent reads
// while it waits (the pipe never fills and blocks the child), keeps the
// latest complete frame, and after a kill or a crash returns that incumbent
// with status feasible and how the solve ended (MilpResult::end); a frame
// cut short by the kill is never complete, so never a result.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CglPreProcess.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "osi_load.hpp"
#include "result_frame.hpp"
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

using Clock = std::chrono::steady_clock;

using core::seconds_since;

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Whether x meets every bound, row and integrality of m, within 1e-4 model
// units (100 ps; 1e-4 of an integer) plus rounding on long rows.
bool satisfies(const MilpModel& m, std::span<const double> x) {
  constexpr double kTol = 1e-4;
  for (std::size_t c = 0; c < m.num_cols(); ++c) {
    if (!std::isfinite(x[c]) || x[c] < m.col_lb[c] - kTol || x[c] > m.col_ub[c] + kTol)
      return false;
    if (m.is_integer[c] && std::abs(x[c] - std::round(x[c])) > kTol) return false;
  }
  for (std::size_t r = 0; r < m.num_rows(); ++r) {
    double activity = 0;
    double scale = 0;
    for (std::int64_t k = m.row_start[r]; k < m.row_start[r + 1]; ++k) {
      const double term = m.row_val[k] * x[m.row_col[k]];
      activity += term;
      scale += std::abs(term);
    }
    const double tol = kTol + 1e-9 * scale;
    if (activity < m.row_lb[r] - tol || activity > m.row_ub[r] + tol) return false;
  }
  return true;
}

// The incumbent CBC has just installed, in the original model's columns;
// empty when it cannot be mapped back. CglPreProcess marks a plain presolve
// with 99 passes, which postProcessedSolver() does not handle.
std::vector<double> original_values(CbcModel& model, std::size_t cols) {
  const double* x = nullptr;
  const CglPreProcess* process = model.preProcess();
  if (process == nullptr) {
    if (static_cast<std::size_t>(model.getNumCols()) == cols) x = model.bestSolution();
  } else {
    const int passes = process->numberSolvers();
    if (passes < 1 || passes == 99 || process->presolve(passes - 1) == nullptr) return {};
    const OsiSolverInterface* original = model.postProcessedSolver(1);
    if (original != nullptr && static_cast<std::size_t>(original->getNumCols()) == cols) {
      x = original->getColSolution();
    }
  }
  if (x == nullptr) return {};
  return std::vector<double>(x, x + cols);
}

// In the child: sends every improving incumbent to the parent. Events
// before the branch and bound reach the caller's (unprocessed) model, not
// CBC's working copy, so an incumbent found there (the MIP start, the first
// heuristics) is sent at the next safe event inside it (a node, a
// heuristic's end), where the handler sees the working copy and its
// preprocessing. CBC clones its handlers (into that copy, sub-models of
// heuristics, threads); the clones share what was sent. Sub-models'
// solutions are their own small problems' and are skipped.
class IncumbentStream final : public CbcEventHandler {
 public:
  IncumbentStream(const MilpModel& m, int fd, const CbcTestHook& hook, Clock::time_point t0)
      : m_(&m), fd_(fd), hook_(hook), t0_(t0), sent_(std::make_shared<Sent>()) {}

  CbcEventHandler* clone() const override { return new IncumbentStream(*this); }

  CbcAction event(CbcEvent which) override {
    if ((which != solution && which != heuristicSolution && which != afterHeuristic &&
         which != node && which != treeStatus) ||
        model_ == nullptr || model_->parentModel() != nullptr ||
        model_->bestSolution() == nullptr) {
      return noAction;
    }
    const std::lock_guard<std::mutex> lock(sent_->mutex);
    // CBC's objective (of its own model) filters cheaply what is not new.
    const double cbc_objective = model_->getObjValue();
    if (!(cbc_objective < sent_->cbc_objective)) return noAction;
    sent_->cbc_objective = cbc_objective;
    MilpResult r;
    r.values = original_values(*model_, m_->num_cols());
    if (r.values.empty() || !satisfies(*m_, r.values)) return noAction;
    for (std::size_t c = 0; c < m_->num_cols(); ++c) r.objective += m_->obj[c] * r.values[c];
    if (!(r.objective < sent_->objective)) return noAction;
    r.status = schedule::SolveStatus::kFeasible;
    r.nodes = model_->getNodeCount();
    r.seconds = seconds_since(t0_);
    const double bound = model_->getBestPossibleObjValue();
    // A bound only when it is one of this objective (no preprocessing offset).
    if (std::isfinite(bound) && bound < cbc_objective - 1e-6 &&
        std::abs(cbc_objective - r.objective) <= 1e-6 * (1 + std::abs(r.objective))) {
      r.bound = bound;
    }
    sent_->objective = r.objective;
    (void)write_all(fd_, encode_frame(FrameKind::kIncumbent, r));
    if (r.objective < hook_.stall_below) {
      if (hook_.die) kill(getpid(), SIGKILL);
      while (true) pause();
    }
    return noAction;
  }

 private:
  struct Sent {
    std::mutex mutex;
    double cbc_objective = std::numeric_limits<double>::infinity();  ///< as CBC reports it
    double objective = std::numeric_limits<double>::infinity();      ///< of the values sent
  };
  const MilpModel* m_;
  int fd_;
  CbcTestHook hook_;
  Clock::time_point t0_;
  std::shared_ptr<Sent> sent_;
};

MilpResult solve_here(const MilpModel& m, const CbcParams& params,
                      const std::vector<double>* warm_start, const CbcEventHandler* handler) {
  const auto t0 = Clock::now();
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
    if (handler != nullptr) model.passInEventHandler(handler);
    if (warm_start != nullptr) {
      std::vector<const char*> names;
      for (const std::string& s : m.col_names) names.push_back(s.c_str());
      model.setMIPStart(static_cast<int>(names.size()), names.data(), warm_start->data());
    }
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());
    CbcMain1(static_cast<int>(argv.size()), argv.data(), model, no_callback, data);
  }
  result.seconds = seconds_since(t0);
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

// The child: solves, streaming incumbents, sends its result, and leaves
// without running the parent's exit code.
[[noreturn]] void run_child(int fd, const MilpModel& m, const CbcParams& params,
                            const std::vector<double>* warm_start) {
  // Line-buffered, so that the log of a solve killed later is not lost.
  if (params.verbose) std::setvbuf(stdout, nullptr, _IOLBF, 0);
  MilpResult r;
  try {
    const IncumbentStream stream(m, fd, params.test_hook, Clock::now());
    r = solve_here(m, params, warm_start, &stream);
  } catch (...) {
    r = MilpResult{};
    r.status = schedule::SolveStatus::kError;
  }
  const bool ok = write_all(fd, encode_frame(FrameKind::kFinal, r));
  close(fd);
  _exit(ok ? 0 : 1);
}

// What the parent read from the child.
struct ChildFrames {
  std::optional<MilpResult> final;
  std::optional<MilpResult> incumbent;  ///< the latest
  int incumbents = 0;
  bool ended = false;    ///< the child closed the pipe (done or dead) before the deadline
  bool stopped = false;  ///< CbcParams::stop was raised first
};

// Reads frames until the child closes the pipe, the deadline passes or
// `stop` is raised (checked every 100 ms).
ChildFrames read_frames(int fd, std::size_t columns, Clock::time_point deadline,
                        const std::atomic<bool>* stop) {
  ChildFrames out;
  FrameReader reader(columns);
  std::vector<char> buf(std::size_t{1} << 16);
  while (true) {
    if (stop_requested(stop)) {
      out.stopped = true;
      return out;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return out;
    pollfd pfd{fd, POLLIN, 0};
    const int r =
        poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), stop ? 100 : 1000)));
    if (r < 0 && errno != EINTR) return out;  // cannot wait: treated as the deadline
    if (r <= 0) continue;
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {  // EOF (or an error: treated as the end)
      out.ended = true;
      return out;
    }
    reader.append(buf.data(), static_cast<std::size_t>(n));
    while (std::optional<Frame> f = reader.next()) {
      if (f->kind == FrameKind::kFinal) {
        out.final = std::move(f->result);
      } else {
        out.incumbent = std::move(f->result);
        ++out.incumbents;
      }
    }
  }
}

// CBC's result from what the child sent: its final result, else (killed,
// crashed, or a final result without a solution) its last incumbent.
MilpResult result_of(ChildFrames frames) {
  MilpResult result;
  const bool final_has_none = frames.final && frames.final->values.empty() &&
                              (frames.final->status == schedule::SolveStatus::kNoSolution ||
                               frames.final->status == schedule::SolveStatus::kError);
  if (frames.final && !(final_has_none && frames.incumbent)) {
    result = std::move(*frames.final);
  } else if (frames.incumbent) {
    result = std::move(*frames.incumbent);
    result.status = schedule::SolveStatus::kFeasible;
  } else {
    result.status = schedule::SolveStatus::kNoSolution;
  }
  result.end = frames.final     ? CbcEnd::kFinished
               : frames.ended   ? CbcEnd::kDied
               : frames.stopped ? CbcEnd::kStopped
                                : CbcEnd::kKilled;
  result.incumbents = frames.incumbents;
  return result;
}

}  // namespace

MilpResult solve_with_cbc(const MilpModel& m, const CbcParams& params,
                          const std::vector<double>* warm_start) {
  if (!params.watchdog) return solve_here(m, params, warm_start, nullptr);
  const auto t0 = Clock::now();
  int fds[2];
  if (pipe(fds) != 0) return solve_here(m, params, warm_start, nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return solve_here(m, params, warm_start, nullptr);
  }
  if (pid == 0) {
    close(fds[0]);
    // A watchdog that dies (a sweep's point killed for its time limit)
    // takes its solve with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    run_child(fds[1], m, params, warm_start);
  }
  close(fds[1]);
  // CBC can overrun its own limit (presolve, a long node); the caller's
  // whole run must stay within a few seconds of its limit.
  const double grace = std::clamp(0.05 * params.time_limit_s, 1.0, 3.0);
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(params.time_limit_s + grace));
  ChildFrames frames = read_frames(fds[0], m.num_cols(), deadline, params.stop);
  close(fds[0]);
  if (!frames.ended) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  MilpResult result = result_of(std::move(frames));
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace flux::sched
