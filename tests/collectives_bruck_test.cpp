// The bruck all-to-all and the hierarchical all-reduce / reduce-scatter /
// all-gather (collectives.hpp): data flow replayed by collectives_check.hpp
// against independent restatements of both, rounds, bytes, the domain
// layout, exact dependencies, errors and the CollectiveTasks contract
// recomputed by brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"

#include "collectives_check.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;
using namespace flux::workload::test;  // NOLINT(google-build-using-namespace)

constexpr CollectiveKind kReductions[] = {
    CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather};

std::uint32_t ceil_log2(std::uint32_t p) {
  std::uint32_t k = 0;
  while ((1u << k) < p) ++k;
  return k;
}

// --- the CollectiveTasks contract, by brute force ------------------------------

/// Recomputes initial, terminal and terminal_follows_initial from the tasks
/// and deps alone (the workload holds only this collective) as the header
/// defines them, and compares.
void expect_contract(const Emitted& r, std::size_t p, const std::vector<Rank>& group) {
  const std::size_t n = r.data.tasks.size();
  std::vector<std::vector<std::uint32_t>> succ(n);
  std::vector<bool> has_pred(n, false);
  for (const core::Dep& e : r.data.deps) {
    succ[e.from.value()].push_back(e.to.value());
    has_pred[e.to.value()] = true;
  }
  auto pos_of = [&](Rank rank) {
    return static_cast<std::uint32_t>(std::find(group.begin(), group.end(), rank) - group.begin());
  };
  auto involves = [&](std::uint32_t t, std::uint32_t pos) {
    return pos_of(r.data.tasks[t].src) == pos || pos_of(r.data.tasks[t].dst) == pos;
  };
  // reach[t]: tasks reachable from t (t included); emission order is topological.
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::size_t t = n; t-- > 0;) {
    reach[t][t] = true;
    for (std::uint32_t u : succ[t]) {
      for (std::size_t v = 0; v < n; ++v) reach[t][v] = reach[t][v] || reach[u][v];
    }
  }
  Frontier initial(p), terminal(p);
  bool follows = true;
  for (std::uint32_t pos = 0; pos < p; ++pos) {
    std::vector<std::uint32_t> sends;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (pos_of(r.data.tasks[t].src) == pos) sends.push_back(t);
      if (pos_of(r.data.tasks[t].src) == pos && !has_pred[t]) initial[pos].emplace_back(t);
      if (!involves(t, pos)) continue;
      const bool last =
          std::none_of(succ[t].begin(), succ[t].end(), [&](auto u) { return involves(u, pos); });
      if (last) terminal[pos].emplace_back(t);
    }
    if (initial[pos].empty() && !sends.empty()) initial[pos].emplace_back(sends.front());
    if (sends.empty()) continue;  // receivers only do not count
    bool found = false;
    for (const TaskIndex i : initial[pos]) {
      for (const TaskIndex t : terminal[pos]) found = found || reach[i.value()][t.value()];
    }
    follows = follows && found;
  }
  EXPECT_EQ(r.ct.initial, initial);
  EXPECT_EQ(r.ct.terminal, terminal);
  EXPECT_EQ(r.ct.terminal_follows_initial, follows);
}

/// Same spec, same tasks and deps in the same order.
void expect_deterministic(const CollectiveSpec& spec, std::uint32_t accelerators) {
  const Emitted a = run(spec, accelerators), b = run(spec, accelerators);
  ASSERT_EQ(a.data.tasks.size(), b.data.tasks.size());
  for (std::size_t i = 0; i < a.data.tasks.size(); ++i) {
    EXPECT_EQ(std::tie(a.data.tasks[i].src, a.data.tasks[i].dst, a.data.tasks[i].bytes),
              std::tie(b.data.tasks[i].src, b.data.tasks[i].dst, b.data.tasks[i].bytes));
  }
  ASSERT_EQ(a.data.deps.size(), b.data.deps.size());
  for (std::size_t i = 0; i < a.data.deps.size(); ++i) {
    EXPECT_EQ(std::tie(a.data.deps[i].from, a.data.deps[i].to),
              std::tie(b.data.deps[i].from, b.data.deps[i].to));
  }
}

