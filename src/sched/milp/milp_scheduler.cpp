// flux-milp: the paper's MILP (milp_model.hpp) solved by CBC, warm-started
// from the greedy list schedule, decoded into switch assignments and per-port
// orders, then left-shifted to exact integer start times (placement.hpp; in
// full duplex per-port epochs, so a send and its reverse may overlap). CBC's answer is
// its final solution or, when its watchdog killed it (cbc.cpp), the last
// incumbent it found; either is decoded alike and kept when it is no worse
// than the warm start.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "../heuristic/flux_heuristic.hpp"
#include "../heuristic/list_scheduler.hpp"
#include "../schedulers.hpp"
#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "solver.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

// Switch (the scale-up or packet fabric for a send without switch columns,
// core::electrical_switch) and exact
// start times from MILP column values.
Placement decode(const core::Workload& w, const core::System& system, std::span<const TimePs> p,
                 const MilpModel& m, const std::vector<double>& values) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  Placement pl;
  pl.sw.resize(n);
  std::vector<double> key(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    key[v] = values[m.t_col[v]];
    if (m.x_col[v * m.switches] < 0) {  // no switch columns: a scale-up or packet send
      const core::Task& t = w.tasks()[v];
      pl.sw[v] = core::electrical_switch(system.fabric(t.src, t.dst));
      continue;
    }
    std::uint32_t best = 0;
    for (std::uint32_t s = 1; s < m.switches; ++s) {
      if (values[m.x_col[v * m.switches + s]] > values[m.x_col[v * m.switches + best]]) best = s;
    }
    pl.sw[v] = core::SwitchId(best);
  }
  pl.start_ps = left_shift(w, p, system, pl.sw, key);
  return pl;
}

// The schedule of `best` with its bound (no better than its makespan) and
// status (optimal when the bound meets the makespan).
schedule::Schedule finish(const core::Workload& w, const core::System& system,
                          std::span<const TimePs> p, const Placement& best, TimePs bound,
                          schedule::SolveStatus status, std::chrono::steady_clock::time_point t0) {
  schedule::Schedule s = to_schedule(w, system, p, best);
  // On a fold CBC's optimum covers the symmetric schedules only.
  if (w.fold().folded() && status == schedule::SolveStatus::kOptimal) {
    status = schedule::SolveStatus::kFeasible;
  }
  finish_schedule(s, bound, status, t0);
  return s;
}

// Where CBC's answer came from, for the verbose log.
std::string cbc_source(const MilpResult& r) {
  switch (r.end) {
    case CbcEnd::kFinished:
      return "CBC's solution";
    case CbcEnd::kKilled:
      return "CBC's last incumbent before the watchdog stopped it";
    case CbcEnd::kDied:
      return "CBC's last incumbent before its process ended without a result";
    case CbcEnd::kStopped:
      return "CBC's last incumbent when it was stopped on request";
  }
  return "CBC";
}

}  // namespace

schedule::Schedule MilpScheduler::run(const core::Workload& w, const core::System& system,
                                      const SchedulerOptions& options) const {
  return run_flux_milp(w, system, options, CbcTestHook{});
}

