// Insertion into a running plan; the rule is in sched/insertion.hpp.
#include "flux/sched/insertion.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <stdexcept>

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
    const std::size_t k = std::size_t{sw.value()} * ranks_ + r.value();
    std::vector<PortHold>& added = ports_[k].added;
    if (added.empty()) touched_.push_back(k);
    added.insert(std::upper_bound(added.begin(), added.end(), h.start_ps,
                                  [](TimePs t, const PortHold& x) { return t < x.start_ps; }),
                 h);
  }
}

void PortTimelines::remove(core::SwitchId sw, const PortHold& h) {
  for (const core::Rank r : {h.src, h.dst}) {
    std::vector<PortHold>& added = ports_[std::size_t{sw.value()} * ranks_ + r.value()].added;
    const auto it = std::find_if(added.begin(), added.end(), [&](const PortHold& x) {
      return x.start_ps == h.start_ps && x.end_ps == h.end_ps && x.src == h.src && x.dst == h.dst;
    });
    if (it != added.end()) added.erase(it);
  }
}

void PortTimelines::clear_inserted() {
  for (const std::size_t k : touched_) ports_[k].added.clear();
  touched_.clear();
}

bool PortTimelines::has_inserted() const {
  return std::any_of(touched_.begin(), touched_.end(),
                     [&](std::size_t k) { return !ports_[k].added.empty(); });
}

namespace {

// One pass over holds [first, last) in start order: t moved past every
// hold it conflicts with (docs atop insertion.hpp), stopping at the first
// hold that starts late enough for it and every later one. In full duplex
// a hold of the reverse direction shares its circuit at the same time.
template <typename It>
TimePs pass(It first, It last, core::Rank src, core::Rank dst, TimePs p, TimePs t, TimePs tau,
            bool full, TimePs limit) {
  for (; first != last && t < limit; ++first) {
    const PortHold& h = *first;
    if (t + p + tau <= h.start_ps) break;
    if (full && h.src == dst && h.dst == src) continue;
    const TimePs r = (h.src == src && h.dst == dst) ? 0 : tau;
    if (t >= h.end_ps + r || t + p + r <= h.start_ps) continue;
    t = h.end_ps + r;
  }
  return t;
}

}  // namespace

TimePs PortTimelines::earliest_on(const Port& port, core::Rank src, core::Rank dst, TimePs p,
                                  TimePs t, TimePs tau, core::Duplex duplex, TimePs limit) const {
  const bool full = duplex == core::Duplex::kFull;
  // A pass over the forecast's holds, then over those inserted since, until
  // t stays: each pass moves t to the earliest start at or after it that
  // no hold of its set conflicts with, so the fixed point is the earliest
  // for both. The forecast's pass starts at the first hold whose prefix
  // maximum of ends reaches past t - tau (every hold before it ends, with
  // its penalty, by t). The passes repeat until t stays: a pass over one
  // set can move t into a hold of the other, and in full duplex into one
  // of its own (a circuit's two directions overlap).
  for (;;) {
    const TimePs before = t;
    const auto first = std::partition_point(port.max_end.begin(), port.max_end.end(),
                                            [&](TimePs e) { return e + tau <= t; });
    t = pass(port.holds.begin() + (first - port.max_end.begin()), port.holds.end(), src, dst, p, t,
             tau, full, limit);
    t = pass(port.added.begin(), port.added.end(), src, dst, p, t, tau, full, limit);
    if (t == before || t >= limit) return t;
  }
}

TimePs PortTimelines::earliest(core::SwitchId sw, core::Rank src, core::Rank dst, TimePs p,
                               TimePs t, TimePs tau, core::Duplex duplex, TimePs limit) const {
  const Port& a = ports_[std::size_t{sw.value()} * ranks_ + src.value()];
  const Port& b = ports_[std::size_t{sw.value()} * ranks_ + dst.value()];
  for (;;) {  // alternate until both ports agree; t only grows
    const TimePs ta = earliest_on(a, src, dst, p, t, tau, duplex, limit);
    if (ta >= limit) return ta;
    const TimePs tb = earliest_on(b, src, dst, p, ta, tau, duplex, limit);
    if (tb == ta || tb >= limit) return tb;
    t = tb;
  }
}

namespace {

using Clock = std::chrono::steady_clock;

// An anytime decision's deadline: a step (one send's placement) starts
// only while the longest step so far would still end before it, so a
// decision returns by its deadline unless one step runs far past the ones
// before it (the machine, not the search).
class Deadline {
 public:
  // The time until the first step counts as a step (the caller's set-up).
  explicit Deadline(std::optional<Clock::time_point> at) : at_(at) {
    if (at_) started_ = Clock::now();
  }
  // Whether the next step may start; times the one before.
  bool next() {
    if (!at_) return true;
    const Clock::time_point now = Clock::now();
    if (started_) longest_ = std::max(longest_, now - *started_);
    started_ = now;
    return now + longest_ < *at_;
  }
  // The step in progress (a candidate's last) has ended.
  void stop() {
    if (!at_ || !started_) return;
    longest_ = std::max(longest_, Clock::now() - *started_);
    started_.reset();
  }
  // Whether another candidate may start.
  [[nodiscard]] bool open() const { return !at_ || Clock::now() + longest_ < *at_; }