// --- bruck ---------------------------------------------------------------------

/// Block (s, t)'s bytes: pair_bytes, or chunk t of `bytes` (the diagonal 0).
std::vector<std::uint64_t> block_bytes(const CollectiveSpec& spec) {
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  std::vector<std::uint64_t> b(std::size_t{p} * p, 0);
  const std::vector<std::uint64_t> chunk = pieces(spec.bytes, p);
  for (std::uint32_t s = 0; s < p; ++s) {
    for (std::uint32_t t = 0; t < p; ++t) {
      if (s != t) b[s * p + t] = spec.pair_bytes.empty() ? chunk[t] : spec.pair_bytes[s * p + t];
    }
  }
  return b;
}

/// Bruck restated by moving blocks: every block sits somewhere; at round k
/// each position sends, to position + 2^k, the blocks it holds whose distance
/// has bit k set. Also returns, per planned send, the planned sends that last
/// brought one of its (nonzero) blocks to its sender: its exact deps.
std::pair<Plan, std::vector<std::set<std::size_t>>> bruck_plan(const CollectiveSpec& spec) {
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  Plan plan{block_bytes(spec), {}};
  std::vector<std::uint32_t> at(std::size_t{p} * p);
  std::vector<std::size_t> brought(std::size_t{p} * p, SIZE_MAX);  // planned send index
  for (std::uint32_t u = 0; u < at.size(); ++u) at[u] = u / p;
  std::vector<std::set<std::size_t>> waits;
  for (std::uint32_t k = 0; (1u << k) < p; ++k) {
    const std::size_t first = plan.sends.size();
    for (std::uint32_t i = 0; i < p; ++i) {
      Planned s{i, (i + (1u << k)) % p, {}, Op::kCopy};
      waits.emplace_back();
      for (std::uint32_t u = 0; u < at.size(); ++u) {
        const std::uint32_t d = (u % p + p - u / p) % p;
        if (at[u] != i || (d >> k & 1) == 0) continue;
        s.units.push_back(u);
        if (brought[u] != SIZE_MAX && plan.unit_bytes[u] != 0) waits.back().insert(brought[u]);
      }
      plan.sends.push_back(std::move(s));
    }
    for (std::size_t x = first; x < plan.sends.size(); ++x) {
      for (std::uint32_t u : plan.sends[x].units) {
        at[u] = plan.sends[x].to;
        brought[u] = x;
      }
    }
  }
  return {plan, waits};
}

/// Data flow, deps exactly those the plan derives, rounds, the contract.
void check_bruck(const CollectiveSpec& spec, std::uint32_t accelerators) {
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  SCOPED_TRACE(describe(spec.kind, spec.algorithm, p, spec.bytes) +
               (spec.pair_bytes.empty() ? "" : " pair_bytes"));
  const auto [plan, waits] = bruck_plan(spec);
  check_plan(spec, accelerators, plan);
  const Emitted r = run(spec, accelerators);
  // Planned send -> emitted task (the nonzero ones, in order).
  std::vector<std::uint32_t> task_of(plan.sends.size(), UINT32_MAX);
  std::set<Edge> expected;
  std::uint32_t next = 0;
  for (std::size_t x = 0; x < plan.sends.size(); ++x) {
    std::uint64_t b = 0;
    for (std::uint32_t u : plan.sends[x].units) b += plan.unit_bytes[u];
    if (b == 0) continue;
    task_of[x] = next++;
    for (std::size_t w : waits[x]) {
      ASSERT_NE(task_of[w], UINT32_MAX);  // a nonzero block came by a nonzero send
      expected.emplace(task_of[w], task_of[x]);
    }
  }
  EXPECT_EQ(edges(r.data), expected);
  EXPECT_EQ(r.data.deps.size(), expected.size());  // no dep twice
  // Rounds: hops 2^k, k < ceil(log2 p), in increasing k, one send per rank per round.
  std::set<std::pair<std::uint32_t, std::uint32_t>> rank_round;
  std::uint32_t round = 0;
  for (const core::Task& t : r.data.tasks) {
    const auto src = static_cast<std::uint32_t>(
        std::find(spec.group.begin(), spec.group.end(), t.src) - spec.group.begin());
    const auto dst = static_cast<std::uint32_t>(
        std::find(spec.group.begin(), spec.group.end(), t.dst) - spec.group.begin());
    const std::uint32_t hop = (dst + p - src) % p;
    ASSERT_TRUE(std::has_single_bit(hop)) << hop;
    const auto k = static_cast<std::uint32_t>(std::countr_zero(hop));
    EXPECT_LT(k, ceil_log2(p));
    EXPECT_GE(k, round);  // emitted round by round
    round = k;
    EXPECT_TRUE(rank_round.emplace(src, k).second) << "rank " << src << " twice in round " << k;
  }
  expect_contract(r, p, spec.group);
}

