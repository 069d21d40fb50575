// Llama 3 training-iteration generator. The model, its operations and their
// sizes are in docs/model.md ("LLM training workload"); the schedule of
// compute and collectives per rank is in llama.hpp.
//
// Every rank runs the same program (SPMD). Each rank keeps a *frontier*: a set
// of (task, wait) entries meaning "the rank's compute may proceed once `task`
// has finished and `wait` more compute has elapsed"; an entry with no task
// stands for the start of the iteration. Compute adds to every wait;
// launching a collective connects the frontier to the rank's initial sends in
// it (an edge with the wait as compute, or a release for the start entry);
// waiting for a collective adds its terminal tasks with wait 0. A blocking
// collective whose terminal tasks descend from its initial sends replaces the
// frontier (older entries are dominated). At the end the optimizer step
// becomes the tail of every entry left.
#include "flux/workload/llama.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/workload/builder.hpp"

namespace flux::workload {
namespace {

using core::Rank;
using core::TaskIndex;
using core::TimePs;

constexpr double kBf16 = 2;  // bytes per activation / gradient value
constexpr double kFp32 = 4;
// What a compute time beyond core::kMaxTimePs is reported as.
constexpr std::string_view kComputeField = "compute of one iteration";

// a + b + ..., each sum checked against core::kMaxTimePs.
TimePs sum_compute(std::initializer_list<TimePs> terms) {
  TimePs total = 0;
  for (TimePs t : terms) total = core::add_time(total, t, kComputeField);
  return total;
}
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
// Per-rank bytes of the DP gradient all-reduces (bf16 gradients).
std::uint64_t layer_grad_bytes(const TrainingConfig& c) {
  return layer_params_per_rank(c.model, c.tp) * 2;
}
std::uint64_t embed_grad_bytes(const TrainingConfig& c) {
  return vocab_shard(c) * c.model.hidden * 2;
}
std::uint64_t head_grad_bytes(const TrainingConfig& c) {
  return (vocab_shard(c) + 1) * c.model.hidden * 2;  // LM head shard and the final norm
}

struct Entry {
  TaskIndex task;  // invalid: start of the iteration
  TimePs wait = 0;
};

class Frontier {
 public:
  Frontier() : entries_{Entry{}} {}

  void compute(TimePs d) {
    for (Entry& e : entries_) e.wait += d;
  }

  void connect(WorkloadBuilder& b, const std::vector<TaskIndex>& initial) const {
    for (TaskIndex v : initial) {
      for (const Entry& e : entries_) {
        if (e.task.valid()) {
          b.add_dep(e.task, v, e.wait);
        } else {
          b.raise_release(v, e.wait);
        }
      }
    }
  }

  void join(const std::vector<TaskIndex>& terminal, bool replace) {
    if (replace) entries_.clear();
    for (TaskIndex t : terminal) {
      auto it = std::find_if(entries_.begin(), entries_.end(),
                             [&](const Entry& e) { return e.task == t; });
      if (it == entries_.end()) entries_.push_back(Entry{t, 0});
    }
  }

  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

class Generator {
 public:
  Generator(const TrainingConfig& c, Program* program)
      : c_(c),
        program_(program),
        b_(name(c), c.generated_ranks()),
        frontier_(c.generated_ranks()),
        outstanding_(c.generated_ranks()),
        tokens_(static_cast<double>(c.micro_batch * c.seq)),
        act_bytes_(c.micro_batch * c.seq * c.model.hidden * 2) {
    if (program_ != nullptr) *program_ = Program{c.generated_ranks(), {}, {}, 0};
    if (c.generated_dp() != c.dp) b_.set_fold(core::Fold{c.dp / c.generated_dp(), c.tp});
  }

