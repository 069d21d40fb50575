// Generated MoE iterations checked against hand-derived counts (moe.hpp).
//
// Notation: L MoE layers, M micro-batches, EP group of e ranks, T tokens per
// rank (micro_batch * seq / cp / tp), K = top_k, h = hidden, H = experts / e
// * 8 header bytes. Under uniform routing with e dividing T * K, every rank
// sends T * K / e assignments to each rank: one all-to-all moves, per rank,
// (e - 1) * (T * K / e * h * 2 + H) bytes out in e - 1 sends, and the EP
// group e (e - 1) sends. Four all-to-alls per MoE layer and micro-batch.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

TrainingConfig mixtral(std::uint32_t layers, std::uint32_t dp, std::uint32_t ep) {
  TrainingConfig c;
  const MoeModel m = moe_model("mixtral-8x7b");
  c.model = m.model;
  c.moe = m.moe;
  c.model.layers = layers;
  c.gpu = GpuSpec::preset("h100");
  c.tp = 1;
  c.dp = dp;
  c.moe.ep = ep;
  c.micro_batches = 1;
  return c;
}

bool is_a2a(const core::Workload& w, std::uint32_t i) {
  const std::string_view l = w.label(core::TaskIndex(i));
  return l.find(".dispatch") != std::string_view::npos ||
         l.find(".combine") != std::string_view::npos;
}

TEST(Moe, PublishedParameterCounts) {
  // Every named model's shapes imply its published total within 2%.
  for (const std::string_view name : moe_model_names()) {
    const MoeModel m = moe_model(name);
    const double total = static_cast<double>(total_params(m.model, m.moe));
    const double published = static_cast<double>(m.published_params);
    EXPECT_NEAR(total / published, 1.0, 0.02) << name << ": " << total;
  }
  // Exact values of the formula, for the record (docs/model.md).
  const MoeModel ds = moe_model("deepseek-v3");
  EXPECT_EQ(total_params(ds.model, ds.moe), 671'026'419'200u);
  const MoeModel mx = moe_model("mixtral-8x7b");
  EXPECT_EQ(total_params(mx.model, mx.moe), 46'702'792'704u);
  EXPECT_THROW(moe_model("mixtral-7x8b"), core::InputError);
}

TEST(Moe, UniformCountsAndBytes) {
  const TrainingConfig c = mixtral(2, 8, 8);
  const core::Workload w = generate_llama(c);
  const std::uint64_t T = 8192, K = 2, h = 4096, e = 8, H = 8;
  const std::uint64_t pair = T * K / e * h * 2 + H;
  std::uint64_t a2a = 0, dp = 0;
  std::vector<std::uint64_t> out(8, 0);
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    const core::Task& t = w.tasks()[i];
    EXPECT_NE(t.src, t.dst);
    EXPECT_GT(t.bytes, 0u);
    if (is_a2a(w, i)) {
      ++a2a;
      EXPECT_EQ(t.bytes, pair);
      if (w.label(core::TaskIndex(i)).find("L0.fwd.dispatch") != std::string_view::npos) {
        out[t.src.value()] += t.bytes;
      }
    } else {
      ++dp;
    }
  }
  // 2 layers x 4 all-to-alls x e (e - 1) sends; one DP ring all-reduce per layer.
  EXPECT_EQ(a2a, 2u * 4 * e * (e - 1));
  EXPECT_EQ(dp, 2u * 2 * 7 * 8);
  for (const std::uint64_t b : out) EXPECT_EQ(b, T * K * h * 2 * (e - 1) / e + (e - 1) * H);
}

TEST(Moe, EpGroupsInsideDpAndEdpReduction) {
  // dp 8, ep 4: two EP groups {0..3}, {4..7}; experts' gradients reduced
  // over the EDP groups {r, r + 4}.
  const TrainingConfig c = mixtral(1, 8, 4);
  const core::Workload w = generate_llama(c);
  std::uint64_t a2a = 0, edp = 0;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    const core::Task& t = w.tasks()[i];
    const std::string_view l = w.label(core::TaskIndex(i));
    if (is_a2a(w, i)) {
      ++a2a;
      EXPECT_EQ(t.src.value() / 4, t.dst.value() / 4);
      // T * K / ep tokens and 2 experts' counts.
      EXPECT_EQ(t.bytes, 8192u * 2 / 4 * 4096 * 2 + 16);
    } else if (l.find("edp-ar") != std::string_view::npos) {
      ++edp;
      EXPECT_EQ(t.src.value() % 4, t.dst.value() % 4);
    }
  }
  EXPECT_EQ(a2a, 4u * 2 * 4 * 3);
  EXPECT_EQ(edp, 4u * 2 * 2 * 1);  // 4 groups of 2: ring all-reduce 2 * 2 * 1 sends
  EXPECT_EQ(edp_size(c), 2u);
}

TEST(Moe, DenseLayersHaveNoAllToAll) {
  TrainingConfig c = mixtral(3, 8, 8);
  c.moe.dense_layers = 2;
  const core::Workload w = generate_llama(c);
  std::uint64_t a2a = 0;
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) {
    if (!is_a2a(w, i)) continue;
    ++a2a;
    EXPECT_NE(w.label(core::TaskIndex(i)).find("L2."), std::string_view::npos);
  }
  EXPECT_EQ(a2a, 4u * 8 * 7);
}

// The DAG's structure (endpoints and deps) without bytes or compute.
std::vector<std::uint64_t> structure(const core::Workload& w) {
  std::vector<std::uint64_t> s;
  for (const core::Task& t : w.tasks())
    s.push_back(std::uint64_t{t.src.value()} << 32 | t.dst.value());
  for (const core::Dep& d : w.deps())
    s.push_back(std::uint64_t{d.from.value()} << 32 | d.to.value());
  return s;
}

