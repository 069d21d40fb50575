#include "flux/workload/collectives.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/builder.hpp"

#include "collectives_check.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;
using namespace flux::workload::test;  // NOLINT(google-build-using-namespace)

constexpr CollectiveKind kKinds[] = {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                     CollectiveKind::kAllGather, CollectiveKind::kAllToAll};
constexpr Algorithm kAlgorithms[] = {Algorithm::kRing, Algorithm::kDirect,
                                     Algorithm::kHalvingDoubling};

// Ring: at step j, i sends chunk i-j-1 (reducing) or i-j (gathering) to i+1.
// Direct: i sends chunk j (reducing) or chunk i (gathering) to every j != i.
Plan ring_or_direct_plan(CollectiveKind kind, bool ring, std::uint32_t p, std::uint64_t bytes) {
  Plan plan{pieces(bytes, p), {}};
  auto phase = [&](Op op) {
    const std::uint32_t back = op == Op::kReduce ? 1 : 0;
    for (std::uint32_t j = 0; ring && j + 1 < p; ++j) {
      for (std::uint32_t i = 0; i < p; ++i) {
        plan.sends.push_back({i, (i + 1) % p, {(i + p - j - back) % p}, op});
      }
    }
    for (std::uint32_t i = 0; !ring && i < p; ++i) {
      for (std::uint32_t j = 0; j < p; ++j) {
        if (i != j) plan.sends.push_back({i, j, {op == Op::kReduce ? j : i}, op});
      }
    }
  };
  if (kind != CollectiveKind::kAllGather) phase(Op::kReduce);
  if (kind != CollectiveKind::kReduceScatter) phase(Op::kCopy);
  return plan;
}

Plan halving_doubling_plan(CollectiveKind kind, std::uint32_t p, std::uint64_t bytes) {
  const std::uint32_t q = std::bit_floor(p);
  const std::uint32_t r = p - q;
  const bool all_reduce = kind == CollectiveKind::kAllReduce;
  Plan plan{pieces(bytes, all_reduce ? q : p), {}};
  const auto num_units = static_cast<std::uint32_t>(plan.unit_bytes.size());
  // Block v: unit v, plus unit q+v for v < r when units are the p chunks.
  auto blocks = [&](std::uint32_t first, std::uint32_t count) {
    std::vector<std::uint32_t> u;
    for (std::uint32_t v = first; v < first + count; ++v) {
      u.push_back(v);
      if (!all_reduce && v < r) u.push_back(q + v);
    }
    return u;
  };
  std::vector<std::uint32_t> all;
  for (std::uint32_t u = 0; u < num_units; ++u) all.push_back(u);
  for (std::uint32_t x = 0; x < r; ++x) {
    plan.sends.push_back(kind == CollectiveKind::kAllGather ? Planned{q + x, x, {q + x}, Op::kCopy}
                                                            : Planned{q + x, x, all, Op::kReduce});
  }
  if (kind != CollectiveKind::kAllGather) {
    for (std::uint32_t d = q / 2; d > 0; d /= 2) {
      for (std::uint32_t v = 0; v < q; ++v) {
        const std::uint32_t w = v ^ d;  // gets the half of the 2d blocks holding block w
        plan.sends.push_back({v, w, blocks(w / d * d, d), Op::kReduce});
      }
    }
  }
  if (kind != CollectiveKind::kReduceScatter) {
    for (std::uint32_t d = 1; d < q; d *= 2) {
      for (std::uint32_t v = 0; v < q; ++v) {
        plan.sends.push_back({v, v ^ d, blocks(v / d * d, d), Op::kCopy});
      }
    }
  }
  for (std::uint32_t x = 0; x < r; ++x) {
    std::vector<std::uint32_t> back = all;
    if (kind == CollectiveKind::kReduceScatter) back = {q + x};
    if (kind == CollectiveKind::kAllGather) std::erase(back, q + x);
    plan.sends.push_back({x, q + x, back, Op::kCopy});
  }
  return plan;
}

