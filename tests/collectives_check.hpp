#pragma once
// What collectives_test and collectives_bruck_test share: one collective
// emitted alone in a workload, and the data-flow checker.
//
// Data-flow checker. A plan restates an algorithm independently as sends of
// units (chunks; for halving-doubling all-reduce the 2^k blocks; for an
// all-to-all the p*p blocks (s, t) at s * p + t), each reduced into or copied
// over the receiver's copy. The checker verifies the emitted tasks are the
// plan's nonzero sends in order, then propagates per rank and unit the set of
// ranks whose contribution it holds. A send carries only what its sender
// holds through its dependencies (own data plus receives that are its
// ancestors), so a missing dependency shows up as a partial payload. At the
// end every rank must hold, complete, the units the collective promises it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/workload.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::workload::test {

using Edge = std::pair<std::uint32_t, std::uint32_t>;
using Frontier = std::vector<std::vector<core::TaskIndex>>;  // per group position

template <class Id>
std::vector<Id> ids(std::initializer_list<std::uint32_t> v) {
  return std::vector<Id>(v.begin(), v.end());
}
inline std::vector<core::Rank> ranks(std::initializer_list<std::uint32_t> v) {
  return ids<core::Rank>(v);
}
inline std::vector<core::TaskIndex> tasks(std::initializer_list<std::uint32_t> v) {
  return ids<core::TaskIndex>(v);
}

inline std::vector<core::Rank> consecutive(std::uint32_t p) {
  std::vector<core::Rank> g;
  for (std::uint32_t i = 0; i < p; ++i) g.emplace_back(i);
  return g;
}

inline CollectiveSpec make_spec(CollectiveKind kind, Algorithm algorithm,
                                std::vector<core::Rank> group, std::uint64_t bytes,
                                std::uint32_t label = core::kNoLabel) {
  return CollectiveSpec{kind, algorithm, std::move(group), bytes, label};
}

/// One collective alone in a workload, validated by building it.
struct Emitted {
  CollectiveTasks ct;
  core::WorkloadData data;
};

inline Emitted run(const CollectiveSpec& spec, std::uint32_t accelerators) {
  WorkloadBuilder b("test", accelerators);
  b.intern_label("collective");  // label 0, for specs that carry it
  CollectiveTasks ct = emit_collective(b, spec);
  // Building checks every send has bytes > 0, distinct endpoints, no cycle.
  return Emitted{std::move(ct), std::move(b).build().data()};
}

inline std::set<Edge> edges(const core::WorkloadData& d) {
  std::set<Edge> s;
  for (const core::Dep& e : d.deps) {
    EXPECT_EQ(e.compute_ps, 0);
    s.emplace(e.from.value(), e.to.value());
  }
  return s;
}

inline void expect_send(const core::Task& t, std::uint32_t src, std::uint32_t dst,
                        std::uint64_t bytes) {
  EXPECT_EQ(t.src, core::Rank(src));
  EXPECT_EQ(t.dst, core::Rank(dst));
  EXPECT_EQ(t.bytes, bytes);
}

inline std::string describe(CollectiveKind k, Algorithm a, std::uint32_t p, std::uint64_t bytes) {
  return std::string(to_string(k)) + " " + std::string(to_string(a)) + " p=" + std::to_string(p) +
         " B=" + std::to_string(bytes);
}

inline std::uint64_t total_bytes(const core::WorkloadData& d) {
  std::uint64_t sum = 0;
  for (const core::Task& t : d.tasks) sum += t.bytes;
  return sum;
}

/// Chunk sizes by the header's rule: floor(B/n), plus one for c < B mod n.
inline std::vector<std::uint64_t> pieces(std::uint64_t bytes, std::uint32_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::uint32_t c = 0; c < n; ++c) v[c] = bytes / n + (c < bytes % n ? 1 : 0);
  return v;
}

enum class Op { kReduce, kCopy };

struct Planned {
  std::uint32_t from = 0, to = 0;
  std::vector<std::uint32_t> units;
  Op op = Op::kReduce;
};

struct Plan {
  std::vector<std::uint64_t> unit_bytes;
  std::vector<Planned> sends;  // emission order, zero-byte sends included
};

using Mask = std::uint64_t;  // bit i: rank at position i contributed

/// What a collective of `kind` on p positions starts from and promises, over
/// `units` units: sources[u], the positions holding a share of unit u at the
/// start (complete = all of them); wanted[pos], the units position pos must
/// end with, complete.
struct Goal {
  std::vector<Mask> sources;
  std::vector<std::vector<std::uint32_t>> wanted;
};

