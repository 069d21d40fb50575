#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "flux/core/dag.hpp"

namespace flux::core {
namespace {

// Small deterministic generator (portable, unlike std distributions).
struct Lcg {
  std::uint64_t s;
  std::uint32_t next(std::uint32_t bound) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((s >> 33) % bound);
  }
};

// Random DAG whose edges go from lower to higher index, but tasks are
// shuffled so index order is not the topological order the code sees.
WorkloadData random_dag(std::uint32_t n, std::uint32_t edge_permille, std::uint64_t seed) {
  Lcg rng{seed};
  std::vector<std::uint32_t> perm(n);
  for (std::uint32_t i = 0; i < n; ++i) perm[i] = i;
  for (std::uint32_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.next(i)]);
  WorkloadData d;
  d.accelerators = 4;
  for (std::uint32_t i = 0; i < n; ++i) {
    Task t;
    t.id = i;
    t.src = Rank(i % 4);
    t.dst = Rank((i + 1) % 4);
    t.bytes = 1 + rng.next(100);
    t.release_ps = rng.next(4) == 0 ? rng.next(500) : 0;
    t.tail_ps = rng.next(4) == 0 ? rng.next(500) : 0;
    d.tasks.push_back(t);
  }
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = a + 1; b < n; ++b) {
      if (rng.next(1000) < edge_permille) {
        d.deps.push_back({TaskIndex(perm[a]), TaskIndex(perm[b]), rng.next(3) * 100});
      }
    }
  }
  return d;
}

// All paths from u (inclusive) explored recursively: the brute force.
void all_paths(const Workload& w, std::span<const TimePs> p, TaskIndex u, TimePs dist_end_u,
               std::vector<TimePs>& best) {
  for (const Dep& e : w.out_edges(u)) {
    const TimePs d = dist_end_u + e.compute_ps;  // from the end of the origin to start of e.to
    best[e.to.value()] = std::max(best[e.to.value()], d);
    all_paths(w, p, e.to, d + p[e.to.value()], best);
  }
}

TEST(Reachability, MatchesBruteForceOnRandomDags) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Workload w(random_dag(14, 250, seed));
    const std::size_t n = w.num_tasks();
    const std::vector<TimePs> p(n, 1);
    std::vector<std::pair<TaskIndex, TaskIndex>> queries;
    std::vector<std::uint8_t> expected;
    for (std::uint32_t u = 0; u < n; ++u) {
      std::vector<TimePs> best(n, -1);
      all_paths(w, p, TaskIndex(u), 0, best);
      for (std::uint32_t v = 0; v < n; ++v) {
        queries.emplace_back(TaskIndex(u), TaskIndex(v));
        expected.push_back(best[v] >= 0 && u != v);
      }
    }
    Reachability r(w);
    const auto batch = r.reaches_batch(queries);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const auto [u, v] = queries[i];
      ASSERT_EQ(r.reaches(u, v), expected[i] != 0)
          << "seed " << seed << " " << u.value() << "->" << v.value();
      ASSERT_EQ(batch[i], expected[i]) << "seed " << seed;
      const auto o = r.order(u, v);
      if (u == v) {
        EXPECT_EQ(o, Reachability::Order::kSame);
      } else if (expected[i]) {
        EXPECT_EQ(o, Reachability::Order::kBefore);
      } else if (r.reaches(v, u)) {
        EXPECT_EQ(o, Reachability::Order::kAfter);
      } else {
        EXPECT_EQ(o, Reachability::Order::kIncomparable);
      }
    }
  }
}

TEST(Reachability, BatchSpansSeveralSweeps) {
  // A chain 0 -> 1 -> ... -> 1199: more than 512 distinct sources forces
  // several sweeps; every forward pair reaches, no backward pair does.
  WorkloadData d;
  d.accelerators = 2;
  const std::uint32_t n = 1200;
  for (std::uint32_t i = 0; i < n; ++i) {
    Task t;
    t.id = i;
    t.src = Rank(i % 2);
    t.dst = Rank(1 - i % 2);
    t.bytes = 1;
    d.tasks.push_back(t);
    if (i) d.deps.push_back({TaskIndex(i - 1), TaskIndex(i), 0});
  }
  const Workload w(std::move(d));
  std::vector<std::pair<TaskIndex, TaskIndex>> q;
  for (std::uint32_t u = 0; u < n; u += 1) {
    q.emplace_back(TaskIndex(u), TaskIndex((u * 7919) % n));
  }
  const auto res = Reachability(w).reaches_batch(q);
  for (std::size_t i = 0; i < q.size(); ++i) {
    EXPECT_EQ(res[i], q[i].first < q[i].second ? 1 : 0) << i;
  }
}

