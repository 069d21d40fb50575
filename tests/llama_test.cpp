// Generated Llama 3 iterations checked against hand-derived formulas.
//
// Notation: L layers, M micro-batches, t = tp, d = dp, A = micro_batch * seq *
// hidden * 2 bytes (one bf16 activation), P = 2 * layer_params_per_rank (one
// layer's bf16 gradient on one TP rank).
// Ring all-reduce of B bytes on p ranks: p * 2(p-1) sends of B/p bytes.
//   TP sends = M * L * 4 (all-reduces per layer) * d (groups) * t * 2(t-1)
//   DP sends = L (one per layer) * t (groups) * d * 2(d-1)
//   TP bytes = M * L * 4 * d * 2(t-1) * A;  DP bytes = L * t * 2(d-1) * P
// Halving-doubling on p = 2^k: 2k steps, p sends each; same bytes as ring.
// Direct: reduce-scatter p(p-1) sends of B/p, all-gather the same.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/summary.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

struct Counts {
  std::uint64_t tp_sends = 0, dp_sends = 0, tp_bytes = 0, dp_bytes = 0;
};

Counts count(const core::Workload& w, std::uint32_t tp) {
  Counts c;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    const core::Task& t = w.tasks()[i];
    const bool dp = w.label(core::TaskIndex(i)).find("dp-ar") != std::string_view::npos;
    if (dp) {
      ++c.dp_sends;
      c.dp_bytes += t.bytes;
      // DP groups: ranks with the same TP index.
      EXPECT_EQ(t.src.value() % tp, t.dst.value() % tp);
    } else {
      ++c.tp_sends;
      c.tp_bytes += t.bytes;
      // TP groups: tp consecutive ranks.
      EXPECT_EQ(t.src.value() / tp, t.dst.value() / tp);
    }
  }
  return c;
}

TrainingConfig paper_config(std::uint32_t layers) {
  TrainingConfig c;
  c.model = ModelConfig::llama3("8b");
  c.model.layers = layers;
  c.tp = 4;
  c.dp = 2;
  return c;
}

TEST(Llama, PaperSetupCountsRing) {
  const TrainingConfig c = paper_config(8);
  const core::Workload w = generate_llama(c);
  const std::uint64_t A = 8192ull * 4096 * 2;                     // 64 MiB
  const std::uint64_t P = 2 * layer_params_per_rank(c.model, 4);  // 109,068,288
  ASSERT_EQ(P, 109'068'288u);
  const Counts n = count(w, 4);
  EXPECT_EQ(n.tp_sends, 1ull * 8 * 4 * 2 * (4 * 6));  // 1536
  EXPECT_EQ(n.dp_sends, 8ull * 4 * (2 * 2));          // 128
  EXPECT_EQ(n.tp_bytes, 1ull * 8 * 4 * 2 * 6 * A);
  EXPECT_EQ(n.dp_bytes, 8ull * 4 * 2 * P);
  EXPECT_EQ(w.num_tasks(), 1664u);
  EXPECT_EQ(w.accelerators(), 8u);
  // Every TP send carries A / 4 = 16 MiB, every DP send P / 2.
  for (const core::Task& t : w.tasks()) EXPECT_TRUE(t.bytes == A / 4 || t.bytes == P / 2);
}

TEST(Llama, MicroBatchesRepeatTpTrafficOnly) {
  TrainingConfig c = paper_config(2);
  c.micro_batches = 3;
  const Counts n = count(generate_llama(c), 4);
  EXPECT_EQ(n.tp_sends, 3ull * 2 * 4 * 2 * 24);
  EXPECT_EQ(n.dp_sends, 2ull * 4 * 4);
}

TEST(Llama, AlgorithmsCounts) {
  TrainingConfig c = paper_config(2);
  c.dp = 4;
  c.collective = Algorithm::kHalvingDoubling;
  Counts n = count(generate_llama(c), 4);
  // HD on 4 ranks: 2*2 steps of 4 sends = 16 per all-reduce.
  EXPECT_EQ(n.tp_sends, 1ull * 2 * 4 * 4 * 16);
  EXPECT_EQ(n.dp_sends, 2ull * 4 * 16);
  const std::uint64_t A = 8192ull * 4096 * 2;
  EXPECT_EQ(n.tp_bytes, 1ull * 2 * 4 * 4 * 2 * 3 * A);  // same bytes as ring
  c.collective = Algorithm::kDirect;
  n = count(generate_llama(c), 4);
  EXPECT_EQ(n.tp_sends, 1ull * 2 * 4 * 4 * (2 * 4 * 3));
  EXPECT_EQ(n.tp_bytes, 1ull * 2 * 4 * 4 * 2 * 3 * A);
}

