// The circuit-only baselines: rotornet, rotornet-vlb, bvn and ideal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/sched/baselines.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/builder.hpp"

namespace flux::sched {
namespace {

using core::Rank;
using core::TimePs;
using schedule::CircuitInterval;

// Deterministic draws in [0, bound): mt19937_64's output is fixed by the
// standard.
struct Rng {
  std::mt19937_64 engine;
  std::uint32_t next(std::uint32_t bound) { return static_cast<std::uint32_t>(engine() % bound); }
};

core::System test_system(std::uint32_t switches, TimePs tau) {
  core::System s;
  s.switches = switches;
  s.link_gbps = 800;  // 10 ps per byte
  s.reconfig_delay_ps = tau;
  return s;
}

// A ring of sends 0 -> 1 -> ... -> n-1 -> 0, each depending on the last.
core::Workload ring_workload(std::uint32_t n, std::uint64_t bytes = 1000) {
  workload::WorkloadBuilder b("ring", n);
  core::TaskIndex prev;
  for (std::uint32_t i = 0; i < n; ++i) {
    const core::TaskIndex v = b.add_send(Rank(i), Rank((i + 1) % n), bytes);
    if (i > 0) b.add_dep(prev, v, 1000);
    prev = v;
  }
  return std::move(b).build();
}

// On every port of one timeline, intervals are disjoint over [setup, down).
void expect_port_disjoint(const std::vector<CircuitInterval>& circuits) {
  std::map<std::uint32_t, std::vector<std::pair<TimePs, TimePs>>> by_port;
  for (const CircuitInterval& c : circuits) {
    by_port[c.a.value()].emplace_back(c.setup_ps, c.down_ps);
    by_port[c.b.value()].emplace_back(c.setup_ps, c.down_ps);
  }
  for (auto& [port, spans] : by_port) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k) {
      EXPECT_LE(spans[k - 1].second, spans[k].first) << "port " << port;
    }
  }
}

void expect_sorted(const std::vector<CircuitInterval>& circuits) {
  for (std::size_t k = 1; k < circuits.size(); ++k) {
    const auto& x = circuits[k - 1];
    const auto& y = circuits[k];
    EXPECT_LE(std::tie(x.up_ps, x.a, x.b), std::tie(y.up_ps, y.a, y.b)) << k;
  }
}

// ------------------------------------------------------------- RotorNet

// Even n: n - 1 perfect matchings of n / 2 circuits. Odd n: the dummy node
// makes n + 1, so n matchings of (n - 1) / 2 circuits, one accelerator idle.
TEST(RoundRobin, OneFactorizationOfKn) {
  for (std::uint32_t n = 3; n <= 12; ++n) {
    const std::vector<Matching> ms = round_robin_matchings(n);
    ASSERT_EQ(ms.size(), n % 2 == 0 ? n - 1 : n) << n;
    std::set<std::pair<Rank, Rank>> pairs;
    for (const Matching& m : ms) {
      EXPECT_EQ(m.size(), n / 2) << n;
      EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));
      std::vector<int> uses(n, 0);
      for (const auto& [a, b] : m) {
        ASSERT_LT(a, b);
        ASSERT_LT(b.value(), n);
        EXPECT_EQ(++uses[a.value()], 1) << "n " << n << " port " << a.value();
        EXPECT_EQ(++uses[b.value()], 1) << "n " << n << " port " << b.value();
        EXPECT_TRUE(pairs.insert({a, b}).second) << "pair repeated, n " << n;
      }
    }
    EXPECT_EQ(pairs.size(), n * (n - 1) / 2) << n;  // every pair exactly once
  }
  EXPECT_TRUE(round_robin_matchings(1).empty());
  EXPECT_EQ(round_robin_matchings(2).size(), 1u);
}

TEST(RotorNet, SlotFromDutyCycle) {
  EXPECT_EQ(rotornet_slot_ps(10 * core::kPsPerUs, 0.9), 100 * core::kPsPerUs);
  EXPECT_EQ(rotornet_slot_ps(1 * core::kPsPerUs, 0.5), 2 * core::kPsPerUs);
  EXPECT_EQ(rotornet_slot_ps(3, 0.9), 30);
  EXPECT_EQ(rotornet_slot_ps(1, 1e-9), 2);  // at least tau + 1 ps
  EXPECT_THROW((void)rotornet_slot_ps(0, 0.9), core::InputError);
  EXPECT_THROW((void)rotornet_slot_ps(10, 1.0), core::InputError);
}

