// Restriction relaxations; the argument is in restriction.hpp.
#include "restriction.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "exact/branch_and_bound.hpp"
#include "heuristic/list_scheduler.hpp"

namespace flux::sched {

using core::TaskIndex;
using core::TimePs;

core::Workload restrict_workload(const core::Workload& w, std::span<const TimePs> p,
                                 const core::IdealTiming& timing,
                                 std::span<const TaskIndex> subset) {
  std::vector<TaskIndex> s(subset.begin(), subset.end());
  std::sort(s.begin(), s.end(),
            [&](TaskIndex a, TaskIndex b) { return w.topo_position(a) < w.topo_position(b); });
  const std::size_t n = s.size();
  core::WorkloadData data;
  data.name = w.name() + "-restricted";
  data.accelerators = w.accelerators();
  data.tasks.reserve(n);
  for (const TaskIndex v : s) {
    core::Task t = w.task(v);
    t.release_ps = timing.earliest_start[v.value()];
    t.tail_ps = timing.to_end[v.value()] - p[v.value()];
    t.label = core::kNoLabel;
    data.tasks.push_back(t);
  }
  if (n == 0) return core::Workload(std::move(data));
  // dist[i][j]: L(s_i, s_j), -1 when s_j does not descend from s_i.
  const std::uint32_t limit = w.topo_position(s.back());
  std::vector<std::vector<TimePs>> dist(n, std::vector<TimePs>(n, -1));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::vector<TimePs> from = core::longest_from(w, p, s[i], limit);
    for (std::size_t j = i + 1; j < n; ++j) dist[i][j] = from[s[j].value()];
  }
  // Keep (i, j) unless a path through some s_k already forces the gap:
  // L(s_i, s_k) + p_k + L(s_k, s_j) >= L(s_i, s_j).
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (dist[i][j] < 0) continue;
      bool implied = false;
      for (std::size_t k = i + 1; k < j && !implied; ++k) {
        implied = dist[i][k] >= 0 && dist[k][j] >= 0 &&
                  dist[i][k] + p[s[k].value()] + dist[k][j] >= dist[i][j];
      }
      if (!implied) {
        data.deps.push_back(core::Dep{TaskIndex(static_cast<std::uint32_t>(i)),
                                      TaskIndex(static_cast<std::uint32_t>(j)), dist[i][j]});
      }
    }
  }
  return core::Workload(std::move(data));
}

