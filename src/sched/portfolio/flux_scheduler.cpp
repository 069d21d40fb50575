// `flux`, the default scheduler: the portfolio. Workload-aware list
// schedules improved by local search, exact search on small instances,
// anytime within the time limit, deterministic for a seed, with lower bounds
// and a certified gap (docs/model.md, "The flux scheduler"). It composes the
// algorithms of heuristic/, exact/, restriction.hpp and milp/, none of which
// includes this folder (src/sched/README.md, "Layout").
//
// 1-2. Portfolio of list schedules, then local search on the best
//    (flux_heuristic, heuristic/flux_heuristic.cpp, whose top describes
//    both), in what the steps below and the bounds leave of the time limit.
// 3. Exact search (exact/branch_and_bound.hpp) on instances of at most
//    kExactMaxSends sends: a branch and bound over serial generation from
//    the best schedule, within kExactMaxNodes nodes and the time left. When
//    it completes its schedule is optimal and its makespan the bound (not
//    on a folded workload, whose search covers symmetric schedules only).
// 4. Large-neighbourhood search (heuristic/lns.hpp) on instances of at most
//    kLnsMaxSends sends: windows of the schedule (consecutive sends by
//    start, or one port's) re-optimised exactly by the branch and bound,
//    the rest fixed; strictly better schedules replace the current one.
// 5. Bounds: the critical path and the per-port load with unavoidable
//    reconfigurations (bounds.hpp); on instances of at most
//    kRestrictionMaxSends sends the restriction bound on one-port windows
//    and, on small instances, destructive probes of the whole instance
//    (restriction.hpp; a schedule a probe finds replaces the best); on
//    instances of at most kLpMaxSends sends the MILP's LP relaxation under the final makespan's
//    horizon (milp/solver.hpp); each in a reserved share of the budget; the schedule is optimal
//    when it meets one.
// Full duplex (System::duplex == kFull): steps 1-2 run twice, in half and
// in full duplex (flux_heuristic.cpp); steps 3-5 and the bounds follow
// System::duplex themselves (docs/model.md, "Duplex").
#include <algorithm>
#include <chrono>
#include <iostream>

#include "../exact/branch_and_bound.hpp"
#include "../heuristic/flux_heuristic.hpp"
#include "../heuristic/lns.hpp"
#include "../milp/model.hpp"
#include "../milp/solver.hpp"
#include "../restriction.hpp"
#include "../schedulers.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/time.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"

namespace flux::sched {
namespace {

using core::TimePs;
using Clock = std::chrono::steady_clock;

// The LP relaxation: up to this many sends, in at most this share of the
// time limit and this many seconds.
// On the paper's instances it takes 0.9 s at 416 sends and 7 s at 1,664
// (docs/model.md, "The flux scheduler").
constexpr std::size_t kLpMaxSends = 1000;
constexpr double kLpShare = 0.2;
constexpr double kLpMaxSeconds = 10;
// Clp checks its time limit only between iterations: building, loading and
// starting a model of R rows takes about R / 300,000 s whatever the limit
// (measured: 920k rows took 3.2 s with a 0.2 s limit). The LP is skipped
// when the model's estimated rows (estimate_milp_size, an upper estimate)
// exceed this many per second of its budget.
constexpr double kLpRowsPerSecond = 250'000;

// The exact search (exact/branch_and_bound.hpp): up to this many sends,
// within this many nodes (the deterministic limit) and the time the
// heuristic leaves (at least this share of what remains for both). It runs
// 0.6-3.7 million nodes per second at 6-32 sends. From the heuristic's
// schedule it proves 11 of 12 random instances of 16 sends, 5 of 12 at 32,
// and still improves half of those of 48 sends (by up to 6.6%) and a
// quarter at 64; at 96-128 sends it gains little for 5-8 s
// (docs/benchmarks.md, "Exact search on small instances").
constexpr std::size_t kExactMaxSends = 64;
constexpr std::uint64_t kExactMaxNodes = 4'000'000;
constexpr double kExactShare = 0.5;

// Large-neighbourhood search (lns.hpp): up to this many sends, in at most
// this share of what the heuristic leaves; one window per kMovesPerWindow
// moves of --moves (200 windows by default), each with kLnsWork / V nodes
// within [kLnsMinNodes, kLnsMaxNodes]. A window's node costs O(window), its
// leaf O(suffix) (the replay, most of the time), hence nodes ~ 1 / V; twice
// the nodes of before issue 15's faster windows, in about the same time
// (docs/benchmarks.md, "Large-neighbourhood search and restriction bounds").
constexpr std::size_t kLnsMaxSends = 20'000;
constexpr double kLnsShare = 0.5;
constexpr std::uint64_t kMovesPerWindow = 100;
constexpr std::uint64_t kLnsWork = 4'000'000;
constexpr std::uint64_t kLnsMinNodes = 500;
constexpr std::uint64_t kLnsMaxNodes = 40'000;

// The restriction bound on one-port windows (restriction.hpp): up to this
// many sends, in at most this share of the time limit and this many seconds.
constexpr std::size_t kRestrictionMaxSends = 500;
constexpr double kRestrictionShare = 0.1;
constexpr double kRestrictionMaxSeconds = 5;

using core::seconds_since;

// What every step of the portfolio takes: the instance, its transmission
// times and ideal timing, the options, the run's clock and the shares of
// the time limit reserved for the bounds computed last.
struct SearchContext {
  const core::Workload& w;
  const core::System& system;
  std::span<const TimePs> p;
  const core::IdealTiming& timing;
  const SchedulerOptions& options;
  Clock::time_point t0;
  double lp_budget;           // the LP relaxation's share (0: not computed)
  double restriction_budget;  // the restriction bound's share (0: not computed)