// n = 8, s = 2, tau = 10 us, duty 0.9: slot T = 100 us, M = 7 matchings,
// period 700 us. Circle method: round r pairs 7 with r and (r+k, r-k) mod 7
// for k = 1..3. {0, 6} = (r+k, r-k) with 2r = 6 mod 7: r = 3 (k = 3: 6 and
// 0). Switch j shows matching (2k + j) mod 7 in slot k, so matching 3 is on
// switch 1 in slot 1 (2 + 1 = 3) and on switch 0 in slot 5 (10 mod 7 = 3):
// switch 1 [setup 100, up 110, down 200) us, switch 0 [500, 510, 600) us.
TEST(RotorNet, TimelinesForEightAcceleratorsTwoSwitches) {
  constexpr TimePs kUs = core::kPsPerUs;
  const PeriodicTimelines p = rotornet_timelines(8, test_system(2, 10 * kUs), 0.9);
  EXPECT_EQ(p.period_ps, 700 * kUs);
  ASSERT_EQ(p.timelines.size(), 2u);
  const std::vector<Matching> ms = round_robin_matchings(8);
  std::vector<std::vector<CircuitInterval>> found(2);
  for (std::uint32_t j = 0; j < 2; ++j) {
    const auto& circuits = p.timelines[j].circuits;
    EXPECT_EQ(circuits.size(), 7u * 4u);
    expect_sorted(circuits);
    expect_port_disjoint(circuits);
    for (const CircuitInterval& c : circuits) {
      EXPECT_EQ(c.up_ps - c.setup_ps, 10 * kUs);
      EXPECT_EQ(c.down_ps - c.setup_ps, 100 * kUs);
      EXPECT_EQ(c.setup_ps % (100 * kUs), 0);
      EXPECT_GE(c.setup_ps, 0);
      EXPECT_LE(c.down_ps, p.period_ps);
      if (c.a == Rank(0) && c.b == Rank(6)) found[j].push_back(c);
    }
  }
  ASSERT_EQ(found[0].size(), 1u);
  ASSERT_EQ(found[1].size(), 1u);
  EXPECT_EQ(found[1][0].setup_ps, 100 * kUs);
  EXPECT_EQ(found[1][0].up_ps, 110 * kUs);
  EXPECT_EQ(found[1][0].down_ps, 200 * kUs);
  EXPECT_EQ(found[0][0].setup_ps, 500 * kUs);
  EXPECT_EQ(found[0][0].up_ps, 510 * kUs);
  EXPECT_EQ(found[0][0].down_ps, 600 * kUs);
  // At any slot the two switches show different matchings.
  for (TimePs k = 0; k < 7; ++k) {
    std::set<std::pair<Rank, Rank>> on0, on1;
    for (const auto& c : p.timelines[0].circuits)
      if (c.setup_ps == k * 100 * kUs) on0.insert({c.a, c.b});
    for (const auto& c : p.timelines[1].circuits)
      if (c.setup_ps == k * 100 * kUs) on1.insert({c.a, c.b});
    EXPECT_EQ(on0.size(), 4u);
    EXPECT_EQ(on1.size(), 4u);
    for (const auto& pair : on0) EXPECT_FALSE(on1.contains(pair)) << "slot " << k;
  }
}

TEST(RotorNet, OddAcceleratorsUseNMatchings) {
  const PeriodicTimelines p = rotornet_timelines(5, test_system(3, 1000), 0.9);
  EXPECT_EQ(p.period_ps, 5 * 10'000);
  for (const auto& t : p.timelines) {
    EXPECT_EQ(t.circuits.size(), 5u * 2u);
    expect_port_disjoint(t.circuits);
  }
}

TEST(RotorNet, RegisteredAndValidated) {
  const core::Workload w = ring_workload(8);
  const core::System sys = test_system(2, 10 * core::kPsPerUs);
  for (const char* name : {"rotornet", "rotornet-vlb"}) {
    EXPECT_FALSE(make_scheduler(name)->task_level());
    const schedule::Schedule s = run_scheduler(name, w, sys, {});
    EXPECT_EQ(s.scheduler, name);
    EXPECT_EQ(s.status, schedule::SolveStatus::kFeasible);
    EXPECT_TRUE(s.tasks.empty());
    EXPECT_EQ(s.makespan_ps, 0);
    ASSERT_TRUE(s.period_ps.has_value());
    EXPECT_EQ(*s.period_ps, 700 * core::kPsPerUs);
    EXPECT_EQ(s.circuit_model, schedule::CircuitModel::kTimeline);
    EXPECT_EQ(s.timelines.size(), 2u);
  }
  EXPECT_EQ(run_scheduler("rotornet", w, sys, {}).routing, schedule::Routing::kDirect);
  EXPECT_EQ(run_scheduler("rotornet-vlb", w, sys, {}).routing, schedule::Routing::kVlb);
  SchedulerOptions half;
  half.duty_cycle = 0.5;
  EXPECT_EQ(*run_scheduler("rotornet", w, sys, half).period_ps, 7 * 20 * core::kPsPerUs);
}

TEST(RotorNet, RefusesTwoAcceleratorsAndZeroTau) {
  try {
    (void)run_scheduler("rotornet", ring_workload(2), test_system(2, 1000), {});
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "accelerators");
    EXPECT_EQ(e.value(), "2");
    EXPECT_NE(std::string(e.what()).find("use ideal"), std::string::npos);
  }
  EXPECT_THROW((void)run_scheduler("rotornet-vlb", ring_workload(4), test_system(2, 0), {}),
               core::InputError);
}

// ------------------------------------------------------------------ BvN

SparseMatrix dense_to_sparse(const std::vector<std::vector<std::uint64_t>>& d) {
  SparseMatrix m;
  m.n = static_cast<std::uint32_t>(d.size());
  for (std::uint32_t i = 0; i < m.n; ++i)
    for (std::uint32_t j = 0; j < m.n; ++j)
      if (d[i][j] != 0) m.entries.push_back({i, j, d[i][j]});
  return m;
}

// sum_k weight_k * P(perm_k), as (row, col) -> value without zeros.
std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> reconstruct(
    const std::vector<BvnTerm>& terms) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sum;
  for (const BvnTerm& t : terms)
    for (std::uint32_t i = 0; i < t.perm.size(); ++i) sum[{i, t.perm[i]}] += t.weight;
  return sum;
}