inline Goal goal_of(CollectiveKind kind, std::uint32_t p, std::uint32_t units) {
  Goal g{std::vector<Mask>(units, (Mask{1} << p) - 1), std::vector<std::vector<std::uint32_t>>(p)};
  for (std::uint32_t u = 0; u < units; ++u) {
    if (kind == CollectiveKind::kAllGather) g.sources[u] = Mask{1} << u;
    if (kind == CollectiveKind::kAllToAll) g.sources[u] = Mask{1} << (u / p);  // block (s, t)
  }
  for (std::uint32_t pos = 0; pos < p; ++pos) {
    for (std::uint32_t u = 0; u < units; ++u) {
      const bool mine = kind == CollectiveKind::kReduceScatter ? u == pos
                        : kind == CollectiveKind::kAllToAll    ? u % p == pos
                                                               : true;
      if (mine) g.wanted[pos].push_back(u);
    }
  }
  return g;
}

/// Emits `spec` and checks it against `plan` as described at the top.
inline void check_plan(const CollectiveSpec& spec, std::uint32_t accelerators, const Plan& plan) {
  const std::vector<core::Rank>& group = spec.group;
  const auto p = static_cast<std::uint32_t>(group.size());
  const Emitted r = run(spec, accelerators);
  const auto num_units = static_cast<std::uint32_t>(plan.unit_bytes.size());
  const Goal goal = goal_of(spec.kind, p, num_units);

  // 1. The emitted tasks are the plan's sends of nonzero size, in order.
  // Units of 0 bytes are dropped: nothing about them needs to arrive.
  std::vector<Planned> sent;
  for (Planned s : plan.sends) {
    std::erase_if(s.units, [&](std::uint32_t u) { return plan.unit_bytes[u] == 0; });
    if (s.units.empty()) continue;
    std::uint64_t b = 0;
    for (std::uint32_t u : s.units) b += plan.unit_bytes[u];
    ASSERT_LT(sent.size(), r.data.tasks.size());
    SCOPED_TRACE("task " + std::to_string(sent.size()));
    expect_send(r.data.tasks[sent.size()], group[s.from].value(), group[s.to].value(), b);
    sent.push_back(std::move(s));
  }
  ASSERT_EQ(sent.size(), r.data.tasks.size());
  const std::size_t n = sent.size();
  constexpr std::size_t kMaxTasks = 512;
  ASSERT_LE(n, kMaxTasks);

  // 2. Ancestors along the emitted dependencies (emission order is topological).
  // By increasing `to`, every edge into a `from` < `to` has been seen.
  std::vector<core::Dep> deps = r.data.deps;
  std::sort(deps.begin(), deps.end(), [](const auto& x, const auto& y) { return x.to < y.to; });
  std::vector<std::bitset<kMaxTasks>> anc(n);
  for (const core::Dep& e : deps) {
    ASSERT_LT(e.from, e.to);
    (anc[e.to.value()] |= anc[e.from.value()]).set(e.from.value());
  }

  // 3. Propagate contributions.
  auto initial = [&](std::uint32_t pos) {
    std::vector<Mask> s(num_units, 0);
    for (std::uint32_t u = 0; u < num_units; ++u) s[u] = goal.sources[u] & (Mask{1} << pos);
    return s;
  };
  std::vector<std::vector<Mask>> payload(n, std::vector<Mask>(num_units, 0));
  auto apply = [&](std::vector<Mask>& state, std::size_t t) {
    for (std::uint32_t u : sent[t].units) {
      if (sent[t].op == Op::kReduce) {
        EXPECT_NE(payload[t][u], 0u) << "task " << t << " unit " << u;
        EXPECT_EQ(state[u] & payload[t][u], 0u) << "counted twice: task " << t << " unit " << u;
        state[u] |= payload[t][u];
      } else {
        EXPECT_EQ(payload[t][u], goal.sources[u]) << "incomplete copy: task " << t << " unit " << u;
        state[u] = payload[t][u];
      }
    }
  };
  for (std::size_t t = 0; t < n; ++t) {
    std::vector<Mask> state = initial(sent[t].from);
    for (std::size_t k = 0; k < t; ++k) {
      if (sent[k].to == sent[t].from && anc[t][k]) apply(state, k);
    }
    for (std::uint32_t u : sent[t].units) payload[t][u] = state[u];
  }
  for (std::uint32_t pos = 0; pos < p; ++pos) {
    std::vector<Mask> state = initial(pos);
    for (std::size_t k = 0; k < n; ++k) {
      if (sent[k].to == pos) apply(state, k);
    }
    for (std::uint32_t u : goal.wanted[pos]) {
      if (plan.unit_bytes[u] == 0) continue;
      EXPECT_EQ(state[u], goal.sources[u]) << "rank position " << pos << " unit " << u;
    }
  }
}

}  // namespace flux::workload::test
