// `flux`, the default scheduler: workload-aware list schedules improved by
// local search, exact search on small instances, anytime within the time limit, deterministic for a
// seed, with lower bounds and a certified gap (docs/model.md, "The flux scheduler").
//
// 1. Portfolio. The list scheduler (list_scheduler.hpp: ready sends by
//    earliest start, longest remaining critical path first, circuit reuse
//    preferred) under several rules: reuse only on ties, reuse when it costs
//    at most tau/2 or tau of delay, and seeded tie-breaking; the best
//    makespan is kept. Each run is O((V + E) log V).
// 2. Local search on the best schedule, while time remains. A move picks a
//    critical send (start + tail == makespan, schedule_timing()) and moves
//    it, or the block of consecutive sends reusing its circuit, to another
//    switch, or swaps it with the send before it on its source port; the
//    left shift re-times everything (O(V + E)). A critical send inside a
//    scale-up domain (no switch to choose) moves before the send preceding
//    it on its electrical egress or ingress instead. Strictly
//    better schedules are kept; equal ones are accepted with probability
//    1/4 to walk plateaus. Moves keep the DAG order (keys are start times),
//    so every candidate is feasible.
// 3. Exact search (exact/branch_and_bound.hpp) on instances of at most
//    kExactMaxSends sends: a branch and bound over serial generation from
//    the best schedule, within kExactMaxNodes nodes and the time left. When
//    it completes its schedule is optimal and its makespan the bound (not
//    on a folded workload, whose search covers symmetric schedules only).
// 4. Large-neighbourhood search (lns.hpp) on instances of at most
//    kLnsMaxSends sends: windows of the schedule (consecutive sends by
//    start, or one port's) re-optimised exactly by the branch and bound,
//    the rest fixed; strictly better schedules replace the current one.
// 5. Bounds: the critical path and the per-port load with unavoidable
//    reconfigurations (bounds.hpp); on instances of at most
//    kRestrictionMaxSends sends the restriction bound on one-port windows
//    and, on small instances, destructive probes of the whole instance
//    (restriction.hpp; a schedule a probe finds replaces the best); on
//    instances of at most kLpMaxSends sends the MILP's LP relaxation under the final makespan's
//    horizon (milp_solver.hpp); each in a reserved share of the budget; the schedule is optimal
//    when it meets one.
// Full duplex (System::duplex == kFull): the list scheduler, the left shift
// and the local search follow the epochs of placement.hpp. A block moving to
// another switch takes the circuit's overlapping reverse sends along; a send
// moves before the send preceding it on its source or its destination port
// (any direction), or before the first of that send's epoch. Steps 1-2 run
// twice, in half duplex (valid schedules in full duplex too, re-timed) and
// in full duplex, on half the budget each; the better is kept. Steps 3-5
// and the bounds follow System::duplex themselves (docs/model.md, "Duplex").
#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>

#include "../exact/branch_and_bound.hpp"
#include "../milp/model.hpp"
#include "../milp/solver.hpp"
#include "../restriction.hpp"
#include "../schedulers.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/placement.hpp"
#include "flux_heuristic.hpp"
#include "list_scheduler.hpp"
#include "lns.hpp"

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

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<double> keys_of(const Placement& pl) {
  return {pl.start_ps.begin(), pl.start_ps.end()};
}

struct Search {
  const core::Workload& w;
  const std::vector<TimePs>& p;
  const core::System& system;
  std::uint32_t switches;
  bool scaleup;  // the system has scale-up domains
  std::mt19937_64 rng;
  // Per (switch, src port): the sends leaving that port on that switch,
  // by start; pos[v] = v's place there. With scale-up domains, then per
  // electrical egress (by source) and per ingress (by destination), with
  // in_pos[v] = v's place on its ingress. Rebuilt for each accepted schedule.
  std::vector<std::vector<std::uint32_t>> out_chain;
  std::vector<std::uint32_t> pos, in_pos;
  // Full duplex: per (switch, port), every send on the OCS touching it, by
  // start (both directions: the port's epochs); at[2v] is v's place on its
  // source port, at[2v + 1] on its destination port.
  std::vector<std::vector<std::uint32_t>> port_seq;
  std::vector<std::uint32_t> at;

  // The chain of v's source port (OCS or egress), or of its ingress.
  std::size_t chain_of(const Placement& pl, std::uint32_t v, bool ingress = false) const {
    const std::size_t ports = w.accelerators();
    const core::Task& t = w.tasks()[v];
    if (pl.sw[v] != core::kScaleUpSwitch) return pl.sw[v].value() * ports + t.src.value();
    return ingress ? (switches + 1) * ports + t.dst.value() : switches * ports + t.src.value();
  }