std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> as_map(const SparseMatrix& m) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> out;
  for (const MatrixEntry& e : m.entries) out[{e.row, e.col}] = e.value;
  return out;
}

void expect_exact_decomposition(const StuffedMatrix& st) {
  const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
  std::uint64_t total = 0;
  for (const BvnTerm& t : terms) {
    EXPECT_GT(t.weight, 0u);
    std::vector<std::uint32_t> sorted = t.perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);  // a permutation
    total += t.weight;
  }
  EXPECT_EQ(total, st.line_sum);
  EXPECT_LE(terms.size(), st.matrix.entries.size());
  EXPECT_EQ(reconstruct(terms), as_map(st.matrix));
}

// Rows sum to 4, 4, 3 and columns to 4, 4, 3: L = 4, and the one missing
// unit of row 2 and column 2 goes on the diagonal.
TEST(Bvn, HandMatrix) {
  const SparseMatrix m = dense_to_sparse({{0, 3, 1}, {2, 0, 2}, {2, 1, 0}});
  const StuffedMatrix st = stuff_matrix(m);
  EXPECT_EQ(st.line_sum, 4u);
  EXPECT_EQ(as_map(st.matrix), as_map(dense_to_sparse({{0, 3, 1}, {2, 0, 2}, {2, 1, 1}})));
  expect_exact_decomposition(st);
}

// Row 1 and column 0 lack everything: off the diagonal, (1, 0) gets 5.
TEST(Bvn, StuffingOffTheDiagonal) {
  const StuffedMatrix st = stuff_matrix(dense_to_sparse({{0, 5}, {0, 0}}));
  EXPECT_EQ(st.line_sum, 5u);
  EXPECT_EQ(as_map(st.matrix), as_map(dense_to_sparse({{0, 5}, {5, 0}})));
  const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].perm, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(terms[0].weight, 5u);
}

TEST(Bvn, RandomSparseMatrices) {
  Rng rng{std::mt19937_64(42)};
  for (std::uint32_t n : {50u, 50u, 50u, 600u}) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> d;
    for (std::uint32_t k = 0; k < 3 * n; ++k) d[{rng.next(n), rng.next(n)}] += 1 + rng.next(1000);
    SparseMatrix m{n, {}};
    for (const auto& [rc, v] : d) m.entries.push_back({rc.first, rc.second, v});
    const StuffedMatrix st = stuff_matrix(m);
    // Every line sums to L and the stuffed matrix dominates the original.
    std::vector<std::uint64_t> rows(n, 0), cols(n, 0);
    for (const MatrixEntry& e : st.matrix.entries) {
      rows[e.row] += e.value;
      cols[e.col] += e.value;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(rows[i], st.line_sum);
      ASSERT_EQ(cols[i], st.line_sum);
    }
    const auto stuffed = as_map(st.matrix);
    for (const auto& [rc, v] : d) EXPECT_GE(stuffed.at(rc), v);
    EXPECT_LE(st.matrix.entries.size(), d.size() + 2 * n);
    expect_exact_decomposition(st);
  }
}

TEST(Bvn, RejectsUnequalLineSumsAndMalformedMatrices) {
  EXPECT_THROW((void)bvn_decompose(dense_to_sparse({{0, 3}, {2, 0}})), core::InputError);
  EXPECT_THROW((void)stuff_matrix(SparseMatrix{2, {{0, 2, 1}}}), core::InputError);
  EXPECT_THROW((void)stuff_matrix(SparseMatrix{2, {{1, 0, 1}, {0, 1, 1}}}), core::InputError);
  EXPECT_THROW((void)stuff_matrix(SparseMatrix{2, {{1, 0, 0}}}), core::InputError);
  EXPECT_TRUE(bvn_decompose(SparseMatrix{3, {}}).empty());
}

TEST(Bvn, PermutationMatchings) {
  EXPECT_TRUE(permutation_matchings(std::vector<std::uint32_t>{0, 1, 2}).empty());
  // Two 2-cycles: one matching, each circuit serving both directions.
  auto ms = permutation_matchings(std::vector<std::uint32_t>{1, 0, 3, 2});
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0], (Matching{{Rank(0), Rank(1)}, {Rank(2), Rank(3)}}));
  // A 4-cycle 0 -> 1 -> 2 -> 3 -> 0: alternating, {0,1} {2,3} and {1,2} {0,3}.
  ms = permutation_matchings(std::vector<std::uint32_t>{1, 2, 3, 0});
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0], (Matching{{Rank(0), Rank(1)}, {Rank(2), Rank(3)}}));
  EXPECT_EQ(ms[1], (Matching{{Rank(0), Rank(3)}, {Rank(1), Rank(2)}}));
  // A 3-cycle needs 3 matchings of one circuit.
  ms = permutation_matchings(std::vector<std::uint32_t>{1, 2, 0});
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0], (Matching{{Rank(0), Rank(1)}}));
  EXPECT_EQ(ms[1], (Matching{{Rank(1), Rank(2)}}));
  EXPECT_EQ(ms[2], (Matching{{Rank(0), Rank(2)}}));
  EXPECT_THROW((void)permutation_matchings(std::vector<std::uint32_t>{1, 1}), core::InputError);
}

