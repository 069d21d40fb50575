// The parallelisms beyond TP x DP, checked against first principles:
// pipeline sends (2 directions x M micro-batches x (P - 1) stage boundaries
// x tp x cp x dp of micro_batch * seq / cp (/ tp sequence parallel) *
// hidden * 2 bytes), the 1F1B order per stage, sequence parallelism's
// reduce-scatter + all-gather moving the all-reduce's bytes, ring-attention
// steps, the DP x CP gradient group, sharded data parallelism, the layer
// split and the size estimate.
#include <gtest/gtest.h>

#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

using core::TaskIndex;

struct Tally {
  std::uint64_t sends = 0;
  std::uint64_t bytes = 0;
};

// The kind of a send from its label's last part without digits: "pp",
// "tp-ar", "tp-rs", "tp-ag", "cp-kv", "dp-ar", "dp-rs", "dp-ag".
std::string kind(const core::Workload& w, std::uint32_t v) {
  const std::string_view label = w.label(TaskIndex(v));
  std::string k(label.substr(label.rfind('.') + 1));
  while (!k.empty() && k.back() >= '0' && k.back() <= '9') k.pop_back();
  return k;
}

std::map<std::string, Tally> tally(const core::Workload& w) {
  std::map<std::string, Tally> out;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    Tally& t = out[kind(w, v)];
    ++t.sends;
    t.bytes += w.tasks()[v].bytes;
  }
  return out;
}

TrainingConfig job(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, std::uint32_t layers,
                   std::uint32_t micro_batches) {
  TrainingConfig c;
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.model.layers = layers;
  c.micro_batches = micro_batches;
  return c;
}

TEST(Pipeline, SendsCountsBytesAndPeers) {
  for (const RankOrder order : {RankOrder::kTpCpDpPp, RankOrder::kTpCpPpDp}) {
    for (const bool sp : {false, true}) {
      SCOPED_TRACE(std::string(to_string(order)) + (sp ? " sp" : ""));
      TrainingConfig c = job(4, 4, 2, 8, 8);
      c.order = order;
      c.sequence_parallel = sp;
      const core::Workload w = generate_llama(c);
      // 2 directions x 8 micro-batches x 3 boundaries x 4 TP ranks x 2 replicas.
      const std::uint64_t bytes = 8192ull * 4096 * 2 / (sp ? 4 : 1);
      EXPECT_EQ(pipeline_send_bytes(c), bytes);
      // A stage is 8 ranks apart in Megatron's order, 4 in Llama 3's.
      const std::int64_t stride = order == RankOrder::kTpCpDpPp ? 8 : 4;
      std::uint64_t sends = 0;
      for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
        if (kind(w, v) != "pp") continue;
        ++sends;
        const core::Task& t = w.tasks()[v];
        EXPECT_EQ(t.bytes, bytes);
        const bool forward = w.label(TaskIndex(v)).find(".fwd.") != std::string_view::npos;
        EXPECT_EQ(std::int64_t{t.dst.value()} - std::int64_t{t.src.value()},
                  forward ? stride : -stride);
      }
      EXPECT_EQ(sends, 2u * 8 * 3 * 4 * 2);
      // Each layer's TP all-reduces run on one stage: as many as without PP.
      const auto flat = tally(generate_llama(job(4, 1, 2, 8, 8)));
      const auto piped = tally(w);
      if (!sp) {
        EXPECT_EQ(piped.at("tp-ar").sends, flat.at("tp-ar").sends);
        EXPECT_EQ(piped.at("tp-ar").bytes, flat.at("tp-ar").bytes);
      }
      EXPECT_EQ(piped.at("dp-ar").bytes, flat.at("dp-ar").bytes);
    }
  }
}

