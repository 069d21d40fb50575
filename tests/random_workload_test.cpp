// flux generate random (workload/random.hpp): determinism, and each knob
// doing what docs/model.md ("Random DAGs") says, measured on the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/workload/random.hpp"

namespace flux::workload {
namespace {

using core::TaskIndex;
using core::TimePs;

std::string json(const core::Workload& w) {
  std::ostringstream out;
  formats::write_workload(out, w);
  return out.str();
}

RandomOptions options(std::uint32_t ranks, std::uint32_t sends, std::uint64_t seed) {
  RandomOptions o;
  o.ranks = ranks;
  o.sends = sends;
  o.seed = seed;
  return o;
}

// Level of send v: the k with floor(kN/D) <= v < floor((k+1)N/D).
std::uint32_t level_of(std::uint32_t v, const RandomOptions& o) {
  std::uint32_t k = 0;
  while ((static_cast<std::uint64_t>(k) + 1) * o.sends / o.depth <= v) ++k;
  return k;
}

// Share of sends whose (src, dst) is that of one of the previous `ranks` sends.
double repeated_share(const core::Workload& w) {
  const auto tasks = w.tasks();
  std::size_t repeated = 0;
  for (std::size_t v = 1; v < tasks.size(); ++v) {
    const std::size_t from = v > w.accelerators() ? v - w.accelerators() : 0;
    for (std::size_t j = from; j < v; ++j) {
      if (tasks[j].src == tasks[v].src && tasks[j].dst == tasks[v].dst) {
        ++repeated;
        break;
      }
    }
  }
  return static_cast<double>(repeated) / static_cast<double>(tasks.size() - 1);
}

TEST(RandomWorkload, SameOptionsSameWorkload) {
  RandomOptions o = options(8, 500, 7);
  o.release_ps = 3 * core::kPsPerUs;
  o.tail_ps = 5 * core::kPsPerUs;
  const core::Workload a = generate_random(o);
  const core::Workload b = generate_random(o);
  EXPECT_EQ(json(a), json(b));
  EXPECT_EQ(a.num_tasks(), 500u);
  EXPECT_EQ(a.name(), "random-r8-n500-rl3us-tl5us-s7");
}

TEST(RandomWorkload, PinnedOutputOnEveryPlatform) {
  // The generator uses no std::*_distribution and no libm beyond sqrt:
  // these values must come out the same wherever Flux is built.
  const core::Workload w = generate_random(options(8, 40, 7));
  EXPECT_EQ(w.name(), "random-r8-n40-s7");
  ASSERT_EQ(w.num_tasks(), 40u);
  const auto tasks = w.tasks();
  EXPECT_EQ(tasks[0].src.value(), 7u);
  EXPECT_EQ(tasks[0].dst.value(), 6u);
  EXPECT_EQ(tasks[0].bytes, 1574381u);
  EXPECT_EQ(tasks[5].src.value(), 5u);
  EXPECT_EQ(tasks[5].dst.value(), 4u);
  EXPECT_EQ(tasks[5].bytes, 2260777u);
  EXPECT_EQ(w.total_bytes(), 53473692u);
  EXPECT_EQ(w.num_deps(), 49u);
  TimePs compute = 0;
  for (const core::Dep& e : w.deps()) compute += e.compute_ps;
  EXPECT_EQ(compute, 617864978);
}

TEST(RandomWorkload, SeedsDiffer) {
  const std::string a = json(generate_random(options(8, 200, 1)));
  const std::string b = json(generate_random(options(8, 200, 2)));
  EXPECT_NE(a, b);
}

TEST(RandomWorkload, DepthOneHasNoEdges) {
  RandomOptions o = options(16, 300, 3);
  o.depth = 1;
  o.fan_in = 8;
  o.release_ps = core::kPsPerUs;
  o.tail_ps = core::kPsPerUs;
  const core::Workload w = generate_random(o);
  EXPECT_EQ(w.num_deps(), 0u);
  // Every send is a root and a leaf: all carry a release and a tail.
  for (const core::Task& t : w.tasks()) {
    EXPECT_GT(t.release_ps, 0);
    EXPECT_GT(t.tail_ps, 0);
  }
}

TEST(RandomWorkload, ParentsRespectFanInAndLevels) {
  for (const double skip : {0.0, 0.25, 1.0}) {
    RandomOptions o = options(8, 1000, 11);
    o.depth = 10;
    o.fan_in = 3;
    o.skip = skip;
    const core::Workload w = generate_random(o);
    std::vector<std::uint32_t> counts(w.num_tasks(), 0);
    std::size_t from_older = 0;
    for (const core::Dep& e : w.deps()) {
      const std::uint32_t kf = level_of(e.from.value(), o), kt = level_of(e.to.value(), o);
      ASSERT_LT(kf, kt);
      if (kf + 1 < kt) ++from_older;
      // Level 1 has no older level: its parents are in level 0.
      if (skip == 1.0 && kt >= 2) {
        EXPECT_LT(kf + 1, kt);
      }
      ++counts[e.to.value()];
    }
    if (skip == 0.0) {
      EXPECT_EQ(from_older, 0u);
    } else {
      EXPECT_GT(from_older, 0u);
    }
    std::set<std::uint32_t> seen;
    for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
      if (level_of(v, o) == 0) {
        EXPECT_EQ(counts[v], 0u);
      } else {
        EXPECT_GE(counts[v], 1u);
        EXPECT_LE(counts[v], o.fan_in);
        seen.insert(counts[v]);
      }
    }
    EXPECT_EQ(seen.size(), 3u) << "counts 1, 2 and 3 all occur";
  }
}

TEST(RandomWorkload, DepthIsTheLongestChainWithoutSkips) {
  RandomOptions o = options(8, 240, 5);
  o.depth = 12;
  o.skip = 0;
  const core::Workload w = generate_random(o);
  std::vector<std::uint32_t> chain(w.num_tasks(), 1);  // sends on the longest chain ending here
  for (const TaskIndex v : w.topo_order()) {
    for (const core::Dep& e : w.out_edges(v)) {
      chain[e.to.value()] = std::max(chain[e.to.value()], chain[v.value()] + 1);
    }
  }
  EXPECT_EQ(*std::max_element(chain.begin(), chain.end()), o.depth);
}

TEST(RandomWorkload, SizesWithinTheSpread) {
  RandomOptions o = options(8, 2000, 9);
  o.transfer_ps = 20 * core::kPsPerUs;  // 2,000,000 bytes at 800 Gb/s
  o.size_spread = 10;
  const core::Workload w = generate_random(o);
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
  double log_sum = 0;
  for (const core::Task& t : w.tasks()) {
    lo = std::min(lo, t.bytes);
    hi = std::max(hi, t.bytes);
    log_sum += std::log(static_cast<double>(t.bytes) / 2e6);
  }
  EXPECT_GE(lo, 200000u);
  EXPECT_LE(hi, 20000000u);
  // Log-uniform: the extremes are reached closely, the geometric mean is the median.
  EXPECT_LT(lo, 210000u);
  EXPECT_GT(hi, 19000000u);
  EXPECT_NEAR(log_sum / 2000, 0.0, 0.1);

  o.size_spread = 1;
  const core::Workload fixed = generate_random(o);
  for (const core::Task& t : fixed.tasks()) EXPECT_EQ(t.bytes, 2000000u);
  o.transfer_ps = 10;  // one byte: the spread goes up to 100, never below 1
  o.size_spread = 100;
  const core::Workload tiny = generate_random(o);
  std::uint64_t ones = 0;
  for (const core::Task& t : tiny.tasks()) {
    EXPECT_GE(t.bytes, 1u);
    EXPECT_LE(t.bytes, 100u);
    ones += t.bytes == 1 ? 1 : 0;
  }
  EXPECT_GT(ones, 400u);  // half the draws are below one byte
}

TEST(RandomWorkload, ComputeReleaseTailWithinTheSpread) {
  RandomOptions o = options(8, 1000, 13);
  o.compute_ps = 8 * core::kPsPerUs;
  o.compute_spread = 2;
  o.release_ps = 100 * core::kPsPerUs;
  o.tail_ps = core::kPsPerMs;
  const core::Workload w = generate_random(o);
  for (const core::Dep& e : w.deps()) {
    EXPECT_GE(e.compute_ps, 4 * core::kPsPerUs);
    EXPECT_LE(e.compute_ps, 16 * core::kPsPerUs);
  }
  std::vector<bool> has_child(w.num_tasks()), has_parent(w.num_tasks());
  for (const core::Dep& e : w.deps()) {
    has_child[e.from.value()] = true;
    has_parent[e.to.value()] = true;
  }
  std::size_t roots = 0, leaves = 0;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(TaskIndex(v));
    if (has_parent[v]) {
      EXPECT_EQ(t.release_ps, 0);
    } else {
      ++roots;
      EXPECT_GE(t.release_ps, 50 * core::kPsPerUs);
      EXPECT_LE(t.release_ps, 200 * core::kPsPerUs);
    }
    if (has_child[v]) {
      EXPECT_EQ(t.tail_ps, 0);
    } else {
      ++leaves;
      EXPECT_GE(t.tail_ps, core::kPsPerMs / 2);
      EXPECT_LE(t.tail_ps, 2 * core::kPsPerMs);
    }
  }
  EXPECT_EQ(roots, 125u);   // level 0 of 8
  EXPECT_GE(leaves, 125u);  // the last level at least