// Sub-slots follow each other from 0; within one, every switch shows port-
// disjoint circuits and together they show every circuit of the term.
void expect_bvn_slots(const std::vector<BvnTerm>& terms, const BvnTimelines& tl,
                      const core::System& sys) {
  const std::uint32_t k = sys.scaleup_size;
  TimePs clock = 0;
  std::vector<std::set<std::pair<Rank, Rank>>> shown(terms.size());
  for (const BvnSlot& slot : tl.slots) {
    EXPECT_EQ(slot.start_ps, clock);
    EXPECT_EQ(slot.end_ps - slot.start_ps,
              sys.reconfig_delay_ps + sys.transmission_ps(terms[slot.term].weight));
    clock = slot.end_ps;
    for (const auto& timeline : tl.periodic.timelines) {
      std::vector<int> uses(terms[0].perm.size(), 0);
      for (const CircuitInterval& c : timeline.circuits) {
        if (c.setup_ps >= slot.end_ps || c.down_ps <= slot.start_ps) continue;
        EXPECT_LE(c.setup_ps, slot.start_ps);  // up for the whole sub-slot
        EXPECT_GE(c.down_ps, slot.end_ps);
        EXPECT_EQ(++uses[c.a.value()], 1);
        EXPECT_EQ(++uses[c.b.value()], 1);
        shown[slot.term].insert({c.a, c.b});
      }
    }
  }
  EXPECT_EQ(tl.periodic.period_ps, clock);
  for (std::size_t t = 0; t < terms.size(); ++t) {
    std::set<std::pair<Rank, Rank>> want;
    for (std::uint32_t i = 0; i < terms[t].perm.size(); ++i) {
      const std::uint32_t j = terms[t].perm[i];
      if (i / k != j / k) want.insert({Rank(std::min(i, j)), Rank(std::max(i, j))});
    }
    EXPECT_EQ(shown[t], want) << "term " << t;
  }
  for (const auto& timeline : tl.periodic.timelines) {
    expect_sorted(timeline.circuits);
    expect_port_disjoint(timeline.circuits);
    for (const CircuitInterval& c : timeline.circuits) {
      EXPECT_EQ(c.up_ps - c.setup_ps, sys.reconfig_delay_ps);
      EXPECT_GE(c.setup_ps, 0);
      EXPECT_LE(c.down_ps, tl.periodic.period_ps);
    }
  }
}

// A 3-cycle (weight 100 B = 1 ns) on 2 switches: sub-slot 0 shows {0,1} on
// switch 0 and {1,2} on switch 1; sub-slot 1 shows {0,2} on both. Then two
// 2-cycles (weight 50 B) and an identity (skipped: no circuits).
TEST(Bvn, TimelinesOddCycleAndSpareSwitches) {
  const core::System sys = test_system(2, 500);
  const std::vector<BvnTerm> terms = {{{1, 2, 0}, 100}, {{1, 0, 2}, 50}, {{0, 1, 2}, 7}};
  const BvnTimelines tl = bvn_timelines(terms, 3, sys);
  ASSERT_EQ(tl.slots.size(), 3u);
  EXPECT_EQ(tl.periodic.period_ps, 2 * (500 + 1000) + (500 + 500));
  const auto& s0 = tl.periodic.timelines[0].circuits;
  const auto& s1 = tl.periodic.timelines[1].circuits;
  ASSERT_EQ(s0.size(), 3u);
  ASSERT_EQ(s1.size(), 3u);
  EXPECT_EQ(std::tie(s0[0].a, s0[0].b, s0[0].setup_ps, s0[0].up_ps, s0[0].down_ps),
            std::tuple(Rank(0), Rank(1), TimePs{0}, TimePs{500}, TimePs{1500}));
  EXPECT_EQ(std::tie(s1[0].a, s1[0].b, s1[0].down_ps), std::tuple(Rank(1), Rank(2), TimePs{1500}));
  EXPECT_EQ(std::tie(s0[1].a, s0[1].b, s0[1].setup_ps, s0[1].down_ps),
            std::tuple(Rank(0), Rank(2), TimePs{1500}, TimePs{3000}));
  EXPECT_EQ(std::tie(s1[1].a, s1[1].b, s1[1].setup_ps), std::tuple(Rank(0), Rank(2), TimePs{1500}));
  EXPECT_EQ(std::tie(s0[2].a, s0[2].b, s0[2].setup_ps, s0[2].down_ps),
            std::tuple(Rank(0), Rank(1), TimePs{3000}, TimePs{4000}));
  expect_bvn_slots(terms, tl, sys);
}

// A circuit shown by the same switch in consecutive sub-slots is kept.
TEST(Bvn, KeepsACircuitAcrossSubSlots) {
  const core::System sys = test_system(1, 500);
  const std::vector<BvnTerm> terms = {{{1, 0, 3, 2}, 100}, {{1, 0, 2, 3}, 50}};
  const BvnTimelines tl = bvn_timelines(terms, 4, sys);
  const auto& c = tl.periodic.timelines[0].circuits;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(std::tie(c[0].a, c[0].b, c[0].setup_ps, c[0].up_ps, c[0].down_ps),
            std::tuple(Rank(0), Rank(1), TimePs{0}, TimePs{500}, TimePs{1500 + 1000}));
  EXPECT_EQ(std::tie(c[1].a, c[1].b, c[1].down_ps), std::tuple(Rank(2), Rank(3), TimePs{1500}));
  expect_bvn_slots(terms, tl, sys);
}