/// Skewed all-to-all-v bytes: a few heavy pairs, zeros, the rest light.
std::vector<std::uint64_t> skewed(std::uint32_t p) {
  std::vector<std::uint64_t> b(std::size_t{p} * p);
  for (std::uint32_t s = 0; s < p; ++s) {
    for (std::uint32_t t = 0; t < p; ++t) {
      const std::uint32_t x = (s * 7 + t * 3) % 5;
      b[s * p + t] = x == 0 ? 0 : x == 1 ? 100000 + s : 1 + t;
    }
  }
  return b;
}

TEST(Bruck, DataFlowRoundsAndDepsUniformAndSkewed) {
  for (std::uint32_t p : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 16u}) {
    for (std::uint64_t b : {64ull * p, 64ull * p + 3, 3ull, 1ull}) {
      check_bruck(make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(p), b), p);
    }
    CollectiveSpec v = make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(p), 0);
    v.pair_bytes = skewed(p);
    check_bruck(v, p);
  }
}

TEST(Bruck, NonConsecutiveGroupAndDeterminism) {
  CollectiveSpec spec =
      make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, ranks({9, 2, 7, 4, 0, 5}), 6000);
  check_bruck(spec, 10);
  expect_deterministic(spec, 10);
  spec.pair_bytes = skewed(6);
  check_bruck(spec, 10);
  expect_deterministic(spec, 10);
}

TEST(Bruck, RoundsAndTotalBytes) {
  for (std::uint32_t p = 2; p <= 16; ++p) {
    const Emitted r =
        run(make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(p), 100ull * p), p);
    // Every block nonzero: each of the ceil(log2 p) rounds has p sends.
    EXPECT_EQ(r.data.tasks.size(), std::size_t{p} * ceil_log2(p)) << p;
    // A block at distance d crosses popcount(d) links.
    std::uint64_t hops = 0;
    for (std::uint32_t d = 1; d < p; ++d) hops += static_cast<std::uint64_t>(std::popcount(d));
    EXPECT_EQ(total_bytes(r.data), p * hops * 100) << p;
  }
  // By hand, blocks of B/p = 100 bytes, uniform all-to-all:
  //   p = 4: distances 1, 2, 3 cross 1 + 1 + 2 = 4 links; 4 sources x 4 x 100
  //          = 1600 bytes, against direct's 4 x 3 x 100 = 1200.
  //   p = 8: distances 1..7 cross 1+1+2+1+2+2+3 = 12 links; 8 x 12 x 100 =
  //          9600 bytes (3 rounds of 8 sends of 4 blocks), against 5600.
  const std::pair<std::uint32_t, std::uint64_t> by_hand[] = {{4, 1600}, {8, 9600}};
  for (const auto& [p, bytes] : by_hand) {
    const std::uint64_t b = 100ull * p;
    const Emitted bruck =
        run(make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(p), b), p);
    const Emitted direct =
        run(make_spec(CollectiveKind::kAllToAll, Algorithm::kDirect, consecutive(p), b), p);
    EXPECT_EQ(total_bytes(bruck.data), bytes);
    EXPECT_EQ(total_bytes(direct.data), (p - 1) * b);
    for (const core::Task& t : bruck.data.tasks) EXPECT_EQ(t.bytes, p / 2 * 100u);
  }
}