  o.compute_ps = 0;
  const core::Workload none = generate_random(o);
  EXPECT_EQ(none.num_deps(), w.num_deps());
  for (const core::Dep& e : none.deps()) EXPECT_EQ(e.compute_ps, 0);
}

TEST(RandomWorkload, LocalityRepeatsPairs) {
  RandomOptions o = options(32, 2000, 17);
  o.locality = 0;
  const double none = repeated_share(generate_random(o));
  o.locality = 0.5;
  const double half = repeated_share(generate_random(o));
  o.locality = 0.9;
  const double most = repeated_share(generate_random(o));
  // 32 ranks: 992 pairs, so a fresh pair repeats one of the last 32 sends'
  // with probability about 3%.
  EXPECT_LT(none, 0.06);
  EXPECT_NEAR(half, 0.5, 0.06);
  EXPECT_NEAR(most, 0.9, 0.04);
  o.locality = 1;
  const core::Workload all = generate_random(o);
  for (const core::Task& t : all.tasks()) {
    EXPECT_EQ(t.src, all.tasks()[0].src);
    EXPECT_EQ(t.dst, all.tasks()[0].dst);
  }
}

TEST(RandomWorkload, KnobsDrawIndependently) {
  // Each draw is addressed by (send, purpose): changing the shape or the
  // pairs leaves the sizes alone, and the sizes leave the pairs alone.
  RandomOptions o = options(8, 300, 21);
  const core::Workload base = generate_random(o);
  o.depth = 3;
  o.fan_in = 5;
  o.locality = 0.1;
  const core::Workload other = generate_random(o);
  for (std::size_t v = 0; v < base.num_tasks(); ++v) {
    EXPECT_EQ(base.tasks()[v].bytes, other.tasks()[v].bytes);
  }
  o = options(8, 300, 21);
  o.size_spread = 7;
  const core::Workload sized = generate_random(o);
  for (std::size_t v = 0; v < base.num_tasks(); ++v) {
    EXPECT_EQ(base.tasks()[v].src, sized.tasks()[v].src);
    EXPECT_EQ(base.tasks()[v].dst, sized.tasks()[v].dst);
  }
  EXPECT_EQ(json(base).substr(json(base).find("\"deps\"")),
            json(sized).substr(json(sized).find("\"deps\"")));
}