TEST(Bvn, SchedulerOnRandomWorkloads) {
  Rng rng{std::mt19937_64(7)};
  for (std::uint32_t n : {3u, 8u, 13u, 64u}) {
    workload::WorkloadBuilder b("random", n);
    for (std::uint32_t k = 0; k < 4 * n; ++k) {
      const std::uint32_t src = rng.next(n);
      const std::uint32_t dst = (src + 1 + rng.next(n - 1)) % n;
      b.add_send(Rank(src), Rank(dst), 1 + rng.next(100000));
    }
    const core::Workload w = std::move(b).build();
    for (std::uint32_t s : {1u, 2u, 3u}) {
      const core::System sys = test_system(s, 10 * core::kPsPerUs);
      const schedule::Schedule sched = run_scheduler("bvn", w, sys, {});
      EXPECT_EQ(sched.status, schedule::SolveStatus::kFeasible);
      EXPECT_TRUE(sched.tasks.empty());
      EXPECT_EQ(sched.makespan_ps, 0);
      ASSERT_TRUE(sched.period_ps.has_value());
      const StuffedMatrix st = stuff_matrix(sparse_traffic_matrix(w));
      const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
      const BvnTimelines tl = bvn_timelines(terms, n, sys);
      EXPECT_EQ(*sched.period_ps, tl.periodic.period_ps);
      expect_bvn_slots(terms, tl, sys);
      // The data time per cycle covers the busiest line at link rate.
      TimePs data = 0;
      for (const BvnSlot& slot : tl.slots)
        data += slot.end_ps - slot.start_ps - 10 * core::kPsPerUs;
      EXPECT_GE(data, sys.transmission_ps(st.line_sum));
    }
  }
}

TEST(Bvn, NoTrafficNoCircuits) {
  const core::Workload w = workload::WorkloadBuilder("empty", 4).build();
  const schedule::Schedule s = run_scheduler("bvn", w, test_system(2, 1000), {});
  EXPECT_FALSE(s.period_ps.has_value());
  for (const auto& t : s.timelines) EXPECT_TRUE(t.circuits.empty());
}

// ---------------------------------------------------------------- ideal

// A (0->1, 1000 B = 10 ns) -> 5 ns compute -> B (1->2, 500 B = 5 ns): 20 ns;
// C (2->0, 100 B = 1 ns) released at 20 ns with a 4 ns tail: 25 ns.
TEST(Ideal, MakespanIsTheCriticalPath) {
  workload::WorkloadBuilder b("hand", 3);
  const core::TaskIndex a = b.add_send(Rank(0), Rank(1), 1000);
  const core::TaskIndex bb = b.add_send(Rank(1), Rank(2), 500);
  const core::TaskIndex c = b.add_send(Rank(2), Rank(0), 100);
  b.add_dep(a, bb, 5000);
  b.raise_release(c, 20000);
  b.raise_tail(c, 4000);
  const core::Workload w = std::move(b).build();
  const core::System sys = test_system(2, 10 * core::kPsPerUs);
  EXPECT_FALSE(make_scheduler("ideal")->task_level());
  const schedule::Schedule s = run_scheduler("ideal", w, sys, {});
  EXPECT_EQ(s.makespan_ps, 25000);
  EXPECT_EQ(s.lower_bound_ps, 25000);
  EXPECT_EQ(s.gap, 0.0);
  EXPECT_EQ(s.status, schedule::SolveStatus::kOptimal);
  EXPECT_EQ(s.circuit_model, schedule::CircuitModel::kAllConnected);
  EXPECT_TRUE(s.tasks.empty());
  ASSERT_EQ(s.timelines.size(), 2u);
  for (const auto& t : s.timelines) EXPECT_TRUE(t.circuits.empty());
  // Without the release, A -> B is critical: 20 ns.
  workload::WorkloadBuilder b2("hand2", 3);
  const core::TaskIndex a2 = b2.add_send(Rank(0), Rank(1), 1000);
  b2.add_dep(a2, b2.add_send(Rank(1), Rank(2), 500), 5000);
  b2.add_send(Rank(2), Rank(0), 100);
  EXPECT_EQ(run_scheduler("ideal", std::move(b2).build(), sys, {}).makespan_ps, 20000);
}

// ------------------------------------------------- scale-up domains

core::System domain_system(std::uint32_t switches, TimePs tau, std::uint32_t k) {
  core::System s = test_system(switches, tau);
  s.scaleup_size = k;
  s.scaleup_gbps = 1600;  // 5 ps per byte
  return s;
}

// Random sends (some inside a domain, most across) among n ranks.
core::Workload random_sends(std::uint32_t n, std::uint32_t sends, std::uint64_t seed) {
  Rng rng{std::mt19937_64(seed)};
  workload::WorkloadBuilder b("random", n);
  for (std::uint32_t k = 0; k < sends; ++k) {
    const std::uint32_t src = rng.next(n);
    const std::uint32_t dst = (src + 1 + rng.next(n - 1)) % n;
    b.add_send(Rank(src), Rank(dst), 1 + rng.next(100000));
  }
  return std::move(b).build();
}

// n = 6, k = 2: the domains {0, 1}, {2, 3}, {4, 5} meet in the round-robin
// rounds of K_3 (a dummy makes 4 nodes): {1, 2}, {0, 2}, {0, 1}; each round
// times the shifts 0 and 1.
TEST(RotorNetDomains, MatchingsByHand) {
  const auto m = [](std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> pairs) {
    Matching out;
    for (const auto& [a, b] : pairs) out.emplace_back(Rank(a), Rank(b));
    return out;
  };
  EXPECT_EQ(rotornet_matchings(6, 2),
            (std::vector<Matching>{m({{2, 4}, {3, 5}}), m({{2, 5}, {3, 4}}), m({{0, 4}, {1, 5}}),
                                   m({{0, 5}, {1, 4}}), m({{0, 2}, {1, 3}}), m({{0, 3}, {1, 2}})}));
  // Two domains of 2: the two perfect matchings of K_{2,2}.
  EXPECT_EQ(rotornet_matchings(4, 2),
            (std::vector<Matching>{m({{0, 2}, {1, 3}}), m({{0, 3}, {1, 2}})}));
  EXPECT_TRUE(rotornet_matchings(4, 4).empty());  // one domain: all electrical
  EXPECT_THROW((void)rotornet_matchings(6, 4), core::InputError);
}