namespace {

struct WindowBound {
  TimePs bound_ps = 0;  // a proven lower bound of the window's optimum
  bool solved = false;  // the first search completed: bound_ps is the optimum
  std::uint64_t nodes = 0;
  Placement found;  // the best schedule a probe found below `hi`, if any
  TimePs found_ps = ExactResult::kNone;
};

// A lower bound of the restricted instance r's optimum within el.max_nodes
// nodes per search and before `deadline`: its optimum when the search from
// `start` completes, else
// (or at once, without `start`, below a schedule of makespan `hi`) the root
// bound, raised by destructive probes (ExactLimits::cutoff_ps): a
// search for a schedule below a cutoff c that completes without finding one
// proves OPT(r) >= c. Probes bisect between the best proven value (at least
// `floor`, the bound already known elsewhere, since only more is of use) and
// the best schedule found; one that does not complete lowers the upper end,
// one that finds a schedule sets it there.
WindowBound window_bound(const core::Workload& r, std::span<const TimePs> rp,
                         const core::System& system, const core::IdealTiming& rt,
                         const Placement* start, TimePs hi, ExactLimits el, TimePs floor,
                         int probes, std::chrono::steady_clock::time_point deadline) {
  auto time_left = [&] {
    return std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  };
  WindowBound out;
  el.time_s = std::max(0.0, time_left());
  if (start != nullptr) {
    const ExactResult res = branch_and_bound(r, rp, system, rt, start, el);
    out.nodes = res.nodes;
    if (res.complete) {
      out.bound_ps = res.makespan_ps;
      out.solved = true;
      return out;
    }
    out.bound_ps = res.root_bound_ps;
    hi = res.makespan_ps;
  } else {
    out.bound_ps = exact_root_bound(r, rp, system, rt);
  }
  TimePs lo = std::max(out.bound_ps, floor);
  for (int i = 0; i < probes && lo + 1 < hi; ++i) {
    el.time_s = time_left();
    if (el.time_s <= 0) break;
    // The first probe asks for a little more than is known (most likely to
    // be proved); later ones bisect.
    el.cutoff_ps = i == 0 ? lo + std::max<TimePs>((hi - lo) / 16, 1) : lo + (hi - lo) / 2;
    const ExactResult d = branch_and_bound(r, rp, system, rt, nullptr, el);
    out.nodes += d.nodes;
    if (d.improved) {
      hi = d.makespan_ps;
      out.found = d.best;
      out.found_ps = d.makespan_ps;
    } else if (d.complete) {
      lo = el.cutoff_ps;
      out.bound_ps = std::max(out.bound_ps, lo);
    } else {
      hi = el.cutoff_ps;
    }
  }
  return out;
}

// Per port, the port-load bound with one threshold (min head + min tail +
// (work + (distinct pairs - s)^+ tau) / s): only to try the most promising
// ports first.
std::vector<TimePs> one_threshold_loads(const core::Workload& w, const core::System& system,
                                        std::span<const TimePs> p, const core::IdealTiming& timing,
                                        const std::vector<std::vector<TaskIndex>>& by_port) {
  std::vector<TimePs> busy(by_port.size(), 0);
  const auto s = static_cast<TimePs>(system.switches);
  for (std::size_t i = 0; i < by_port.size(); ++i) {
    if (by_port[i].empty()) continue;
    std::vector<std::pair<core::Rank, core::Rank>> pairs;
    TimePs head = core::kMaxTimePs, tail = core::kMaxTimePs, work = 0;
    for (const TaskIndex v : by_port[i]) {
      const core::Task& t = w.tasks()[v.value()];
      pairs.emplace_back(t.src, t.dst);
      head = std::min(head, timing.earliest_start[v.value()]);
      tail = std::min(tail, timing.to_end[v.value()] - p[v.value()]);
      work += p[v.value()];
    }
    std::sort(pairs.begin(), pairs.end());
    const auto distinct =
        static_cast<TimePs>(std::unique(pairs.begin(), pairs.end()) - pairs.begin());
    busy[i] =
        head + tail + (work + std::max<TimePs>(distinct - s, 0) * system.reconfig_delay_ps) / s;
  }
  return busy;
}

}  // namespace