  double elapsed() const { return seconds_since(t0); }
  // What the time limit leaves for steps 1-4 now.
  double search_left() const {
    return std::max(0.0, options.time_limit_s - (lp_budget + restriction_budget) - elapsed());
  }
  bool stopped() const { return stop_requested(options.stop); }
};

// The best schedule so far, its makespan and the best proven lower bound.
struct Incumbent {
  Placement best;
  TimePs ms;
  TimePs bound;
  // A step may still close the gap.
  bool open(const SearchContext& c) const { return bound < ms && !c.stopped(); }
};

void log_bounds(const SearchContext& c, const LowerBounds& lb) {
  std::cerr << "flux: bounds: critical path " << core::format_duration(lb.critical_path_ps)
            << ", port load " << core::format_duration(lb.port_load_ps) << " (accelerator "
            << lb.port.value()
            << (lb.port_kind == PortKind::kEgress          ? ", scale-up egress"
                : lb.port_kind == PortKind::kIngress       ? ", scale-up ingress"
                : lb.port_kind == PortKind::kPacketEgress  ? ", packet egress"
                : lb.port_kind == PortKind::kPacketIngress ? ", packet ingress"
                                                           : "")
            << "), " << c.elapsed() << " s\n";
}

// Steps 1-2 in (1 - share) of what the search steps have left; the rest
// goes to the exact search or the LNS.
Incumbent heuristic_step(const SearchContext& c, TimePs bound, double share) {
  const SchedulerOptions& o = c.options;
  Placement best = flux_heuristic(
      c.w, c.system, c.p, c.timing, bound,
      HeuristicOptions{(1 - share) * c.search_left(), o.seed, o.search_moves, o.verbose, o.stop});
  const TimePs ms = makespan(c.w, c.p, best);
  return {std::move(best), ms, std::min(bound, ms)};
}

// Step 3. On a folded workload the search's optimum is the best symmetric
// schedule, not shown to be the job's: its schedule is kept, not its proof.
void exact_step(const SearchContext& c, Incumbent& inc) {
  ExactResult r = branch_and_bound(c.w, c.p, c.system, c.timing, &inc.best,
                                   ExactLimits{kExactMaxNodes, c.search_left(), c.options.stop});
  if (r.improved) {
    inc.best = std::move(r.best);
    inc.ms = r.makespan_ps;
  }
  if (r.complete && !c.w.fold().folded()) inc.bound = inc.ms;
  if (c.options.verbose) {
    std::cerr << "flux: exact search: " << r.nodes << " nodes, "
              << (r.complete ? "complete" : "stopped") << ", best " << core::format_duration(inc.ms)
              << ", " << c.elapsed() << " s\n";
  }
}

// Step 4.
void lns_step(const SearchContext& c, Incumbent& inc) {
  const SchedulerOptions& o = c.options;
  LnsOptions lo;
  lo.budget_s = c.search_left();
  lo.seed = o.seed;
  lo.max_windows = o.search_moves / kMovesPerWindow;
  if (o.search_moves > 0 && lo.max_windows == 0) lo.max_windows = 1;
  lo.window_nodes =
      std::clamp<std::uint64_t>(kLnsWork / c.w.num_tasks(), kLnsMinNodes, kLnsMaxNodes);
  lo.verbose = o.verbose;
  lo.stop = o.stop;
  LnsResult r =
      large_neighbourhood_search(c.w, c.p, c.system, c.timing, std::move(inc.best), inc.bound, lo);
  inc.best = std::move(r.best);
  inc.ms = r.makespan_ps;
}

// Step 5, the restriction bound, in its share and what the LP's leaves.
void restriction_step(const SearchContext& c, Incumbent& inc) {
  RestrictionLimits rl;
  rl.time_s = std::min(c.restriction_budget,
                       std::max(0.0, c.options.time_limit_s - c.lp_budget - c.elapsed()));
  Placement better;
  const TimePs rb = restriction_bound(c.w, c.system, c.p, c.timing, inc.ms, rl, inc.bound, &better);
  if (!better.sw.empty()) {  // below ms (restriction_bound's contract)
    inc.best = std::move(better);
    inc.ms = makespan(c.w, c.p, inc.best);
  }
  if (c.options.verbose) {
    std::cerr << "flux: restriction bound " << core::format_duration(rb) << ", " << c.elapsed()
              << " s\n";
  }
  inc.bound = std::max(inc.bound, std::min(rb, inc.ms));
}

// Step 5, the LP relaxation under the horizon `makespan_ps` (the final
// schedule's), raising `bound`; skipped when the model is too large for the
// time its share leaves.
void lp_step(const SearchContext& c, TimePs makespan_ps, TimePs& bound) {
  const double lp_left = std::min(c.lp_budget, std::max(0.0, c.options.time_limit_s - c.elapsed()));
  if (bound < makespan_ps && !c.stopped() &&
      static_cast<double>(estimate_milp_size(c.w, c.system).rows) <= kLpRowsPerSecond * lp_left) {
    const auto lp_ps = lp_relaxation_bound(c.w, c.system, c.p, c.timing, makespan_ps, lp_left);
    if (c.options.verbose) {
      std::cerr << "flux: LP relaxation "
                << (lp_ps ? core::format_duration(*lp_ps) : std::string("not solved in time"))
                << ", " << c.elapsed() << " s\n";
    }
    if (lp_ps) bound = std::max(bound, std::min(*lp_ps, makespan_ps));
  }
}

}  // namespace

schedule::Schedule FluxScheduler::run(const core::Workload& w, const core::System& system,
                                      const SchedulerOptions& options) const {
  const auto t0 = Clock::now();
  const std::size_t n = w.num_tasks();
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, system, p, timing);
  // Shares of the budget kept for what follows the heuristic. The LP and
  // restriction bounds are not computed on a folded workload: the fold's
  // instance describes the symmetric schedules only, so its bounds are not
  // shown to hold for the job.
  const double limit = options.time_limit_s;
  // The LP is the MILP's (milp/model.hpp), sends inside a domain included.
  const bool lp = options.lp_bound && n <= kLpMaxSends && !w.fold().folded();
  const bool restriction = n <= kRestrictionMaxSends && !w.fold().folded();
  const bool exact = n <= kExactMaxSends;
  const bool lns = n <= kLnsMaxSends;
  const double lp_budget = lp ? std::min(kLpMaxSeconds, kLpShare * limit) : 0.0;
  const double restriction_budget =
      restriction ? std::min(kRestrictionMaxSeconds, kRestrictionShare * limit) : 0.0;
  const SearchContext c{w, system, p, timing, options, t0, lp_budget, restriction_budget};
  if (options.verbose) log_bounds(c, lb);
  Incumbent inc = heuristic_step(c, lb.best(), exact ? kExactShare : lns ? kLnsShare : 0.0);
  if (exact && inc.open(c)) exact_step(c, inc);
  if (lns && inc.open(c)) lns_step(c, inc);
  if (restriction && inc.open(c)) restriction_step(c, inc);
  schedule::Schedule s = to_schedule(w, system, p, inc.best);
  if (lp) lp_step(c, s.makespan_ps, inc.bound);
  finish_schedule(s, inc.bound, schedule::SolveStatus::kFeasible, t0);
  return s;
}

}  // namespace flux::sched
