// bvn: the paper's demand-aware baseline. The iteration's traffic matrix is
// decomposed into weighted permutations (Birkhoff-von Neumann); each
// permutation becomes a circuit configuration held for as long as its weight
// takes at link rate, in a cycle that repeats for ever.
//
// Traffic matrix. D[i][j] = bytes sent from i to j over the iteration
// (summed over sends), kept sparse: the sorted nonzero entries. With
// scale-up domains (k consecutive ranks each) only the sends between
// domains count: the others use the electrical fabric, which the simulator
// runs on its own.
//
// Stuffing. L = the largest row or column sum of D. D is raised to a matrix
// whose every line sums to L, in integers, exactly: first the diagonal takes
// min(row deficit_i, column deficit_i) (a diagonal entry is a fixed point of
// the permutations, i.e. no circuit, so idle accelerators cost nothing); then
// the rows and the columns with a deficit left are walked in index order
// with two pointers, and (i, j) receives min(deficit_i, deficit_j), which
// zeroes at least one of the two. The total row and column deficits are
// equal (n L - sum D), so the walk ends with every line at L, after at most
// 2n additions.
//
// Stuffing with domains. The diagonal step becomes a step per
// domain-diagonal block: the same two-pointer walk over the rows and
// columns of one domain. An entry inside a block, like a diagonal one, is
// never a circuit (below), so it costs nothing. After a block's walk, either
// all its rows or all its columns have no deficit left (the walk stops when
// one side runs out), so the global walk that follows only ever pairs a row
// and a column of different domains: it adds cross-domain entries only, and
// only where needed. The counts are as before (at most 2n additions in the
// blocks, 2n across) and every line ends at L for the same reason. For
// k = 1 the blocks are the diagonal: the matrix is the one of the paper's
// model, entry for entry. Stuffing inside the cross-domain support alone
// (plus the diagonal) cannot always reach L: with domains {0, 1}, {2, 3},
// {4, 5} and D = 2->0, 1->4, 4->2, 3->5, 5->3 (L each), only row 0 and
// column 1 fall short, and (0, 1) lies inside a domain.
//
// Decomposition. An integer matrix with all line sums L > 0 has a perfect
// matching on its positive entries (Hall's theorem; Birkhoff). Repeatedly:
// take such a matching sigma (row i -> column sigma(i)), weight w = the least
// entry on it, subtract w on the matching. At least one entry reaches zero
// per step and all line sums drop to L - w, so the loop ends after at most
// nnz steps with weights summing to L. The matching is found by
// Hopcroft-Karp once and then repaired: rows whose matched entry reached
// zero are unmatched and re-augmented (Hopcroft-Karp phases from the
// remaining matching, breadth-first search stopped at the first layer that
// reaches a free column, iterative depth-first search), which touches only
// the neighbourhood of the freed rows in the usual case. Everything is
// sparse: no n x n loop anywhere.
//
// Circuits of a permutation. i -> sigma(i) for i != sigma(i) gives the
// undirected circuit {i, sigma(i)}; full duplex, so a 2-cycle is one circuit
// serving both directions. Fixed points (diagonal entries, only ever from
// stuffing) need no circuit, nor, with domains, does any i -> sigma(i)
// inside one domain (block entries, only ever from stuffing): no circuit
// ever joins two ranks of one domain. The circuits of a cycle of length l >= 3 form a
// ring: an accelerator has two of them, so they cannot share one switch;
// they are split into matchings: even l alternately into 2 matchings, odd l
// alternately into 2 with the last edge alone in a third. A cycle with
// edges inside a domain falls into paths between them, each alternately
// into 2 matchings (a path is 2-colourable, and two paths touch no common
// rank). A permutation has c = 0 (no circuits, skipped: without domains the
// identity, which stuff_matrix() never leads to, since a line with sum L
// gets no stuffing and so no diagonal entry; with domains a permutation
// within the blocks, which carries only stuffing), 1 (2-cycles only), 2 or
// 3 matchings.
//
// Slots. The c matchings of a permutation of weight w are laid on the s
// switches in ceil(c / s) consecutive sub-slots; sub-slot m shows matching
// m s + j on switch j, and when fewer than s matchings remain, the spare
// switches repeat the sub-slot's matchings round-robin (switch j shows
// matching m s + (j mod count)), extra capacity for the same pairs. Every
// sub-slot lasts tau + p(w), p(w) = system.transmission_ps(w): tau of
// reconfiguration, then the time to move the permutation's w bytes per
// circuit (and direction) at link rate; so slot lengths follow the weights
// and not tau, as in the paper. Sub-slots follow the terms' order back to
// back from 0; the cycle's period is the sum of their lengths.
//
// Reuse. When a switch shows the same circuit {a, b} in two consecutive
// sub-slots, the circuit is not reconfigured: its interval is extended to
// the end of the later sub-slot (it keeps carrying data while the switch's
// other circuits reconfigure; they share no port with it). The cycle's
// wrap-around (last sub-slot -> first) always reconfigures, since each
// interval lies within [0, period).
#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <tuple>

