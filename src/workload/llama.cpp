// Llama 3 training-iteration generator. The model, its operations and their
// sizes are in docs/model.md ("LLM training workload"); the parallelisms are
// summarised in llama.hpp.
//
// Every rank of a pipeline stage runs the same program; the stages run
// different ones. Each stage's program is first written as a list of steps
// (compute, a collective over the stage's TP, CP or DP groups, a pipeline
// send or receive, a join), in the stage's 1F1B order: with P stages and M
// micro-batches, stage s runs W = min(P - s - 1, M) warm-up forwards, then
// M - W pairs (forward of micro-batch W + k, backward of k), then the W
// cool-down backwards (Narayanan et al. 2021, "Efficient Large-Scale
// Language Model Training on GPU Clusters Using Megatron-LM", Figure 4;
// Megatron-Core's forward_backward_pipelining_without_interleaving; with vpp
// chunks per stage, Megatron's interleaved order, see stage_program). The
// stages'
// lists are then lowered into the DAG together (lowering.hpp), stage by
// stage, each running until it would receive what the previous (next)
// stage has not sent yet; 1F1B never deadlocks, so all finish. Without
// pipeline parallelism this is one stage running forward then backward per
// micro-batch, as before.
#include "flux/workload/llama.hpp"

#include <algorithm>
#include <cassert>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/routing.hpp"
#include "lowering.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TimePs;

constexpr double kBf16 = 2;  // bytes per activation / gradient value
constexpr double kFp32 = 4;
// Mixed-precision Adam per parameter: read fp32 master, m, v and the bf16
// gradient; write master, m, v and the bf16 weight.
constexpr double kAdamBytesPerParam = 3 * kFp32 + kBf16 + 3 * kFp32 + kBf16;

// Concatenation without operator+ chains (GCC 12 reports a false -Wrestrict
// on those).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

std::uint64_t vocab_shard(const TrainingConfig& c) {
  return (c.model.vocab + c.tp - 1) / c.tp;
}
// Per-rank parameters of the units the DP group reduces (bf16 gradients).
std::uint64_t embed_params(const TrainingConfig& c) {
  return vocab_shard(c) * c.model.hidden;
}
std::uint64_t head_params(const TrainingConfig& c) {
  return (vocab_shard(c) + 1) * c.model.hidden;  // LM head shard and the final norm
}

// A part of a stage whose parameters the DP group reduces (and, sharded,
// gathers): the embedding, a transformer layer or the LM head.
struct Unit {
  enum class Kind : std::uint8_t { kEmbed, kLayer, kHead };
  Kind kind;
  std::uint32_t layer = 0;
  std::string name;  // "embed", "L12", "head"
  std::uint64_t params = 0;
};

// One step of a stage's program.
struct Step {
  enum class Type : std::uint8_t {
    kCompute,    // `ps` on the stage's ranks
    kOptimizer,  // `ps` after the stage's kAtEnd collectives
    kTp,         // `kind` of `bytes` over every TP group, blocking
    kCpShift,    // one ring-attention step over every CP group, joined by kJoin `slot`
    kDp,         // `kind` of `bytes` over every DP x CP group, awaited as `await`
    kJoin,       // joins the collectives launched with `slot`
    kSend,       // pipeline send of micro-batch `mb`, forward (to s + 1) or not (to s - 1)
    kRecv,       // joins the matching pipeline send
    kAllToAll,   // MoE token exchange of MoE layer `slot`, micro-batch `mb` over every EP
                 // group, blocking: to the experts (`forward`) or back
    kExpert,     // the local experts of MoE layer `slot` on each rank, `bytes` times the
                 // forward (1, or 2 backward)
    kEdp,        // `kind` of `bytes` over every expert-data-parallel group, awaited at the end
  };
  explicit Step(Type t, TimePs d = 0) : type(t), ps(d) {}
  Type type = Type::kCompute;
  TimePs ps = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Await await = Await::kNow;
  bool forward = true;
  std::uint32_t mb = 0;
  std::uint32_t vs = 0;  // kSend, kRecv: the virtual stage of the pass
  std::uint32_t slot = 0;
  std::uint64_t bytes = 0;
  bool last_use = false;  // kAllToAll: the routing of (slot, mb) is not needed again
  std::string label;
};

