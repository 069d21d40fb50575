// Large-neighbourhood search (LNS) with exact windows (docs/model.md, "The
// flux scheduler").
//
// The schedule is kept as a sequence, its sends by start time (ties by
// topological position), and a switch per send; generating the sequence
// serially (exact/branch_and_bound.hpp) reproduces the left-shifted
// schedule. A move fixes everything but a window of k consecutive sends of
// the sequence: the sends before it are generated first as they are, the
// window is searched exactly by branch and bound (every order and switch of
// its sends), and the sends after it are replayed in their order on their
// switches to evaluate each completion. Parents start before their children,
// so every window's parents lie before it or in it. A strictly better
// schedule replaces the current one.
//
// Windows: centred on a critical send (start + tail == makespan,
// schedule_timing()) chosen by the seeded generator, or, one time in four,
// on any send, so that the search also reorders what feeds the critical
// path. Every other window is a port's: the k sends of one endpoint's port
// of the centre nearest it in the sequence (its OCS port, or its egress or
// ingress on the scale-up or packet fabric when the centre is on one), so
// that sends of one circuit can be
// regrouped across the sends of other ports between them. There, a send in
// between that leads to a later window send goes to the window if one of
// its parents is in it, else to the fixed prefix; the others in between go
// to the replayed suffix. Size: the window grows by one when its search completed within a
// quarter of its node budget and shrinks by one when it did not complete,
// so it settles where the exact search finishes within its budget.
#include "lns.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

#include "../exact/branch_and_bound.hpp"

