// Combinatorial lower bounds; the formulas are in bounds.hpp and docs/model.md.
#include "flux/sched/bounds.hpp"

#include <algorithm>
#include <vector>

#include "flux/sched/placement.hpp"

namespace flux::sched {
namespace {

using core::TimePs;

constexpr std::size_t kMaxThresholds = 256;

// Candidate thresholds: the distinct values, or kMaxThresholds quantiles.
std::vector<TimePs> thresholds(std::vector<TimePs> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() <= kMaxThresholds) return values;
  std::vector<TimePs> q;
  for (std::size_t k = 0; k < kMaxThresholds; ++k)
    q.push_back(values[k * values.size() / kMaxThresholds]);
  return q;
}

struct PortTask {
  TimePs head, q, p;
  std::uint64_t pair;  // src * n + dst
};

TimePs ceil_div(TimePs a, TimePs b) {
  return (a + b - 1) / b;
}

// The bound of every set S(a, b) = {head >= a, q >= b} at once, on the grid
// of thresholds: a task belongs to the cells (i, j) with i <= ia, j <= ib,
// where A[ia] is the largest head threshold <= its head and B[ib] the
// largest q threshold <= its q. Per cell: the sum of p and the least head
// by 2D suffix sums / minima, and the number of distinct pairs by adding,
// for each pair, the union of its tasks' quadrants (disjoint rectangles of
// its Pareto-maximal points) to a 2D difference array. O(N log N + |A||B|)
// per port, where scanning the sets one by one was O(N |A|).
class PortGrid {
 public:
  TimePs bound(std::vector<PortTask>& tasks, std::uint32_t switches, TimePs tau) {
    std::vector<TimePs> heads, qs;
    heads.reserve(tasks.size());
    qs.reserve(tasks.size());
    for (const PortTask& t : tasks) {
      heads.push_back(t.head);
      qs.push_back(t.q);
    }
    const std::vector<TimePs> a_values = thresholds(std::move(heads));
    const std::vector<TimePs> b_values = thresholds(std::move(qs));
    na_ = a_values.size();
    nb_ = b_values.size();
    sum_.assign(na_ * nb_, 0);
    min_head_.assign(na_ * nb_, -1);
    pairs_.assign((na_ + 1) * (nb_ + 1), 0);
    // Each task's cell, and its mass there.
    cells_.clear();
    for (const PortTask& t : tasks) {
      const auto ia = static_cast<std::uint32_t>(
          std::upper_bound(a_values.begin(), a_values.end(), t.head) - a_values.begin() - 1);
      const auto ib = static_cast<std::uint32_t>(
          std::upper_bound(b_values.begin(), b_values.end(), t.q) - b_values.begin() - 1);
      const std::size_t c = ia * nb_ + ib;
      sum_[c] += t.p;
      if (min_head_[c] < 0 || t.head < min_head_[c]) min_head_[c] = t.head;
      cells_.push_back(Cell{t.pair, ia, ib});
    }
    add_pair_staircases();
    // Suffix sums and minima over i >= .., j >= ..; prefix sums of the
    // difference array.
    for (std::size_t i = na_; i-- > 0;) {
      for (std::size_t j = nb_; j-- > 0;) {
        const std::size_t c = i * nb_ + j;
        if (j + 1 < nb_) merge(c, c + 1);
        if (i + 1 < na_) merge(c, c + nb_);
        if (i + 1 < na_ && j + 1 < nb_) sum_[c] -= sum_[c + nb_ + 1];
      }
    }
    for (std::size_t i = 0; i < na_; ++i) {
      for (std::size_t j = 0; j < nb_; ++j) {
        std::int64_t& d = pairs_[i * (nb_ + 1) + j];
        if (i > 0) d += pairs_[(i - 1) * (nb_ + 1) + j];
        if (j > 0) d += pairs_[i * (nb_ + 1) + j - 1];
        if (i > 0 && j > 0) d -= pairs_[(i - 1) * (nb_ + 1) + j - 1];
      }
    }
    TimePs best = 0;
    for (std::size_t i = 0; i < na_; ++i) {
      for (std::size_t j = 0; j < nb_; ++j) {
        const std::size_t c = i * nb_ + j;
        if (min_head_[c] < 0) continue;  // no task in S(A[i], B[j])
        const auto d = static_cast<TimePs>(pairs_[i * (nb_ + 1) + j]);
        const TimePs reconf = d > switches ? (d - switches) * tau : 0;
        // min q over the set is >= B[j] (and its own minimum is one of the B values).
        best = std::max(best, min_head_[c] + ceil_div(sum_[c] + reconf, switches) + b_values[j]);
      }
    }
    return best;
  }

