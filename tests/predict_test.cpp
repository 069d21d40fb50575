// Routing that drifts over iterations (zipf-drift:S:D) and predictors of the
// next iteration's routing (workload/predict.hpp; docs/model.md, "Uncertain
// routing"): the walk's definition, its determinism and bits, the EWMA's
// numbers and rounding, and a predicted routing generating a job.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "flux/core/hash.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/predict.hpp"
#include "flux/workload/routing.hpp"
#include "moe_jobs.hpp"
#include "routing_shape.hpp"

namespace flux::workload {
namespace {

using testing::shape;

RoutingSpec spec(const std::string& text, std::uint64_t iteration) {
  RoutingSpec r = RoutingSpec::parse(text);
  r.seed = 5;
  r.iteration = iteration;
  return r;
}

// The most popular expert of a layer: the one source 0 sends most to.
std::uint32_t top_expert(const Router& r, std::uint32_t layer) {
  const std::vector<std::uint64_t> c = r.expert_counts(layer, 0, 0, 0);
  return static_cast<std::uint32_t>(std::max_element(c.begin(), c.end()) - c.begin());
}

TEST(Drift, ParsesChecksAndNamesItself) {
  const RoutingSpec r = RoutingSpec::parse("zipf-drift:1.2:0.05");
  EXPECT_EQ(r.kind, RoutingKind::kZipf);
  EXPECT_EQ(r.zipf_s, 1.2);
  EXPECT_EQ(r.drift, 0.05);
  EXPECT_EQ(r.to_string(), "zipf-drift:1.2:0.05");
  EXPECT_EQ(RoutingSpec::parse("zipf:1.2").to_string(), "zipf:1.2");
  EXPECT_EQ(test::error_of([] { (void)RoutingSpec::parse("zipf-drift:1.2"); }),
            "routing = zipf-drift:1.2: zipf-drift needs two numbers, the skew S and the drift D "
            "(zipf-drift:1.2:0.05)");
  EXPECT_EQ(test::error_of([] { (void)RoutingSpec::parse("zipf-drift:1.2:1.5"); }),
            "routing = zipf-drift:1.2:1.5: zipf-drift's D must be a number in [0, 1] (the "
            "probability that two neighbouring popularity ranks trade places per iteration)");
  EXPECT_NE(test::error_of([] { (void)RoutingSpec::parse("zipf-drift:0:0.1"); }), "no error");
  for (const char* bad : {"zipf-drift:1.2:-0.5", "zipf-drift:1.2:nan", "zipf-drift:1.2:inf"}) {
    EXPECT_NE(test::error_of([&] {
                (void)RoutingSpec::parse(bad);
              }).find("zipf-drift's D must be a number in [0, 1]"),
              std::string::npos)
        << bad;
  }
}

TEST(Drift, IterationZeroIsZipfsAndTheWalkIsAsDefined) {
  const RoutingShape sh = shape(8, 64, 4, 4096);
  // Iteration 0: zipf's own draw.
  EXPECT_EQ(Router(spec("zipf-drift:1.2:0.3", 0), sh).route(1, 1, 0),
            Router(spec("zipf:1.2", 0), sh).route(1, 1, 0));
  // D = 0: the popularity of iteration 0 for ever; zipf draws it afresh.
  int zipf_moves = 0;
  for (std::uint64_t i = 1; i <= 10; ++i) {
    EXPECT_EQ(top_expert(Router(spec("zipf-drift:1.2:0", i), sh), 1),
              top_expert(Router(spec("zipf-drift:1.2:0", 0), sh), 1));
    zipf_moves += top_expert(Router(spec("zipf:1.2", i), sh), 1) !=
                  top_expert(Router(spec("zipf:1.2", i - 1), sh), 1);
  }
  EXPECT_GE(zipf_moves, 8);
  // D = 1: step 1 swaps ranks (1, 2), (3, 4), ...: the top expert stays;
  // step 2 swaps (0, 1), (2, 3), ...: iteration 2's top is iteration 0's
  // third (rank 2 went to 1 at step 1, then to 0).
  const Router r0(spec("zipf-drift:1.2:1", 0), sh);
  EXPECT_EQ(top_expert(Router(spec("zipf-drift:1.2:1", 1), sh), 1), top_expert(r0, 1));
  std::vector<std::uint64_t> c = r0.expert_counts(1, 0, 0, 0);
  std::vector<std::uint32_t> by_rank(c.size());
  for (std::uint32_t e = 0; e < c.size(); ++e) by_rank[e] = e;
  std::stable_sort(by_rank.begin(), by_rank.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return c[a] > c[b]; });
  EXPECT_EQ(top_expert(Router(spec("zipf-drift:1.2:1", 2), sh), 1), by_rank[2]);
}

TEST(Drift, SmallDriftsMoveThePopularitySlowly) {
  const RoutingShape sh = shape(8, 64, 4, 4096);
  int moves_small = 0, moves_large = 0;
  for (std::uint64_t i = 1; i <= 30; ++i) {
    moves_small += top_expert(Router(spec("zipf-drift:1.2:0.05", i), sh), 0) !=
                   top_expert(Router(spec("zipf-drift:1.2:0.05", i - 1), sh), 0);
    moves_large += top_expert(Router(spec("zipf-drift:1.2:0.5", i), sh), 0) !=
                   top_expert(Router(spec("zipf-drift:1.2:0.5", i - 1), sh), 0);
  }
  EXPECT_EQ(moves_small, 2);
  EXPECT_EQ(moves_large, 10);
}

TEST(Drift, BitsArePinned) {
  const RoutingShape sh = shape(8, 64, 8, 16384);
  const TokenMatrix m = Router(spec("zipf-drift:1.2:0.1", 7), sh).route(1, 0, 1);
  std::uint64_t h = 0;
  for (std::uint64_t x : m.tokens) h = core::splitmix64(h ^ x);
  EXPECT_EQ(h, 17664802098207501606u) << "row 0: " << m.at(0, 0) << " " << m.at(0, 1);
}

TEST(Predictor, LastRepeatsAndEwmaAveragesWithRowsKept) {
  const RoutingShape sh = shape(4, 8, 2, 100);
  Predictor last(PredictorSpec::parse("last"));
  Predictor ewma(PredictorSpec::parse("ewma:0.25"));
  EXPECT_EQ(PredictorSpec::parse("ewma:0.25").to_string(), "ewma:0.25");
  EXPECT_EQ(PredictorSpec::parse("ewma:1").to_string(), "last");
  EXPECT_EQ(test::error_of([] { (void)PredictorSpec::parse("ewma:0"); }),
            "predictor = ewma:0: ewma needs the newest iteration's weight A in (0, 1] "
            "(ewma:0.5)");
  EXPECT_EQ(test::error_of([] { (void)PredictorSpec::parse("mean"); }),
            "predictor = mean: must be last or ewma:A");
  std::vector<RoutingMatrices> seen;
  for (std::uint64_t i = 0; i < 3; ++i) {
    seen.push_back(routing_matrices(Router(spec("zipf:2", i), sh)));
    last.observe(seen.back());
    ewma.observe(seen.back());
  }
  const RoutingSpec l = last.predicted();
  EXPECT_EQ(l.to_string(), "predicted:last");
  EXPECT_EQ(l.matrices->matrices, seen[2].matrices);
  const RoutingSpec e = ewma.predicted();
  EXPECT_EQ(e.to_string(), "predicted:ewma:0.25");
  // Entry (0, 0) of the first matrix: x = 0.25 y2 + 0.75 (0.25 y1 + 0.75 y0).
  const auto y = [&](int i, std::size_t k) {
    return static_cast<double>(seen[i].matrices[0].tokens[k]);
  };
  for (std::size_t k = 0; k < 16; ++k) {
    const double x = 0.25 * y(2, k) + 0.75 * (0.25 * y(1, k) + 0.75 * y(0, k));
    const auto got = static_cast<double>(e.matrices->matrices[0].tokens[k]);
    EXPECT_LE(std::abs(got - x), 1.0) << k;
  }
  for (const TokenMatrix& m : e.matrices->matrices) {
    for (std::uint32_t src = 0; src < 4; ++src) EXPECT_EQ(m.sent(src) + m.dropped[src], 200u);
    for (std::uint32_t src = 0; src < 4; ++src) EXPECT_EQ(m.dropped[src], 0u);
  }
  // A prediction is a routing of the job's shape, as a router gives it.
  const Router r(e, sh);
  EXPECT_EQ(r.route(1, 1, 1), e.matrices->matrices[RoutingMatrices::index(sh, 1, 1, 1)]);
  EXPECT_NE(test::error_of([&] { (void)Router(e, shape(4, 8, 2, 100 * 2)); }), "no error");
}

TEST(Predictor, APredictionGeneratesTheJobOfThatRouting) {
  TrainingConfig c = flux::testing::small_mixtral(2);
  c.moe.routing = RoutingSpec::parse("zipf:1.2");
  const core::Workload actual = generate_llama(c);
  Predictor p(PredictorSpec{});
  p.observe(routing_matrices(Router(c.moe.routing, moe_routing_shape(c))));
  TrainingConfig q = c;
  q.moe.routing = p.predicted();
  const core::Workload predicted = generate_llama(q);
  ASSERT_EQ(predicted.num_tasks(), actual.num_tasks());
  for (std::size_t i = 0; i < actual.num_tasks(); ++i) {
    EXPECT_EQ(predicted.tasks()[i].bytes, actual.tasks()[i].bytes) << i;
  }
  EXPECT_NE(predicted.name().find("predicted:last"), std::string::npos) << predicted.name();
}

}  // namespace
}  // namespace flux::workload