TEST(IdealTiming, DiamondByHand) {
  // 0 (p=10) -> 1 (p=20), compute 5; 0 -> 2 (p=30), compute 0; 2 -> 3, compute 7;
  // 1 -> 3, compute 0. Release of 0 = 3, tail of 3 = 4.
  WorkloadData d;
  d.accelerators = 4;
  const std::uint32_t ends[4][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 3}};
  for (std::uint32_t i = 0; i < 4; ++i) {
    Task t;
    t.id = i;
    t.src = Rank(ends[i][0]);
    t.dst = Rank(ends[i][1]);
    t.bytes = 1;
    d.tasks.push_back(t);
  }
  d.tasks[0].release_ps = 3;
  d.tasks[3].tail_ps = 4;
  d.deps = {{TaskIndex(0), TaskIndex(1), 5},
            {TaskIndex(0), TaskIndex(2), 0},
            {TaskIndex(2), TaskIndex(3), 7},
            {TaskIndex(1), TaskIndex(3), 0}};
  const Workload w(std::move(d));
  const std::vector<TimePs> p = {10, 20, 30, 40};
  const IdealTiming t = ideal_timing(w, p);
  // Heads: 0: 3; 1: 3+10+5 = 18; 2: 13; 3: max(13+30+7, 18+20) = 50.
  EXPECT_EQ(t.earliest_start, (std::vector<TimePs>{3, 18, 13, 50}));
  // Makespan = 50 + 40 + tail 4 = 94, through 0 -> 2 -> 3.
  EXPECT_EQ(t.makespan, 94);
  EXPECT_EQ(t.critical_path, (std::vector<TaskIndex>{TaskIndex(0), TaskIndex(2), TaskIndex(3)}));
  // Compute on that path: release 3 + edge 7 + tail 4 = 14.
  EXPECT_EQ(t.compute_on_path, 14);
  // to_end: 3: 40+4 = 44; 2: 30+7+44 = 81; 1: 20+44 = 64; 0: 10+max(5+64, 81) = 91.
  EXPECT_EQ(t.to_end, (std::vector<TimePs>{91, 64, 81, 44}));
  // Longest from the end of 0: to 1: 5; to 2: 0; to 3: max(0+30+7, 5+20+0) = 37.
  EXPECT_EQ(longest_from(w, p, TaskIndex(0)), (std::vector<TimePs>{-1, 5, 0, 37}));
  EXPECT_EQ(longest_from(w, p, TaskIndex(3)), (std::vector<TimePs>{-1, -1, -1, -1}));
}

TEST(IdealTiming, MatchesBruteForceOnRandomDags) {
  for (std::uint64_t seed = 100; seed < 115; ++seed) {
    const Workload w(random_dag(12, 300, seed));
    const std::size_t n = w.num_tasks();
    std::vector<TimePs> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<TimePs>(w.tasks()[i].bytes * 10);
    const IdealTiming t = ideal_timing(w, p);
    TimePs makespan = 0;
    for (std::uint32_t u = 0; u < n; ++u) {
      std::vector<TimePs> best(n, -1);
      all_paths(w, p, TaskIndex(u), 0, best);
      EXPECT_EQ(longest_from(w, p, TaskIndex(u)), best) << "seed " << seed << " u " << u;
      // Every path starting at u bounds the makespan from below.
      const TimePs start = w.tasks()[u].release_ps;
      makespan = std::max(makespan, start + p[u] + w.tasks()[u].tail_ps);
      for (std::uint32_t v = 0; v < n; ++v) {
        if (best[v] >= 0) {
          makespan = std::max(makespan, start + p[u] + best[v] + p[v] + w.tasks()[v].tail_ps);
        }
      }
    }
    EXPECT_EQ(t.makespan, makespan) << "seed " << seed;
    // The reported critical path is a path whose length is the makespan.
    TimePs len = w.tasks()[t.critical_path.front().value()].release_ps;
    for (std::size_t k = 0; k < t.critical_path.size(); ++k) {
      const TaskIndex v = t.critical_path[k];
      len += p[v.value()];
      if (k + 1 < t.critical_path.size()) {
        TimePs c = -1;
        for (const Dep& e : w.out_edges(v)) {
          if (e.to == t.critical_path[k + 1]) c = std::max(c, e.compute_ps);
        }
        ASSERT_GE(c, 0) << "not an edge";
        len += c;
      }
    }
    len += w.tasks()[t.critical_path.back().value()].tail_ps;
    EXPECT_EQ(len, t.makespan) << "seed " << seed;
  }
}

}  // namespace
}  // namespace flux::core