// Every cross-domain pair in exactly one matching, none inside a domain;
// M = (d - 1) k for even d, d k for odd d >= 3, k for d = 2; k = 1 is the
// rotation of the paper's model.
TEST(RotorNetDomains, OneFactorizationOfTheCompleteMultipartiteGraph) {
  for (std::uint32_t n = 2; n <= 12; ++n) {
    EXPECT_EQ(rotornet_matchings(n, 1), round_robin_matchings(n)) << n;
    for (std::uint32_t k = 2; k <= n; ++k) {
      if (n % k != 0) continue;
      const std::uint32_t d = n / k;
      const std::vector<Matching> ms = rotornet_matchings(n, k);
      const std::size_t expected = d == 1 ? 0 : (d % 2 == 0 ? d - 1 : d) * k;
      ASSERT_EQ(ms.size(), expected) << "n " << n << " k " << k;
      std::set<std::pair<Rank, Rank>> pairs;
      for (const Matching& match : ms) {
        EXPECT_EQ(match.size(), (d - d % 2) * k / 2) << "n " << n << " k " << k;
        EXPECT_TRUE(std::is_sorted(match.begin(), match.end()));
        std::vector<int> uses(n, 0);
        for (const auto& [a, b] : match) {
          ASSERT_LT(a, b);
          EXPECT_NE(a.value() / k, b.value() / k) << "inside a domain: n " << n << " k " << k;
          EXPECT_EQ(++uses[a.value()], 1);
          EXPECT_EQ(++uses[b.value()], 1);
          EXPECT_TRUE(pairs.insert({a, b}).second) << "pair repeated, n " << n << " k " << k;
        }
      }
      EXPECT_EQ(pairs.size(), n * (n - k) / 2) << "n " << n << " k " << k;
    }
  }
}

// n = 8, k = 2, s = 2, tau = 10 us: d = 4 domains, M = 3 * 2 = 6 matchings of
// 4 circuits, slot 100 us, period 600 us. Switch j shows matching
// (2 slot + j) mod 6: the same 6 on each switch, offset by one.
TEST(RotorNetDomains, TimelinesAndSchedules) {
  constexpr TimePs kUs = core::kPsPerUs;
  const core::System sys = domain_system(2, 10 * kUs, 2);
  const PeriodicTimelines p = rotornet_timelines(8, sys, 0.9);
  EXPECT_EQ(p.period_ps, 600 * kUs);
  const std::vector<Matching> ms = rotornet_matchings(8, 2);
  ASSERT_EQ(ms.size(), 6u);
  for (std::uint32_t j = 0; j < 2; ++j) {
    const auto& circuits = p.timelines[j].circuits;
    ASSERT_EQ(circuits.size(), 6u * 4u);
    expect_sorted(circuits);
    expect_port_disjoint(circuits);
    for (std::size_t slot = 0; slot < 6; ++slot) {
      const Matching& shown = ms[(2 * slot + j) % 6];
      for (std::size_t c = 0; c < 4; ++c) {
        const CircuitInterval& x = circuits[slot * 4 + c];
        EXPECT_EQ(std::tie(x.a, x.b), std::tie(shown[c].first, shown[c].second));
        EXPECT_EQ(x.setup_ps, static_cast<TimePs>(slot) * 100 * kUs);
        EXPECT_EQ(x.down_ps - x.setup_ps, 100 * kUs);
      }
    }
  }
  // The schedulers: valid (no circuit inside a domain), one domain gives no
  // circuits and no period, and two ranks in one domain are no error.
  const core::Workload w = random_sends(8, 40, 3);
  for (const char* name : {"rotornet", "rotornet-vlb"}) {
    const schedule::Schedule s = run_scheduler(name, w, sys, {});
    EXPECT_EQ(*s.period_ps, 600 * kUs) << name;
    EXPECT_TRUE(schedule::validate(w, s).ok()) << schedule::validate(w, s).to_string();
    const schedule::Schedule one = run_scheduler(name, w, domain_system(2, 10 * kUs, 8), {});
    EXPECT_FALSE(one.period_ps.has_value());
    for (const auto& t : one.timelines) EXPECT_TRUE(t.circuits.empty());
  }
  EXPECT_FALSE(run_scheduler("rotornet", ring_workload(2), domain_system(1, kUs, 2), {}).period_ps);
  try {
    (void)rotornet_timelines(8, domain_system(1, kUs, 3), 0.9);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "scaleup_size");
    EXPECT_EQ(e.value(), "3");
  }
}

