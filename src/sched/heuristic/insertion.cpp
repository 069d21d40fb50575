// Insertion into a running plan; the rule is in sched/insertion.hpp.
#include "flux/sched/insertion.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace flux::sched {

using core::TimePs;

PortTimelines::PortTimelines(std::uint32_t switches, std::uint32_t ranks)
    : switches_(switches), ranks_(ranks), ports_(std::size_t{switches} * ranks) {}

void PortTimelines::add(core::SwitchId sw, const PortHold& h) {
  for (const core::Rank r : {h.src, h.dst}) {
    Port& port = ports_[std::size_t{sw.value()} * ranks_ + r.value()];
    port.holds.push_back(h);
  }
}

void PortTimelines::sort() {
  for (Port& port : ports_) {
    std::stable_sort(port.holds.begin(), port.holds.end(),
                     [](const PortHold& a, const PortHold& b) { return a.start_ps < b.start_ps; });
    port.max_end.resize(port.holds.size());
    TimePs m = std::numeric_limits<TimePs>::min();
    for (std::size_t i = 0; i < port.holds.size(); ++i) {
      m = std::max(m, port.holds[i].end_ps);
      port.max_end[i] = m;
    }
  }
}

void PortTimelines::insert(core::SwitchId sw, const PortHold& h) {
  for (const core::Rank r : {h.src, h.dst}) {
    Port& port = ports_[std::size_t{sw.value()} * ranks_ + r.value()];
    const auto at = std::upper_bound(port.holds.begin(), port.holds.end(), h.start_ps,
                                     [](TimePs t, const PortHold& x) { return t < x.start_ps; });
    const auto k = static_cast<std::size_t>(at - port.holds.begin());
    port.holds.insert(at, h);
    const TimePs before = k == 0 ? std::numeric_limits<TimePs>::min() : port.max_end[k - 1];
    port.max_end.insert(port.max_end.begin() + static_cast<std::ptrdiff_t>(k),
                        std::max(before, h.end_ps));
    for (std::size_t i = k + 1; i < port.max_end.size() && port.max_end[i] < h.end_ps; ++i) {
      port.max_end[i] = h.end_ps;
    }
  }
}

void PortTimelines::remove(core::SwitchId sw, const PortHold& h) {
  for (const core::Rank r : {h.src, h.dst}) {
    Port& port = ports_[std::size_t{sw.value()} * ranks_ + r.value()];
    auto it = std::lower_bound(port.holds.begin(), port.holds.end(), h.start_ps,
                               [](const PortHold& x, TimePs t) { return x.start_ps < t; });
    while (it != port.holds.end() && !(it->start_ps == h.start_ps && it->end_ps == h.end_ps &&
                                       it->src == h.src && it->dst == h.dst)) {
      ++it;
    }
    if (it == port.holds.end()) continue;
    const auto k = static_cast<std::size_t>(it - port.holds.begin());
    port.holds.erase(it);
    port.max_end.erase(port.max_end.begin() + static_cast<std::ptrdiff_t>(k));
    for (std::size_t i = k; i < port.holds.size(); ++i) {  // until the prefix maxima agree again
      const TimePs m = std::max(i == 0 ? std::numeric_limits<TimePs>::min() : port.max_end[i - 1],
                                port.holds[i].end_ps);
      if (m == port.max_end[i]) break;
      port.max_end[i] = m;
    }
  }
}

TimePs PortTimelines::earliest_on(const Port& port, core::Rank src, core::Rank dst, TimePs p,
                                  TimePs t, TimePs tau, core::Duplex duplex) const {
  const bool full = duplex == core::Duplex::kFull;
  // One scan suffices in half duplex: a hold passed because t was before
  // it with R = 0 is the same directed pair, on the other port too, where
  // earliest()'s alternation checks it again; any other hold passed that
  // way starts tau after t + p, which ends the scan. In full duplex the two
  // directions of a circuit overlap: scan again until t stays.
  for (;;) {
    const TimePs before = t;
    // The holds before the first whose prefix maximum of ends reaches past
    // t - tau all end, with their penalty, by t: the scan starts there.
    const auto first = std::partition_point(port.max_end.begin(), port.max_end.end(),
                                            [&](TimePs e) { return e + tau <= t; });
    auto it = port.holds.begin() + (first - port.max_end.begin());
    for (; it != port.holds.end(); ++it) {
      const PortHold& h = *it;
      if (t + p + tau <= h.start_ps) break;  // it and every later one start late enough
      if (full && h.src == dst && h.dst == src) continue;  // its circuit's other direction
      const TimePs r = (h.src == src && h.dst == dst) ? 0 : tau;
      if (t >= h.end_ps + r || t + p + r <= h.start_ps) continue;
      t = h.end_ps + r;
    }
    if (!full || t == before) return t;
  }
}

