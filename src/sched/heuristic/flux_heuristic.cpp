// flux_heuristic (flux_heuristic.hpp): steps 1 and 2 of the `flux`
// portfolio (portfolio/flux_scheduler.cpp), also flux-milp's warm start.
// Deterministic for a seed unless the time budget cuts it short.
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
//    scale-up domain or on the packet fabric (no switch to choose) moves
//    before the send preceding it on its egress or ingress of that fabric
//    instead. Strictly
//    better schedules are kept; equal ones are accepted with probability
//    1/4 to walk plateaus. Moves keep the DAG order (keys are start times),
//    so every candidate is feasible.
// Full duplex (System::duplex == kFull): the list scheduler, the left shift
// and the local search follow the epochs of placement.hpp. A block moving to
// another switch takes the circuit's overlapping reverse sends along; a send
// moves before the send preceding it on its source or its destination port
// (any direction), or before the first of that send's epoch. Steps 1-2 run
// twice, in half duplex (valid schedules in full duplex too, re-timed) and
// in full duplex, on half the budget each; the better is kept.
#include "flux_heuristic.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"
#include "list_scheduler.hpp"

namespace flux::sched {
namespace {

using core::TimePs;
using Clock = std::chrono::steady_clock;

using core::seconds_since;

std::vector<double> keys_of(const Placement& pl) {
  return {pl.start_ps.begin(), pl.start_ps.end()};
}

struct Search {
  const core::Workload& w;
  const std::vector<TimePs>& p;
  const core::System& system;
  std::uint32_t switches;
  bool electrical;  // the system has scale-up domains or a packet fabric
  std::mt19937_64 rng;
  // Per (switch, src port): the sends leaving that port on that switch,
  // by start; pos[v] = v's place there. With electrical fabrics, then per
  // egress (by source) and per ingress (by destination) of each
  // (electrical_slot), with in_pos[v] = v's place on its ingress. Rebuilt
  // for each accepted schedule.
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
    if (!core::is_electrical(pl.sw[v])) return pl.sw[v].value() * ports + t.src.value();
    return switches * ports + electrical_slot(pl.sw[v], ingress, ingress ? t.dst : t.src, ports);
  }
  // Whether chain k is an electrical ingress.
  bool ingress_chain(std::size_t k) const {
    const std::size_t ports = w.accelerators(), first = switches * ports;
    return k >= first && (k - first) / ports % 2 == 1;
  }

  void index(const Placement& pl) {
    const std::size_t n = w.num_tasks(), ports = w.accelerators();
    out_chain.assign((switches + (electrical ? 2 * std::size_t{kElectricalFabrics} : 0)) * ports,
                     {});
    for (std::uint32_t v = 0; v < n; ++v) {
      out_chain[chain_of(pl, v)].push_back(v);
      if (core::is_electrical(pl.sw[v])) out_chain[chain_of(pl, v, true)].push_back(v);
    }
    pos.assign(n, 0);
    in_pos.assign(electrical ? n : 0, 0);
    for (std::size_t k = 0; k < out_chain.size(); ++k) {
      auto& c = out_chain[k];
      std::sort(c.begin(), c.end(), [&](std::uint32_t a, std::uint32_t b) {
        return pl.start_ps[a] != pl.start_ps[b] ? pl.start_ps[a] < pl.start_ps[b] : a < b;
      });
      auto& where = ingress_chain(k) ? in_pos : pos;
      for (std::uint32_t i = 0; i < c.size(); ++i) where[c[i]] = i;
    }
    if (system.duplex == core::Duplex::kFull) index_ports(pl);
  }

  void index_ports(const Placement& pl) {
    const std::size_t n = w.num_tasks(), ports = w.accelerators();
    port_seq.assign(static_cast<std::size_t>(switches) * ports, {});
    at.assign(2 * n, 0);
    for (std::uint32_t v : by_start(pl)) {
      if (core::is_electrical(pl.sw[v])) continue;
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
    // A send on the scale-up or packet fabric has no switch to change: it
    // moves on its egress (kind 2) or its ingress (kind 3).
    const bool on_electrical = core::is_electrical(pl.sw[v]);
    const std::uint32_t kind = on_electrical  ? 2 + static_cast<std::uint32_t>(rng() % 2)
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
      if (!on_electrical && system.duplex == core::Duplex::kFull && rng() % 3 != 0) {
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
    const bool electrical = system.has_scaleup() || system.has_packet();
    Search search{w,  p,  system, switches, electrical, std::mt19937_64(options.seed),
                  {}, {}, {},     {},       {}};
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

}  // namespace flux::sched