schedule::Schedule run_flux_milp(const core::Workload& w, const core::System& system,
                                 const SchedulerOptions& options, const CbcTestHook& hook) {
  const auto t0 = std::chrono::steady_clock::now();
  const MilpOptions& mo = options.milp;
  if (!mo.export_path.empty()) check_model_format(mo.export_path);  // before any work
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, system, p, timing);

  // The warm start: the flux heuristic, with a tenth of the budget (at most
  // 30 s); plain greedy when warm starts are off (the paper's model).
  Placement incumbent =
      mo.warm_start
          ? flux_heuristic(w, system, p, timing, lb.best(),
                           HeuristicOptions{.budget_s = std::min(30.0, 0.1 * options.time_limit_s),
                                            .seed = options.seed,
                                            .max_moves = options.search_moves,
                                            .verbose = options.verbose,
                                            .stop = options.stop})
          : list_schedule(w, system, p, timing);
  const TimePs incumbent_ms = makespan(w, p, incumbent);

  // A model too large to hold is not built: the warm start, a valid
  // schedule with its bound, is the answer (status feasible), as when CBC
  // finds nothing better in time. Exporting it is refused instead.
  const MilpSize size = estimate_milp_size(w, system);
  if (size.bytes > mo.max_model_bytes) {
    const std::string what =
        "the model would have up to " + std::to_string(size.rows) + " rows and " +
        std::to_string(size.nonzeros) + " nonzeros (" +
        core::format_bytes(static_cast<double>(size.bytes)) + " with CBC), beyond its " +
        core::format_bytes(static_cast<double>(mo.max_model_bytes)) + " budget";
    if (!mo.export_path.empty() || !mo.solution_path.empty()) {
      throw core::InputError("", mo.export_path.empty() ? "solution" : "export_milp",
                             mo.export_path.empty() ? mo.solution_path : mo.export_path, what);
    }
    if (options.verbose) std::cerr << "flux-milp: " << what << "; reporting the warm start\n";
    return finish(w, system, p, incumbent, lb.best(), schedule::SolveStatus::kFeasible, t0);
  }

  MilpInputs in{p, &timing, std::nullopt, lb.best()};
  if (mo.horizon_big_m) in.horizon_ps = incumbent_ms;
  const MilpModel model = build_milp(w, system, in, mo);
  if (options.verbose) {
    std::cerr << "flux-milp: " << model.num_cols() << " columns (" << model.num_integers()
              << " integer), " << model.num_rows() << " rows; pairs: " << model.ordered_pairs
              << " ordered (" << model.ordered_kept << " kept), " << model.incomparable_pairs
              << " incomparable (" << model.incomparable_kept << " kept)"
              << (system.duplex == core::Duplex::kFull
                      ? ", " + std::to_string(model.reversed_pairs) +
                            " reversed (full duplex: none)"
                      : std::string())
              << "; greedy " << core::format_duration(incumbent_ms) << ", bound "
              << core::format_duration(lb.best()) << "\n";
  }
  if (!mo.export_path.empty()) {
    if (mo.export_sink) {
      mo.export_sink(milp_model_text(model, mo.export_path));
    } else {
      export_milp(model, mo.export_path);
    }
  }

  MilpResult result;
  if (mo.warm_start && incumbent_ms == lb.best() && mo.solution_path.empty()) {
    // The greedy schedule meets a lower bound: optimal, nothing to solve.
    result.status = schedule::SolveStatus::kOptimal;
    if (options.verbose) std::cerr << "flux-milp: the greedy schedule meets the lower bound\n";
  } else if (!mo.solution_path.empty()) {
    result.values = read_solution(model, mo.solution_path);
    result.status = schedule::SolveStatus::kFeasible;
  } else {
    // CBC gets what is left of the whole run's limit (the warm start and the
    // model took their share), less a reserve for decoding and validating.
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double left = options.time_limit_s - elapsed - std::min(1.0, 0.02 * options.time_limit_s);
    if (left > 0.05) {
      CbcParams params{left, options.relative_gap, options.threads, options.verbose, true,
                       hook, options.stop};
      std::vector<double> warm;
      if (mo.warm_start) warm = milp_solution_of(model, w, p, incumbent.sw, incumbent.start_ps);
      result = solve_with_cbc(model, params, mo.warm_start ? &warm : nullptr);
    } else {
      result.status = schedule::SolveStatus::kNoSolution;
      if (options.verbose) std::cerr << "flux-milp: no time left for CBC\n";
    }
  }

  if (options.verbose && result.seconds > 0) {
    std::cerr << "flux-milp: CBC " << schedule::to_string(result.status);
    if (result.end == CbcEnd::kKilled)
      std::cerr << " (stopped by the watchdog past the time limit)";
    if (result.end == CbcEnd::kDied) std::cerr << " (its process ended without a result)";
    if (result.end == CbcEnd::kStopped) std::cerr << " (stopped on request)";
    // Model units are microseconds.
    if (!result.values.empty()) std::cerr << ", objective " << result.objective / 1e3 << " ms";
    std::cerr << ", bound " << result.bound / 1e3 << " ms, " << result.nodes << " nodes, "
              << result.incumbents << (result.incumbents == 1 ? " incumbent" : " incumbents")
              << " streamed, " << result.seconds << " s\n";
  }
  Placement best = std::move(incumbent);
  TimePs best_ms = incumbent_ms;
  schedule::SolveStatus status = result.status;
  std::string source = mo.warm_start ? "the warm start" : "the greedy schedule";
  if (!result.values.empty()) {
    Placement solved = decode(w, system, p, model, result.values);
    const TimePs solved_ms = makespan(w, p, solved);
    const std::string from =
        mo.solution_path.empty() ? cbc_source(result) : "the solution in " + mo.solution_path;
    if (solved_ms <= best_ms || !mo.warm_start) {
      source = solved_ms == best_ms ? from + ", no better than " + source : from;
      best = std::move(solved);
      best_ms = solved_ms;
    } else {
      source += " (" + from + " decodes to " + core::format_duration(solved_ms) + ")";
    }
  } else if (status == schedule::SolveStatus::kNoSolution ||
             status == schedule::SolveStatus::kError) {
    // CBC found nothing, but the greedy schedule is a valid one.
    status = schedule::SolveStatus::kFeasible;
  }
  if (status == schedule::SolveStatus::kInfeasible) {
    throw core::Error(
        "flux-milp: CBC reports the model infeasible (a bug: the greedy schedule is feasible)");
  }

  // Bound: the better of the combinatorial one and CBC's (floored to whole
  // ps). On a folded workload CBC's proof covers only the schedules in which
  // every copy runs alike, and the job may do better: only the combinatorial
  // bound, valid for every schedule of the job, counts (docs/model.md,
  // "Folding").
  if (options.verbose) {
    std::cerr << "flux-milp: the schedule (" << core::format_duration(best_ms) << ") is " << source
              << "\n";
  }
  TimePs bound = lb.best();
  if (!w.fold().folded() && result.bound > 0 && std::isfinite(result.bound) &&
      mo.solution_path.empty()) {
    bound = std::max(bound, static_cast<TimePs>(std::floor(result.bound * kPsPerModelUnit)));
  }
  return finish(w, system, p, best, bound, status, t0);
}

}  // namespace flux::sched