class Generator {
 public:
  Generator(const TrainingConfig& c, Program* program, bool emit_sends = true)
      : c_(c),
        lower_(name(c), c.generated_ranks(), program, emit_sends),
        tokens_(static_cast<double>(c.micro_batch * (c.seq / c.cp))),
        norm_tokens_(c.sequence_parallel ? tokens_ / c.tp : tokens_),
        act_bytes_(c.micro_batch * (c.seq / c.cp) * c.model.hidden * 2),
        lc_(layer_compute(c)),
        moe_(c.moe.enabled() ? moe_compute(c) : MoeCompute{}),
        stage_ranks_(c.pp),
        pending_(c.pp),
        mailbox_(2 * std::size_t{c.virtual_stages()} * c.micro_batches) {
    if (c.fold().folded()) lower_.builder().set_fold(c.fold());
    if (c.moe.enabled()) router_.emplace(c.moe.routing, moe_routing_shape(c));
    lower_.builder().set_scaleup_size(c.scaleup_size);
    if (c.scaleup_size != 0) lower_.builder().set_scaleup_gbps(c.gpu.nvlink_gbps);
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      for (std::uint32_t d = 0; d < c.generated_dp(); ++d) {
        for (std::uint32_t k = 0; k < c.cp; ++k) {
          for (std::uint32_t t = 0; t < c.tp; ++t) stage_ranks_[s].push_back(c.rank(t, k, d, s));
        }
      }
      std::sort(stage_ranks_[s].begin(), stage_ranks_[s].end());
    }
  }

  core::Workload run() {
    execute_all();
    return lower_.finish();
  }
  // Without sends (generate_llama_program).
  void run_program() {
    execute_all();
    lower_.finish_program();
  }

 private:
  void execute_all() {
    std::vector<std::vector<Step>> programs(c_.pp);
    for (std::uint32_t s = 0; s < c_.pp; ++s) programs[s] = stage_program(s);
    std::vector<std::size_t> pc(c_.pp, 0);
    for (bool progress = true; progress;) {
      progress = false;
      for (std::uint32_t s = 0; s < c_.pp; ++s) {
        for (; pc[s] < programs[s].size(); ++pc[s]) {
          const Step& step = programs[s][pc[s]];
          if (step.type == Step::Type::kRecv && !mailbox(step.vs, step.mb, step.forward).sent) {
            break;
          }
          execute(s, step);
          progress = true;
        }
      }
    }
    for (std::uint32_t s = 0; s < c_.pp; ++s) assert(pc[s] == programs[s].size());
  }

  // Pipeline sends of one micro-batch and direction into virtual stage `to`.
  struct Mail {
    bool sent = false;
    std::vector<std::uint32_t> handles;
  };
  Mail& mailbox(std::uint32_t to, std::uint32_t mb, bool forward) {
    return mailbox_[(std::size_t{mb} * 2 + (forward ? 1 : 0)) * c_.virtual_stages() + to];
  }

  static std::string name(const TrainingConfig& c) {
    const auto part = [](const char* k, std::uint32_t v) {
      return cat({"-", k, std::to_string(v)});
    };
    std::string s =
        cat({c.moe.enabled() ? "" : "llama3-", c.model.name, "-L", std::to_string(c.model.layers)});
    s += part("tp", c.tp);
    if (c.cp > 1) s += part("cp", c.cp);
    const std::string pp =
        c.vpp > 1 ? cat({part("pp", c.pp), part("vpp", c.vpp)}) : part("pp", c.pp);
    if (c.pp > 1 && c.order == RankOrder::kTpCpPpDp) s += pp;
    s += part("dp", c.dp);
    if (c.pp > 1 && c.order == RankOrder::kTpCpDpPp) s += pp;
    if (c.moe.enabled()) s += part("ep", c.moe.ep);
    if (c.moe.enabled() && c.moe.routing.kind != RoutingKind::kUniform) {
      s += cat({"-", c.moe.routing.to_string()});
    }
    if (c.sequence_parallel) s += "-sp";
    if (c.dp_sharding == DpSharding::kOptimizer) s += "-zero1";
    if (c.dp_sharding == DpSharding::kFull) s += "-fsdp";
    if (c.generated_dp() != c.dp) s += part("fold", c.generated_dp());
    return cat({s, "-", c.gpu.name});
  }

  [[nodiscard]] double hidden() const { return static_cast<double>(c_.model.hidden); }
  [[nodiscard]] TimePs memory(double bytes) const {
    return roofline_ps(c_.gpu, OpClass::kMemory, memory_cost(bytes));
  }
  [[nodiscard]] TimePs gemm(double m, double k, double n) const {
    return roofline_ps(c_.gpu, OpClass::kGemm, gemm_cost(m, k, n));
  }

  // --- writing a stage's program -----------------------------------------------

  struct Writer {
    std::vector<Step>& out;
    std::uint32_t next_slot = 0;

    void compute(TimePs ps) { out.emplace_back(Step::Type::kCompute, ps); }
    void collective(Step::Type type, CollectiveKind kind, std::uint64_t bytes, std::string label,
                    Await await = Await::kNow, std::uint32_t slot = 0) {
      Step s(type);
      s.kind = kind;
      s.await = await;
      s.bytes = bytes;
      s.label = std::move(label);
      s.slot = slot;
      out.push_back(std::move(s));
    }
    void join(std::uint32_t slot) {
      Step s(Step::Type::kJoin);
      s.slot = slot;
      out.push_back(std::move(s));
    }
  };

  // A TP all-reduce, or with sequence parallelism its reduce-scatter half
  // (after a row-parallel GEMM) or all-gather half (before a column-parallel one).
  void tp(Writer& w, CollectiveKind sp_kind, std::uint64_t bytes, const std::string& label) const {
    if (c_.tp < 2) return;
    const CollectiveKind kind = c_.sequence_parallel ? sp_kind : CollectiveKind::kAllReduce;
    const char* suffix = kind == CollectiveKind::kAllReduce   ? ".tp-ar"
                         : kind == CollectiveKind::kAllGather ? ".tp-ag"
                                                              : ".tp-rs";
    w.collective(Step::Type::kTp, kind, bytes, cat({label, suffix}));
  }
  void tp_gather(Writer& w, const std::string& label) const {
    if (c_.sequence_parallel) tp(w, CollectiveKind::kAllGather, act_bytes_, label);
  }

  // The attention kernel in cp blocks; between them the K/V blocks (and,
  // backward, their gradients) move one step around the CP ring, the step
  // overlapping the block before it.
  void ring_attention(Writer& w, TimePs core, bool forward, const std::string& label) const {
    if (c_.cp < 2) {
      w.compute(core);
      return;
    }
    const std::uint64_t bytes = cp_step_bytes(c_) * (forward ? 1 : 2);
    const TimePs block = core / c_.cp, rest = core % c_.cp;
    for (std::uint32_t j = 0; j < c_.cp; ++j) {
      const std::uint32_t slot = w.next_slot++;
      const bool shift = j + 1 < c_.cp;
      if (shift) {
        w.collective(Step::Type::kCpShift, CollectiveKind::kShift, bytes,
                     cat({label, ".cp-kv", std::to_string(j)}), Await::kLater, slot);
      }
      w.compute(block + (j < rest ? 1 : 0));
      if (shift) w.join(slot);
    }
  }

  // --- MoE blocks (moe.hpp) ------------------------------------------------------

  static void exchange(Writer& w, std::uint32_t moe_layer, std::uint32_t mb, bool to_experts,
                       bool last_use, std::string label) {
    Step s(Step::Type::kAllToAll);
    s.slot = moe_layer;
    s.mb = mb;
    s.forward = to_experts;
    s.last_use = last_use;
    s.label = std::move(label);
    w.out.push_back(std::move(s));
  }
  static void experts(Writer& w, std::uint32_t moe_layer, std::uint32_t mb, std::uint64_t times) {
    Step s(Step::Type::kExpert);
    s.slot = moe_layer;
    s.mb = mb;
    s.bytes = times;
    w.out.push_back(std::move(s));
  }
  // Shared experts: a TP-split dense MLP on the gathered tokens.
  void shared(Writer& w, bool forward, const std::string& L) const {
    if (c_.moe.shared_experts == 0) return;
    const std::string label = cat({L, forward ? "fwd.shared" : "bwd.shared"});
    tp_gather(w, label);
    w.compute(forward ? moe_.shared_fwd : moe_.shared_bwd);
    tp(w, CollectiveKind::kReduceScatter, act_bytes_, label);
  }
  void moe_forward(Writer& w, std::uint32_t m, std::uint32_t mb, const std::string& L) const {
    shared(w, true, L);
    w.compute(moe_.router_fwd);
    exchange(w, m, mb, true, false, cat({L, "fwd.dispatch"}));
    experts(w, m, mb, 1);
    exchange(w, m, mb, false, false, cat({L, "fwd.combine"}));
    w.compute(moe_.unpermute_fwd);
  }
  void moe_backward(Writer& w, std::uint32_t m, std::uint32_t mb, const std::string& L) const {
    exchange(w, m, mb, true, false, cat({L, "bwd.combine"}));
    experts(w, m, mb, 2);
    exchange(w, m, mb, false, true, cat({L, "bwd.dispatch"}));
    w.compute(moe_.router_bwd);
    shared(w, false, L);
  }

  void unit_forward(Writer& w, const Unit& u, const std::string& p, std::uint32_t mb) const {
    const double v = static_cast<double>(vocab_shard(c_));
    switch (u.kind) {
      case Unit::Kind::kEmbed:
        // Vocabulary-parallel embedding: a lookup in the local vocabulary
        // shard, then an all-reduce (sequence parallel: reduce-scatter).
        w.compute(memory(2 * tokens_ * hidden() * kBf16));
        tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({p, "embed.fwd"}));
        return;
      case Unit::Kind::kLayer: {
        const std::string L = cat({p, u.name, "."});
        w.compute(lc_.attn_norm);
        tp_gather(w, cat({L, "fwd.attn"}));
        w.compute(lc_.attn_qkv);
        ring_attention(w, lc_.attn_core, true, cat({L, "fwd.attn"}));
        w.compute(lc_.attn_out);
        tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({L, "fwd.attn"}));
        w.compute(lc_.mlp_norm);
        if (c_.moe.is_moe_layer(u.layer)) {
          moe_forward(w, u.layer - c_.moe.dense_layers, mb, L);
          return;
        }
        tp_gather(w, cat({L, "fwd.mlp"}));
        w.compute(lc_.mlp_body);
        tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({L, "fwd.mlp"}));
        return;
      }
      case Unit::Kind::kHead: {
        // Final norm, column-parallel LM head and vocabulary-parallel cross
        // entropy (three all-reduces of one fp32 per token: max logit, target
        // logit, sum of exponentials).
        const std::uint64_t per_token = c_.micro_batch * (c_.seq / c_.cp) * 4;
        w.compute(memory(2 * norm_tokens_ * hidden() * kBf16));
        tp_gather(w, cat({p, "head.fwd"}));
        w.compute(gemm(tokens_, hidden(), v) + memory(tokens_ * v * kBf16));
        tp(w, CollectiveKind::kAllReduce, per_token, cat({p, "loss.max"}));
        tp(w, CollectiveKind::kAllReduce, per_token, cat({p, "loss.target"}));
        w.compute(memory(tokens_ * v * kBf16));
        tp(w, CollectiveKind::kAllReduce, per_token, cat({p, "loss.sumexp"}));
        return;
      }
    }
  }

  void unit_backward(Writer& w, const Unit& u, const std::string& p, std::uint32_t mb) const {
    const double v = static_cast<double>(vocab_shard(c_));
    switch (u.kind) {
      case Unit::Kind::kEmbed:
        // Scatter-add of the output gradient, no TP traffic (sequence
        // parallel: the gradient is all-gathered first).
        tp_gather(w, cat({p, "embed.bwd"}));
        w.compute(memory(2 * tokens_ * hidden() * kBf16));
        return;
      case Unit::Kind::kLayer: {
        const std::string L = cat({p, u.name, "."});
        if (c_.moe.is_moe_layer(u.layer)) {
          moe_backward(w, u.layer - c_.moe.dense_layers, mb, L);
        } else {
          tp_gather(w, cat({L, "bwd.mlp"}));
          w.compute(lc_.mlp_bwd);
          tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({L, "bwd.mlp"}));
        }
        w.compute(lc_.norm_bwd);
        tp_gather(w, cat({L, "bwd.attn"}));
        w.compute(lc_.attn_bwd_out);
        ring_attention(w, lc_.attn_bwd_core, false, cat({L, "bwd.attn"}));
        w.compute(lc_.attn_bwd_qkv);
        tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({L, "bwd.attn"}));
        w.compute(lc_.norm_bwd);
        return;
      }
      case Unit::Kind::kHead:
        // After the LM head's input and weight gradients, its input gradient
        // is all-reduced (reduce-scattered); then the final norm's backward.
        w.compute(memory(2 * tokens_ * v * kBf16) + gemm(tokens_, v, hidden()) +
                  gemm(v, tokens_, hidden()));
        tp(w, CollectiveKind::kReduceScatter, act_bytes_, cat({p, "head.bwd"}));
        w.compute(memory(3 * norm_tokens_ * hidden() * kBf16));
        return;
    }
  }

  [[nodiscard]] bool sharded() const { return c_.dp_sharding != DpSharding::kNone; }
  [[nodiscard]] bool moe_layer(const Unit& u) const {
    return u.kind == Unit::Kind::kLayer && c_.moe.is_moe_layer(u.layer);
  }

  // FSDP: the parameter all-gather of `u`, launched ahead (one unit of
  // prefetch) and joined before `u` runs.
  std::uint32_t gather_params(Writer& w, const Unit& u, const std::string& label) const {
    const std::uint32_t slot = w.next_slot++;
    w.collective(Step::Type::kDp, CollectiveKind::kAllGather, u.params * 2,
                 cat({label, u.name, ".dp-ag"}), Await::kLater, slot);
    return slot;
  }

  // The forward or backward of micro-batch `mb` through virtual stage `vs`.
  void pass(Writer& w, const std::vector<Unit>& units, std::uint32_t vs, std::uint32_t mb,
            bool forward) const {
    const std::uint32_t last = c_.virtual_stages() - 1;
    const std::string p = cat({"mb", std::to_string(mb), "."});
    const bool fsdp = c_.dp_sharding == DpSharding::kFull;
    const std::string dir = forward ? "fwd." : "bwd.";
    const std::size_t n = units.size();
    auto unit = [&](std::size_t k) -> const Unit& { return units[forward ? k : n - 1 - k]; };
    std::uint32_t slot = fsdp ? gather_params(w, unit(0), cat({p, dir})) : 0;
    const bool receive = forward ? vs > 0 : vs < last;
    if (receive) {
      Step r(Step::Type::kRecv);
      r.forward = forward;
      r.mb = mb;
      r.vs = vs;
      w.out.push_back(std::move(r));
    }
    const bool last_mb = mb + 1 == c_.micro_batches;
    for (std::size_t k = 0; k < n; ++k) {
      if (fsdp) {
        w.join(slot);
        if (k + 1 < n) slot = gather_params(w, unit(k + 1), cat({p, dir}));
      }
      if (forward) {
        unit_forward(w, unit(k), p, mb);
      } else {
        unit_backward(w, unit(k), p, mb);
        const bool rs = sharded();
        const CollectiveKind kind =
            rs ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce;
        if (last_mb && c_.dp * c_.cp > 1) {
          // The gradient reduction over the DP x CP group, awaited only by
          // the optimizer step.
          w.collective(Step::Type::kDp, kind, unit(k).params * 2,
                       cat({unit(k).name, rs ? ".dp-rs" : ".dp-ar"}), Await::kAtEnd);
        }
        if (last_mb && moe_layer(unit(k)) && edp_size(c_) > 1) {
          // The experts' gradients over the ranks holding the same experts.
          w.collective(Step::Type::kEdp, kind, expert_params_per_rank(c_) * 2,
                       cat({unit(k).name, rs ? ".edp-rs" : ".edp-ar"}), Await::kAtEnd);
        }
      }
    }
    const bool send = forward ? vs < last : vs > 0;
    if (send) {
      Step t(Step::Type::kSend);
      t.forward = forward;
      t.mb = mb;
      t.vs = vs;
      t.label = cat({p, "S", std::to_string(vs), forward ? ".fwd.pp" : ".bwd.pp"});
      w.out.push_back(std::move(t));
    }
  }

  // The units of virtual stage `vs`.
  std::vector<Unit> units_of(std::uint32_t vs) const {
    std::vector<Unit> units;
    if (c_.embeddings && vs == 0) {
      units.push_back({Unit::Kind::kEmbed, 0, "embed", embed_params(c_)});
    }
    const std::uint32_t first = c_.first_layer(vs);
    for (std::uint32_t l = first; l < first + c_.stage_layers(vs); ++l) {
      units.push_back({Unit::Kind::kLayer, l, cat({"L", std::to_string(l)}),
                       c_.moe.is_moe_layer(l) ? moe_layer_dense_params_per_rank(c_)
                                              : layer_params_per_rank(c_.model, c_.tp)});
    }
    if (c_.embeddings && vs + 1 == c_.virtual_stages()) {
      units.push_back({Unit::Kind::kHead, 0, "head", head_params(c_)});
    }
    return units;
  }

  std::vector<Step> stage_program(std::uint32_t s) const {
    const std::uint32_t P = c_.pp, V = c_.vpp, M = c_.micro_batches;
    std::vector<std::vector<Unit>> chunks;  // chunk v: virtual stage v * P + s
    for (std::uint32_t v = 0; v < V; ++v) chunks.push_back(units_of(v * P + s));
    std::vector<Step> out;
    Writer w{out};
    // 1F1B over the rank's M * V (chunk, micro-batch) passes. Without
    // interleaving: pass k is micro-batch k, warm-up P - s - 1. Interleaved
    // (Megatron-Core's forward_backward_pipelining_with_interleaving):
    // micro-batches in groups of P, pass k runs chunk (k / P) mod V (the
    // backward counts chunks down) on micro-batch (k / (P V)) P + k mod P,
    // with (P - s - 1) * 2 + (V - 1) * P warm-up forwards (all of them when
    // M = P).
    const std::uint32_t total = M * V;
    std::uint32_t warmup = std::min(P - s - 1, M);
    if (V > 1) warmup = M == P ? total : std::min((P - s - 1) * 2 + (V - 1) * P, total);
    auto run = [&](std::uint32_t k, bool forward) {
      std::uint32_t v = V > 1 ? (k / P) % V : 0;
      if (!forward) v = V - 1 - v;
      const std::uint32_t mb = V > 1 ? (k / (P * V)) * P + k % P : k;
      pass(w, chunks[v], v * P + s, mb, forward);
    };
    for (std::uint32_t i = 0; i < warmup; ++i) run(i, true);
    for (std::uint32_t k = 0; k + warmup < total; ++k) {
      run(warmup + k, true);
      run(k, false);
    }
    for (std::uint32_t k = total - warmup; k < total; ++k) run(k, false);
    std::vector<Unit> units;
    for (const auto& chunk : chunks) units.insert(units.end(), chunk.begin(), chunk.end());

    if (c_.optimizer || c_.dp_sharding == DpSharding::kOptimizer) {
      // Adam over the stage's parameters, or over 1/(dp * cp) of them when
      // the optimizer state is sharded.
      std::uint64_t params = 0, expert_params = 0;
      for (const Unit& u : units) {
        params += u.params;
        if (moe_layer(u)) expert_params += expert_params_per_rank(c_);
      }
      const std::uint64_t shards = sharded() ? std::uint64_t{c_.dp} * c_.cp : 1;
      const std::uint64_t edp_shards = sharded() && c_.moe.enabled() ? edp_size(c_) : 1;
      params = (params + shards - 1) / shards + (expert_params + edp_shards - 1) / edp_shards;
      Step o(Step::Type::kOptimizer);
      o.ps = c_.optimizer ? memory(kAdamBytesPerParam * static_cast<double>(params)) : 0;
      out.push_back(std::move(o));
    }
    if (c_.dp_sharding == DpSharding::kOptimizer && c_.dp * c_.cp > 1) {
      // Distributed optimizer: every rank gathers the updated parameters.
      for (const Unit& u : units) {
        w.collective(Step::Type::kDp, CollectiveKind::kAllGather, u.params * 2,
                     cat({u.name, ".dp-ag"}), Await::kAtEnd);
        if (moe_layer(u) && edp_size(c_) > 1) {
          w.collective(Step::Type::kEdp, CollectiveKind::kAllGather, expert_params_per_rank(c_) * 2,
                       cat({u.name, ".edp-ag"}), Await::kAtEnd);
        }
      }
    }
    return out;
  }

  // --- lowering the steps --------------------------------------------------------

  CollectiveSpec spec(CollectiveKind kind, std::uint64_t bytes, const std::string& label) {
    CollectiveSpec spec;
    spec.kind = kind;
    spec.algorithm = c_.collective;
    spec.bytes = bytes;
    spec.label = lower_.builder().intern_label(label);
    return spec;
  }

  void execute(std::uint32_t s, const Step& step) {
    switch (step.type) {
      case Step::Type::kCompute:
      case Step::Type::kOptimizer:
        lower_.compute(stage_ranks_[s], step.ps, step.type == Step::Type::kOptimizer);
        return;
      case Step::Type::kTp: {
        CollectiveSpec sp = spec(step.kind, step.bytes, step.label);
        lower_.begin_launch(Await::kNow);
        for (std::uint32_t d = 0; d < c_.generated_dp(); ++d) {
          for (std::uint32_t k = 0; k < c_.cp; ++k) {
            sp.group.clear();
            for (std::uint32_t t = 0; t < c_.tp; ++t) sp.group.emplace_back(c_.rank(t, k, d, s));
            lower_.launch(sp);
          }
        }
        return;
      }
      case Step::Type::kCpShift: {
        CollectiveSpec sp = spec(step.kind, step.bytes, step.label);
        lower_.begin_launch(Await::kLater);
        std::vector<std::uint32_t>& handles = pending_[s][step.slot];
        for (std::uint32_t d = 0; d < c_.generated_dp(); ++d) {
          for (std::uint32_t t = 0; t < c_.tp; ++t) {
            sp.group.clear();
            for (std::uint32_t k = 0; k < c_.cp; ++k) sp.group.emplace_back(c_.rank(t, k, d, s));
            handles.push_back(lower_.launch(sp));
          }
        }
        return;
      }
      case Step::Type::kDp: {
        CollectiveSpec sp = spec(step.kind, step.bytes, step.label);
        const std::uint32_t dp = c_.generated_dp();
        if (dp != c_.dp) sp.ring_size = c_.dp * c_.cp;  // folded: one period of the ring
        lower_.begin_launch(step.await);
        for (std::uint32_t t = 0; t < c_.tp; ++t) {
          sp.group.clear();
          for (std::uint32_t d = 0; d < dp; ++d) {
            for (std::uint32_t k = 0; k < c_.cp; ++k) sp.group.emplace_back(c_.rank(t, k, d, s));
          }
          const std::uint32_t h = lower_.launch(sp);
          if (step.await == Await::kLater) pending_[s][step.slot].push_back(h);
        }
        return;
      }
      case Step::Type::kAllToAll:
        all_to_all(s, step);
        return;
      case Step::Type::kExpert:
        for_each_ep_group(
            s, step.slot, step.mb, [&](std::span<const std::uint32_t> group, const TokenMatrix& m) {
              for (std::uint32_t j = 0; j < group.size(); ++j) {
                const TimePs t = expert_compute_ps(c_, m.received(j));
                lower_.compute(group.subspan(j, 1),
                               step.bytes == 1 ? t : core::add_time(t, t, "expert compute"));
              }
            });
        return;
      case Step::Type::kEdp: {
        CollectiveSpec sp = spec(step.kind, step.bytes, step.label);
        lower_.begin_launch(step.await);
        const std::uint32_t ep = c_.moe.ep;
        for (std::uint32_t e = 0; e < ep; ++e) {
          sp.group.clear();
          for (std::uint32_t t = 0; t < c_.tp; ++t) {
            for (std::uint32_t j = e; j < c_.dp * c_.cp; j += ep) {
              sp.group.emplace_back(c_.rank(t, j % c_.cp, j / c_.cp, s));
            }
          }
          lower_.launch(sp);
        }
        return;
      }
      case Step::Type::kJoin: {
        auto it = pending_[s].find(step.slot);
        if (it == pending_[s].end()) return;  // nothing was launched (no group to gather over)
        lower_.begin_join();
        for (const std::uint32_t h : it->second) lower_.join(h);
        pending_[s].erase(it);
        return;
      }
      case Step::Type::kSend: {
        const std::uint32_t to_vs = step.forward ? step.vs + 1 : step.vs - 1;
        const std::uint32_t to = to_vs % c_.pp;
        CollectiveSpec sp = spec(CollectiveKind::kSend, pipeline_send_bytes(c_), step.label);
        Mail& mail = mailbox(to_vs, step.mb, step.forward);
        lower_.begin_launch(Await::kSenderNow);
        for (std::uint32_t d = 0; d < c_.generated_dp(); ++d) {
          for (std::uint32_t k = 0; k < c_.cp; ++k) {
            for (std::uint32_t t = 0; t < c_.tp; ++t) {
              sp.group = {Rank(c_.rank(t, k, d, s)), Rank(c_.rank(t, k, d, to))};
              mail.handles.push_back(lower_.launch(sp));
            }
          }
        }
        mail.sent = true;
        return;
      }
      case Step::Type::kRecv: {
        Mail& mail = mailbox(step.vs, step.mb, step.forward);
        lower_.begin_join();
        for (const std::uint32_t h : mail.handles) lower_.join(h);
        std::vector<std::uint32_t>().swap(mail.handles);
        return;
      }
    }
  }

  // The routing of (MoE layer, EP group, micro-batch), drawn once and kept
  // until its last exchange.
  const TokenMatrix& route(std::uint32_t m, std::uint32_t group, std::uint32_t mb) {
    const std::uint64_t key =
        (std::uint64_t{m} * moe_routing_shape(c_).groups + group) * c_.micro_batches + mb;
    auto it = routes_.find(key);
    if (it == routes_.end()) it = routes_.emplace(key, router_->route(m, group, mb)).first;
    return it->second;
  }
  void forget_route(std::uint32_t m, std::uint32_t group, std::uint32_t mb) {
    routes_.erase((std::uint64_t{m} * moe_routing_shape(c_).groups + group) * c_.micro_batches +
                  mb);
  }

  // Calls f(ranks, routing) for every EP group of stage s: TP slice t, DP x
  // CP indices j = g * ep .. g * ep + ep - 1 (j = d * cp + c).
  template <class F>
  void for_each_ep_group(std::uint32_t s, std::uint32_t m, std::uint32_t mb, F&& f,
                         bool forget = false) {
    const std::uint32_t ep = c_.moe.ep, per_slice = c_.dp * c_.cp / ep;
    std::vector<std::uint32_t> ranks(ep);
    for (std::uint32_t t = 0; t < c_.tp; ++t) {
      for (std::uint32_t g = 0; g < per_slice; ++g) {
        for (std::uint32_t i = 0; i < ep; ++i) {
          const std::uint32_t j = g * ep + i;
          ranks[i] = c_.rank(t, j % c_.cp, j / c_.cp, s);
        }
        const std::uint32_t group = (s * c_.tp + t) * per_slice + g;
        f(std::span<const std::uint32_t>(ranks), route(m, group, mb));
        if (forget) forget_route(m, group, mb);
      }
    }
  }

  // One MoE all-to-all over every EP group of stage s: n[src][dst] tokens of
  // hidden bf16 values plus the counts header, src -> dst to the experts,
  // dst -> src back; a send for every ordered pair (moe.hpp).
  void all_to_all(std::uint32_t s, const Step& step) {
    CollectiveSpec sp = spec(CollectiveKind::kAllToAll, 0, step.label);
    const std::uint32_t ep = c_.moe.ep;
    if (ep < 2) {
      if (step.last_use)
        for_each_ep_group(
            s, step.slot, step.mb, [](auto, const auto&) {}, true);
      return;
    }
    const std::uint64_t row = c_.model.hidden * 2, header = c_.moe.header_bytes();
    lower_.begin_launch(Await::kNow);
    for_each_ep_group(
        s, step.slot, step.mb,
        [&](std::span<const std::uint32_t> group, const TokenMatrix& m) {
          sp.group.clear();
          for (const std::uint32_t r : group) sp.group.emplace_back(r);
          sp.pair_bytes.assign(std::size_t{ep} * ep, 0);
          sp.bytes = 0;
          for (std::uint32_t i = 0; i < ep; ++i) {
            for (std::uint32_t j = 0; j < ep; ++j) {
              if (i == j) continue;
              const std::uint64_t n = step.forward ? m.at(i, j) : m.at(j, i);
              sp.pair_bytes[std::size_t{i} * ep + j] = n * row + header;
              sp.bytes += n * row + header;
            }
          }
          // Equal pairs (uniform routing, divisible): a plain all-to-all of
          // the same sends, in the same order, which Chakra writes as one
          // ALL_TO_ALL node per rank; otherwise the all-to-all-v.
          const std::uint64_t first = sp.pair_bytes[1];
          bool equal = true;
          for (std::uint32_t i = 0; i < ep && equal; ++i) {
            for (std::uint32_t j = 0; j < ep; ++j) {
              if (i != j && sp.pair_bytes[std::size_t{i} * ep + j] != first) equal = false;
            }
          }
          if (equal) {
            sp.pair_bytes.clear();
            sp.bytes = first * ep;  // chunk j of rank i goes to j: `first` each
          }
          lower_.launch(sp);
        },
        step.last_use);
  }

  const TrainingConfig& c_;
  detail::Lowering lower_;
  double tokens_;       // tokens per rank and micro-batch: micro_batch * seq / cp
  double norm_tokens_;  // those the norms run on (1/tp of them, sequence parallel)
  std::uint64_t act_bytes_;
  LayerCompute lc_;
  MoeCompute moe_;
  std::optional<Router> router_;
  std::unordered_map<std::uint64_t, TokenMatrix> routes_;
  std::vector<std::vector<std::uint32_t>> stage_ranks_;
  // Per stage: slot -> the collectives a kJoin step joins.
  std::vector<std::unordered_map<std::uint32_t, std::vector<std::uint32_t>>> pending_;
  std::vector<Mail> mailbox_;
};

}  // namespace

core::Workload generate_llama(const TrainingConfig& c, Program* program) {
  c.validate();
  return Generator(c, program).run();
}

Program generate_llama_program(const TrainingConfig& c) {
  c.validate();
  Program program;
  Generator(c, &program, false).run_program();
  return program;
}

std::vector<std::uint64_t> dp_allreduce_bytes(const TrainingConfig& c) {
  std::vector<std::uint64_t> bytes{layer_params_per_rank(c.model, c.tp) * 2};
  if (c.embeddings) {
    bytes.push_back(embed_params(c) * 2);
    bytes.push_back(head_params(c) * 2);
  }
  return bytes;
}

}  // namespace flux::workload