// reach[u][v]: v is reachable from u (u itself included).
std::vector<std::vector<bool>> reachability(const core::Workload& w) {
  const std::uint32_t n = w.num_tasks();
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (std::uint32_t u = 0; u < n; ++u) {
    std::queue<std::uint32_t> q;
    q.push(u);
    reach[u][u] = true;
    while (!q.empty()) {
      const std::uint32_t x = q.front();
      q.pop();
      for (const core::Dep& e : w.out_edges(TaskIndex(x))) {
        if (!reach[u][e.to.value()]) {
          reach[u][e.to.value()] = true;
          q.push(e.to.value());
        }
      }
    }
  }
  return reach;
}

TEST(Pipeline, OneForwardOneBackwardOrderPerStage) {
  // tp = dp = 1: the only sends are the pipeline's; rank s is stage s.
  constexpr std::uint32_t P = 4, M = 8;
  const core::Workload w = generate_llama(job(1, P, 1, 4, M));
  ASSERT_EQ(w.num_tasks(), 2u * M * (P - 1));
  // send[s][mb][forward]: the send leaving stage s.
  std::map<std::tuple<std::uint32_t, std::uint32_t, bool>, std::uint32_t> send;
  const auto at = [&](std::uint32_t stage, std::uint32_t mb, bool forward) {
    return send.at(std::tuple{stage, mb, forward});
  };
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const std::string label(w.label(TaskIndex(v)));
    const std::uint32_t mb = static_cast<std::uint32_t>(std::stoul(label.substr(2)));
    send[std::tuple{w.tasks()[v].src.value(), mb, label.find(".fwd.") != std::string::npos}] = v;
  }
  const auto reach = reachability(w);
  for (std::uint32_t s = 0; s < P; ++s) {
    // Stage s runs W = P - s - 1 warm-up forwards: its forward of
    // micro-batch j follows its backward of k exactly when j >= k + W + 1,
    // and its backward of k follows the forward of j exactly when j <= k + W.
    const std::uint32_t W = P - s - 1;
    for (std::uint32_t k = 0; k < M; ++k) {
      for (std::uint32_t j = 0; j < M; ++j) {
        SCOPED_TRACE("stage " + std::to_string(s) + " k " + std::to_string(k) + " j " +
                     std::to_string(j));
        if (s + 1 < P && s > 0) {
          // The gradient of k arrived from s + 1; the forward of j leaves to s + 1.
          EXPECT_EQ(reach[at(s + 1, k, false)][at(s, j, true)], j >= k + W + 1);
        }
        if (s > 0) {
          // The activation of j arrived from s - 1; the gradient of k leaves to s - 1.
          EXPECT_EQ(reach[at(s - 1, j, true)][at(s, k, false)], j <= k + W);
        }
      }
    }
  }
  // Stage 0's first send waits only for its compute: a release, no deps.
  EXPECT_GT(w.tasks()[at(0, 0, true)].release_ps, 0);
}

TEST(Pipeline, InterleavedScheduleCountsAndOrder) {
  // P = 2 stages of V = 2 chunks: virtual stages 0, 2 on rank 0 and 1, 3 on
  // rank 1; 2 x M x (P V - 1) sends, all between the two ranks.
  TrainingConfig c = job(1, 2, 1, 4, 4);
  c.vpp = 2;
  const core::Workload w = generate_llama(c);
  ASSERT_EQ(w.num_tasks(), 2u * 4 * 3);
  std::map<std::string, std::uint32_t> by_label;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    by_label[std::string(w.label(TaskIndex(v)))] = v;
    const core::Task& t = w.tasks()[v];
    EXPECT_EQ(t.src.value() + t.dst.value(), 1u);
  }
  ASSERT_EQ(by_label.size(), w.num_tasks());
  // Rank 0 runs (P - 1) * 2 + (V - 1) * P = 4 warm-up forwards (chunk 0 on
  // micro-batches 0, 1; chunk 1 on 0, 1), then the forward of chunk 0 on
  // micro-batch 2, the backward of chunk 1 (virtual stage 2) on 0, the
  // forward of chunk 0 on 3: only that one waits for the gradient from
  // virtual stage 3.
  const auto reach = reachability(w);
  const std::uint32_t grad = by_label.at("mb0.S3.bwd.pp");
  EXPECT_FALSE(reach[grad][by_label.at("mb2.S0.fwd.pp")]);
  EXPECT_TRUE(reach[grad][by_label.at("mb3.S0.fwd.pp")]);
  // The layers are split over the four virtual stages.
  EXPECT_EQ(c.stage_layers(2), 1u);
  EXPECT_EQ(c.first_layer(3), 3u);
  EXPECT_EQ(estimate_llama_size(c).tasks, w.num_tasks());
}