TEST(Bruck, P4StructureAndDeps) {
  // p = 4, B = 400 (blocks of 100). Round 0 (hop 1): i sends the blocks at
  // distance 1 and 3 from itself: (i, i+1), (i, i+3). Round 1 (hop 2): the
  // blocks with bit 1 of d set at i: its own (i, i+2) and (i-1, i+2), which
  // arrived from i-1 in round 0 (d = 3): one dep on that receive.
  const Emitted r =
      run(make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(4), 400), 4);
  ASSERT_EQ(r.data.tasks.size(), 8u);
  std::set<Edge> expected;
  for (std::uint32_t i = 0; i < 4; ++i) {
    expect_send(r.data.tasks[i], i, (i + 1) % 4, 200);
    expect_send(r.data.tasks[4 + i], i, (i + 2) % 4, 200);
    expected.emplace((i + 3) % 4, 4 + i);
  }
  EXPECT_EQ(edges(r.data), expected);
  EXPECT_TRUE(r.ct.terminal_follows_initial);
}

TEST(Bruck, NothingToSend) {
  CollectiveSpec zeros = make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(3), 0);
  zeros.pair_bytes.assign(9, 0);
  zeros.pair_bytes[4] = 7;  // the diagonal stays on the rank
  for (const CollectiveSpec& spec :
       {make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, ranks({2}), 1000),
        make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(4), 0), zeros}) {
    const Emitted r = run(spec, 4);
    EXPECT_TRUE(r.data.tasks.empty());
    EXPECT_EQ(r.ct.initial, Frontier(spec.group.size()));
    EXPECT_EQ(r.ct.terminal, Frontier(spec.group.size()));
    EXPECT_TRUE(r.ct.terminal_follows_initial);
  }
}

TEST(Bruck, RefusesOtherKinds) {
  for (const CollectiveKind k :
       {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather,
        CollectiveKind::kSend, CollectiveKind::kShift}) {
    WorkloadBuilder b("test", 4);
    const std::vector<Rank> group = k == CollectiveKind::kSend ? consecutive(2) : consecutive(4);
    try {
      emit_collective(b, make_spec(k, Algorithm::kBruck, group, 64));
      FAIL() << "expected InputError for " << to_string(k);
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.value(), "bruck");
      EXPECT_NE(std::string(e.what()).find(to_string(k)), std::string::npos) << e.what();
    }
    EXPECT_EQ(b.num_tasks(), 0u);
  }
  // Per-pair bytes whose sum overflows: refused before anything is added.
  WorkloadBuilder b("test", 2);
  CollectiveSpec v = make_spec(CollectiveKind::kAllToAll, Algorithm::kBruck, consecutive(2), 0);
  v.pair_bytes = {0, UINT64_MAX, 1, 0};
  EXPECT_THROW(emit_collective(b, v), core::InputError);
  EXPECT_EQ(b.num_tasks(), 0u);
}

// --- hierarchical ----------------------------------------------------------------