TimePs PortTimelines::earliest(core::SwitchId sw, core::Rank src, core::Rank dst, TimePs p,
                               TimePs t, TimePs tau, core::Duplex duplex) const {
  const Port& a = ports_[std::size_t{sw.value()} * ranks_ + src.value()];
  const Port& b = ports_[std::size_t{sw.value()} * ranks_ + dst.value()];
  for (;;) {  // alternate until both ports agree; t only grows
    const TimePs ta = earliest_on(a, src, dst, p, t, tau, duplex);
    const TimePs tb = earliest_on(b, src, dst, p, ta, tau, duplex);
    if (tb == ta) return ta;
    t = tb;
  }
}

namespace {

// insert_sends in `order` (positions of `requests`): the result per request.
std::vector<Inserted> insert_in_order(PortTimelines& timelines,
                                      std::span<const InsertRequest> requests,
                                      std::span<const std::uint32_t> order, TimePs tau,
                                      core::Duplex duplex,
                                      std::optional<std::chrono::steady_clock::time_point> deadline,
                                      bool plan_switch) {
  std::vector<Inserted> out(requests.size());
  std::vector<TimePs> end(requests.size(), std::numeric_limits<TimePs>::min());
  for (std::size_t i = 0; i < requests.size(); ++i) out[i].task = requests[i].task;
  for (const std::uint32_t i : order) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) break;
    const InsertRequest& q = requests[i];
    TimePs release = q.release_ps;
    bool ready = true;
    for (const auto& [j, compute] : q.after) {
      if (!out[j].at) {  // a hop whose predecessor kept its place (or comes later): keep this too
        ready = false;
        break;
      }
      release = std::max(release, end[j] + compute);
    }
    if (!ready) continue;
    std::optional<std::pair<core::SwitchId, TimePs>> best;
    for (std::uint32_t s = 0; s < timelines.switches(); ++s) {
      if (plan_switch && core::SwitchId(s) != q.plan_sw) continue;
      const TimePs t =
          timelines.earliest(core::SwitchId(s), q.src, q.dst, q.p_ps, release, tau, duplex);
      if (t < q.before_ps && (!best || t < best->second)) best.emplace(core::SwitchId(s), t);
    }
    if (!best) continue;
    out[i].at = best;
    end[i] = best->second + q.p_ps;
    timelines.insert(best->first, PortHold{best->second, end[i], q.src, q.dst});
  }
  // A request left at its plan place keeps its plan order key, which a
  // request it is linked to by `after` (either way) and placed anew could
  // now be on the wrong side of: the placements of every chain of `after`
  // links with a request left in it are taken back, whole.
  auto undo = [&](std::size_t j) {
    const InsertRequest& q = requests[j];
    timelines.remove(out[j].at->first, PortHold{out[j].at->second, end[j], q.src, q.dst});
    out[j].at.reset();
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      for (const auto& [j, compute] : requests[i].after) {
        if (out[i].at.has_value() == out[j].at.has_value()) continue;
        undo(out[i].at ? i : j);
        changed = true;
        if (!out[i].at) break;
      }
    }
  }
  return out;
}

}  // namespace

std::vector<Inserted> insert_sends(PortTimelines& timelines,
                                   std::span<const InsertRequest> requests, TimePs tau,
                                   core::Duplex duplex,
                                   std::optional<std::chrono::steady_clock::time_point> deadline,
                                   bool plan_switch) {
  std::vector<std::uint32_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0u);
  return insert_in_order(timelines, requests, order, tau, duplex, deadline, plan_switch);
}