TEST(SequenceParallel, ReduceScatterAndAllGatherMoveTheAllReducesBytes) {
  TrainingConfig c = job(4, 2, 2, 4, 2);
  c.embeddings = true;
  TrainingConfig s = c;
  s.sequence_parallel = true;
  const auto plain = tally(generate_llama(c));
  const auto split = tally(generate_llama(s));
  EXPECT_EQ(split.count("tp-ar"), 1u);                     // the loss's per-token all-reduces stay
  const std::uint64_t loss_sends = 2 * 3 * 4 * 2 * 3 * 2;  // 2 mb, 3 all-reduces, 2 groups, ring
  EXPECT_EQ(split.at("tp-ar").sends, loss_sends);
  EXPECT_EQ(split.at("tp-rs").sends + split.at("tp-ag").sends + loss_sends,
            plain.at("tp-ar").sends);
  EXPECT_EQ(split.at("tp-rs").bytes + split.at("tp-ag").bytes + split.at("tp-ar").bytes,
            plain.at("tp-ar").bytes);
  EXPECT_EQ(split.at("tp-rs").sends, split.at("tp-ag").sends);
  // Norms on 1/tp of the tokens.
  EXPECT_LT(layer_compute(s).attn_norm, layer_compute(c).attn_norm);
  EXPECT_EQ(layer_compute(s).attn_core, layer_compute(c).attn_core);
}

TEST(ContextParallel, RingStepsCountsBytesPeersAndTheGradientGroup) {
  TrainingConfig c = job(2, 1, 1, 2, 2);
  c.cp = 4;
  const core::Workload w = generate_llama(c);
  // K and V of seq / cp = 2048 tokens, one KV head of 128 per TP rank (8 / 2 = 4 heads).
  const std::uint64_t step = 2ull * 2048 * 4 * 128 * 2;
  EXPECT_EQ(cp_step_bytes(c), step);
  std::uint64_t fwd = 0, bwd = 0;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.tasks()[v];
    const std::string k = kind(w, v);
    // rank = c * tp + t: the next CP rank is tp ranks on, cyclically.
    if (k == "cp-kv") {
      EXPECT_EQ(t.dst.value(), (t.src.value() + 2) % 8);
      const bool forward = w.label(TaskIndex(v)).find(".fwd.") != std::string_view::npos;
      (forward ? fwd : bwd) += 1;
      EXPECT_EQ(t.bytes, forward ? step : 2 * step);
    } else if (k == "tp-ar") {
      EXPECT_EQ(t.src.value() / 2, t.dst.value() / 2);  // within a TP group
      EXPECT_EQ(t.bytes, 2048ull * 4096 * 2 / 2);       // seq / cp tokens, a ring chunk
    } else {
      // The gradient all-reduce runs over DP x CP: the ranks of one TP index.
      EXPECT_EQ(k, "dp-ar");
      EXPECT_EQ(t.src.value() % 2, t.dst.value() % 2);
    }
  }
  // Per layer and micro-batch, cp - 1 steps of cp sends on each of tp groups.
  EXPECT_EQ(fwd, 2u * 2 * 3 * 4 * 2);
  EXPECT_EQ(bwd, fwd);
  // 2 layers x 2 TP indices x a ring of 4: 2 * 3 * 4 sends each.
  EXPECT_EQ(tally(w).at("dp-ar").sends, 2u * 2 * 2 * 3 * 4);
  // Each rank does 1/cp of the causal attention.
  TrainingConfig one = c;
  one.cp = 1;
  EXPECT_NEAR(static_cast<double>(layer_compute(c).attn_core) * 4,
              static_cast<double>(layer_compute(one).attn_core), 8);
}

