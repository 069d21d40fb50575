// Greedy list scheduler; the rule is in list_scheduler.hpp.
#include "list_scheduler.hpp"

#include <algorithm>
#include <limits>
#include <queue>
#include <tuple>
#include <vector>

#include "flux/core/hash.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

constexpr TimePs kNever = std::numeric_limits<TimePs>::min() / 4;
constexpr std::uint32_t kNone = 0xffffffffu;

struct PortState {
  TimePs free = kNever;        // end of the last send on this port (full duplex: the latest end)
  std::uint32_t last = kNone;  // that send (full duplex: the last placed)
  // Full duplex: the current epoch's circuit partner, the earliest start in
  // it (the previous epoch's latest end + tau; kNever for the first) and the
  // ends of its last send out of the port (tx) and into it (rx).
  std::uint32_t partner = kNone;
  TimePs epoch_start = kNever;
  TimePs tx_end = kNever;
  TimePs rx_end = kNever;

  // Full duplex: the earliest start on this port of a send to or from
  // `peer` (`out`: sent by the port), and whether it stays in the epoch.
  [[nodiscard]] std::pair<TimePs, bool> earliest(std::uint32_t peer, bool out, TimePs tau) const {
    if (last == kNone) return {kNever, false};  // never used: the first circuit is free
    if (partner != peer) return {free + tau, false};
    return {std::max(epoch_start, out ? tx_end : rx_end), true};
  }
  // Full duplex: a send to or from `peer` placed on this port ending at `end`.
  void place(std::uint32_t v, std::uint32_t peer, bool out, TimePs end, TimePs tau) {
    if (partner != peer) {
      epoch_start = last == kNone ? kNever : free + tau;
      tx_end = rx_end = kNever;
      partner = peer;
    }
    (out ? tx_end : rx_end) = end;
    free = std::max(free, end);
    last = v;
  }
};

}  // namespace