/// Hierarchical restated: the domains by first appearance, chunk c position
/// c's, shard j the chunks of local index j; rings inside the domains over
/// shards and across them over chunks, step by step, senders in order.
Plan hierarchical_plan(const CollectiveSpec& spec) {
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  std::map<std::uint32_t, std::uint32_t> domain_index;  // domain id -> d
  std::vector<std::vector<std::uint32_t>> members;      // [d][j] -> position
  std::vector<std::uint32_t> dom(p), local(p);
  for (std::uint32_t pos = 0; pos < p; ++pos) {
    const auto [it, fresh] = domain_index.emplace(spec.group[pos].value() / spec.domain_size,
                                                  static_cast<std::uint32_t>(members.size()));
    if (fresh) members.emplace_back();
    dom[pos] = it->second;
    local[pos] = static_cast<std::uint32_t>(members[it->second].size());
    members[it->second].push_back(pos);
  }
  const auto D = static_cast<std::uint32_t>(members.size());
  const auto m = p / D;
  Plan plan{pieces(spec.bytes, p), {}};
  auto shard = [&](std::uint32_t j) {
    std::vector<std::uint32_t> u;
    for (std::uint32_t d = 0; d < D; ++d) u.push_back(members[d][j]);
    return u;
  };
  // back = 1 reducing, 0 gathering.
  auto intra = [&](Op op, std::uint32_t back) {
    for (std::uint32_t s = 0; s + 1 < m; ++s) {
      for (std::uint32_t pos = 0; pos < p; ++pos) {
        plan.sends.push_back({pos, members[dom[pos]][(local[pos] + 1) % m],
                              shard((local[pos] + 2 * m - s - back) % m), op});
      }
    }
  };
  auto inter = [&](Op op, std::uint32_t back) {
    for (std::uint32_t s = 0; s + 1 < D; ++s) {
      for (std::uint32_t pos = 0; pos < p; ++pos) {
        plan.sends.push_back({pos,
                              members[(dom[pos] + 1) % D][local[pos]],
                              {members[(dom[pos] + 2 * D - s - back) % D][local[pos]]},
                              op});
      }
    }
  };
  if (spec.kind != CollectiveKind::kAllGather) {
    intra(Op::kReduce, 1);
    inter(Op::kReduce, 1);
  }
  if (spec.kind != CollectiveKind::kReduceScatter) {
    inter(Op::kCopy, 0);
    intra(Op::kCopy, 0);
  }
  return plan;
}

CollectiveSpec hierarchical_spec(CollectiveKind k, std::vector<Rank> group,
                                 std::uint32_t domain_size, std::uint64_t bytes) {
  CollectiveSpec spec = make_spec(k, Algorithm::kHierarchical, std::move(group), bytes);
  spec.domain_size = domain_size;
  return spec;
}

void check_hierarchical(const CollectiveSpec& spec, std::uint32_t accelerators) {
  SCOPED_TRACE(describe(spec.kind, spec.algorithm, static_cast<std::uint32_t>(spec.group.size()),
                        spec.bytes) +
               " domain_size=" + std::to_string(spec.domain_size));
  check_plan(spec, accelerators, hierarchical_plan(spec));
  const Emitted r = run(spec, accelerators);
  expect_contract(r, spec.group.size(), spec.group);
  // Reduce-scatter and all-gather move (p-1)B, like the other algorithms;
  // all-reduce twice that.
  const auto p = spec.group.size();
  EXPECT_EQ(total_bytes(r.data),
            (spec.kind == CollectiveKind::kAllReduce ? 2 : 1) * (p - 1) * spec.bytes);
}

TEST(Hierarchical, DataFlowEveryLayout) {
  // p = D x m for p = 2..9 and 16, D >= 2 domains of m members, ranks
  // consecutive (domain_size m), and bytes even, uneven and below p.
  for (std::uint32_t p : {2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 16u}) {
    for (std::uint32_t m = 1; m * 2 <= p; ++m) {
      if (p % m != 0) continue;
      for (std::uint64_t b : {64ull * p, 64ull * p + 3, 3ull, 1ull}) {
        for (CollectiveKind k : kReductions)
          check_hierarchical(hierarchical_spec(k, consecutive(p), m, b), p);
      }
    }
  }
}