Plan make_plan(CollectiveKind kind, Algorithm a, std::uint32_t p, std::uint64_t bytes) {
  if (a == Algorithm::kHalvingDoubling) return halving_doubling_plan(kind, p, bytes);
  return ring_or_direct_plan(kind, a == Algorithm::kRing, p, bytes);
}

void check_data_flow(CollectiveKind kind, Algorithm a, const std::vector<Rank>& group,
                     std::uint32_t accelerators, std::uint64_t bytes) {
  const auto p = static_cast<std::uint32_t>(group.size());
  SCOPED_TRACE(describe(kind, a, p, bytes));
  check_plan(make_spec(kind, a, group, bytes), accelerators, make_plan(kind, a, p, bytes));
}

TEST(CollectiveNames, ToStringAndParse) {
  const char* kind_names[] = {"all-reduce", "reduce-scatter", "all-gather", "all-to-all"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(to_string(kKinds[i]), kind_names[i]);
  const char* algorithm_names[] = {"ring", "direct", "halving-doubling"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(to_string(kAlgorithms[i]), algorithm_names[i]);
    EXPECT_EQ(algorithm_from_string(algorithm_names[i]), kAlgorithms[i]);
  }
  try {
    algorithm_from_string("tree");
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.value(), "tree");
    for (const char* name : algorithm_names)
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos);
  }
  EXPECT_THROW(algorithm_from_string("Ring"), core::InputError);
  EXPECT_THROW(algorithm_from_string(""), core::InputError);
}

void expect_group_error(const std::vector<Rank>& group, const std::string& value) {
  WorkloadBuilder b("test", 4);
  try {
    emit_collective(b, make_spec(CollectiveKind::kAllReduce, Algorithm::kRing, group, 64));
    FAIL() << "expected InputError for group value " << value;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "group");
    EXPECT_EQ(e.value(), value);
  }
  EXPECT_EQ(b.num_tasks(), 0u);  // nothing added before the check
  EXPECT_EQ(b.num_deps(), 0u);
}

TEST(CollectiveValidation, RejectsBadGroups) {
  expect_group_error({}, "[]");
  expect_group_error(ranks({1, 2, 1}), "1");  // repeated rank
  expect_group_error(ranks({0, 4}), "4");     // accelerators are 0..3
  expect_group_error(ranks({3, Rank::kInvalid}), std::to_string(Rank::kInvalid));
}

TEST(CollectiveValidation, SingleRankOrZeroBytesEmitsNothing) {
  for (Algorithm a : kAlgorithms) {
    for (CollectiveKind k : kKinds) {
      for (const auto& [group, bytes] :
           {std::pair(ranks({2}), 1000), std::pair(consecutive(4), 0)}) {
        const Emitted r = run(make_spec(k, a, group, static_cast<std::uint64_t>(bytes)), 4);
        EXPECT_TRUE(r.data.tasks.empty());
        EXPECT_EQ(r.ct.initial, Frontier(group.size()));  // one empty list per member
        EXPECT_EQ(r.ct.terminal, Frontier(group.size()));
        EXPECT_TRUE(r.ct.terminal_follows_initial);  // vacuous: no member has tasks
      }
    }
  }
}

TEST(RingAllReduce, CountsAndBytes) {
  for (std::uint32_t p = 2; p <= 8; ++p) {
    const std::uint64_t bytes = 1000ull * p;
    const Emitted r =
        run(make_spec(CollectiveKind::kAllReduce, Algorithm::kRing, consecutive(p), bytes, 0), p);
    // p ranks x 2(p-1) steps, each send one chunk of B/p: total 2(p-1)B.
    EXPECT_EQ(r.data.tasks.size(), std::size_t{2} * p * (p - 1));
    for (const core::Task& t : r.data.tasks)
      EXPECT_EQ(std::tie(t.bytes, t.label), std::make_tuple(1000ull, 0u));
    EXPECT_EQ(total_bytes(r.data), 2 * (p - 1) * bytes);
    // Every send but the first step's waits for one receive: p(2(p-1) - 1) deps.
    EXPECT_EQ(r.data.deps.size(), std::size_t{p} * (2 * (p - 1) - 1));
  }
}