Placement list_schedule(const core::Workload& w, const core::System& system,
                        std::span<const TimePs> p, const core::IdealTiming& timing,
                        const ListOptions& options) {
  const std::size_t n = w.num_tasks();
  // More switches than sends are never needed (switches are identical and an
  // unused one is always among the first n): per-switch state stays O(n).
  const auto s_count = static_cast<std::uint32_t>(
      std::min<std::size_t>(system.switches, std::max<std::size_t>(n, 1)));
  const TimePs tau = system.reconfig_delay_ps;
  const bool full = system.duplex == core::Duplex::kFull;
  const auto tasks = w.tasks();
  Placement pl;
  pl.sw.assign(n, core::SwitchId());
  pl.start_ps.assign(n, 0);
  // Per (switch, port), then the electrical egress and ingress ports
  // (electrical_slot).
  const std::size_t ranks = w.accelerators();
  const std::size_t electrical = static_cast<std::size_t>(s_count) * ranks;
  std::vector<PortState> ports(electrical + 2 * kElectricalFabrics * ranks);
  auto port = [&](std::uint32_t s, core::Rank x) -> PortState& {
    return ports[static_cast<std::size_t>(s) * ranks + x.value()];
  };
  // v's egress (ingress) on its electrical fabric `e`.
  auto electrical_port = [&](core::SwitchId e, std::uint32_t v, bool ingress) -> PortState& {
    const core::Task& t = tasks[v];
    return ports[electrical + electrical_slot(e, ingress, ingress ? t.dst : t.src, ranks)];
  };
  // The fabric of each send: a pseudo-switch (core::is_electrical) for the
  // scale-up and packet fabrics, which leave no choice.
  std::vector<core::SwitchId> fixed(n);
  std::vector<TimePs> ready(n);
  std::vector<std::uint32_t> missing(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    fixed[v] = core::electrical_switch(system.fabric(tasks[v].src, tasks[v].dst));
    ready[v] = tasks[v].release_ps;
    missing[v] = static_cast<std::uint32_t>(w.in_edge_ids(core::TaskIndex(v)).size());
  }

  // Earliest start of v and the switch giving it (reuse preferred on ties);
  // for a send on an electrical fabric its pseudo-switch: its egress and
  // ingress there, no choice.
  auto best_switch = [&](std::uint32_t v) {
    const core::Task& t = tasks[v];
    if (core::is_electrical(fixed[v])) {
      const TimePs start = std::max({ready[v], electrical_port(fixed[v], v, false).free,
                                     electrical_port(fixed[v], v, true).free});
      return std::make_pair(start, fixed[v].value());
    }
    TimePs best = std::numeric_limits<TimePs>::max();
    std::uint32_t best_s = 0;
    bool best_reuse = false;
    TimePs reuse_best = std::numeric_limits<TimePs>::max();  // earliest start that reuses
    std::uint32_t reuse_s = kNone;
    for (std::uint32_t s = 0; s < s_count; ++s) {
      TimePs start = ready[v];
      bool reuse = true;
      for (core::Rank x : {t.src, t.dst}) {
        const PortState& ps = port(s, x);
        if (full) {
          const bool out = x == t.src;
          const auto [at, same] = ps.earliest((out ? t.dst : t.src).value(), out, tau);
          reuse = reuse && same;
          start = std::max(start, at);
          continue;
        }
        if (ps.last == kNone) {
          reuse = false;
          continue;
        }
        const TimePs r = reconfig_penalty(tasks[ps.last], t, tau);
        reuse = reuse && r == 0;
        start = std::max(start, ps.free + r);
      }
      if (start < best || (start == best && reuse && !best_reuse)) {
        best = start;
        best_s = s;
        best_reuse = reuse;
      }
      if (reuse && (reuse_best > start)) {
        reuse_best = start;
        reuse_s = s;
      }
    }
    if (!best_reuse && reuse_s != kNone && reuse_best - best <= options.reuse_slack_ps) {
      return std::make_pair(reuse_best, reuse_s);
    }
    return std::make_pair(best, best_s);
  };

  // Min-heap on (earliest start, -remaining path, topological position).
  using Key = std::tuple<TimePs, TimePs, std::uint32_t, std::uint32_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap;
  auto tie = [&](std::uint32_t v) -> std::uint32_t {
    if (options.seed == 0) return w.topo_position(core::TaskIndex(v));
    return static_cast<std::uint32_t>(core::splitmix64((options.seed << 32) ^ v));
  };
  auto push = [&](std::uint32_t v) {
    heap.emplace(best_switch(v).first, -timing.to_end[v], tie(v), v);
  };
  for (std::uint32_t v = 0; v < n; ++v) {
    if (missing[v] == 0) push(v);
  }
  while (!heap.empty()) {
    const auto [est, neg_tail, pos, v] = heap.top();
    heap.pop();
    const auto [start, s] = best_switch(v);
    if (start > est) {  // ports got busier since v was queued: re-queue
      heap.emplace(start, neg_tail, pos, v);
      continue;
    }
    pl.sw[v] = core::SwitchId(s);
    pl.start_ps[v] = start;
    const core::Task& t = tasks[v];
    if (core::is_electrical(pl.sw[v])) {
      electrical_port(pl.sw[v], v, false) = PortState{start + p[v], v};
      electrical_port(pl.sw[v], v, true) = PortState{start + p[v], v};
    } else if (full) {
      port(s, t.src).place(v, t.dst.value(), true, start + p[v], tau);
      port(s, t.dst).place(v, t.src.value(), false, start + p[v], tau);
    } else {
      for (core::Rank x : {t.src, t.dst}) port(s, x) = PortState{start + p[v], v};
    }
    for (const core::Dep& e : w.out_edges(core::TaskIndex(v))) {
      const std::uint32_t c = e.to.value();
      ready[c] = std::max(ready[c], start + p[v] + e.compute_ps);
      if (--missing[c] == 0) push(c);
    }
  }
  return pl;
}

}  // namespace flux::sched