 private:
  std::optional<Clock::time_point> at_;
  std::optional<Clock::time_point> started_;
  Clock::duration longest_{0};
};

// insert_sends in `order` (positions of `requests`): the result per request.
std::vector<Inserted> insert_in_order(PortTimelines& timelines,
                                      std::span<const InsertRequest> requests,
                                      std::span<const std::uint32_t> order, TimePs tau,
                                      core::Duplex duplex, Deadline& deadline, bool plan_switch) {
  std::vector<Inserted> out(requests.size());
  std::vector<TimePs> end(requests.size(), std::numeric_limits<TimePs>::min());
  for (std::size_t i = 0; i < requests.size(); ++i) out[i].task = requests[i].task;
  for (const std::uint32_t i : order) {
    if (!deadline.next()) break;
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
      // Only a start before the bound and before the best so far can win.
      const TimePs limit = best ? std::min(q.before_ps, best->second) : q.before_ps;
      const TimePs t =
          timelines.earliest(core::SwitchId(s), q.src, q.dst, q.p_ps, release, tau, duplex, limit);
      if (t < limit) best.emplace(core::SwitchId(s), t);
    }
    if (!best) continue;
    out[i].at = best;
    end[i] = best->second + q.p_ps;
    timelines.insert(best->first, PortHold{best->second, end[i], q.src, q.dst});
  }
  deadline.stop();
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
  Deadline until(deadline);
  return insert_in_order(timelines, requests, order, tau, duplex, until, plan_switch);
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

bool keeps_circuits(std::span<const InsertRequest> requests, TimePs tau) {
  // The weighted median: the transmission time of the send that carries
  // the middle of the decision's transfer time (sorted by it, the first at
  // which the running sum reaches half the total). A plain median would
  // follow the count of sends, and under skew most carry a header only.
  std::vector<TimePs> p;
  p.reserve(requests.size());
  TimePs total = 0;
  for (const InsertRequest& q : requests) {
    p.push_back(q.p_ps);
    total = core::add_time(total, q.p_ps, "transmission time");
  }
  std::sort(p.begin(), p.end());
  TimePs sum = 0;
  for (const TimePs x : p) {
    sum += x;
    if (sum >= total - sum) return tau >= x;
  }
  return true;  // no request
}

Decided decide_insertion(PortTimelines& timelines, std::span<const InsertRequest> requests,
                         std::span<const TimePs> plan_end_ps, TimePs tau, core::Duplex duplex,
                         std::optional<std::chrono::steady_clock::time_point> deadline) {
  Deadline until(deadline);
  if (timelines.has_inserted()) {
    throw std::invalid_argument("decide_insertion: the timelines hold inserted sends");
  }
  const std::size_t n = requests.size();
  Decided best;
  best.placed.resize(n);
  for (std::size_t i = 0; i < n; ++i) best.placed[i].task = requests[i].task;
  Score best_score = score(requests, plan_end_ps, best.placed);
  // The candidates: where a circuit change costs at least the typical
  // send, only the plan's switches in the plan's order; otherwise longest
  // first (a hop after the hops before it) first, as it wins most
  // decisions (a deadline that cuts the search short has it whole), then
  // the plan's order on the plan's switches and on any. Ties go to the
  // plan, then to the plan switches, then to the plan order, whatever the
  // order tried.
  using Pick = Decided::Pick;
  static constexpr std::array kKeep = {Pick::kPlanSwitch};
  static constexpr std::array kAll = {Pick::kLongestFirst, Pick::kPlanSwitch, Pick::kPlanOrder};
  const std::span<const Pick> tried =
      keeps_circuits(requests, tau) ? std::span<const Pick>(kKeep) : std::span<const Pick>(kAll);
  std::vector<std::uint32_t> plan_order(n);
  std::iota(plan_order.begin(), plan_order.end(), 0u);
  std::vector<std::uint32_t> longest;
  for (const Pick pick : tried) {
    if (!until.open()) break;
    if (pick == Pick::kLongestFirst) {
      // The sort is a step too: the longest step so far is what a decision
      // keeps in reserve for its last one and its wrap-up (O(requests)).
      if (!until.next()) break;
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
    const std::vector<std::uint32_t>& order = pick == Pick::kLongestFirst ? longest : plan_order;
    // Cut short by the deadline, a candidate counts with the sends it placed
    // (the rest at their plan places).
    std::vector<Inserted> placed =
        insert_in_order(timelines, requests, order, tau, duplex, until, pick == Pick::kPlanSwitch);
    const Score s = score(requests, plan_end_ps, placed);
    if (s.better(best_score) || (!best_score.better(s) && pick < best.pick)) {
      best_score = s;
      best.pick = pick;
      best.placed = std::move(placed);
    }
    // The next candidate, and the caller, find the timelines as they were.
    timelines.clear_inserted();
  }
  return best;
}

}  // namespace flux::sched