#include "flux/core/error.hpp"
#include "flux/sched/baselines.hpp"
#include "schedulers.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TimePs;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::string entry_str(const MatrixEntry& e) {
  return "(" + std::to_string(e.row) + ", " + std::to_string(e.col) +
         ") = " + std::to_string(e.value);
}

// Entries in range, nonzero, sorted by (row, col) without duplicates.
void check_matrix(const SparseMatrix& m) {
  for (std::size_t k = 0; k < m.entries.size(); ++k) {
    const MatrixEntry& e = m.entries[k];
    const std::string field = "matrix.entries[" + std::to_string(k) + "]";
    if (e.row >= m.n || e.col >= m.n) {
      throw core::InputError(
          "", field, entry_str(e),
          "outside the " + std::to_string(m.n) + " x " + std::to_string(m.n) + " matrix");
    }
    if (e.value == 0) throw core::InputError("", field, entry_str(e), "zeros are not stored");
    if (k > 0 && std::tie(m.entries[k - 1].row, m.entries[k - 1].col) >= std::tie(e.row, e.col)) {
      throw core::InputError("", field, entry_str(e),
                             "entries must be sorted by (row, col), without duplicates");
    }
  }
}

struct LineSums {
  std::vector<std::uint64_t> rows;
  std::vector<std::uint64_t> cols;
  std::uint64_t max = 0;
};

LineSums line_sums(const SparseMatrix& m) {
  LineSums s{std::vector<std::uint64_t>(m.n, 0), std::vector<std::uint64_t>(m.n, 0), 0};
  for (const MatrixEntry& e : m.entries) {
    if (__builtin_add_overflow(s.rows[e.row], e.value, &s.rows[e.row]) ||
        __builtin_add_overflow(s.cols[e.col], e.value, &s.cols[e.col])) {
      throw core::InputError("", "matrix", entry_str(e), "a line sum exceeds 2^64");
    }
  }
  for (std::uint32_t i = 0; i < m.n; ++i) s.max = std::max({s.max, s.rows[i], s.cols[i]});
  return s;
}

// Sorts by (row, col) and sums duplicates.
std::vector<MatrixEntry> merge_entries(std::vector<MatrixEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const MatrixEntry& x, const MatrixEntry& y) {
    return std::tie(x.row, x.col) < std::tie(y.row, y.col);
  });
  std::vector<MatrixEntry> out;
  for (const MatrixEntry& e : entries) {
    if (!out.empty() && out.back().row == e.row && out.back().col == e.col) {
      if (__builtin_add_overflow(out.back().value, e.value, &out.back().value)) {
        throw core::InputError("", "matrix", entry_str(e), "an entry exceeds 2^64");
      }
    } else {
      out.push_back(e);
    }
  }
  return out;
}

// Integer BvN decomposition with matching repair (see the top of the file).
class Decomposer {
 public:
  Decomposer(const SparseMatrix& m, std::uint64_t line_sum)
      : n_(m.n),
        line_sum_(line_sum),
        adj_(m.n),
        match_row_(m.n, kNone),
        match_col_(m.n, kNone),
        dist_(m.n),
        iter_(m.n) {
    col_.reserve(m.entries.size());
    value_.reserve(m.entries.size());
    for (const MatrixEntry& e : m.entries) {
      adj_[e.row].push_back(static_cast<std::uint32_t>(col_.size()));
      col_.push_back(e.col);
      value_.push_back(e.value);
    }
  }