TEST(DpSharding, ReduceScatterAndAllGatherMoveTheAllReducesBytes) {
  const TrainingConfig c = job(2, 2, 4, 4, 3);
  TrainingConfig zero1 = c, fsdp = c;
  zero1.dp_sharding = DpSharding::kOptimizer;
  fsdp.dp_sharding = DpSharding::kFull;
  const auto plain = tally(generate_llama(c));
  const auto z = tally(generate_llama(zero1));
  const auto f = tally(generate_llama(fsdp));
  const Tally ar = plain.at("dp-ar");
  EXPECT_EQ(z.at("dp-rs").sends + z.at("dp-ag").sends, ar.sends);
  EXPECT_EQ(z.at("dp-rs").bytes + z.at("dp-ag").bytes, ar.bytes);
  EXPECT_EQ(z.at("dp-rs").bytes, z.at("dp-ag").bytes);
  // FSDP: the gradient reduce-scatter once, the parameters gathered before
  // each layer's forward and backward in each of the 3 micro-batches.
  EXPECT_EQ(f.at("dp-rs").bytes, ar.bytes / 2);
  EXPECT_EQ(f.at("dp-ag").bytes, 2 * 3 * (ar.bytes / 2));
  // The TP and pipeline traffic does not change.
  EXPECT_EQ(f.at("tp-ar").bytes, plain.at("tp-ar").bytes);
  EXPECT_EQ(z.at("pp").sends, plain.at("pp").sends);
}

TEST(LayerSplit, FirstAndLastStagesGetFewer) {
  TrainingConfig c;
  c.model = ModelConfig::llama3("405b");
  c.pp = 16;
  std::vector<std::uint32_t> got;
  for (std::uint32_t s = 0; s < 16; ++s) got.push_back(c.stage_layers(s));
  std::vector<std::uint32_t> want(16, 8);
  want.front() = want.back() = 7;  // the Llama 3 paper's split
  EXPECT_EQ(got, want);
  EXPECT_EQ(c.first_layer(15), 119u);
  const auto split = [](std::uint32_t layers, std::uint32_t pp) {
    TrainingConfig t;
    t.model.layers = layers;
    t.pp = pp;
    std::vector<std::uint32_t> v;
    for (std::uint32_t s = 0; s < pp; ++s) v.push_back(t.stage_layers(s));
    return v;
  };
  EXPECT_EQ(split(10, 4), (std::vector<std::uint32_t>{2, 3, 3, 2}));
  EXPECT_EQ(split(7, 4), (std::vector<std::uint32_t>{2, 2, 2, 1}));
  EXPECT_EQ(split(8, 4), (std::vector<std::uint32_t>{2, 2, 2, 2}));
  EXPECT_EQ(split(5, 1), (std::vector<std::uint32_t>{5}));
  EXPECT_EQ(split(4, 4), (std::vector<std::uint32_t>{1, 1, 1, 1}));
}

TEST(Parallel, SizeEstimateMatchesTheGenerator) {
  std::vector<TrainingConfig> configs;
  for (const auto& [tp, pp, dp, cp] :
       {std::tuple{2u, 2u, 2u, 1u}, {2u, 3u, 1u, 2u}, {1u, 4u, 2u, 1u}, {2u, 2u, 2u, 2u}}) {
    for (const DpSharding s : {DpSharding::kNone, DpSharding::kOptimizer, DpSharding::kFull}) {
      TrainingConfig c = job(tp, pp, dp, 4, 3);
      c.cp = cp;
      c.dp_sharding = s;
      c.sequence_parallel = tp == 2 && pp == 2;
      c.embeddings = pp != 3;
      configs.push_back(c);
    }
  }
  TrainingConfig interleaved = job(2, 2, 2, 6, 4);
  interleaved.vpp = 3;
  interleaved.embeddings = true;
  configs.push_back(interleaved);
  configs[3].collective = Algorithm::kHalvingDoubling;
  configs[4].collective = Algorithm::kDirect;
  for (const TrainingConfig& c : configs) {
    const core::Workload w = generate_llama(c);
    SCOPED_TRACE(w.name() + " " + std::string(to_string(c.collective)));
    const WorkloadSize est = estimate_llama_size(c);
    EXPECT_EQ(est.tasks, w.num_tasks());
    EXPECT_GE(est.deps, w.num_deps());
    EXPECT_LE(est.deps, 5 * w.num_deps());
  }
}