  void index(const Placement& pl) {
    const std::size_t n = w.num_tasks(), ports = w.accelerators();
    out_chain.assign(static_cast<std::size_t>(switches + (scaleup ? 2 : 0)) * ports, {});
    for (std::uint32_t v = 0; v < n; ++v) {
      out_chain[chain_of(pl, v)].push_back(v);
      if (pl.sw[v] == core::kScaleUpSwitch) out_chain[chain_of(pl, v, true)].push_back(v);
    }
    pos.assign(n, 0);
    in_pos.assign(scaleup ? n : 0, 0);
    for (std::size_t k = 0; k < out_chain.size(); ++k) {
      auto& c = out_chain[k];
      std::sort(c.begin(), c.end(), [&](std::uint32_t a, std::uint32_t b) {
        return pl.start_ps[a] != pl.start_ps[b] ? pl.start_ps[a] < pl.start_ps[b] : a < b;
      });
      auto& where = k >= (switches + 1) * ports ? in_pos : pos;
      for (std::uint32_t i = 0; i < c.size(); ++i) where[c[i]] = i;
    }
    if (system.duplex == core::Duplex::kFull) index_ports(pl);
  }

  void index_ports(const Placement& pl) {
    const std::size_t n = w.num_tasks(), ports = w.accelerators();
    port_seq.assign(static_cast<std::size_t>(switches) * ports, {});
    at.assign(2 * n, 0);
    for (std::uint32_t v : by_start(pl)) {
      if (pl.sw[v] == core::kScaleUpSwitch) continue;
      const core::Task& t = w.tasks()[v];
      for (std::uint32_t end = 0; end < 2; ++end) {
        auto& seq = port_seq[pl.sw[v].value() * ports + (end == 0 ? t.src : t.dst).value()];
        at[2 * v + end] = static_cast<std::uint32_t>(seq.size());
        seq.push_back(v);
      }
    }
  }