  std::vector<BvnTerm> run() {
    std::vector<BvnTerm> terms;
    for (std::uint32_t r = 0; r < n_; ++r) {  // greedy start
      for (std::uint32_t e : adj_[r]) {
        if (match_col_[col_[e]] == kNone) {
          match_row_[r] = e;
          match_col_[col_[e]] = r;
          break;
        }
      }
    }
    std::uint64_t remaining = line_sum_;
    while (remaining > 0) {
      complete_matching();
      BvnTerm term;
      term.perm.resize(n_);
      term.weight = std::numeric_limits<std::uint64_t>::max();
      for (std::uint32_t r = 0; r < n_; ++r) {
        term.perm[r] = col_[match_row_[r]];
        term.weight = std::min(term.weight, value_[match_row_[r]]);
      }
      for (std::uint32_t r = 0; r < n_; ++r) {
        const std::uint32_t e = match_row_[r];
        value_[e] -= term.weight;
        if (value_[e] != 0) continue;
        match_row_[r] = kNone;
        match_col_[col_[e]] = kNone;
        std::erase_if(adj_[r], [&](std::uint32_t x) { return value_[x] == 0; });
      }
      remaining -= term.weight;
      terms.push_back(std::move(term));
    }
    return terms;
  }

 private:
  static constexpr std::uint32_t kInf = kNone;

  // Hopcroft-Karp phases from the current matching until it is perfect.
  void complete_matching() {
    while (layer()) {
      std::fill(iter_.begin(), iter_.end(), 0u);
      for (std::uint32_t r = 0; r < n_; ++r) {
        if (match_row_[r] == kNone) augment(r);
      }
    }
    for (std::uint32_t r = 0; r < n_; ++r) {
      if (match_row_[r] == kNone) {
        throw core::Error("bvn: no perfect matching on a matrix with equal line sums (a bug)");
      }
    }
  }

  // Breadth-first layers from the free rows; stops expanding past the first
  // layer that reaches a free column. True when one is reachable.
  bool layer() {
    queue_.clear();
    for (std::uint32_t r = 0; r < n_; ++r) {
      dist_[r] = match_row_[r] == kNone ? 0 : kInf;
      if (dist_[r] == 0) queue_.push_back(r);
    }
    std::uint32_t limit = kInf;
    for (std::size_t k = 0; k < queue_.size(); ++k) {
      const std::uint32_t r = queue_[k];
      if (dist_[r] > limit) break;
      for (std::uint32_t e : adj_[r]) {
        const std::uint32_t next = match_col_[col_[e]];
        if (next == kNone) {
          limit = dist_[r];
        } else if (dist_[next] == kInf) {
          dist_[next] = dist_[r] + 1;
          queue_.push_back(next);
        }
      }
    }
    return limit != kInf;
  }

  // Iterative depth-first search along the layers from a free row; flips
  // the path when it reaches a free column.
  bool augment(std::uint32_t root) {
    stack_.assign(1, root);
    while (!stack_.empty()) {
      const std::uint32_t r = stack_.back();
      if (iter_[r] == adj_[r].size()) {  // dead end
        dist_[r] = kInf;
        stack_.pop_back();
        if (!stack_.empty()) ++iter_[stack_.back()];
        continue;
      }
      const std::uint32_t next = match_col_[col_[adj_[r][iter_[r]]]];
      if (next == kNone) {
        for (std::uint32_t x : stack_) {
          const std::uint32_t e = adj_[x][iter_[x]];
          match_row_[x] = e;
          match_col_[col_[e]] = x;
        }
        return true;
      }
      if (dist_[next] == dist_[r] + 1) {
        stack_.push_back(next);
      } else {
        ++iter_[r];
      }
    }
    return false;
  }