namespace flux::sched {

using core::TimePs;

LnsResult large_neighbourhood_search(const core::Workload& w, std::span<const TimePs> p,
                                     const core::System& system, const core::IdealTiming& timing,
                                     Placement start, TimePs bound, const LnsOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const auto n = static_cast<std::uint32_t>(w.num_tasks());
  LnsResult r;
  r.best = std::move(start);
  r.makespan_ps = makespan(w, p, r.best);
  std::uint32_t k = std::min<std::uint32_t>(std::max<std::uint32_t>(options.first_window, 2), n);
  r.window = k;
  if (n < 2) return r;
  std::mt19937_64 rng(options.seed);
  std::vector<std::uint32_t> seq(n), place(n), prefix, suffix;  // place[v]: v's index in seq
  std::vector<double> keys(n);
  std::vector<std::uint32_t> critical;  // sends with start + tail == makespan
  // The sequence, places and critical sends of the current schedule.
  auto refresh = [&] {
    for (std::uint32_t v = 0; v < n; ++v) keys[v] = static_cast<double>(r.best.start_ps[v]);
    const ScheduleTiming st = schedule_timing(w, p, system, r.best.sw, keys);
    critical.clear();
    for (std::uint32_t v = 0; v < n; ++v) {
      if (st.start_ps[v] + st.tail_ps[v] == st.makespan_ps) critical.push_back(v);
    }
    std::iota(seq.begin(), seq.end(), 0u);
    std::sort(seq.begin(), seq.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (r.best.start_ps[a] != r.best.start_ps[b]) return r.best.start_ps[a] < r.best.start_ps[b];
      return w.topo_position(core::TaskIndex(a)) < w.topo_position(core::TaskIndex(b));
    });
    for (std::uint32_t i = 0; i < n; ++i) place[seq[i]] = i;
  };
  refresh();
  // A port window around send c (see the top of the file).
  std::vector<std::uint32_t> on_port;
  std::vector<std::uint8_t> role(n);  // 0: elsewhere, 1: window, 2: leads to the window
  auto port_window = [&](std::uint32_t c) {
    const bool from_src = rng() % 2 == 0;
    const core::Rank x = from_src ? w.tasks()[c].src : w.tasks()[c].dst;
    const bool electrical = core::is_electrical(r.best.sw[c]);
    // The sends on c's port: its OCS port x, or its egress (from x) or
    // ingress (into x) on its electrical fabric.
    auto on_x = [&](std::uint32_t u) {
      const core::Task& t = w.tasks()[u];
      if (electrical ? r.best.sw[u] != r.best.sw[c] : core::is_electrical(r.best.sw[u])) {
        return false;
      }
      if (!electrical) return t.src == x || t.dst == x;
      return from_src ? t.src == x : t.dst == x;
    };
    on_port.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      if (on_x(seq[i])) on_port.push_back(i);
    }
    const auto at = static_cast<std::uint32_t>(
        std::lower_bound(on_port.begin(), on_port.end(), place[c]) - on_port.begin());
    const auto m = static_cast<std::uint32_t>(on_port.size());
    const std::uint32_t kk = std::min(k, m);
    const std::uint32_t first = at >= kk / 2 ? std::min(at - kk / 2, m - kk) : 0;
    const std::uint32_t lo = on_port[first], hi = on_port[first + kk - 1];
    for (std::uint32_t i = lo; i <= hi; ++i) role[seq[i]] = 0;
    for (std::uint32_t j = first; j < first + kk; ++j) role[seq[on_port[j]]] = 1;
    for (std::uint32_t i = hi; i-- > lo;) {  // sends leading to a later window send
      const std::uint32_t u = seq[i];
      if (role[u] != 0) continue;
      for (const core::Dep& e : w.out_edges(core::TaskIndex(u))) {
        const std::uint32_t c2 = e.to.value();
        if (place[c2] <= hi && role[c2] != 0) role[u] = 2;
      }
    }
    prefix.assign(seq.begin(), seq.begin() + lo);
    suffix.clear();
    for (std::uint32_t i = lo; i <= hi; ++i) {
      const std::uint32_t u = seq[i];
      if (role[u] == 0) {
        suffix.push_back(u);
      } else if (role[u] == 2) {
        bool window_parent = false;
        for (const std::uint32_t id : w.in_edge_ids(core::TaskIndex(u))) {
          const std::uint32_t pu = w.deps()[id].from.value();
          window_parent = window_parent || (place[pu] >= lo && role[pu] == 1);
        }
        if (window_parent) {
          role[u] = 1;
        } else {
          prefix.push_back(u);
        }
      }
    }
    suffix.insert(suffix.end(), seq.begin() + hi + 1, seq.end());
  };
  while (r.makespan_ps > bound && elapsed() < options.budget_s &&
         (options.max_windows == 0 || r.windows < options.max_windows) &&
         !stop_requested(options.stop)) {
    ++r.windows;
    // The centre: a critical send, or any send one time in four.
    const std::uint32_t centre = rng() % 4 == 0 ? static_cast<std::uint32_t>(rng() % n)
                                                : place[critical[rng() % critical.size()]];
    if (r.windows % 2 == 0) {
      port_window(seq[centre]);
    } else {
      const std::uint32_t lo = centre >= k / 2 ? std::min(centre - k / 2, n - k) : 0;
      prefix.assign(seq.begin(), seq.begin() + lo);
      suffix.assign(seq.begin() + lo + k, seq.end());
    }
    ExactLimits limits;
    limits.max_nodes = options.window_nodes;
    limits.time_s = std::max(0.0, options.budget_s - elapsed());
    limits.stop = options.stop;
    ExactResult res = branch_and_bound(w, p, system, timing, &r.best, limits,
                                       ExactWindow{prefix, suffix, r.best.sw});
    if (res.improved) {  // strictly better than r.best
      r.best = std::move(res.best);
      r.makespan_ps = res.makespan_ps;
      ++r.improved;
      refresh();
    }
    if (res.complete && res.nodes * 4 <= options.window_nodes && k < n) ++k;
    if (!res.complete && k > 2) --k;
  }
  r.window = k;
  if (options.verbose) {
    std::cerr << "flux: LNS: " << r.windows << " windows, " << r.improved << " improved, window "
              << k << " sends, best " << core::format_duration(r.makespan_ps) << ", " << elapsed()
              << " s\n";
  }
  return r;
}

}  // namespace flux::sched