TEST(RandomWorkload, NameSaysTheKnobsThatDiffer) {
  EXPECT_EQ(RandomOptions{}.name(), "random-r8-n64-s1");
  RandomOptions o = options(4, 40, 7);
  o.depth = 4;
  o.fan_in = 3;
  o.skip = 0.1;
  o.locality = 0.9;
  o.transfer_ps = 1500 * core::kPsPerNs;
  o.size_spread = 2.5;
  o.compute_ps = 0;
  o.compute_spread = 1;
  o.release_ps = 7;
  o.tail_ps = core::kPsPerS;
  EXPECT_EQ(o.name(), "random-r4-n40-d4-f3-k0.1-l0.9-t1500ns-x2.5-c0-y1-rl7ps-tl1s-s7");
  EXPECT_EQ(generate_random(o).name(), o.name());
}

TEST(RandomWorkload, ValidateNamesTheField) {
  const std::vector<std::pair<std::string, std::function<void(RandomOptions&)>>> bad = {
      {"ranks", [](RandomOptions& o) { o.ranks = 1; }},
      {"sends", [](RandomOptions& o) { o.sends = 0; }},
      {"sends", [](RandomOptions& o) { o.sends = (1u << 26) + 1; }},
      {"depth", [](RandomOptions& o) { o.depth = 0; }},
      {"fan_in", [](RandomOptions& o) { o.fan_in = 0; }},
      {"fan_in", [](RandomOptions& o) { o.fan_in = 65; }},
      {"skip", [](RandomOptions& o) { o.skip = -0.1; }},
      {"skip", [](RandomOptions& o) { o.skip = std::nan(""); }},
      {"locality", [](RandomOptions& o) { o.locality = 1.5; }},
      {"transfer", [](RandomOptions& o) { o.transfer_ps = 9; }},
      {"transfer", [](RandomOptions& o) { o.transfer_ps = 1001 * core::kPsPerS; }},
      {"size_spread", [](RandomOptions& o) { o.size_spread = 0.5; }},
      {"size_spread", [](RandomOptions& o) { o.size_spread = 1e4; }},
      {"compute", [](RandomOptions& o) { o.compute_ps = -1; }},
      {"compute_spread", [](RandomOptions& o) { o.compute_spread = 0.99; }},
      {"release", [](RandomOptions& o) { o.release_ps = -1; }},
      {"tail", [](RandomOptions& o) { o.tail_ps = 2000 * core::kPsPerS; }},
  };
  for (const auto& [field, set] : bad) {
    RandomOptions o;
    set(o);
    try {
      o.validate();
      ADD_FAILURE() << field << ": accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.field(), field);
    }
    EXPECT_THROW((void)generate_random(o), core::InputError) << field;
  }
  EXPECT_EQ(core::flag_of(kRandomOptions, "size_spread"), "--size-spread");
}