  // The sends by start (ties by index).
  std::vector<std::uint32_t> by_start(const Placement& pl) const {
    std::vector<std::uint32_t> order(w.num_tasks());
    for (std::uint32_t v = 0; v < order.size(); ++v) order[v] = v;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return pl.start_ps[a] != pl.start_ps[b] ? pl.start_ps[a] < pl.start_ps[b] : a < b;
    });
    return order;
  }

  // Full duplex: the send v moves before, on its source or its destination
  // port (at random), the send preceding it or, one time in two, the first
  // of that send's run with one partner (its epoch, as far as it reaches
  // back). Returns the send to precede, or kNoSend.
  static constexpr std::uint32_t kNoSend = 0xffffffffu;
  std::uint32_t before_on_port(const Placement& pl, std::uint32_t v) {
    const std::uint32_t end = static_cast<std::uint32_t>(rng() % 2);
    const core::Task& t = w.tasks()[v];
    const core::Rank x = end == 0 ? t.src : t.dst;
    const auto& seq = port_seq[pl.sw[v].value() * w.accelerators() + x.value()];
    std::uint32_t i = at[2 * v + end];
    if (i == 0) return kNoSend;
    --i;
    if (rng() % 2 == 0) {
      auto partner = [&](std::uint32_t u) {
        const core::Task& tu = w.tasks()[u];
        return tu.src == x ? tu.dst : tu.src;
      };
      const core::Rank y = partner(seq[i]);
      while (i > 0 && partner(seq[i - 1]) == y) --i;
    }
    return seq[i];
  }

  // The run of consecutive sends around v on its (switch, src port) that
  // use v's circuit (same src and dst): they reuse it, so they move together.
  std::pair<const std::uint32_t*, const std::uint32_t*> block(const Placement& pl,
                                                              std::uint32_t v) const {
    const core::Task& t = w.tasks()[v];
    const auto& c = out_chain[chain_of(pl, v)];
    std::size_t lo = pos[v], hi = pos[v] + 1;
    while (lo > 0 && w.tasks()[c[lo - 1]].dst == t.dst) --lo;
    while (hi < c.size() && w.tasks()[c[hi]].dst == t.dst) ++hi;
    return {c.data() + lo, c.data() + hi};
  }

  // One move from `pl` (whose timing is `st`); false when none applies.
  bool propose(const Placement& pl, const ScheduleTiming& st, Placement& out) {
    std::vector<std::uint32_t> critical;
    for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
      if (st.start_ps[v] + st.tail_ps[v] == st.makespan_ps) critical.push_back(v);
    }
    if (critical.empty()) return false;
    const std::uint32_t v = critical[rng() % critical.size()];
    out.sw = pl.sw;
    std::vector<double> key = keys_of(pl);
    // A send on the scale-up fabric has no switch to change: it moves on its
    // egress (kind 2) or its ingress (kind 3).
    const bool electrical = pl.sw[v] == core::kScaleUpSwitch;
    const std::uint32_t kind = electrical     ? 2 + static_cast<std::uint32_t>(rng() % 2)
                               : switches > 1 ? static_cast<std::uint32_t>(rng() % 3)
                                              : 2;
    if (kind < 2) {
      // v (kind 0) or its whole circuit block (kind 1) to another switch,
      // same place in time.
      std::uint32_t s = static_cast<std::uint32_t>(rng() % (switches - 1));
      if (s >= pl.sw[v].value()) ++s;
      if (kind == 0) {
        out.sw[v] = core::SwitchId(s);
      } else {
        const auto [first, last] = block(pl, v);
        for (const std::uint32_t* u = first; u != last; ++u) out.sw[*u] = core::SwitchId(s);
        if (system.duplex == core::Duplex::kFull) {
          // The circuit's sends the other way that overlap the block use
          // it at the same time: they move along.
          const core::Task& t = w.tasks()[v];
          const TimePs lo = pl.start_ps[*first], hi = pl.start_ps[*(last - 1)] + p[*(last - 1)];
          for (std::uint32_t u : out_chain[pl.sw[v].value() * w.accelerators() + t.dst.value()]) {
            if (w.tasks()[u].dst == t.src && pl.start_ps[u] < hi && pl.start_ps[u] + p[u] > lo) {
              out.sw[u] = core::SwitchId(s);
            }
          }
        }
      }
    } else {
      // Before the send that precedes it on its (switch, src port), or its
      // electrical egress or ingress.
      std::uint32_t prev = kNoSend;
      if (!electrical && system.duplex == core::Duplex::kFull && rng() % 3 != 0) {
        prev = before_on_port(pl, v);
      } else if (const std::uint32_t i = kind == 3 ? in_pos[v] : pos[v]; i > 0) {
        prev = out_chain[chain_of(pl, v, kind == 3)][i - 1];
      }
      if (prev == kNoSend) return false;
      key[v] = static_cast<double>(pl.start_ps[prev]) - 0.5;
    }
    try {
      out.start_ps = left_shift(w, p, system, out.sw, key);
    } catch (const core::Error&) {
      return false;  // the swap put v before one of its ancestors on a port
    }
    return true;
  }
};

}  // namespace