  core::Workload run() {
    const LayerCompute lc = layer_compute(c_);
    const std::uint32_t layers = c_.model.layers;
    for (std::uint32_t mb = 0; mb < c_.micro_batches; ++mb) {
      const std::string p = cat({"mb", std::to_string(mb), "."});
      const bool last_mb = mb + 1 == c_.micro_batches;
      if (c_.embeddings) embedding_forward(p);
      for (std::uint32_t l = 0; l < layers; ++l) {
        const std::string L = cat({p, "L", std::to_string(l), "."});
        compute(lc.attn_fwd);
        tp_allreduce(act_bytes_, cat({L, "fwd.attn.tp-ar"}));
        compute(lc.mlp_fwd);
        tp_allreduce(act_bytes_, cat({L, "fwd.mlp.tp-ar"}));
      }
      if (c_.embeddings) head_forward_backward(p, last_mb);
      for (std::uint32_t l = layers; l-- > 0;) {
        const std::string L = cat({p, "L", std::to_string(l), "."});
        compute(lc.mlp_bwd);
        tp_allreduce(act_bytes_, cat({L, "bwd.mlp.tp-ar"}));
        compute(lc.norm_bwd);
        compute(lc.attn_bwd);
        tp_allreduce(act_bytes_, cat({L, "bwd.attn.tp-ar"}));
        compute(lc.norm_bwd);
        if (last_mb) {
          dp_allreduce(layer_grad_bytes(c_), cat({"L", std::to_string(l), ".dp-ar"}));
        }
      }
      if (c_.embeddings) {
        // Embedding backward: scatter-add of the output gradient, no TP traffic.
        compute(memory(2 * tokens_ * hidden() * kBf16));
        if (last_mb) dp_allreduce(embed_grad_bytes(c_), "embed.dp-ar");
      }
    }
    finish();
    return std::move(b_).build();
  }

 private:
  static std::string name(const TrainingConfig& c) {
    const std::string fold =
        c.generated_dp() != c.dp ? cat({"-fold", std::to_string(c.generated_dp())}) : "";
    return cat({"llama3-", c.model.name, "-L", std::to_string(c.model.layers), "-tp",
                std::to_string(c.tp), "-dp", std::to_string(c.dp), fold, "-", c.gpu.name});
  }

  [[nodiscard]] double hidden() const { return static_cast<double>(c_.model.hidden); }
  [[nodiscard]] std::uint64_t vocab_shard() const { return workload::vocab_shard(c_); }
  [[nodiscard]] TimePs memory(double bytes) const {
    return roofline_ps(c_.gpu, OpClass::kMemory, memory_cost(bytes));
  }
  [[nodiscard]] TimePs gemm(double m, double k, double n) const {
    return roofline_ps(c_.gpu, OpClass::kGemm, gemm_cost(m, k, n));
  }

  void compute(TimePs d) {
    // Every wait a frontier accumulates is part of this total: checking it
    // keeps them all within core::kMaxTimePs.
    total_compute_ = core::add_time(total_compute_, d, kComputeField);
    for (Frontier& f : frontier_) f.compute(d);
    if (program_ == nullptr || d == 0) return;
    if (program_->ops.empty() || !program_->ops.back().collectives.empty()) {
      program_->ops.emplace_back();
    }
    program_->ops.back().compute_ps += d;
  }

  // Emits one collective and records it in the program.
  CollectiveTasks emit(const CollectiveSpec& spec) {
    const auto first = static_cast<std::uint32_t>(b_.num_tasks());
    CollectiveTasks ct = emit_collective(b_, spec);
    if (program_ != nullptr) {
      program_->ops.back().collectives.push_back(
          static_cast<std::uint32_t>(program_->collectives.size()));
      program_->collectives.push_back(
          {spec, first, static_cast<std::uint32_t>(b_.num_tasks()) - first, ct});
    }
    return ct;
  }

  void begin_collectives(bool blocking) {
    if (program_ != nullptr) program_->ops.push_back(ProgramOp{0, {}, blocking});
  }

  // Vocabulary-parallel embedding: a lookup in the local vocabulary shard,
  // then an all-reduce of the activation.
  void embedding_forward(const std::string& p) {
    compute(memory(2 * tokens_ * hidden() * kBf16));
    tp_allreduce(act_bytes_, cat({p, "embed.fwd.tp-ar"}));
  }

  // Final norm, column-parallel LM head and vocabulary-parallel cross entropy
  // (three all-reduces of one fp32 per token: max logit, target logit, sum of
  // exponentials), then the backward through them: after the LM head's input
  // and weight gradients, its input gradient is all-reduced.
  void head_forward_backward(const std::string& p, bool last_mb) {
    const double v = static_cast<double>(vocab_shard());
    const std::uint64_t per_token = c_.micro_batch * c_.seq * 4;
    compute(memory(2 * tokens_ * hidden() * kBf16) + gemm(tokens_, hidden(), v) +
            memory(tokens_ * v * kBf16));
    tp_allreduce(per_token, cat({p, "loss.max.tp-ar"}));
    tp_allreduce(per_token, cat({p, "loss.target.tp-ar"}));
    compute(memory(tokens_ * v * kBf16));
    tp_allreduce(per_token, cat({p, "loss.sumexp.tp-ar"}));
    compute(memory(2 * tokens_ * v * kBf16) + gemm(tokens_, v, hidden()) +
            gemm(v, tokens_, hidden()));
    tp_allreduce(act_bytes_, cat({p, "head.bwd.tp-ar"}));
    compute(memory(3 * tokens_ * hidden() * kBf16));
    if (last_mb) dp_allreduce(head_grad_bytes(c_), "head.dp-ar");
  }