  std::uint32_t n_;
  std::uint64_t line_sum_;
  std::vector<std::uint32_t> col_;               // per entry
  std::vector<std::uint64_t> value_;             // per entry, what is left
  std::vector<std::vector<std::uint32_t>> adj_;  // per row: entries with value > 0
  std::vector<std::uint32_t> match_row_;         // row -> entry, or kNone
  std::vector<std::uint32_t> match_col_;         // column -> row, or kNone
  std::vector<std::uint32_t> dist_;              // layer of a row, or kInf
  std::vector<std::uint32_t> iter_;              // next position in adj_[row]
  std::vector<std::uint32_t> queue_;
  std::vector<std::uint32_t> stack_;
};

constexpr std::uint32_t kMaxBvnRanks = 1u << 20;

// Scale-up domains of k consecutive ranks must tile the n ranks (the
// System's own check and message).
void check_domains(std::size_t n, std::uint32_t k) {
  core::System domains;
  domains.scaleup_size = k;
  domains.validate_for(n);
}

TimePs checked_add(TimePs a, TimePs b) {
  TimePs r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    throw core::InputError("", "bvn", std::to_string(a) + " ps + " + std::to_string(b) + " ps",
                           "the bvn cycle exceeds the time range");
  }
  return r;
}

}  // namespace

SparseMatrix sparse_traffic_matrix(const core::Workload& w, std::uint32_t scaleup_size) {
  std::vector<MatrixEntry> entries;
  entries.reserve(w.num_tasks());
  for (const core::Task& t : w.tasks()) {
    if (t.src.value() / scaleup_size == t.dst.value() / scaleup_size) continue;  // electrical
    entries.push_back({t.src.value(), t.dst.value(), t.bytes});
  }
  return {w.accelerators(), merge_entries(std::move(entries))};
}

SparseMatrix sparse_traffic_matrix(const core::Workload& w, const core::System& system) {
  std::vector<MatrixEntry> entries;
  entries.reserve(w.num_tasks());
  for (const core::Task& t : w.tasks()) {
    if (system.fabric(t.src, t.dst) != core::Fabric::kOcs) continue;  // scale-up or packet
    entries.push_back({t.src.value(), t.dst.value(), t.bytes});
  }
  return {w.accelerators(), merge_entries(std::move(entries))};
}

namespace {

// A matrix being stuffed: every line's deficit to L, and add(i, j), which
// puts min(row deficit i, column deficit j) at (i, j).
class Stuffing {
 public:
  explicit Stuffing(const SparseMatrix& m) : n_(m.n), entries_(m.entries) {
    const LineSums sums = line_sums(m);
    l_ = sums.max;
    row_deficit_.resize(m.n);
    col_deficit_.resize(m.n);
    for (std::uint32_t i = 0; i < m.n; ++i) {
      row_deficit_[i] = l_ - sums.rows[i];
      col_deficit_[i] = l_ - sums.cols[i];
    }
  }
  void add(std::uint32_t i, std::uint32_t j) {
    const std::uint64_t d = std::min(row_deficit_[i], col_deficit_[j]);
    if (d == 0) return;
    entries_.push_back({i, j, d});
    row_deficit_[i] -= d;
    col_deficit_[j] -= d;
  }
  // Two pointers over the rows and columns at(0), ..., at(size - 1) with a
  // deficit.
  template <class At>
  void walk(std::size_t size, At at) {
    for (std::size_t a = 0, b = 0;;) {
      while (a < size && row_deficit_[at(a)] == 0) ++a;
      while (b < size && col_deficit_[at(b)] == 0) ++b;
      if (a == size || b == size) break;
      add(at(a), at(b));
    }
  }
  StuffedMatrix result() && { return {{n_, merge_entries(std::move(entries_))}, l_}; }

 private:
  std::uint32_t n_;
  std::uint64_t l_ = 0;
  std::vector<MatrixEntry> entries_;
  std::vector<std::uint64_t> row_deficit_, col_deficit_;
};

}  // namespace