namespace {

struct Score {
  TimePs latest = 0;
  TimePs sum = 0;
  [[nodiscard]] bool better(const Score& o) const {
    return latest != o.latest ? latest < o.latest : sum < o.sum;
  }
};

// Scores `placed` (per request; plan ends for the unplaced).
Score score(std::span<const InsertRequest> requests, std::span<const TimePs> plan_end,
            const std::vector<Inserted>& placed) {
  Score s;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const TimePs end = placed[i].at ? placed[i].at->second + requests[i].p_ps : plan_end[i];
    s.latest = std::max(s.latest, end);
    s.sum += end;
  }
  return s;
}

// Takes the holds of `placed` back out of `timelines`.
void undo(PortTimelines& timelines, std::span<const InsertRequest> requests,
          const std::vector<Inserted>& placed) {
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (!placed[i].at) continue;
    const InsertRequest& q = requests[i];
    timelines.remove(placed[i].at->first,
                     PortHold{placed[i].at->second, placed[i].at->second + q.p_ps, q.src, q.dst});
  }
}

}  // namespace

std::string_view to_string(Decided::Pick p) {
  switch (p) {
    case Decided::Pick::kPlan:
      return "plan";
    case Decided::Pick::kPlanSwitch:
      return "plan-switch";
    case Decided::Pick::kPlanOrder:
      return "plan-order";
    case Decided::Pick::kLongestFirst:
      return "longest-first";
  }
  return "plan";
}

Decided decide_insertion(PortTimelines& timelines, std::span<const InsertRequest> requests,
                         std::span<const TimePs> plan_end_ps, TimePs tau, core::Duplex duplex,
                         std::optional<std::chrono::steady_clock::time_point> deadline) {
  const std::size_t n = requests.size();
  Decided best;
  best.placed.resize(n);
  Score best_score;
  for (std::size_t i = 0; i < n; ++i) {
    best.placed[i].task = requests[i].task;
    best_score.latest = std::max(best_score.latest, plan_end_ps[i]);
    best_score.sum += plan_end_ps[i];
  }
  // The orders: the plan's, and longest first (a hop after the hops before
  // it), sorted only when its turn comes (a deadline may come first).
  std::vector<std::uint32_t> plan_order(n);
  std::iota(plan_order.begin(), plan_order.end(), 0u);
  std::vector<std::uint32_t> longest;
  for (const Decided::Pick pick :
       {Decided::Pick::kPlanSwitch, Decided::Pick::kPlanOrder, Decided::Pick::kLongestFirst}) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) break;
    if (pick == Decided::Pick::kLongestFirst) {
      std::vector<std::uint32_t> depth(n, 0);
      for (std::size_t i = 0; i < n; ++i) {
        for (const auto& [j, c] : requests[i].after) depth[i] = std::max(depth[i], depth[j] + 1);
      }
      longest = plan_order;
      std::stable_sort(longest.begin(), longest.end(), [&](std::uint32_t x, std::uint32_t y) {
        if (depth[x] != depth[y]) return depth[x] < depth[y];
        return requests[x].p_ps > requests[y].p_ps;
      });
    }
    const std::vector<std::uint32_t>& order =
        pick == Decided::Pick::kLongestFirst ? longest : plan_order;
    // Cut short by the deadline, a candidate counts with the sends it placed
    // (the rest at their plan places).
    std::vector<Inserted> placed = insert_in_order(timelines, requests, order, tau, duplex,
                                                   deadline, pick == Decided::Pick::kPlanSwitch);
    const Score s = score(requests, plan_end_ps, placed);
    // The next candidate starts from the timelines as they were; none
    // follows the last one, or one the deadline cut short.
    if (pick != Decided::Pick::kLongestFirst &&
        !(deadline && std::chrono::steady_clock::now() >= *deadline)) {
      undo(timelines, requests, placed);
    }
    if (!s.better(best_score)) continue;
    best_score = s;
    best.pick = pick;
    best.placed = std::move(placed);
  }
  return best;
}

}  // namespace flux::sched