// Domains {0, 1}, {2, 3}: 0 -> 1 (inside) is not OCS traffic; 0 -> 2 and
// 1 -> 3 (100 B each) are. L = 100; the blocks have nothing to stuff (rows
// 0, 1 and columns 2, 3 are full), then (2, 0) and (3, 1) get 100 each: one
// permutation [2, 3, 0, 1] of weight 100, two 2-cycles, one matching. On one
// switch with tau = 500 ps: one sub-slot of 500 + 1000 ps.
TEST(BvnDomains, HandWorkload) {
  workload::WorkloadBuilder b("hand", 4);
  b.add_send(Rank(0), Rank(1), 1000);
  b.add_send(Rank(0), Rank(2), 100);
  b.add_send(Rank(1), Rank(3), 100);
  const core::Workload w = std::move(b).build();
  const SparseMatrix d = sparse_traffic_matrix(w, 2);
  EXPECT_EQ(as_map(d),
            as_map(dense_to_sparse({{0, 0, 100, 0}, {0, 0, 0, 100}, {0, 0, 0, 0}, {0, 0, 0, 0}})));
  EXPECT_EQ(sparse_traffic_matrix(w).entries.size(), 3u);  // k = 1: every send
  const StuffedMatrix st = stuff_matrix(d, 2);
  EXPECT_EQ(st.line_sum, 100u);
  EXPECT_EQ(
      as_map(st.matrix),
      as_map(dense_to_sparse({{0, 0, 100, 0}, {0, 0, 0, 100}, {100, 0, 0, 0}, {0, 100, 0, 0}})));
  const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].perm, (std::vector<std::uint32_t>{2, 3, 0, 1}));
  const core::System sys = domain_system(1, 500, 2);
  const schedule::Schedule s = run_scheduler("bvn", w, sys, {});
  EXPECT_EQ(*s.period_ps, 1500);
  ASSERT_EQ(s.timelines[0].circuits.size(), 2u);
  EXPECT_EQ(std::tie(s.timelines[0].circuits[0].a, s.timelines[0].circuits[0].b),
            std::tuple(Rank(0), Rank(2)));
  EXPECT_EQ(std::tie(s.timelines[0].circuits[1].a, s.timelines[0].circuits[1].b),
            std::tuple(Rank(1), Rank(3)));
}

// Domains {0, 1}, {2, 3}, {4, 5}; D = 2->0, 1->4, 4->2, 3->5, 5->3, 7 B
// each: only row 0 and column 1 fall short, and (0, 1) lies inside a domain,
// so stuffing within the cross-domain support cannot reach L. The block
// takes it (no circuit); the cross walk adds nothing.
TEST(BvnDomains, StuffingInsideABlockWhereTheCrossSupportCannot) {
  SparseMatrix d{6, {{1, 4, 7}, {2, 0, 7}, {3, 5, 7}, {4, 2, 7}, {5, 3, 7}}};
  const StuffedMatrix st = stuff_matrix(d, 2);
  EXPECT_EQ(st.line_sum, 7u);
  auto expected = as_map(d);
  expected[{0, 1}] = 7;
  EXPECT_EQ(as_map(st.matrix), expected);
  const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
  ASSERT_EQ(terms.size(), 1u);  // 0 -> 1 -> 4 -> 2 -> 0, 3 <-> 5
  EXPECT_EQ(terms[0].perm, (std::vector<std::uint32_t>{1, 4, 0, 5, 2, 3}));
  // The 4-cycle loses its edge {0, 1}: the path 1 - 4 - 2 - 0 alternates
  // over two matchings; the 2-cycle {3, 5} joins the first.
  const auto ms = permutation_matchings(terms[0].perm, 2);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0], (Matching{{Rank(0), Rank(2)}, {Rank(1), Rank(4)}, {Rank(3), Rank(5)}}));
  EXPECT_EQ(ms[1], (Matching{{Rank(2), Rank(4)}}));
}

TEST(BvnDomains, PermutationMatchingsSkipEdgesInsideADomain) {
  // 0 -> 1 -> 2 -> 3 -> 0 with domains {0, 1}, {2, 3}: {1, 2} and {0, 3}.
  auto ms = permutation_matchings(std::vector<std::uint32_t>{1, 2, 3, 0}, 2);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0], (Matching{{Rank(0), Rank(3)}, {Rank(1), Rank(2)}}));
  // The 3-cycle 0 -> 1 -> 2 -> 0 without {0, 1}: the path 1 - 2 - 0.
  ms = permutation_matchings(std::vector<std::uint32_t>{1, 2, 0, 3}, 2);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0], (Matching{{Rank(1), Rank(2)}}));
  EXPECT_EQ(ms[1], (Matching{{Rank(0), Rank(2)}}));
  // Within the domains only: no circuit at all.
  EXPECT_TRUE(permutation_matchings(std::vector<std::uint32_t>{1, 0, 3, 2}, 2).empty());
  EXPECT_THROW((void)permutation_matchings(std::vector<std::uint32_t>{1, 2, 0}, 2),
               core::InputError);
}