StuffedMatrix stuff_matrix(const SparseMatrix& m, std::uint32_t scaleup_size) {
  check_matrix(m);
  check_domains(m.n, scaleup_size);
  Stuffing st(m);
  // Domain-diagonal blocks first (k = 1: the diagonal), then across.
  for (std::uint32_t first = 0; first < m.n; first += scaleup_size) {
    st.walk(scaleup_size, [first](std::size_t x) { return first + static_cast<std::uint32_t>(x); });
  }
  st.walk(m.n, [](std::size_t x) { return static_cast<std::uint32_t>(x); });
  return std::move(st).result();
}

StuffedMatrix stuff_matrix_in_groups(const SparseMatrix& m,
                                     std::span<const std::vector<core::Rank>> groups) {
  check_matrix(m);
  std::vector<std::uint32_t> group_of(m.n, kNone);
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    for (core::Rank r : groups[g]) {
      if (r.value() < m.n) group_of[r.value()] = g;
    }
  }
  for (const MatrixEntry& e : m.entries) {
    if (group_of[e.row] != group_of[e.col] || group_of[e.row] == kNone) {
      throw core::InputError("", "bvn", entry_str(e), "joins two groups no switch joins");
    }
  }
  Stuffing st(m);
  for (std::uint32_t i = 0; i < m.n; ++i) st.add(i, i);
  // Each group's row and column deficits sum alike (its traffic stays in
  // it, and the diagonal takes as much from both): the walk zeroes them.
  for (const std::vector<core::Rank>& members : groups) {
    st.walk(members.size(), [&members](std::size_t x) { return members[x].value(); });
  }
  return std::move(st).result();
}

std::vector<BvnTerm> bvn_decompose(const SparseMatrix& m) {
  check_matrix(m);
  const LineSums sums = line_sums(m);
  for (std::uint32_t i = 0; i < m.n; ++i) {
    for (const auto& [what, sum] : {std::pair{"row ", sums.rows[i]}, {"column ", sums.cols[i]}}) {
      if (sum == sums.max) continue;
      throw core::InputError(
          "", "matrix", std::string(what) + std::to_string(i) + " sums to " + std::to_string(sum),
          "every row and column must sum to the same L (the largest is " +
              std::to_string(sums.max) + "; stuff_matrix() gets there)");
    }
  }
  if (sums.max == 0) return {};
  return Decomposer(m, sums.max).run();
}

std::vector<Matching> permutation_matchings(std::span<const std::uint32_t> perm,
                                            std::uint32_t scaleup_size) {
  check_domains(perm.size(), scaleup_size);
  const std::size_t n = perm.size();
  std::vector<std::uint8_t> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (perm[i] >= n || seen[perm[i]]) {
      throw core::InputError("", "perm[" + std::to_string(i) + "]", std::to_string(perm[i]),
                             "not a permutation of 0 .. " + std::to_string(n - 1));
    }
    seen[perm[i]] = 1;
  }
  std::vector<Matching> matchings;
  const auto put = [&](std::size_t index, std::uint32_t x, std::uint32_t y) {
    if (matchings.size() <= index) matchings.resize(index + 1);
    matchings[index].emplace_back(Rank(std::min(x, y)), Rank(std::max(x, y)));
  };
  std::fill(seen.begin(), seen.end(), 0);
  std::vector<std::uint32_t> cycle;
  for (std::uint32_t start = 0; start < n; ++start) {
    if (seen[start]) continue;
    cycle.clear();
    for (std::uint32_t x = start; !seen[x]; x = perm[x]) {
      seen[x] = 1;
      cycle.push_back(x);
    }
    const std::size_t len = cycle.size();
    // Edge e joins cycle[e] and cycle[e + 1]; inside a domain it is no circuit.
    const auto circuit = [&](std::size_t e) {
      return cycle[e] / scaleup_size != cycle[(e + 1) % len] / scaleup_size;
    };
    if (len == 2 && circuit(0)) put(0, cycle[0], cycle[1]);
    if (len < 3) continue;
    std::size_t cut = 0;
    while (cut < len && circuit(cut)) ++cut;
    if (cut == len) {  // a ring of circuits
      for (std::size_t k = 0; k < len; ++k) {
        const std::size_t index = len % 2 == 1 && k == len - 1 ? 2 : k % 2;
        put(index, cycle[k], cycle[(k + 1) % len]);
      }
      continue;
    }
    // Paths between the edges inside a domain, each alternately in 2.
    std::size_t parity = 0;
    for (std::size_t step = 1; step < len; ++step) {
      const std::size_t e = (cut + step) % len;
      if (!circuit(e)) {
        parity = 0;
        continue;
      }
      put(parity, cycle[e], cycle[(e + 1) % len]);
      parity ^= 1;
    }
  }
  for (Matching& m : matchings) std::sort(m.begin(), m.end());
  return matchings;
}