 private:
  struct Cell {
    std::uint64_t pair;
    std::uint32_t ia, ib;
  };

  // Adds cell `from`'s suffix values into `into` (sums: inclusion-exclusion
  // finished by the caller).
  void merge(std::size_t into, std::size_t from) {
    sum_[into] += sum_[from];
    if (min_head_[from] >= 0 && (min_head_[into] < 0 || min_head_[from] < min_head_[into]))
      min_head_[into] = min_head_[from];
  }

  // For each pair: its Pareto-maximal cells (ia descending, ib ascending)
  // cover rows (ia_{t+1}, ia_t] up to column ib_t; each such rectangle goes
  // into the difference array.
  void add_pair_staircases() {
    std::sort(cells_.begin(), cells_.end(), [](const Cell& x, const Cell& y) {
      if (x.pair != y.pair) return x.pair < y.pair;
      return x.ia != y.ia ? x.ia > y.ia : x.ib > y.ib;
    });
    const std::size_t w = nb_ + 1;
    for (std::size_t k = 0; k < cells_.size();) {
      std::size_t end = k;
      while (end < cells_.size() && cells_[end].pair == cells_[k].pair) ++end;
      // Pareto front: by ia descending, keep cells whose ib beats all before
      // (a row's first cell has its largest ib, so a row adds at most one).
      front_.clear();
      for (std::size_t m = k; m < end; ++m) {
        if (front_.empty() || cells_[m].ib > front_.back().ib) front_.push_back(cells_[m]);
      }
      for (std::size_t t = 0; t < front_.size(); ++t) {
        const std::size_t hi = front_[t].ia;  // rows lo..hi
        const std::size_t lo = t + 1 < front_.size() ? front_[t + 1].ia + 1 : 0;
        const std::size_t right = front_[t].ib + 1;  // columns 0..ib
        pairs_[lo * w] += 1;
        pairs_[(hi + 1) * w] -= 1;
        pairs_[lo * w + right] -= 1;
        pairs_[(hi + 1) * w + right] += 1;
      }
      k = end;
    }
  }

  std::size_t na_ = 0, nb_ = 0;
  std::vector<TimePs> sum_, min_head_;
  std::vector<std::int64_t> pairs_;
  std::vector<Cell> cells_, front_;
};

// Full duplex (docs/model.md, "Lower bounds"): a circuit {x, y} carries x -> y
// and y -> x at once, so x's sends and receives are not one serial resource.
// For a set S of the OCS sends touching x, let out_y (in_y) be the sum of p
// over S's sends x -> y (y -> x) and d_S the number of partners y. Then
//   T >= min_S head + ceil((sum_y max(out_y, in_y) + (d_S - s)^+ tau) / s) + min_S q.
// Proof. Fix a schedule and a switch sigma; list S's sends on sigma by
// (start, end) and cut the list into epochs, maximal runs with one partner.
// (a) Two sends u before v of different partners take turns (each touches x,
// and a send's reverse has x's partner as its other end), R = tau: end_u +
// tau <= start_v or end_v + tau <= start_u; the second with start_u <=
// start_v forces p_v = tau = 0 and start_u = start_v = end_v, and then the
// first holds too. So consecutive epochs are separated: the latest end of
// one + tau <= the earliest start of the next. (b) Within an epoch of partner
// y the sends x -> y take turns (R = 0), so do the sends y -> x: the epoch
// spans at least max(its out load, its in load). (c) Each partner on sigma
// (k_sigma of them) has an epoch. Hence S's sends on sigma span at least
// sum_y max(out_{y,sigma}, in_{y,sigma}) + (k_sigma - 1)^+ tau, all inside
// [min_S head, T - min_S q]. Summing over the s switches, with sum_sigma
// max(out_{y,sigma}, in_{y,sigma}) >= max(out_y, in_y) and sum_sigma
// (k_sigma - 1)^+ >= (d_S - s)^+, gives s (T - min q - min head) >= the
// numerator; T is whole picoseconds, hence the ceiling. With S holding only
// x's sends (or only its receives) this is the half-duplex formula on S,
// which PortGrid scans; here the sets {head >= a} and {q >= b} for every
// threshold a, b among the sends' own values, each in O(|S| log |S|).
TimePs partner_bound(std::vector<PortTask> tasks, std::uint64_t x, std::uint64_t ranks,
                     std::uint32_t switches, TimePs tau) {
  // Partners as dense indices.
  std::vector<std::uint64_t> partner(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint64_t src = tasks[i].pair / ranks, dst = tasks[i].pair % ranks;
    partner[i] = src == x ? dst : src;
  }
  std::vector<std::uint64_t> ids = partner;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::uint32_t> index(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    index[i] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), partner[i]) -
                                          ids.begin());
  }
  std::vector<std::size_t> order(tasks.size());
  TimePs best = 0;
  for (const bool by_head : {true, false}) {
    const auto key = [&](std::size_t i) { return by_head ? tasks[i].head : tasks[i].q; };
    const auto other = [&](std::size_t i) { return by_head ? tasks[i].q : tasks[i].head; };
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return key(a) != key(b) ? key(a) > key(b) : a < b;
    });
    std::vector<TimePs> out(ids.size(), 0), in(ids.size(), 0);
    std::vector<char> seen(ids.size(), 0);
    TimePs load = 0, min_other = 0;
    std::uint64_t partners = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t i = order[k];
      const std::uint32_t y = index[i];
      partners += seen[y] == 0;
      seen[y] = 1;
      load -= std::max(out[y], in[y]);
      (tasks[i].pair / ranks == x ? out[y] : in[y]) += tasks[i].p;
      load += std::max(out[y], in[y]);
      min_other = k == 0 ? other(i) : std::min(min_other, other(i));
      if (k + 1 < order.size() && key(order[k + 1]) == key(i)) continue;
      // The set {key >= key(i)}: its least key is key(i).
      const TimePs reconf =
          partners > switches ? static_cast<TimePs>(partners - switches) * tau : 0;
      best = std::max(best, key(i) + ceil_div(load + reconf, switches) + min_other);
    }
  }
  return best;
}

}  // namespace