namespace {

// Steps 1 and 2 on `system` as it is.
Placement heuristic_search(const core::Workload& w, const core::System& system,
                           std::span<const TimePs> p_span, const core::IdealTiming& timing,
                           TimePs bound, const HeuristicOptions& options) {
  const auto t0 = Clock::now();
  const std::vector<TimePs> p(p_span.begin(), p_span.end());
  const TimePs tau = system.reconfig_delay_ps;
  const double budget = options.budget_s;

  // 1. Portfolio of list schedules.
  Placement best = list_schedule(w, system, p, timing);
  TimePs best_ms = makespan(w, p, best);
  // What one list schedule costs, the unit of the time accounting: a move
  // of the local search costs about as much (a left shift), and twice that
  // is kept in reserve for what follows the search (timelines, validation),
  // so that the whole run stays within the budget (measured: with one run in
  // reserve 2.4M sends finished 1.5 s late), plus 2% of the budget against
  // a loaded machine (with three runs alone: 61.3 s of 60 s while another
  // process was compiling).
  // The unit is the slowest run so far (variants differ, and so does the
  // machine's load: with the first run as the unit, 11.7M sends overran
  // their share by 2.3 s).
  double run_s = seconds_since(t0);
  double reserve = 3 * run_s + 0.02 * budget;
  std::size_t runs = 1;
  const TimePs slacks[] = {tau, tau / 2, 0};
  for (std::uint64_t seed = 0; best_ms > bound && seed < 4; ++seed) {
    for (TimePs slack : slacks) {
      if (seed == 0 && slack == 0) continue;  // the first run
      const double started = seconds_since(t0);
      if (best_ms == bound || started + reserve > budget || stop_requested(options.stop)) break;
      Placement pl = list_schedule(w, system, p, timing, ListOptions{slack, seed});
      const TimePs ms = makespan(w, p, pl);
      run_s = std::max(run_s, seconds_since(t0) - started);
      reserve = 3 * run_s + 0.02 * budget;
      ++runs;
      if (ms < best_ms) {
        best = std::move(pl);
        best_ms = ms;
      }
    }
  }
  const TimePs list_ms = best_ms;

  // 2. Local search.
  std::size_t moves = 0, accepted = 0;
  if (best_ms > bound && w.num_tasks() > 0) {
    // At most one switch per send is ever useful (see list_schedule).
    const auto switches =
        static_cast<std::uint32_t>(std::min<std::size_t>(system.switches, w.num_tasks()));
    Search search{w,  p,  system, switches, system.has_scaleup(), std::mt19937_64(options.seed), {},
                  {}, {}, {},     {}};
    Placement cur = best;
    ScheduleTiming st = schedule_timing(w, p, system, cur.sw, keys_of(cur));
    search.index(cur);
    Placement cand;
    std::size_t failed = 0, better = 0, equal = 0;
    while (seconds_since(t0) + reserve < budget && best_ms > bound && failed < 64 * w.num_tasks() &&
           (options.max_moves == 0 || moves < options.max_moves) && !stop_requested(options.stop)) {
      ++moves;
      if (!search.propose(cur, st, cand)) {
        ++failed;
        continue;
      }
      const TimePs ms = makespan(w, p, cand);
      if (ms < st.makespan_ps) ++better;
      if (ms == st.makespan_ps) ++equal;
      if (ms < st.makespan_ps || (ms == st.makespan_ps && search.rng() % 4 == 0)) {
        cur = cand;
        st = schedule_timing(w, p, system, cur.sw, keys_of(cur));
        search.index(cur);
        ++accepted;
        if (ms < best_ms) {
          best = cur;
          best_ms = ms;
        }
      }
    }
    if (options.verbose) {
      std::cerr << "flux: local search: " << failed << " moves impossible, " << better
                << " better, " << equal << " equal\n";
    }
  }
  if (options.verbose) {
    std::cerr << "flux: " << runs << " list schedules, best " << core::format_duration(list_ms)
              << "; local search " << moves << " moves, " << accepted << " accepted, best "
              << core::format_duration(best_ms) << "; bound " << core::format_duration(bound)
              << ", " << seconds_since(t0) << " s\n";
  }
  return best;
}

}  // namespace

Placement flux_heuristic(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing, TimePs bound,
                         const HeuristicOptions& options) {
  if (system.duplex == core::Duplex::kHalf) {
    return heuristic_search(w, system, p, timing, bound, options);
  }
  // Full duplex: every half-duplex schedule is a full-duplex one, and the
  // half-duplex search walks other neighbourhoods (its chains order a
  // send and its reverse). Half the budget each; the half-duplex result is
  // re-timed by the full-duplex left shift (never later); the better wins.
  const auto t0 = Clock::now();
  core::System half = system;
  half.duplex = core::Duplex::kHalf;
  HeuristicOptions o = options;
  o.budget_s = options.budget_s / 2;
  Placement h = heuristic_search(w, half, p, timing, bound, o);
  h.start_ps = left_shift(w, p, system, h.sw, keys_of(h));
  const TimePs h_ms = makespan(w, p, h);
  if (h_ms <= bound || stop_requested(options.stop)) return h;
  o.budget_s = std::max(0.0, options.budget_s - seconds_since(t0));
  Placement f = heuristic_search(w, system, p, timing, bound, o);
  return makespan(w, p, f) <= h_ms ? f : h;
}