BvnTimelines bvn_timelines(std::span<const BvnTerm> terms, std::uint32_t n,
                           const core::System& system) {
  const std::uint32_t s = system.switches;
  const TimePs tau = system.reconfig_delay_ps;
  BvnTimelines out;
  out.periodic.timelines.resize(s);
  // last[j][x]: the latest interval on switch j using port x, or kNone.
  std::vector<std::vector<std::uint32_t>> last(s, std::vector<std::uint32_t>(n, kNone));
  TimePs clock = 0;
  for (std::uint32_t t = 0; t < terms.size(); ++t) {
    if (terms[t].perm.size() != n) {
      throw core::InputError("", "terms[" + std::to_string(t) + "].perm",
                             std::to_string(terms[t].perm.size()) + " entries",
                             "needs one per accelerator (" + std::to_string(n) + ")");
    }
    const std::vector<Matching> matchings =
        permutation_matchings(terms[t].perm, system.scaleup_size);
    const auto c = static_cast<std::uint32_t>(matchings.size());
    const TimePs length = checked_add(tau, system.transmission_ps(terms[t].weight));
    for (std::uint32_t first = 0; first < c; first += s) {
      const std::uint32_t count = std::min(s, c - first);
      const TimePs end = checked_add(clock, length);
      for (std::uint32_t j = 0; j < s; ++j) {
        auto& circuits = out.periodic.timelines[j].circuits;
        for (const auto& [a, b] : matchings[first + j % count]) {
          const std::uint32_t prev = last[j][a.value()];
          if (prev != kNone && circuits[prev].b == b && circuits[prev].down_ps == clock) {
            circuits[prev].down_ps = end;  // same circuit as the sub-slot before: kept
            continue;
          }
          last[j][a.value()] = last[j][b.value()] = static_cast<std::uint32_t>(circuits.size());
          circuits.push_back({a, b, clock, clock + tau, end});
        }
      }
      out.slots.push_back({clock, end, t, first, count});
      clock = end;
    }
  }
  out.periodic.period_ps = clock;
  return out;
}

schedule::Schedule BvnScheduler::run(const core::Workload& w, const core::System& system,
                                     const SchedulerOptions&) const {
  const auto t0 = std::chrono::steady_clock::now();
  // The decomposition is of the full n x n matrix: stuffing gives every rank
  // its own entries and every term is a perfect matching of all n ranks. Past
  // kMaxBvnRanks that is more than a machine holds; refuse it by name.
  if (w.accelerators() > kMaxBvnRanks) {
    throw core::InputError("", "accelerators", std::to_string(w.accelerators()),
                           "bvn decomposes the n x n traffic matrix, each term a matching of "
                           "all n ranks: at most 2^20 accelerators");
  }
  const std::uint32_t k = system.scaleup_size;
  const StuffedMatrix stuffed = system.wiring.kind == core::WiringKind::kFull
                                    ? stuff_matrix(sparse_traffic_matrix(w, k), k)
                                    : stuff_matrix_in_groups(sparse_traffic_matrix(w, system),
                                                             system.ocs_groups(w.accelerators()));
  const std::vector<BvnTerm> terms = bvn_decompose(stuffed.matrix);
  BvnTimelines built = bvn_timelines(terms, w.accelerators(), system);
  schedule::Schedule s;
  s.scheduler = std::string(name());
  s.workload = w.name();
  s.system = system;
  s.status = schedule::SolveStatus::kFeasible;
  s.timelines = std::move(built.periodic.timelines);
  // No traffic: no circuits and nothing to repeat.
  if (built.periodic.period_ps > 0) s.period_ps = built.periodic.period_ps;
  s.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace flux::sched
