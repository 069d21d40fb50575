// Combinatorial lower bounds; the formulas are in bounds.hpp and docs/model.md.
#include "flux/sched/bounds.hpp"

#include <algorithm>
#include <vector>

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

}  // namespace

LowerBounds lower_bounds(const core::Workload& w, const core::System& system,
                         std::span<const TimePs> p, const core::IdealTiming& timing) {
  LowerBounds lb;
  lb.critical_path_ps = timing.makespan;
  const std::uint32_t n = w.accelerators();
  // Ports: the OCS port of each accelerator (its links to the s switches,
  // sends between domains only), then with scale-up domains its electrical
  // egress and ingress (one server each, no tau).
  const std::size_t kinds = system.has_scaleup() ? 3 : 1;
  std::vector<std::vector<PortTask>> by_port(kinds * n);
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const PortTask pt{timing.earliest_start[v], timing.to_end[v] - p[v], p[v],
                      std::uint64_t{t.src.value()} * n + t.dst.value()};
    if (system.fabric(t.src, t.dst) == core::Fabric::kScaleUp) {
      by_port[n + t.src.value()].push_back(pt);
      by_port[2 * std::size_t{n} + t.dst.value()].push_back(pt);
    } else {
      by_port[t.src.value()].push_back(pt);
      by_port[t.dst.value()].push_back(pt);
    }
  }
  PortGrid grid;
  for (std::size_t k = 0; k < by_port.size(); ++k) {
    if (by_port[k].empty()) continue;
    const bool ocs = k < n;
    const TimePs b = ocs ? grid.bound(by_port[k], system.switches, system.reconfig_delay_ps)
                         : grid.bound(by_port[k], 1, 0);
    if (b > lb.port_load_ps) {
      lb.port_load_ps = b;
      lb.port = core::Rank(static_cast<std::uint32_t>(k % n));
      lb.port_kind = static_cast<PortKind>(k / n);
    }
  }
  return lb;
}

}  // namespace flux::sched