schedule::Schedule FluxScheduler::run(const core::Workload& w, const core::System& system,
                                      const SchedulerOptions& options) const {
  const auto t0 = Clock::now();
  const std::size_t n = w.num_tasks();
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const core::IdealTiming timing = core::ideal_timing(w, p);
  const LowerBounds lb = lower_bounds(w, system, p, timing);
  const TimePs bound = lb.best();
  if (options.verbose) {
    std::cerr << "flux: bounds: critical path " << core::format_duration(lb.critical_path_ps)
              << ", port load " << core::format_duration(lb.port_load_ps) << " (accelerator "
              << lb.port.value()
              << (lb.port_kind == PortKind::kEgress    ? ", scale-up egress"
                  : lb.port_kind == PortKind::kIngress ? ", scale-up ingress"
                                                       : "")
              << "), " << seconds_since(t0) << " s\n";
  }
  // Shares of the budget kept for what follows the heuristic. The LP and
  // restriction bounds are not computed on a folded workload: the fold's
  // instance describes the symmetric schedules only, so its bounds are not
  // shown to hold for the job.
  const double limit = options.time_limit_s;
  // The LP is the MILP's (milp/model.hpp), sends inside a domain included.
  const bool lp = options.lp_bound && n <= kLpMaxSends && !w.fold().folded();
  const double lp_budget = lp ? std::min(kLpMaxSeconds, kLpShare * limit) : 0.0;
  const bool restriction = n <= kRestrictionMaxSends && !w.fold().folded();
  const double restriction_budget =
      restriction ? std::min(kRestrictionMaxSeconds, kRestrictionShare * limit) : 0.0;
  const bool exact = n <= kExactMaxSends;
  const bool lns = n <= kLnsMaxSends;
  const double reserved = lp_budget + restriction_budget;
  const double left = std::max(0.0, limit - reserved - seconds_since(t0));
  const double share = exact ? kExactShare : lns ? kLnsShare : 0.0;
  Placement best =
      flux_heuristic(w, system, p, timing, bound,
                     HeuristicOptions{(1 - share) * left, options.seed, options.search_moves,
                                      options.verbose, options.stop});
  TimePs ms = makespan(w, p, best);
  TimePs b = std::min(bound, ms);
  const std::atomic<bool>* stop = options.stop;
  if (exact && b < ms && !stop_requested(stop)) {
    // On a folded workload the search's optimum is the best symmetric
    // schedule, not shown to be the job's: its schedule is kept, not its proof.
    const double exact_left = std::max(0.0, limit - reserved - seconds_since(t0));
    ExactResult r = branch_and_bound(w, p, system, timing, &best,
                                     ExactLimits{kExactMaxNodes, exact_left, stop});
    if (r.improved) {
      best = std::move(r.best);
      ms = r.makespan_ps;
    }
    if (r.complete && !w.fold().folded()) b = ms;
    if (options.verbose) {
      std::cerr << "flux: exact search: " << r.nodes << " nodes, "
                << (r.complete ? "complete" : "stopped") << ", best " << core::format_duration(ms)
                << ", " << seconds_since(t0) << " s\n";
    }
  }
  if (lns && b < ms && !stop_requested(stop)) {
    LnsOptions lo;
    lo.budget_s = std::max(0.0, limit - reserved - seconds_since(t0));
    lo.seed = options.seed;
    lo.max_windows = options.search_moves / kMovesPerWindow;
    if (options.search_moves > 0 && lo.max_windows == 0) lo.max_windows = 1;
    lo.window_nodes = std::clamp<std::uint64_t>(kLnsWork / n, kLnsMinNodes, kLnsMaxNodes);
    lo.verbose = options.verbose;
    lo.stop = stop;
    LnsResult r = large_neighbourhood_search(w, p, system, timing, std::move(best), b, lo);
    best = std::move(r.best);
    ms = r.makespan_ps;
  }
  if (restriction && b < ms && !stop_requested(stop)) {
    RestrictionLimits rl;
    rl.time_s = std::min(restriction_budget, std::max(0.0, limit - lp_budget - seconds_since(t0)));
    Placement better;
    const TimePs rb = restriction_bound(w, system, p, timing, ms, rl, b, &better);
    if (!better.sw.empty()) {  // below ms (restriction_bound's contract)
      best = std::move(better);
      ms = makespan(w, p, best);
    }
    if (options.verbose) {
      std::cerr << "flux: restriction bound " << core::format_duration(rb) << ", "
                << seconds_since(t0) << " s\n";
    }
    b = std::max(b, std::min(rb, ms));
  }
  schedule::Schedule s = to_schedule(w, system, p, best);
  const double lp_left = std::min(lp_budget, std::max(0.0, limit - seconds_since(t0)));
  if (lp && b < s.makespan_ps && !stop_requested(stop) &&
      static_cast<double>(estimate_milp_size(w, system).rows) <= kLpRowsPerSecond * lp_left) {
    const auto lp_ps = lp_relaxation_bound(w, system, p, timing, s.makespan_ps, lp_left);
    if (options.verbose) {
      std::cerr << "flux: LP relaxation "
                << (lp_ps ? core::format_duration(*lp_ps) : std::string("not solved in time"))
                << ", " << seconds_since(t0) << " s\n";
    }
    if (lp_ps) b = std::max(b, std::min(*lp_ps, s.makespan_ps));
  }
  finish_schedule(s, b, schedule::SolveStatus::kFeasible, t0);
  return s;
}

}  // namespace flux::sched