  CollectiveSpec allreduce(std::uint64_t bytes, const std::string& label) {
    CollectiveSpec spec;
    spec.kind = CollectiveKind::kAllReduce;
    spec.algorithm = c_.collective;
    spec.bytes = bytes;
    spec.label = b_.intern_label(label);
    return spec;
  }

  // Blocking all-reduce over every TP group.
  void tp_allreduce(std::uint64_t bytes, const std::string& label) {
    if (c_.tp < 2) return;
    CollectiveSpec spec = allreduce(bytes, label);
    begin_collectives(true);
    for (std::uint32_t d = 0; d < c_.generated_dp(); ++d) {
      spec.group.clear();
      for (std::uint32_t t = 0; t < c_.tp; ++t) spec.group.emplace_back(d * c_.tp + t);
      const CollectiveTasks ct = emit(spec);
      for (std::uint32_t t = 0; t < c_.tp; ++t) {
        Frontier& f = frontier_[d * c_.tp + t];
        f.connect(b_, ct.initial[t]);
        f.join(ct.terminal[t], ct.replaces_frontier(t));
      }
    }
  }

  // Gradient all-reduce over every DP group, launched now and awaited only by
  // the optimizer step at the end of the iteration.
  void dp_allreduce(std::uint64_t bytes, const std::string& label) {
    if (c_.dp < 2) return;
    CollectiveSpec spec = allreduce(bytes, label);
    const std::uint32_t dp = c_.generated_dp();
    if (dp != c_.dp) spec.ring_size = c_.dp;  // folded: one period of the ring
    begin_collectives(false);
    for (std::uint32_t t = 0; t < c_.tp; ++t) {
      spec.group.clear();
      for (std::uint32_t d = 0; d < dp; ++d) spec.group.emplace_back(d * c_.tp + t);
      const CollectiveTasks ct = emit(spec);
      for (std::uint32_t d = 0; d < dp; ++d) {
        const std::uint32_t r = d * c_.tp + t;
        frontier_[r].connect(b_, ct.initial[d]);
        for (TaskIndex v : ct.terminal[d]) outstanding_[r].push_back(v);
      }
    }
  }

  void finish() {
    TimePs optimizer = 0;
    if (c_.optimizer) {
      std::uint64_t params = layer_params_per_rank(c_.model, c_.tp) * c_.model.layers;
      if (c_.embeddings) params += (2 * vocab_shard() + 1) * c_.model.hidden;
      optimizer = memory(kAdamBytesPerParam * static_cast<double>(params));
      core::add_time(total_compute_, optimizer, kComputeField);  // bounds every tail below
    }
    if (program_ != nullptr) program_->final_compute_ps = optimizer;
    for (std::uint32_t r = 0; r < c_.generated_ranks(); ++r) {
      for (const Entry& e : frontier_[r].entries()) {
        if (e.task.valid()) b_.raise_tail(e.task, e.wait + optimizer);
      }
      for (TaskIndex v : outstanding_[r]) b_.raise_tail(v, optimizer);
    }
  }