TEST(Moe, StructureDoesNotDependOnTheRoutingSeedOrCapacity) {
  TrainingConfig a = mixtral(2, 8, 8);
  a.micro_batches = 2;
  TrainingConfig b = a;
  b.moe.routing.seed = 7;
  b.moe.routing.capacity_factor = 1.0;
  EXPECT_EQ(structure(generate_llama(a)), structure(generate_llama(b)));
}

TEST(Moe, StructureDoesNotDependOnTheRouting) {
  TrainingConfig a = mixtral(2, 8, 8);
  a.micro_batches = 2;
  TrainingConfig b = a;
  b.moe.routing = RoutingSpec::parse("zipf:1.2");
  b.moe.routing.seed = 3;
  TrainingConfig c = b;
  c.moe.routing.seed = 4;
  const core::Workload wa = generate_llama(a), wb = generate_llama(b), wc = generate_llama(c);
  EXPECT_EQ(structure(wa), structure(wb));
  EXPECT_EQ(structure(wb), structure(wc));
  // Sizes do differ, send by send. (The totals need not: every source
  // routes T * K assignments by the same popularity, so the tokens that
  // stay local add up to T * K over the group under zipf as under uniform.)
  auto sizes = [](const core::Workload& w) {
    std::vector<std::uint64_t> v;
    for (const core::Task& t : w.tasks()) v.push_back(t.bytes);
    return v;
  };
  EXPECT_NE(sizes(wa), sizes(wb));
  EXPECT_NE(sizes(wb), sizes(wc));
}

TEST(Moe, EstimateBoundsTheGeneratedSize) {
  for (const std::uint32_t ep : {2u, 4u, 8u}) {
    TrainingConfig c = mixtral(4, 8, ep);
    c.micro_batches = 2;
    const WorkloadSize est = estimate_llama_size(c);
    const core::Workload w = generate_llama(c);
    EXPECT_EQ(est.tasks, w.num_tasks()) << ep;
    EXPECT_GE(est.deps, w.num_deps()) << ep;
  }
  TrainingConfig p = mixtral(4, 4, 4);
  p.pp = 2;
  p.tp = 2;
  p.sequence_parallel = true;
  p.micro_batches = 4;
  p.moe.shared_experts = 1;
  TrainingConfig cp = mixtral(2, 2, 4);  // EP over DP x CP
  cp.cp = 2;
  cp.seq = 4096;
  TrainingConfig vpp = mixtral(4, 4, 4);
  vpp.pp = 2;
  vpp.vpp = 2;
  vpp.micro_batches = 4;
  TrainingConfig zero1 = mixtral(2, 8, 4);
  zero1.dp_sharding = DpSharding::kOptimizer;
  zero1.collective = Algorithm::kHalvingDoubling;
  for (const TrainingConfig& c : {p, cp, vpp, zero1}) {
    const WorkloadSize est = estimate_llama_size(c);
    const core::Workload w = generate_llama(c);
    EXPECT_EQ(est.tasks, w.num_tasks()) << w.name();
    EXPECT_GE(est.deps, w.num_deps()) << w.name();
  }
}

TEST(Moe, SchedulesAndValidates) {
  const core::Workload w = generate_llama(mixtral(2, 8, 8));
  core::System sys;
  sched::SchedulerOptions o;
  o.search_moves = 200;
  o.lp_bound = false;
  const schedule::Schedule s = sched::run_scheduler("flux", w, sys, o);
  EXPECT_TRUE(schedule::validate(w, s).ok());
}

TEST(Moe, DeepSeekWithPipelineAndTp) {
  // MLA attention, shared expert, dense first layers, PP and TP (sequence
  // parallel) together: generates, and sizes match the estimate.
  TrainingConfig c;
  const MoeModel m = moe_model("deepseek-v3");
  c.model = m.model;
  c.moe = m.moe;
  c.model.layers = 5;
  c.moe.dense_layers = 1;
  c.tp = 2;
  c.sequence_parallel = true;
  c.pp = 2;
  c.dp = 4;
  c.moe.ep = 4;
  c.micro_batches = 2;
  c.seq = 4096;
  const core::Workload w = generate_llama(c);
  EXPECT_EQ(estimate_llama_size(c).tasks, w.num_tasks());
  EXPECT_NE(w.name().find("deepseek-v3-L5-tp2-dp4-pp2-ep4"), std::string::npos) << w.name();
}

TEST(Moe, BadConfigurations) {
  auto field = [](TrainingConfig c) -> std::string {
    try {
      c.validate();
    } catch (const core::InputError& e) {
      return e.field();
    }
    return "";
  };
  TrainingConfig c = mixtral(2, 8, 8);
  EXPECT_EQ(field(c), "");
  c.moe.ep = 3;
  EXPECT_EQ(field(c), "ep");  // not dividing 8 experts
  c = mixtral(2, 4, 8);
  EXPECT_EQ(field(c), "ep");  // not dividing dp * cp
  c = mixtral(2, 8, 8);
  c.moe.top_k = 9;
  EXPECT_EQ(field(c), "top_k");
  c = mixtral(2, 8, 8);
  c.moe.etp = 2;
  EXPECT_EQ(field(c), "etp");
  c = mixtral(2, 8, 8);
  c.moe.dense_layers = 2;
  EXPECT_EQ(field(c), "dense_layers");
  c = mixtral(2, 4, 4);
  c.tp = 2;
  EXPECT_EQ(field(c), "tp");  // needs sequence parallelism
}

}  // namespace
}  // namespace flux::workload