TEST(RingAllReduce, StructureDependenciesAndFrontierP4) {
  constexpr std::uint32_t p = 4;
  const Emitted r =
      run(make_spec(CollectiveKind::kAllReduce, Algorithm::kRing, consecutive(p), 400), p);
  ASSERT_EQ(r.data.tasks.size(), 24u);  // 6 steps x 4 ranks
  // Task j*4 + i: step j, rank i sends 100 bytes to rank i+1.
  for (std::uint32_t j = 0; j < 6; ++j) {
    for (std::uint32_t i = 0; i < p; ++i) expect_send(r.data.tasks[j * p + i], i, (i + 1) % p, 100);
  }
  // Rank i's step-j send waits for its step-(j-1) receive: the send of rank
  // i-1 at step j-1, including across the reduce-scatter/all-gather boundary.
  std::set<Edge> expected;
  for (std::uint32_t j = 1; j < 6; ++j) {
    for (std::uint32_t i = 0; i < p; ++i) expected.emplace((j - 1) * p + (i + 3) % p, j * p + i);
  }
  EXPECT_EQ(edges(r.data), expected);
  for (std::uint32_t i = 0; i < p; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.ct.initial[i], tasks({i}));  // only the step-0 send depends on nothing
    // A send i -> i+1 is followed only by i+1 -> i+2: no later task involves
    // i, so all six sends of i are terminal for it; of its receives only the
    // last one (step 5, from i-1) has no successor involving i.
    std::vector<TaskIndex> t = tasks({i, 4 + i, 8 + i, 12 + i, 16 + i, 20 + i, 20 + (i + 3) % p});
    std::sort(t.begin(), t.end());
    EXPECT_EQ(r.ct.terminal[i], t);
  }
  EXPECT_TRUE(r.ct.terminal_follows_initial);  // the initial send is itself terminal
}

TEST(RingAllGather, MemberWithoutInitialSend) {
  // B = 1 on 3 ranks: only chunk 0 (1 byte) exists; it goes 0 -> 1 -> 2.
  const Emitted r =
      run(make_spec(CollectiveKind::kAllGather, Algorithm::kRing, consecutive(3), 1), 3);
  ASSERT_EQ(r.data.tasks.size(), 2u);
  EXPECT_EQ(edges(r.data), (std::set<Edge>{{0, 1}}));
  // Rank 1's only send forwards what it received; as its first send it still
  // counts as initial (it follows rank 1's own compute). Rank 2 only receives.
  EXPECT_EQ(r.ct.initial, (Frontier{tasks({0}), tasks({1}), {}}));
  EXPECT_EQ(r.ct.terminal, (Frontier{tasks({0}), tasks({1}), tasks({1})}));
  // Rank 2 has a task but no send: it does not count, and it alone keeps
  // its frontier (it has no initial send to descend from it).
  EXPECT_TRUE(r.ct.terminal_follows_initial);
  EXPECT_TRUE(r.ct.replaces_frontier(0));
  EXPECT_TRUE(r.ct.replaces_frontier(1));
  EXPECT_FALSE(r.ct.replaces_frontier(2));
}