TEST(Jobs, PresetsAndTheirSources) {
  const JobPreset j = job_preset("llama3-405b-16k");
  EXPECT_EQ(j.config.model.name, "405b");
  EXPECT_EQ(j.config.ranks(), 16384u);
  EXPECT_EQ(j.config.tp * j.config.cp * j.config.pp, 128u);
  EXPECT_EQ(j.config.order, RankOrder::kTpCpPpDp);
  EXPECT_EQ(j.config.micro_batches, 16u);
  EXPECT_EQ(j.config.gpu.name, "h100");
  EXPECT_EQ(j.config.scaleup_size, 8u);
  EXPECT_NE(j.source.find("Table 4"), std::string::npos);
  const JobPreset l = job_preset("llama3-405b-16k-long");
  EXPECT_EQ(l.config.ranks(), 16384u);
  EXPECT_EQ(l.config.cp, 16u);
  EXPECT_EQ(l.config.seq, 131072u);
  const JobPreset s = job_preset("llama3-70b-1k");
  EXPECT_EQ(s.config.ranks(), 1024u);
  EXPECT_NE(s.source.find("Flux's choice"), std::string::npos);
  for (const std::string_view n : job_names()) EXPECT_NO_THROW(job_preset(n).config.validate());
  EXPECT_THROW(job_preset("gpt-5"), core::InputError);
}

void expect_error(const TrainingConfig& c, const std::string& field, const std::string& problem) {
  try {
    c.validate();
    ADD_FAILURE() << "no error; expected " << field << ": " << problem;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(e.problem().find(problem), std::string::npos) << e.problem();
  }
}

TEST(Parallel, BadCombinationsNameTheirField) {
  TrainingConfig c = job(2, 5, 1, 4, 1);
  expect_error(c, "pp", "exceeds the layers (4)");
  c = job(2, 1, 1, 4, 1);
  c.cp = 3;
  expect_error(c, "cp", "2 * cp must divide seq (8192)");
  c.cp = 4;
  c.seq = 4;
  expect_error(c, "cp", "2 * cp must divide seq (4)");
  c = job(4, 1, 1, 4, 1);
  c.seq = 6;
  c.sequence_parallel = true;
  expect_error(c, "sequence_parallel", "tp (4) must divide the tokens per CP rank");
  c = job(3, 1, 1, 4, 1);
  expect_error(c, "tp", "must divide the attention heads");
  c = job(2, 1, 1, 4, 2);
  c.vpp = 2;
  expect_error(c, "vpp", "needs pipeline parallelism");
  c.pp = 2;
  c.micro_batches = 3;
  expect_error(c, "vpp", "needs micro-batches (3) to be a multiple of pp (2)");
  c.micro_batches = 4;
  c.vpp = 3;
  expect_error(c, "vpp", "pp * vpp exceeds the layers (4)");
  c = job(2, 2, 8, 4, 1);
  c.fold_dp = 4;
  expect_error(c, "fold_dp", "use --order tp-cp-pp-dp");
  c.order = RankOrder::kTpCpPpDp;
  EXPECT_NO_THROW(c.validate());
  EXPECT_THROW(rank_order_from_string("dp-tp"), core::InputError);
  EXPECT_THROW(dp_sharding_from_string("zero2"), core::InputError);
}

}  // namespace
}  // namespace flux::workload