TEST(Hierarchical, InterleavedGroupAndSparseDomains) {
  // Domains of 4 ranks; the group lists them interleaved: domain 1 (ranks
  // 4..7) appears first, so it is domain 0 of the layout, and local indices
  // follow the order of appearance (rank 6 before rank 5).
  const std::vector<Rank> group = ranks({4, 0, 6, 1, 5, 3});
  for (CollectiveKind k : kReductions) {
    check_hierarchical(hierarchical_spec(k, group, 4, 6007), 8);
    expect_deterministic(hierarchical_spec(k, group, 4, 6007), 8);
  }
  // Two members in each of four 8-rank domains, 2 of the 8 used.
  const std::vector<Rank> sparse = ranks({0, 3, 8, 9, 17, 20, 30, 25});
  for (CollectiveKind k : kReductions) check_hierarchical(hierarchical_spec(k, sparse, 8, 803), 32);
}

TEST(Hierarchical, LayoutOnDomainsOfTwoAndFour) {
  // (domain_size, p): domains of 2 and 4 ranks with m = 2 and 4 members,
  // D = p / m domains. All-reduce of 100 bytes per chunk: intra-domain sends
  // carry shards of D chunks, inter-domain ones one chunk; each rank sends
  // 2(m-1) shards inside its domain and 2(D-1) chunks across.
  const std::pair<std::uint32_t, std::uint32_t> layouts[] = {{2, 4}, {2, 8}, {4, 8}, {4, 16}};
  for (const auto& [m, p] : layouts) {
    SCOPED_TRACE("m=" + std::to_string(m) + " p=" + std::to_string(p));
    const std::uint32_t D = p / m;
    const Emitted r =
        run(hierarchical_spec(CollectiveKind::kAllReduce, consecutive(p), m, 100ull * p), p);
    ASSERT_EQ(r.data.tasks.size(), 2u * p * (m - 1 + D - 1));
    std::vector<std::uint32_t> intra(p, 0), across(p, 0);
    for (std::size_t t = 0; t < r.data.tasks.size(); ++t) {
      const core::Task& task = r.data.tasks[t];
      const std::uint32_t s = task.src.value(), d = task.dst.value();
      // Phases in order: intra reduce-scatter, inter all-reduce, intra all-gather.
      const std::size_t step = t / p;
      const bool in_domain = step < m - 1 || step >= m - 1 + 2 * (D - 1);
      EXPECT_EQ(s / m == d / m, in_domain) << t;
      EXPECT_EQ(task.bytes, in_domain ? 100u * D : 100u) << t;
      if (in_domain) {
        EXPECT_EQ(d, s / m * m + (s % m + 1) % m) << t;  // ring inside the domain
        ++intra[s];
      } else {
        EXPECT_EQ(d, (s + m) % p) << t;  // same local index, next domain
        ++across[s];
      }
    }
    for (std::uint32_t i = 0; i < p; ++i) {
      EXPECT_EQ(intra[i], 2 * (m - 1));
      EXPECT_EQ(across[i], 2 * (D - 1));
    }
  }
}