TEST(DirectAllReduce, CountsAndDependencies) {
  constexpr std::uint32_t p = 5;
  constexpr std::uint32_t kRs = p * (p - 1);  // reduce-scatter sends, then as many all-gather
  const Emitted r =
      run(make_spec(CollectiveKind::kAllReduce, Algorithm::kDirect, consecutive(p), 500), p);
  // 2p(p-1) sends of 100 bytes: task i(p-1)+k is rank i's k-th send (to the
  // k-th other rank), first reduce-scatter then all-gather.
  ASSERT_EQ(r.data.tasks.size(), 2u * kRs);
  EXPECT_EQ(total_bytes(r.data), 2u * (p - 1) * 500);
  // Each of rank j's p-1 all-gather sends waits for each of its p-1
  // reduce-scatter receives (from every i != j): (p-1)^2 deps per rank.
  std::set<Edge> expected;
  for (std::uint32_t i = 0; i < p; ++i) {
    for (std::uint32_t k = 0; k + 1 < p; ++k) {
      const std::uint32_t j = k < i ? k : k + 1;
      expect_send(r.data.tasks[i * (p - 1) + k], i, j, 100);
      expect_send(r.data.tasks[kRs + i * (p - 1) + k], i, j, 100);
      for (std::uint32_t m = 0; m + 1 < p; ++m)
        expected.emplace(i * (p - 1) + k, kRs + j * (p - 1) + m);
    }
  }
  EXPECT_EQ(expected.size(), std::size_t{p} * (p - 1) * (p - 1));
  EXPECT_EQ(edges(r.data), expected);
  for (std::uint32_t i = 0; i < p; ++i) {
    // Initial: the p-1 reduce-scatter sends. Terminal: the 2(p-1) all-gather
    // sends from and to i (a reduce-scatter send i -> j is followed by j -> i).
    EXPECT_EQ(r.ct.initial[i].size(), p - 1u);
    EXPECT_EQ(r.ct.initial[i].front(), TaskIndex(i * (p - 1)));
    EXPECT_EQ(r.ct.terminal[i].size(), 2u * (p - 1));
    for (TaskIndex v : r.ct.terminal[i]) EXPECT_GE(v.value(), kRs);
  }
  EXPECT_TRUE(r.ct.terminal_follows_initial);
}

TEST(AllToAll, DirectSendsWhateverTheAlgorithm) {
  constexpr std::uint32_t p = 4;
  // B = 42: chunks 11, 11, 10, 10; rank i sends chunk j to rank j.
  const std::uint64_t chunk[] = {11, 11, 10, 10};
  for (Algorithm a : kAlgorithms) {
    const Emitted r = run(make_spec(CollectiveKind::kAllToAll, a, consecutive(p), 42), p);
    ASSERT_EQ(r.data.tasks.size(), std::size_t{p * (p - 1)});  // one step of p(p-1) sends
    EXPECT_TRUE(r.data.deps.empty());
    std::size_t k = 0;
    for (std::uint32_t i = 0; i < p; ++i) {
      for (std::uint32_t j = 0; j < p; ++j) {
        if (i != j) expect_send(r.data.tasks[k++], i, j, chunk[j]);
      }
      EXPECT_EQ(r.ct.initial[i].size(), p - 1u);
      EXPECT_EQ(r.ct.terminal[i].size(), 2u * (p - 1));  // its sends and receives
    }
    EXPECT_EQ(total_bytes(r.data), (p - 1) * 42u);
    EXPECT_TRUE(r.ct.terminal_follows_initial);
  }
}

TEST(HalvingDoubling, PowerOfTwoP8) {
  constexpr std::uint32_t p = 8;
  constexpr std::uint64_t kB = 8192;
  const Emitted r = run(
      make_spec(CollectiveKind::kAllReduce, Algorithm::kHalvingDoubling, consecutive(p), kB), p);
  // 2 log2(8) = 6 steps of 8 sends: halving with partners xor 4, 2, 1 and
  // sizes B/2, B/4, B/8, then doubling with the reverse.
  const std::uint32_t partner[] = {4, 2, 1, 1, 2, 4};
  const std::uint64_t size[] = {kB / 2, kB / 4, kB / 8, kB / 8, kB / 4, kB / 2};
  ASSERT_EQ(r.data.tasks.size(), 48u);
  for (std::uint32_t s = 0; s < 6; ++s) {
    for (std::uint32_t v = 0; v < p; ++v)
      expect_send(r.data.tasks[s * p + v], v, v ^ partner[s], size[s]);
  }
  EXPECT_EQ(total_bytes(r.data), 2 * (p - 1) * kB);  // same volume as ring
  // Rank v's step-s send waits for all its receives of steps 0..s-1 (the
  // send of v ^ partner[s'] at step s'): 0+1+...+5 = 15 deps per rank.
  std::set<Edge> expected;
  for (std::uint32_t s = 0; s < 6; ++s) {
    for (std::uint32_t v = 0; v < p; ++v) {
      for (std::uint32_t e = 0; e < s; ++e) expected.emplace(e * p + (v ^ partner[e]), s * p + v);
    }
  }
  EXPECT_EQ(expected.size(), 15u * p);
  EXPECT_EQ(edges(r.data), expected);
  for (std::uint32_t v = 0; v < p; ++v) EXPECT_EQ(r.ct.initial[v], tasks({v}));
  EXPECT_TRUE(r.ct.terminal_follows_initial);
}