// Random workloads with domains: the stuffed matrix has every line at L,
// dominates the cross-domain traffic and adds cross-domain entries only
// where no block could take them; the schedule validates, and every
// cross-domain pair with traffic is up for at least its bytes' time per cycle.
TEST(BvnDomains, RandomWorkloadsValidateAndServeEveryCrossPair) {
  for (const auto& [n, k] : {std::pair{8u, 2u}, {12u, 3u}, {12u, 4u}, {16u, 8u}}) {
    const core::Workload w = random_sends(n, 4 * n, n + k);
    const SparseMatrix d = sparse_traffic_matrix(w, k);
    for (const MatrixEntry& e : d.entries) ASSERT_NE(e.row / k, e.col / k);
    const StuffedMatrix st = stuff_matrix(d, k);
    std::vector<std::uint64_t> rows(n, 0), cols(n, 0);
    for (const MatrixEntry& e : st.matrix.entries) {
      rows[e.row] += e.value;
      cols[e.col] += e.value;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(rows[i], st.line_sum);
      EXPECT_EQ(cols[i], st.line_sum);
    }
    const auto stuffed = as_map(st.matrix);
    for (const MatrixEntry& e : d.entries) EXPECT_GE(stuffed.at({e.row, e.col}), e.value);
    expect_exact_decomposition(st);
    for (std::uint32_t s : {1u, 2u, 3u}) {
      const core::System sys = domain_system(s, 10 * core::kPsPerUs, k);
      const schedule::Schedule sched = run_scheduler("bvn", w, sys, {});
      const schedule::ValidationReport report = schedule::validate(w, sched);
      EXPECT_TRUE(report.ok()) << report.to_string();
      const std::vector<BvnTerm> terms = bvn_decompose(st.matrix);
      const BvnTimelines tl = bvn_timelines(terms, n, sys);
      EXPECT_EQ(*sched.period_ps, tl.periodic.period_ps);
      expect_bvn_slots(terms, tl, sys);
      // Up-time per cycle of each pair, over all switches: each term holding
      // (i, j) shows it for p(weight), and the weights sum to at least D_ij.
      std::map<std::pair<std::uint32_t, std::uint32_t>, TimePs> up;
      for (const auto& timeline : tl.periodic.timelines) {
        for (const CircuitInterval& c : timeline.circuits) {
          up[{c.a.value(), c.b.value()}] += c.down_ps - c.up_ps;
        }
      }
      for (const MatrixEntry& e : d.entries) {
        const auto key = std::pair{std::min(e.row, e.col), std::max(e.row, e.col)};
        EXPECT_GE(up[key], sys.transmission_ps(e.value)) << e.row << "->" << e.col;
      }
    }
  }
}

// Every baseline's schedule with domains passes the validator (which
// refuses circuits inside a domain) on random workloads.
TEST(BaselinesDomains, EveryScheduleValidates) {
  for (const auto& [n, k] : {std::pair{6u, 2u}, {6u, 3u}, {9u, 3u}, {12u, 4u}}) {
    const core::Workload w = random_sends(n, 3 * n, 100 + n * k);
    for (const char* name : {"rotornet", "rotornet-vlb", "bvn", "ideal"}) {
      const schedule::Schedule s = run_scheduler(name, w, domain_system(2, 1000, k), {});
      const schedule::ValidationReport report = schedule::validate(w, s);
      EXPECT_TRUE(report.ok()) << name << " n " << n << " k " << k << "\n" << report.to_string();
      for (const auto& t : s.timelines) {
        for (const CircuitInterval& c : t.circuits) EXPECT_NE(c.a.value() / k, c.b.value() / k);
      }
    }
  }
}

// A (0->1, 1000 B) -> 5 ns compute -> B (1->2, 500 B = 5 ns). Domains of 2
// at 1600 Gb/s: A is electrical, 5 ns: 15 ns. Without domains A takes
// 10 ns: 20 ns.
TEST(IdealDomains, CriticalPathWithEachSendsFabric) {
  workload::WorkloadBuilder b("hand", 4);
  const core::TaskIndex a = b.add_send(Rank(0), Rank(1), 1000);
  b.add_dep(a, b.add_send(Rank(1), Rank(2), 500), 5000);
  const core::Workload w = std::move(b).build();
  const schedule::Schedule s = run_scheduler("ideal", w, domain_system(2, 1000, 2), {});
  EXPECT_EQ(s.makespan_ps, 15000);
  EXPECT_EQ(s.lower_bound_ps, 15000);
  EXPECT_EQ(run_scheduler("ideal", w, domain_system(2, 1000, 1), {}).makespan_ps, 20000);
}

TEST(Registry, BaselinesAfterTheFluxSchedulers) {
  const std::vector<std::string_view> names = scheduler_names();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "flux");
  EXPECT_EQ(names[1], "flux-milp");
  for (const char* name : {"rotornet", "rotornet-vlb", "bvn", "ideal"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    EXPECT_EQ(make_scheduler(name)->name(), name);
  }
}

// The circuit count rotornet_timelines() checks before building is the
// count it builds; beyond kMaxRotornetCircuits it refuses at once, with the size.
TEST(RotorNet, CircuitsEstimatedBeforeBuilding) {
  for (const auto& [n, k, s] : {std::tuple{8u, 1u, 2u}, std::tuple{9u, 1u, 3u},
                                std::tuple{16u, 4u, 2u}, std::tuple{24u, 8u, 1u}}) {
    core::System sys;
    sys.switches = s;
    sys.scaleup_size = k;
    if (k > 1) sys.scaleup_gbps = 2400;
    const PeriodicTimelines t = rotornet_timelines(n, sys, 0.9);
    std::uint64_t built = 0;
    for (const auto& tl : t.timelines) built += tl.circuits.size();
    EXPECT_EQ(rotornet_circuits(n, sys), built) << n << " " << k << " " << s;
  }
  core::System sys;
  try {
    (void)rotornet_timelines(100000, sys, 0.9);
    FAIL() << "100,000 accelerators accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "accelerators");
    EXPECT_NE(e.problem().find("9999900000 circuits (about"), std::string::npos) << e.problem();
  }
}

}  // namespace
}  // namespace flux::sched
