// flux generate llama3 ...: writes one training iteration as a workload file, or
// as Chakra execution traces (--format chakra).
#include <iostream>
#include <memory>
#include <optional>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/chakra/export.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/workload/llama.hpp"

namespace flux::cli {
namespace {

struct GenerateOptions {
  std::string model = "8b";
  std::optional<std::uint32_t> layers;
  std::optional<std::uint64_t> hidden, ffn, vocab;
  std::optional<std::uint32_t> heads, kv_heads;
  std::uint32_t tp = 4, dp = 2;
  std::uint32_t fold_dp = 0;
  std::uint64_t seq = 8192, micro_batch = 1;
  std::uint32_t micro_batches = 1;
  std::string gpu = "a100";
  std::optional<double> gemm_eff, attn_eff, mem_eff;
  std::string collective = "ring";
  bool embeddings = false;
  bool no_optimizer = false;
  std::string format = "json";
  std::string chakra_collectives = "comm-coll";
  std::string output;
};

workload::TrainingConfig to_config(const GenerateOptions& o) {
  workload::TrainingConfig c;
  c.model = workload::ModelConfig::llama3(o.model);
  if (o.layers) c.model.layers = *o.layers;
  if (o.hidden) c.model.hidden = *o.hidden;
  if (o.ffn) c.model.ffn = *o.ffn;
  if (o.vocab) c.model.vocab = *o.vocab;
  if (o.heads) c.model.heads = *o.heads;
  if (o.kv_heads) c.model.kv_heads = *o.kv_heads;
  c.tp = o.tp;
  c.dp = o.dp;
  c.fold_dp = o.fold_dp;
  c.seq = o.seq;
  c.micro_batch = o.micro_batch;
  c.micro_batches = o.micro_batches;
  c.gpu = workload::GpuSpec::preset(o.gpu);
  if (o.gemm_eff) c.gpu.gemm_efficiency = *o.gemm_eff;
  if (o.attn_eff) c.gpu.attention_efficiency = *o.attn_eff;
  if (o.mem_eff) c.gpu.memory_efficiency = *o.mem_eff;
  c.collective = workload::algorithm_from_string(o.collective);
  c.embeddings = o.embeddings;
  c.optimizer = !o.no_optimizer;
  return c;
}

void run_llama3(const GenerateOptions& o) {
  workload::TrainingConfig config;
  try {
    config = to_config(o);
    config.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  if (o.format != "json" && o.format != "chakra") {
    throw core::InputError("", "--format", o.format, "unknown format (json or chakra)");
  }
  if (o.format == "chakra" && config.generated_dp() != config.dp) {
    throw core::InputError("", "--fold-dp", std::to_string(o.fold_dp),
                           "a folded workload has no Chakra form (every rank needs its trace)");
  }
  if (o.chakra_collectives != "comm-coll" && o.chakra_collectives != "send-recv") {
    throw core::InputError("", "--chakra-collectives", o.chakra_collectives,
                           "unknown encoding (comm-coll or send-recv)");
  }
  // Refused before anything is generated, like flux unfold (one estimate).
  const workload::WorkloadSize size = workload::estimate_llama_size(config);
  refuse_if_too_large(
      core::workload_memory_bytes(size.tasks, size.deps),
      core::InputError("", "--dp", std::to_string(config.dp),
                       "about " + std::to_string(size.tasks) +
                           " sends; fold the DP replicas (--fold-dp, e.g. --fold-dp 4)"));
  workload::Program program;
  const core::Workload w =
      workload::generate_llama(config, o.format == "chakra" ? &program : nullptr);
  std::string wrote = o.output;
  if (o.format == "json") {
    formats::save_workload(o.output, w);
  } else {
    const auto encoding = o.chakra_collectives == "comm-coll"
                              ? chakra::CollectiveEncoding::kCommColl
                              : chakra::CollectiveEncoding::kSendRecv;
    const auto files = chakra::save_chakra(o.output, chakra::to_chakra(w, program, encoding));
    wrote = files.front().string() + " .. " + files.back().string();
  }
  print_written(wrote, w);
}

}  // namespace

void register_generate(CLI::App& app) {
  auto* gen = app.add_subcommand("generate", "generate a training-iteration workload");
  gen->require_subcommand(1);
  auto opts = std::make_shared<GenerateOptions>();
  auto* l = gen->add_subcommand("llama3", "Llama 3 with Megatron-LM tensor and data parallelism");
  l->add_option("--model", opts->model, "preset: 8b, 70b, 405b")->capture_default_str();
  l->add_option("--layers", opts->layers, "transformer layers (default: the preset's)");
  l->add_option("--hidden", opts->hidden, "hidden size (default: the preset's)");
  l->add_option("--ffn", opts->ffn, "FFN intermediate size (default: the preset's)");
  l->add_option("--heads", opts->heads, "attention heads (default: the preset's)");
  l->add_option("--kv-heads", opts->kv_heads, "key/value heads (default: the preset's)");
  l->add_option("--vocab", opts->vocab, "vocabulary size (default: the preset's)");
  l->add_option("--tp", opts->tp, "tensor-parallel degree (TP groups are consecutive ranks)")
      ->capture_default_str();
  l->add_option("--dp", opts->dp, "data-parallel degree")->capture_default_str();
  l->add_option("--fold-dp", opts->fold_dp,
                "generate only this many DP replicas (>= 3, dividing dp, even if dp is) standing "
                "for all dp of them: exact by the DP rings' symmetry (docs/model.md, Folding); "
                "ring collectives only");
  l->add_option("--seq", opts->seq, "sequence length in tokens")->capture_default_str();
  l->add_option("--micro-batch", opts->micro_batch, "sequences per micro-batch")
      ->capture_default_str();
  l->add_option("--micro-batches", opts->micro_batches, "micro-batches per iteration")
      ->capture_default_str();
  l->add_option("--gpu", opts->gpu, "compute model: a100, h100")->capture_default_str();
  l->add_option("--gemm-efficiency", opts->gemm_eff, "fraction of peak FLOP/s on GEMMs");
  l->add_option("--attention-efficiency", opts->attn_eff, "fraction of peak on attention");
  l->add_option("--memory-efficiency", opts->mem_eff, "fraction of peak HBM bandwidth");
  l->add_option("--collective", opts->collective, "ring, direct, halving-doubling")
      ->capture_default_str();
  l->add_flag("--embeddings", opts->embeddings,
              "also model the embedding, LM head and loss and their traffic");
  l->add_flag("--no-optimizer", opts->no_optimizer, "omit the optimizer step's trailing compute");
  l->add_option("--format", opts->format,
                "json (flux.workload/v1) or chakra (OUTPUT.<rank>.et per rank, OUTPUT.json groups)")
      ->capture_default_str();
  l->add_option("--chakra-collectives", opts->chakra_collectives,
                "chakra: collectives as comm-coll (COMM_COLL nodes) or send-recv (their sends)")
      ->capture_default_str();
  l->add_option("-o,--output", opts->output,
                "workload file to write (--format chakra: the trace prefix)")
      ->required();
  l->callback([opts] { run_llama3(*opts); });
}

}  // namespace flux::cli