TEST(HalvingDoubling, NonPowerOfTwoP6) {
  constexpr std::uint64_t kB = 600;
  const Emitted r = run(
      make_spec(CollectiveKind::kAllReduce, Algorithm::kHalvingDoubling, consecutive(6), kB), 6);
  // q = 4, r = 2: ranks 4 and 5 send their 600 bytes to 0 and 1; ranks 0..3
  // halve (300, 150) and double (150, 300) over the buffer cut in 4; then 0
  // and 1 send the 600-byte result back: 2 + 4*4 + 2 = 20 sends.
  ASSERT_EQ(r.data.tasks.size(), 20u);
  const auto& t = r.data.tasks;
  expect_send(t[0], 4, 0, kB);
  expect_send(t[1], 5, 1, kB);
  const std::uint32_t partner[] = {2, 1, 1, 2};
  const std::uint64_t size[] = {300, 150, 150, 300};
  for (std::uint32_t s = 0; s < 4; ++s) {
    for (std::uint32_t v = 0; v < 4; ++v) expect_send(t[2 + s * 4 + v], v, v ^ partner[s], size[s]);
  }
  expect_send(t[18], 0, 4, kB);
  expect_send(t[19], 1, 5, kB);
  // Pre- and post-steps move 2 r B; the halving and doubling 2(q-1)B: 2(p-1)B.
  EXPECT_EQ(total_bytes(r.data), 2 * 5 * kB);
  // Rank 0's first halving send waits for rank 4's buffer; its send back
  // waits for all five of its receives (from 4, 2, 1, 1, 2).
  const std::set<Edge> e = edges(r.data);
  EXPECT_TRUE(e.contains({0, 2}));
  for (std::uint32_t from : {0u, 4u, 7u, 11u, 16u}) EXPECT_TRUE(e.contains({from, 18})) << from;
  // Ranks 0 and 1 send nothing before the extra ranks' data arrived; their
  // first sends (tasks 2 and 3) count as initial all the same, so their
  // participation follows their own compute, and the flag holds.
  EXPECT_EQ(r.ct.initial,
            (Frontier{tasks({2}), tasks({3}), tasks({4}), tasks({5}), tasks({0}), tasks({1})}));
  EXPECT_EQ(r.ct.terminal[4], tasks({18}));
  EXPECT_EQ(r.ct.terminal[5], tasks({19}));
  EXPECT_TRUE(r.ct.terminal_follows_initial);
}

void check_every_algorithm(CollectiveKind k) {
  for (Algorithm a : kAlgorithms) {
    for (std::uint32_t p = 2; p <= 8; ++p) {
      // Divisible, uneven, and fewer bytes than ranks (some chunks empty).
      for (std::uint64_t b : {64ull * p, 64ull * p + 3, 3ull, 1ull}) {
        check_data_flow(k, a, consecutive(p), p, b);
      }
    }
  }
}

TEST(CollectiveDataFlow, AllReduceEveryAlgorithm) {
  check_every_algorithm(CollectiveKind::kAllReduce);
}

TEST(CollectiveDataFlow, ReduceScatterAndAllGatherEveryAlgorithm) {
  check_every_algorithm(CollectiveKind::kReduceScatter);
  check_every_algorithm(CollectiveKind::kAllGather);
}