TimePs restriction_bound(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing, TimePs target,
                         const RestrictionLimits& limits, TimePs known, Placement* better) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  auto out_of_time = [&] {
    return std::chrono::duration<double>(Clock::now() - t0).count() > limits.time_s;
  };
  // Sends per port, by head (ties: the larger tail first, then index): the
  // OCS sends touching each accelerator, then with scale-up domains or a
  // packet fabric the sends on each leaving it (egress) and entering it
  // (ingress), at n + electrical_slot.
  //
  // Full duplex: the OCS windows hold the sends leaving x (at x's index) or
  // those entering x (after all the others), never both. Such a window holds
  // no send together with its reverse, so on it the full-duplex model (K_full)
  // is the half-duplex one (K), and the windows are searched in half duplex:
  // a window's optimum and root bound are the full-duplex ones, whatever the
  // branch and bound assumes about duplex. (A restriction's optimum bounds the
  // full instance's in either model: the constraints are pairwise.)
  const std::size_t n = w.accelerators();
  const bool full = system.duplex == core::Duplex::kFull;
  const std::size_t received = system.has_packet()    ? (1 + 2 * kElectricalFabrics) * n
                               : system.has_scaleup() ? 3 * n
                                                      : n;
  std::vector<std::vector<TaskIndex>> by_port(received + (full ? n : 0));
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    if (const core::SwitchId e = core::electrical_switch(system.fabric(t.src, t.dst));
        core::is_electrical(e)) {
      by_port[n + electrical_slot(e, false, t.src, n)].emplace_back(v);
      by_port[n + electrical_slot(e, true, t.dst, n)].emplace_back(v);
    } else {
      by_port[t.src.value()].emplace_back(v);
      by_port[(full ? received : 0) + t.dst.value()].emplace_back(v);
    }
  }
  core::System window_system = system;
  window_system.duplex = core::Duplex::kHalf;
  TimePs best = 0;
  std::uint64_t nodes = 0;
  std::size_t k = std::max<std::size_t>(limits.window, 2);
  for (std::vector<TaskIndex>& sends : by_port) {
    std::sort(sends.begin(), sends.end(), [&](TaskIndex a, TaskIndex b) {
      const TimePs ha = timing.earliest_start[a.value()], hb = timing.earliest_start[b.value()];
      if (ha != hb) return ha < hb;
      const TimePs qa = timing.to_end[a.value()] - p[a.value()];
      const TimePs qb = timing.to_end[b.value()] - p[b.value()];
      return qa != qb ? qa > qb : a < b;
    });
  }
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(limits.time_s));
  // One window's bound (window_bound) within `per_search` nodes per search.
  auto solve = [&](std::span<const TaskIndex> subset, std::uint64_t per_search, int probes) {
    const core::Workload r = restrict_workload(w, p, timing, subset);
    const std::vector<TimePs> rp = core::transmission_times(r, window_system);
    const core::IdealTiming rt = core::ideal_timing(r, rp);
    const Placement start = list_schedule(r, window_system, rp, rt);
    ExactLimits el;
    el.max_nodes = per_search;
    const WindowBound res = window_bound(r, rp, window_system, rt, &start, target, el,
                                         std::max(best, known), probes, deadline);
    nodes += res.nodes;
    best = std::max(best, res.bound_ps);
    return res;
  };
  auto done = [&] { return best >= target || out_of_time(); };
  // 1. Windows of k consecutive sends of each port, without probes (cheap).
  std::vector<char> solved(by_port.size(), 0);
  for (std::size_t port = 0; port < by_port.size(); ++port) {
    const std::vector<TaskIndex>& sends = by_port[port];
    if (sends.size() < 2) continue;
    for (std::size_t first = 0;;) {
      if (done() || nodes >= limits.total_nodes) break;
      const std::size_t len = std::min(k, sends.size());
      first = std::min(first, sends.size() - len);
      const WindowBound res = solve(std::span(sends).subspan(first, len),
                                    std::min(limits.window_nodes, limits.total_nodes - nodes), 0);
      solved[port] = res.solved && len == sends.size();
      // The next windows grow while the search finishes well within its
      // budget and shrink when it does not finish.
      if (res.solved && res.nodes * 4 <= limits.window_nodes) {
        k = std::min(k + k / 4 + 1, limits.max_window);
      } else if (!res.solved) {
        k = std::max<std::size_t>(k - k / 4, 4);
      }
      if (first + len >= sends.size()) break;
      first += std::max<std::size_t>(len / 2, 1);
    }
  }
  // 2. The whole instance when it is small (restricting to every send changes
  // nothing an optimum depends on): the caller's exact search has already
  // searched it from its schedule, of makespan `target`, so only the probes
  // run, on the instance itself, in the system's own duplex; a schedule a
  // probe finds below `target` goes to `better`; on a node budget that
  // usually fits the time (about 1-3 s), since it may change the schedule.
  if (w.num_tasks() <= limits.max_window && !done()) {
    ExactLimits el;
    el.max_nodes = limits.whole_nodes;
    WindowBound res = window_bound(w, p, system, timing, nullptr, target, el, std::max(best, known),
                                   limits.whole_probes, deadline);
    nodes += res.nodes;
    best = std::max(best, res.bound_ps);
    if (better != nullptr && res.found_ps < target) *better = std::move(res.found);
  }
  // 3. Every port whole, with probes (for S a subset of S', OPT(I(S)) <=
  // OPT(I(S'))), those with the largest one-threshold port-load bound first,
  // down to 3/4 of the bound known.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < by_port.size(); ++i) {
    if (by_port[i].size() >= 2 && by_port[i].size() <= limits.max_window && !solved[i]) {
      order.push_back(i);
    }
  }
  const std::vector<TimePs> busy = one_threshold_loads(w, system, p, timing, by_port);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return busy[a] > busy[b]; });
  for (const std::size_t i : order) {
    // A port whose one-threshold bound is under 3/4 of what is known is
    // unlikely to prove more (random DAGs of 300 sends: none did).
    if (done() || busy[i] < std::max(best, known) / 4 * 3) break;
    solve(by_port[i], limits.port_nodes, limits.probes);
  }
  return best;
}

}  // namespace flux::sched
