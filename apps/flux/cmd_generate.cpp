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
#include "flux/io/output.hpp"
#include "flux/workload/llama.hpp"
#include "outputs.hpp"

namespace flux::cli {
namespace {

struct GenerateOptions {
  TrainingCliOptions training;
  std::string format = "json";
  std::string chakra_collectives = "comm-coll";
  std::string output;
};

/// generate's defaults: Llama 3 8B, TP4 x DP2 on A100s (the paper's setup).
workload::TrainingConfig default_training() {
  workload::TrainingConfig c;
  c.tp = 4;
  c.dp = 2;
  return c;
}

void run_llama3(const GenerateOptions& o) {
  const workload::TrainingConfig config = o.training.resolve(default_training());
  if (o.format != "json" && o.format != "chakra") {
    throw core::InputError("", "--format", o.format, "unknown format (json or chakra)");
  }
  if (o.format == "chakra" && config.generated_dp() != config.dp) {
    throw core::InputError("", "--fold-dp", std::to_string(config.fold_dp),
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
  if (o.format == "json") {
    io::check_outputs({{o.output, "the workload output", "-o", true}}, {});
  } else {
    check_output_prefix(o.output, "-o");
  }
  workload::Program program;
  const core::Workload w =
      workload::generate_llama(config, o.format == "chakra" ? &program : nullptr);
  std::string wrote = output_name(o.output);
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
  opts->training.add_to(*l, default_training(), true);
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