TEST(Llama, EmbeddingsAddTheirCollectives) {
  TrainingConfig c = paper_config(1);
  c.embeddings = true;
  const core::Workload w = generate_llama(c);
  // Per micro-batch 4 + 5 TP all-reduces (embedding, three loss, LM head
  // backward) on 2 groups; DP: layer, head, embedding on 4 groups.
  const Counts n = count(w, 4);
  EXPECT_EQ(n.tp_sends, 9ull * 2 * 24);
  EXPECT_EQ(n.dp_sends, 3ull * 4 * 4);
  // The loss all-reduces carry one fp32 per token: 8192 * 4 / 4 per send.
  std::uint64_t loss_sends = 0;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    if (w.label(core::TaskIndex(i)).find("loss.") != std::string_view::npos) {
      ++loss_sends;
      EXPECT_EQ(w.tasks()[i].bytes, 8192u);
    }
  }
  EXPECT_EQ(loss_sends, 3ull * 2 * 24);
}

TEST(Llama, RingStepDependencies) {
  const core::Workload w = generate_llama(paper_config(1));
  // Inside one TP all-reduce a rank's step-j send depends on its step-(j-1)
  // receive with no compute; across collectives, edges carry compute.
  std::uint64_t zero = 0, positive = 0;
  for (const core::Dep& e : w.deps()) {
    const core::Task& from = w.task(e.from);
    const core::Task& to = w.task(e.to);
    if (w.label(e.from) == w.label(e.to)) {
      EXPECT_EQ(e.compute_ps, 0);
      EXPECT_EQ(from.dst, to.src);  // receive, then forward
      ++zero;
    } else {
      ++positive;
    }
  }
  EXPECT_GT(zero, 0u);
  EXPECT_GT(positive, 0u);
}

TEST(Llama, ComputeChainMatchesTheRoofline) {
  TrainingConfig c = paper_config(4);
  const core::Workload w = generate_llama(c);
  const LayerCompute lc = layer_compute(c);
  // With an almost infinitely fast network, the critical path is one rank's
  // compute: 4 layers of forward and backward, plus the optimizer step.
  core::System fast;
  fast.link_gbps = 1e9;
  const core::WorkloadSummary s = core::summarize(w, fast);
  const core::TimePs per_layer =
      lc.attn_fwd + lc.mlp_fwd + lc.mlp_bwd + lc.attn_bwd + 2 * lc.norm_bwd;
  const double params = static_cast<double>(layer_params_per_rank(c.model, 4)) * 4;
  const core::TimePs optimizer = roofline_ps(c.gpu, OpClass::kMemory, memory_cost(28 * params));
  EXPECT_EQ(s.compute_on_path_ps, 4 * per_layer + optimizer);
  EXPECT_GE(s.critical_path_ps, s.compute_on_path_ps);
  EXPECT_LT(s.critical_path_ps - s.compute_on_path_ps, 1 * core::kPsPerUs);
  // The first sends wait for the first layer's attention block.
  EXPECT_EQ(w.tasks()[0].release_ps, lc.attn_fwd);
}

TEST(Llama, DpTrafficOverlapsBackward) {
  const core::Workload w = generate_llama(paper_config(4));
  core::Reachability r(w);
  // Layer 3's gradient all-reduce starts before layer 0's backward
  // all-reduces end: some DP send of layer 3 is incomparable with them.
  std::vector<core::TaskIndex> dp3, bwd0;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    const auto l = w.label(core::TaskIndex(i));
    if (l == "L3.dp-ar") dp3.emplace_back(i);
    if (l == "mb0.L0.bwd.attn.tp-ar") bwd0.emplace_back(i);
  }
  ASSERT_FALSE(dp3.empty());
  ASSERT_FALSE(bwd0.empty());
  EXPECT_EQ(r.order(dp3.front(), bwd0.back()), core::Reachability::Order::kIncomparable);
}

