#pragma once
// Running a sweep's points: each in a process of its own (fork), so that a
// point that crashes or runs out of memory loses only itself; at most `jobs`
// at once and never more than the memory budget holds by the points'
// estimates, largest first (docs/model.md has no math here; docs/formats.md,
// "Sweep files", describes the statuses).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::sweep {

struct RunOptions {
  unsigned jobs = 1;                      ///< points at once
  std::uint64_t memory_budget_bytes = 0;  ///< sum of running estimates; 0: no limit
  double point_timeout_s = 0;             ///< wall-clock limit of a point; 0: none
  /// Asked, when set, before each point starts and at least every 100 ms
  /// while points run (the Python bindings' Ctrl-C): true kills the running
  /// points (not reported: they did not finish) and ends run_points.
  std::function<bool()> stop;
};

/// RunOptions' numeric options (core/option.hpp), for the CLI and Python
/// alike.
inline constexpr auto kRunOptions = std::tuple{
    core::NumberOption<RunOptions, double>{
        "point_timeout", "--point-timeout",
        "wall-clock limit of one point, e.g. 600s or 1500ms: then it is killed and recorded as "
        "timeout (default and 0: none; the schedulers' own limit is the time_limit axis)",
        &RunOptions::point_timeout_s, 0.0, 9.2e6, false, false, core::OptionUnit::kSeconds},
};

/// The state of a run, for a progress line.
struct RunProgress {
  std::size_t done = 0;     ///< points finished in this run (failed included)
  std::size_t failed = 0;   ///< of those, failed
  std::size_t running = 0;  ///< started, not finished
  std::size_t total = 0;    ///< points this run has to run
  double elapsed_s = 0;     ///< since the run started
};

/// Runs one point in this process; never throws for the point's own errors
/// (they become a kError outcome; std::bad_alloc a kMemory one).
Outcome run_point(const Point& point);

/// Runs `points[todo[k]]` in child processes as RunOptions says. A point
/// that is invalid or whose estimate exceeds the budget is not run: its
/// outcome says why. `on_done(index, outcome)` is called in this process as
/// each point ends, in the order they end. Children are forked from the
/// calling thread (a child dies with it: PR_SET_PDEATHSIG).
void run_points(
    const std::vector<Point>& points, const std::vector<std::size_t>& todo,
    const RunOptions& options,
    const std::function<void(std::size_t, const Outcome&, const RunProgress&)>& on_done);

/// The order points are started in: largest memory estimate first, ties in
/// the points' order (deterministic).
std::vector<std::size_t> largest_first(const std::vector<Point>& points,
                                       std::vector<std::size_t> todo);

/// Serialises an outcome for a pipe or a message (one line per field) and back.
std::string encode(const Outcome& o);
Outcome decode(const std::string& s);

/// The outcome of a point that is not run: invalid, or over the budget.
std::optional<Outcome> refuse(const Point& point, std::uint64_t memory_budget_bytes);

}  // namespace flux::sweep