LowerBounds lower_bounds(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing) {
  LowerBounds lb;
  lb.critical_path_ps = timing.makespan;
  const std::uint32_t n = w.accelerators();
  const bool full = system.duplex == core::Duplex::kFull;
  // Ports: the OCS port of each accelerator (its links to the s switches,
  // OCS sends only), then with scale-up domains its scale-up egress and
  // ingress, and with a packet fabric its packet egress and ingress (one
  // server each, no tau; n + electrical_slot, in PortKind's order). In full
  // duplex the OCS port's list holds its sends only, and `received` its
  // receives.
  const std::size_t kinds = system.has_packet()    ? 1 + 2 * kElectricalFabrics
                            : system.has_scaleup() ? 3
                                                   : 1;
  std::vector<std::vector<PortTask>> by_port(kinds * n);
  std::vector<std::vector<PortTask>> received(full ? n : 0);
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const PortTask pt{timing.earliest_start[v], timing.to_end[v] - p[v], p[v],
                      std::uint64_t{t.src.value()} * n + t.dst.value()};
    if (const core::SwitchId e = core::electrical_switch(system.fabric(t.src, t.dst));
        core::is_electrical(e)) {
      by_port[n + electrical_slot(e, false, t.src, n)].push_back(pt);
      by_port[n + electrical_slot(e, true, t.dst, n)].push_back(pt);
    } else {
      by_port[t.src.value()].push_back(pt);
      (full ? received : by_port)[t.dst.value()].push_back(pt);
    }
  }
  PortGrid grid;
  const TimePs tau = system.reconfig_delay_ps;
  for (std::size_t k = 0; k < by_port.size(); ++k) {
    const bool ocs = k < n;
    if (by_port[k].empty() && !(full && ocs && !received[k].empty())) continue;
    TimePs b = 0;
    if (!ocs) {
      b = grid.bound(by_port[k], 1, 0);
    } else if (!full) {
      b = grid.bound(by_port[k], system.switches, tau);
    } else {
      // Full duplex: the sends alone, the receives alone, and both with
      // one epoch per partner (partner_bound).
      if (!by_port[k].empty()) b = grid.bound(by_port[k], system.switches, tau);
      if (!received[k].empty()) b = std::max(b, grid.bound(received[k], system.switches, tau));
      std::vector<PortTask> both = by_port[k];
      both.insert(both.end(), received[k].begin(), received[k].end());
      b = std::max(b, partner_bound(std::move(both), k, n, system.switches, tau));
    }
    if (b > lb.port_load_ps) {
      lb.port_load_ps = b;
      lb.port = core::Rank(static_cast<std::uint32_t>(k % n));
      lb.port_kind = static_cast<PortKind>(k / n);
    }
  }
  return lb;
}

}  // namespace flux::sched