TEST(RandomWorkload, TwoRanksAndOneSend) {
  const core::Workload one = generate_random(options(2, 1, 0));  // depth 8 > 1 send
  ASSERT_EQ(one.num_tasks(), 1u);
  EXPECT_NE(one.tasks()[0].src, one.tasks()[0].dst);
  RandomOptions o = options(2, 50, 0);
  o.depth = 1000;  // above the sends: one send per level
  o.fan_in = 4;
  const core::Workload same = generate_random([&] {
    RandomOptions p = o;
    p.depth = 50;
    return p;
  }());
  const core::Workload chain = generate_random(o);
  EXPECT_EQ(json(chain).substr(json(chain).find("\"accelerators\"")),
            json(same).substr(json(same).find("\"accelerators\"")));
  ASSERT_EQ(chain.in_edge_ids(TaskIndex(1)).size(), 1u);
  EXPECT_EQ(chain.deps()[chain.in_edge_ids(TaskIndex(1))[0]].from, TaskIndex(0));
  for (std::uint32_t v = 1; v < 50; ++v) {
    // Parents among the v sends before (repeats dropped), one from level v - 1
    // unless every draw skipped.
    EXPECT_GE(chain.in_edge_ids(TaskIndex(v)).size(), 1u);
    EXPECT_LE(chain.in_edge_ids(TaskIndex(v)).size(), std::min<std::size_t>(v, 4));
  }
}

}  // namespace
}  // namespace flux::workload