  const TrainingConfig& c_;
  Program* program_;
  TimePs total_compute_ = 0;  // compute of the iteration so far
  WorkloadBuilder b_;
  std::vector<Frontier> frontier_;
  std::vector<std::vector<TaskIndex>> outstanding_;
  double tokens_;
  std::uint64_t act_bytes_;
};

}  // namespace

ModelConfig ModelConfig::llama3(std::string_view size) {
  // Llama 3 / 3.1 model cards (Grattafiori et al. 2024, Table 3).
  if (size == "8b") return ModelConfig{"8b", 32, 4096, 14336, 32, 8, 128256};
  if (size == "70b") return ModelConfig{"70b", 80, 8192, 28672, 64, 8, 128256};
  if (size == "405b") return ModelConfig{"405b", 126, 16384, 53248, 128, 8, 128256};
  throw core::InputError("", "model", std::string(size),
                         "unknown Llama 3 model (use 8b, 70b, 405b)");
}

void ModelConfig::validate() const {
  core::check_options(kModelOptions, *this);
  if (hidden % heads != 0) {
    throw core::InputError("", "heads", std::to_string(heads),
                           "must divide hidden (" + std::to_string(hidden) + ")");
  }
  if (heads % kv_heads != 0) {
    throw core::InputError("", "kv_heads", std::to_string(kv_heads),
                           "must divide heads (" + std::to_string(heads) + ")");
  }
}

void TrainingConfig::validate() const {
  model.validate();
  gpu.validate();
  core::check_options(kTrainingOptions, *this);
  const auto t = std::to_string(tp);
  if (static_cast<std::uint64_t>(tp) * dp > (1u << 20)) {
    throw core::InputError("", "dp", std::to_string(dp), "tp * dp exceeds 2^20 ranks");
  }
  if (tp * dp < 2) {
    throw core::InputError("", "tp", t, "tp * dp must be at least 2 (one rank sends nothing)");
  }
  if (fold_dp != 0 && fold_dp != dp) {
    const auto f = std::to_string(fold_dp);
    if (fold_dp < 3 || dp % fold_dp != 0) {
      // With 2 replicas a DP ring's sends 0->1 and 1->0 would share one
      // circuit that stands for two different circuits of the job.
      throw core::InputError("", "fold_dp", f,
                             "must be at least 3 and divide dp (" + std::to_string(dp) + ")");
    }
    if (fold_dp % 2 == 1 && dp % 2 == 0) {
      // Two switches carry an even ring's circuits by alternating them; a
      // ring folded onto an odd number of replicas is an odd cycle, which
      // needs three: every schedule of the fold would be worse than the job's.
      throw core::InputError("", "fold_dp", f,
                             "must be even when dp is: a DP ring folded onto an odd number of "
                             "replicas cannot alternate its circuits as the even ring of dp does");
    }
    if (collective != Algorithm::kRing) {
      throw core::InputError("", "fold_dp", f,
                             "folding is exact only for ring collectives (collective is " +
                                 std::string(to_string(collective)) + ")");
    }
    for (const std::uint64_t bytes : dp_allreduce_bytes(*this)) {
      if (bytes % dp != 0) {
        throw core::InputError("", "fold_dp", f,
                               "not exact: a DP all-reduce of " + std::to_string(bytes) +
                                   " bytes does not split into dp = " + std::to_string(dp) +
                                   " equal chunks");
      }
    }
  }
  if (model.heads % tp != 0) {
    throw core::InputError("", "tp", t,
                           "must divide the attention heads (" + std::to_string(model.heads) + ")");
  }
  if (model.ffn % tp != 0) {
    throw core::InputError("", "tp", t,
                           "must divide the FFN size (" + std::to_string(model.ffn) + ")");
  }
  if (model.kv_heads % tp != 0 && tp % model.kv_heads != 0) {
    throw core::InputError(
        "", "tp", t,
        "must divide or be a multiple of the KV heads (" + std::to_string(model.kv_heads) + ")");
  }
}

LayerCompute layer_compute(const TrainingConfig& c) {
  const ModelConfig& m = c.model;
  const GpuSpec& g = c.gpu;
  const double T = static_cast<double>(c.micro_batch * c.seq);
  const double h = static_cast<double>(m.hidden);
  const double d = static_cast<double>(m.head_dim());
  const double q = static_cast<double>(m.heads / c.tp) * d;
  // With tp > kv_heads each rank keeps one (replicated) KV head.
  const double kv = static_cast<double>(std::max<std::uint32_t>(1, m.kv_heads / c.tp)) * d;
  const double f = static_cast<double>(m.ffn / c.tp);
  auto gemm = [&](double a, double k, double n) {
    return roofline_ps(g, OpClass::kGemm, gemm_cost(a, k, n));
  };
  auto mem = [&](double bytes) { return roofline_ps(g, OpClass::kMemory, memory_cost(bytes)); };
  // Causal flash attention: QK^T and PV are 2 * seq^2 * head_dim FLOPs each
  // per head and sequence, halved by the causal mask.
  const double seq = static_cast<double>(c.seq);
  const OpCost attn{0.5 * 4 * static_cast<double>(c.micro_batch) * seq * seq * d * (q / d),
                    kBf16 * T * (2 * q + 2 * kv)};
  const TimePs residual = mem(3 * T * h * kBf16);
  const TimePs norm = mem(2 * T * h * kBf16);
  const TimePs norm_bwd = mem(3 * T * h * kBf16);
  const TimePs rope = mem(2 * T * (q + kv) * kBf16);

  LayerCompute r;
  r.attn_fwd = sum_compute({residual, norm, gemm(T, h, q + 2 * kv), rope,
                            roofline_ps(g, OpClass::kAttention, attn), gemm(T, q, h)});
  r.mlp_fwd =
      sum_compute({residual, norm, gemm(T, h, 2 * f), mem(3 * T * f * kBf16), gemm(T, f, h)});
  // Backward of a GEMM: an input-gradient (dgrad) and a weight-gradient
  // (wgrad) GEMM of the same size.
  r.mlp_bwd = sum_compute(
      {gemm(T, h, f), gemm(f, T, h), mem(5 * T * f * kBf16), gemm(T, 2 * f, h), gemm(h, T, 2 * f)});
  // Flash-attention backward: 2.5x the forward FLOPs (five GEMMs instead of
  // two), twice the forward memory traffic.
  const OpCost attn_bwd{2.5 * attn.flops, 2 * attn.bytes};
  r.attn_bwd =
      sum_compute({gemm(T, h, q), gemm(q, T, h), roofline_ps(g, OpClass::kAttention, attn_bwd),
                   rope, gemm(T, q + 2 * kv, h), gemm(h, T, q + 2 * kv)});
  r.norm_bwd = sum_compute({norm_bwd, residual});
  return r;
}

std::uint64_t layer_params_per_rank(const ModelConfig& m, std::uint32_t tp) {
  const std::uint64_t h = m.hidden;
  const std::uint64_t d = m.head_dim();
  const std::uint64_t q = (m.heads / tp) * d;
  const std::uint64_t kv = std::max<std::uint64_t>(1, m.kv_heads / tp) * d;
  const std::uint64_t f = m.ffn / tp;
  // Q, K, V and O projections; gate, up and down; two RMSNorm weight vectors
  // (replicated on every TP rank).
  return h * (q + 2 * kv) + q * h + 3 * h * f + 2 * h;
}

namespace {

// Sends and deps of one all-reduce over `p` ranks (a ring of `ring` positions
// when folded), by the algorithm's pattern (collectives.hpp); deps include
// one connection per initial send of a rank's frontier. Doubles: no overflow.
std::pair<double, double> allreduce_size(Algorithm a, double p, double ring) {
  switch (a) {
    case Algorithm::kRing: {
      // Each send waits for the step before and for the tasks that ended its
      // rank's previous collective (the rank's last send and receive).
      const double sends = 2 * (ring - 1) * p;
      return {sends, 2 * sends + 2 * p};
    }
    case Algorithm::kDirect:
      // p(p-1) sends per phase; each all-gather send waits for all p-1
      // reduce-scatter receives of its rank, each reduce-scatter send for the
      // 2(p-1) tasks that ended the rank's previous collective.
      return {2 * p * (p - 1), 3 * p * (p - 1) * (p - 1) + 2 * p * (p - 1)};
    case Algorithm::kHalvingDoubling: {
      const double k = std::floor(std::log2(p)), pow2 = std::exp2(k), extra = p - pow2;
      const double steps = 2 * k + (extra > 0 ? 2 : 0);  // per rank, at most
      // A send waits for every earlier receive of its rank: steps^2 / 2.
      return {2 * extra + 2 * k * pow2, p * (steps * steps / 2 + 2 * steps)};
    }
  }
  return {0, 0};
}

}  // namespace

WorkloadSize estimate_llama_size(const TrainingConfig& c) {
  c.validate();
  const double tp = c.tp, groups = c.generated_dp(), layers = c.model.layers;
  double tasks = 0, deps = 0;
  if (c.tp > 1) {
    // Per micro-batch: 4 per layer, and with embeddings 1 + 4 (embedding, loss, head).
    const double count = c.micro_batches * (4 * layers + (c.embeddings ? 5 : 0)) * groups;
    const auto [t, d] = allreduce_size(c.collective, tp, tp);
    tasks += count * t;
    deps += count * d;
  }
  if (c.dp > 1) {
    // One per layer (and embedding and head) over each of the tp DP groups.
    const double count = (layers + (c.embeddings ? 2 : 0)) * tp;
    const auto [t, d] = allreduce_size(c.collective, groups, c.dp);
    tasks += count * t;
    deps += count * d;
  }
  const auto clamp = [](double x) {
    return x >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(x);
  };
  return {clamp(tasks), clamp(deps)};
}

core::Workload generate_llama(const TrainingConfig& c, Program* program) {
  c.validate();
  return Generator(c, program).run();
}

std::vector<std::uint64_t> dp_allreduce_bytes(const TrainingConfig& c) {
  std::vector<std::uint64_t> bytes{layer_grad_bytes(c)};
  if (c.embeddings) {
    bytes.push_back(embed_grad_bytes(c));
    bytes.push_back(head_grad_bytes(c));
  }
  return bytes;
}

}  // namespace flux::workload