TEST(Llama, Deterministic) {
  const core::Workload a = generate_llama(paper_config(2));
  const core::Workload b = generate_llama(paper_config(2));
  ASSERT_EQ(a.num_tasks(), b.num_tasks());
  ASSERT_EQ(a.num_deps(), b.num_deps());
  for (std::size_t i = 0; i < a.num_deps(); ++i) {
    EXPECT_EQ(a.deps()[i].from, b.deps()[i].from);
    EXPECT_EQ(a.deps()[i].to, b.deps()[i].to);
    EXPECT_EQ(a.deps()[i].compute_ps, b.deps()[i].compute_ps);
  }
}

TEST(Llama, InvalidConfigsNameTheField) {
  auto field_of = [](TrainingConfig c) -> std::string {
    try {
      generate_llama(c);
    } catch (const core::InputError& e) {
      return e.field() + "=" + e.value();
    }
    return "no error";
  };
  TrainingConfig c = paper_config(1);
  c.tp = 3;  // 32 heads
  EXPECT_EQ(field_of(c), "tp=3");
  c = paper_config(1);
  c.tp = 1;
  c.dp = 1;
  EXPECT_EQ(field_of(c), "tp=1");
  c = paper_config(0);
  EXPECT_EQ(field_of(c), "layers=0");
  c = paper_config(1);
  c.seq = 0;
  EXPECT_EQ(field_of(c), "seq=0");
  c = paper_config(1);
  c.model.kv_heads = 5;
  EXPECT_EQ(field_of(c), "kv_heads=5");
  EXPECT_THROW(ModelConfig::llama3("7b"), core::InputError);
}

TEST(Llama, LargerPresetsAndTpBeyondKvHeads) {
  TrainingConfig c;
  c.model = ModelConfig::llama3("405b");
  c.model.layers = 1;
  c.tp = 16;  // more TP ranks than the 8 KV heads: KV replicated
  c.dp = 2;
  const core::Workload w = generate_llama(c);
  EXPECT_EQ(count(w, 16).tp_sends, 4ull * 2 * 16 * 30);
  EXPECT_EQ(ModelConfig::llama3("70b").layers, 80u);
  EXPECT_EQ(ModelConfig::llama3("405b").hidden, 16384u);
}

}  // namespace
}  // namespace flux::workload

namespace flux::workload {
namespace {

// The estimate flux generate refuses by: sends exact (no zero-byte chunks in
// these configs), deps never below what the generator builds, and within 5x.
TEST(Llama, SizeEstimateMatchesTheGenerator) {
  for (Algorithm a : {Algorithm::kRing, Algorithm::kDirect, Algorithm::kHalvingDoubling}) {
    for (const auto& [tp, dp, fold, emb] : {std::tuple{4u, 2u, 0u, false},
                                            {2u, 6u, 0u, true},
                                            {4u, 12u, 4u, false},
                                            {1u, 5u, 0u, false}}) {
      if (fold != 0 && a != Algorithm::kRing) continue;  // folding needs rings
      TrainingConfig c;
      c.model.layers = 2;
      c.tp = tp;
      c.dp = dp;
      c.fold_dp = fold;
      c.collective = a;
      c.embeddings = emb;
      c.micro_batches = 2;
      const core::Workload w = generate_llama(c);
      const WorkloadSize est = estimate_llama_size(c);
      SCOPED_TRACE(std::string(to_string(a)) + " tp " + std::to_string(tp) + " dp " +
                   std::to_string(dp) + " fold " + std::to_string(fold));
      EXPECT_EQ(est.tasks, w.num_tasks());
      EXPECT_GE(est.deps, w.num_deps());
      EXPECT_LE(est.deps, 5 * w.num_deps());
    }
  }
}

TEST(Llama, SizeEstimateOfAJobTooLargeToBuild) {
  TrainingConfig c;
  c.model = ModelConfig::llama3("405b");
  c.tp = 8;
  c.dp = 512;
  const WorkloadSize est = estimate_llama_size(c);
  // 126 layers x 8 DP rings of 512 ranks (2 x 511 x 512 sends each) and 4 TP
  // all-reduces per layer on 512 groups of 8 (2 x 7 x 8 sends): the README's
  // 556M sends.
  EXPECT_EQ(est.tasks, 126ull * 8 * 2 * 511 * 512 + 126ull * 4 * 512 * 2 * 7 * 8);
  EXPECT_GT(core::workload_memory_bytes(est.tasks, est.deps), 64ull << 30);
  c.fold_dp = 4;
  EXPECT_EQ(estimate_llama_size(c).tasks, 126ull * 8 * 2 * 511 * 4 + 126ull * 4 * 4 * 2 * 7 * 8);
}

}  // namespace
}  // namespace flux::workload