TEST(Hierarchical, PhaseBoundaryDepsP4) {
  // Domains {0, 1} and {2, 3} (domain_size 2), B = 400: chunks of 100,
  // shard 0 = chunks {0, 2}, shard 1 = chunks {1, 3}. One step per phase:
  //   0..3    intra reduce-scatter: i sends shard (j-1) to its partner (200)
  //   4..7    inter reduce-scatter: i sends the other domain's chunk of its
  //           shard to i+2, after its intra receive (its shard, reduced)
  //   8..11   inter all-gather: its own chunk, after the intra receive and the
  //           inter receive that completed it
  //   12..15  intra all-gather: its shard, after those and the all-gather receive
  const Emitted r = run(hierarchical_spec(CollectiveKind::kAllReduce, consecutive(4), 2, 400), 4);
  ASSERT_EQ(r.data.tasks.size(), 16u);
  const std::uint32_t partner[] = {1, 0, 3, 2}, across[] = {2, 3, 0, 1};
  std::set<Edge> expected;
  for (std::uint32_t i = 0; i < 4; ++i) {
    expect_send(r.data.tasks[i], i, partner[i], 200);
    expect_send(r.data.tasks[4 + i], i, across[i], 100);
    expect_send(r.data.tasks[8 + i], i, across[i], 100);
    expect_send(r.data.tasks[12 + i], i, partner[i], 200);
    const std::uint32_t intra = partner[i], rs = 4 + across[i], ag = 8 + across[i];
    expected.insert({{intra, 4 + i}, {intra, 8 + i}, {rs, 8 + i}});
    expected.insert({{intra, 12 + i}, {rs, 12 + i}, {ag, 12 + i}});
  }
  EXPECT_EQ(edges(r.data), expected);
  EXPECT_EQ(r.ct.initial, (Frontier{tasks({0}), tasks({1}), tasks({2}), tasks({3})}));
  EXPECT_TRUE(r.ct.terminal_follows_initial);
}

TEST(Hierarchical, ZeroBytesEmitsNothing) {
  for (CollectiveKind k : kReductions) {
    const Emitted r = run(hierarchical_spec(k, consecutive(4), 2, 0), 4);
    EXPECT_TRUE(r.data.tasks.empty());
    EXPECT_EQ(r.ct.initial, Frontier(4));
    EXPECT_TRUE(r.ct.terminal_follows_initial);
  }
}

TEST(Hierarchical, AllToAllSendAndShiftKeepTheirPattern) {
  // domain_size unused (0 would be refused for a reduction): all-to-all is
  // direct, p(p-1) sends; a shift p sends; a send one.
  const std::pair<CollectiveKind, std::size_t> kinds[] = {
      {CollectiveKind::kAllToAll, 12}, {CollectiveKind::kShift, 4}, {CollectiveKind::kSend, 1}};
  for (const auto& [k, sends] : kinds) {
    const std::vector<Rank> group = k == CollectiveKind::kSend ? consecutive(2) : consecutive(4);
    EXPECT_EQ(run(hierarchical_spec(k, group, 0, 400), 4).data.tasks.size(), sends);
  }
}

void expect_domain_error(const std::vector<Rank>& group, std::uint32_t domain_size,
                         const std::string& mentions) {
  for (CollectiveKind k : kReductions) {
    WorkloadBuilder b("test", 16);
    try {
      emit_collective(b, hierarchical_spec(k, group, domain_size, 1024));
      FAIL() << "expected InputError: " << mentions;
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.field(), "domain_size");
      EXPECT_EQ(e.value(), std::to_string(domain_size));
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
    EXPECT_EQ(b.num_tasks(), 0u);
  }
}

TEST(Hierarchical, RefusesBadDomains) {
  expect_domain_error(consecutive(4), 0, "domain size");
  expect_domain_error(consecutive(4), 4, "at least two");  // one domain
  expect_domain_error(consecutive(4), 8, "at least two");
  expect_domain_error(ranks({2}), 1, "at least two");         // a single rank
  expect_domain_error(ranks({0, 1, 2, 4}), 2, "as many");     // 2 and 1 and 1 members
  expect_domain_error(ranks({0, 1, 2, 4, 5}), 4, "as many");  // 3 and 2
}

TEST(CollectiveNames, BruckAndHierarchical) {
  EXPECT_EQ(to_string(Algorithm::kBruck), "bruck");
  EXPECT_EQ(to_string(Algorithm::kHierarchical), "hierarchical");
  EXPECT_EQ(algorithm_from_string("bruck"), Algorithm::kBruck);
  EXPECT_EQ(algorithm_from_string("hierarchical"), Algorithm::kHierarchical);
  try {
    algorithm_from_string("tree");
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    for (const char* name : {"ring", "direct", "halving-doubling", "bruck", "hierarchical"})
      EXPECT_NE(what.find(name), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace flux::workload