TEST(CollectiveDataFlow, NonConsecutiveGroup) {
  const std::vector<Rank> group = ranks({9, 2, 7, 4, 0});
  for (CollectiveKind k :
       {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather}) {
    for (Algorithm a : kAlgorithms) check_data_flow(k, a, group, 10, 1003);
  }
  // Ring: position i sends to position i+1, whatever the rank numbers.
  const Emitted r = run(make_spec(CollectiveKind::kAllReduce, Algorithm::kRing, group, 500), 10);
  for (std::uint32_t i = 0; i < 5; ++i) {
    expect_send(r.data.tasks[i], group[i].value(), group[(i + 1) % 5].value(), 100);
    EXPECT_EQ(r.ct.initial[i], tasks({i}));  // indexed by position, not rank
  }
}

TEST(CollectiveSweep, BytesConservedAndFrontierFlag) {
  for (std::uint32_t p = 2; p <= 8; ++p) {
    const std::uint32_t q = std::bit_floor(p);
    for (std::uint64_t b : {100ull * p + 1, 100ull * p + p - 1, 7ull, 1ull}) {
      // Halving-doubling reduce-scatter also returns each extra rank's chunk.
      const std::vector<std::uint64_t> chunk = pieces(b, p);
      const std::uint64_t returned = std::accumulate(chunk.begin() + q, chunk.end(), 0ull);
      for (Algorithm a : kAlgorithms) {
        for (CollectiveKind k : kKinds) {
          SCOPED_TRACE(describe(k, a, p, b));
          const Emitted r = run(make_spec(k, a, consecutive(p), b), p);
          // Every chunk crosses p-1 links per phase: (p-1)B, 2(p-1)B for all-reduce.
          std::uint64_t expected = (p - 1) * b;
          if (k == CollectiveKind::kAllReduce) expected *= 2;
          if (k == CollectiveKind::kReduceScatter && a == Algorithm::kHalvingDoubling) {
            expected += returned;
          }
          EXPECT_EQ(total_bytes(r.data), expected);
          if (b < p) continue;  // with empty chunks some ranks may have no initial send
          // With every chunk nonempty every rank sends, and the flag holds (the
          // partners of halving-doubling's extra ranks, whose sends all wait
          // for them, have their first send as initial).
          EXPECT_TRUE(r.ct.terminal_follows_initial);
        }
      }
    }
  }
}

TEST(CollectiveFrontier, AppendsAfterExistingTasksDeterministically) {
  auto build = [] {
    WorkloadBuilder b("test", 8);
    emit_collective(b,
                    make_spec(CollectiveKind::kAllReduce, Algorithm::kRing, ranks({0, 1, 2}), 300));
    const CollectiveTasks ct = emit_collective(
        b, make_spec(CollectiveKind::kAllReduce, Algorithm::kDirect, ranks({5, 3, 6}), 300));
    return std::make_pair(ct, std::move(b).build().data());
  };
  const auto [second, data] = build();
  // Ring on 3: 12 sends, 3(2*2-1) = 9 deps; direct on 3: 12 sends, 3 * 2^2 = 12 deps.
  ASSERT_EQ(data.tasks.size(), 24u);
  EXPECT_EQ(data.deps.size(), 21u);
  for (const core::Dep& e : data.deps) EXPECT_EQ(e.from.value() < 12, e.to.value() < 12);
  EXPECT_EQ(second.initial, (Frontier{tasks({12, 13}), tasks({14, 15}), tasks({16, 17})}));
  expect_send(data.tasks[12], 5, 3, 100);  // position 0 of the second group to position 1
  // Same spec, same tasks in the same order.
  const auto [second2, data2] = build();
  ASSERT_EQ(data2.tasks.size(), data.tasks.size());
  for (std::size_t i = 0; i < data.tasks.size(); ++i) {
    EXPECT_EQ(std::tie(data2.tasks[i].src, data2.tasks[i].dst, data2.tasks[i].bytes),
              std::tie(data.tasks[i].src, data.tasks[i].dst, data.tasks[i].bytes));
  }
  EXPECT_EQ(edges(data2), edges(data));
  EXPECT_EQ(second2.terminal, second.terminal);
}

}  // namespace
}  // namespace flux::workload
