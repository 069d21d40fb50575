// flux generate llama3 / moe ...: writes one training iteration (dense, or
// mixture of experts) as a workload file, or as Chakra execution traces
// (--format chakra). flux generate random ...: a
// random DAG of sends (workload/random.hpp), as a workload file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/chakra/export.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/frontend/outputs.hpp"
#include "flux/frontend/training.hpp"
#include "flux/io/output.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/random.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct GenerateOptions {
  frontend::TrainingOptions training;
  std::string format = "json";
  std::string chakra_collectives = "comm-coll";
  /// A schedule whose choice of decompositions (--collective auto) the
  /// Chakra trace is written with.
  std::string choice;
  std::string output;
};

struct RandomCliOptions {
  workload::RandomOptions random;
  std::string format = "json";
  std::string output;
};

void check_format(const std::string& format) {
  if (format != "json" && format != "chakra") {
    throw core::InputError("", "--format", format, "unknown format (json or chakra)");
  }
}

// The choice a schedule of `w` made, by name; errors name the file.
core::Choice choice_of_schedule(const std::string& file, const core::Workload& w) {
  const schedule::Schedule s = formats::read_schedule(file);
  try {
    return core::choice_of_plan(w, s.choice, s.workload);
  } catch (const core::InputError& e) {
    throw e.with_source(file);
  }
}

chakra::CollectiveEncoding encoding_of(const GenerateOptions& o) {
  return o.chakra_collectives == "comm-coll" ? chakra::CollectiveEncoding::kCommColl
                                             : chakra::CollectiveEncoding::kSendRecv;
}

// Writes the trace to o.output after checking every file it is against the
// inputs; returns what was written, for the report.
std::string write_trace(const GenerateOptions& o, const chakra::ChakraTrace& trace,
                        const std::vector<io::InputSpec>& inputs) {
  std::vector<io::OutputSpec> outputs;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    outputs.push_back({o.output + "." + std::to_string(r) + ".et", "a trace file", "-o", false});
  }
  if (!trace.groups.empty()) {
    outputs.push_back({o.output + ".json", "the communicator groups", "-o", false});
  }
  io::check_outputs(outputs, inputs);
  std::vector<std::filesystem::path> removed;
  const auto files = chakra::save_chakra(o.output, trace, false, &removed);
  std::string wrote = files.front().string() + " .. " + files.back().string();
  if (!removed.empty()) {
    wrote += " (removed " + removed.front().string() +
             (removed.size() > 1 ? " .. " + removed.back().string() : std::string()) +
             ", ranks of an earlier trace)";
  }
  return wrote;
}

void run_training(const GenerateOptions& o, const workload::TrainingConfig& base) {
  const workload::TrainingConfig config = o.training.resolve(base);
  check_format(o.format);
  if (o.format == "chakra" && config.generated_dp() != config.dp) {
    throw core::InputError("", "--fold-dp", std::to_string(config.fold_dp),
                           "a folded workload has no Chakra form (every rank needs its trace)");
  }
  if (o.chakra_collectives != "comm-coll" && o.chakra_collectives != "send-recv") {
    throw core::InputError("", "--chakra-collectives", o.chakra_collectives,
                           "unknown encoding (comm-coll or send-recv)");
  }
  if (!o.choice.empty() && o.format != "chakra") {
    throw core::InputError("", "--choice", o.choice,
                           "only a Chakra trace is written with a schedule's choice (--format "
                           "chakra); the workload file keeps every alternative");
  }
  // What the command reads: a routing file (--routing file:R.json), which
  // no output may replace.
  std::vector<io::InputSpec> inputs;
  if (config.moe.enabled() && config.moe.routing.kind == workload::RoutingKind::kFile) {
    inputs.push_back({config.moe.routing.file, "the routing file (--routing)"});
  }
  if (!o.choice.empty()) inputs.push_back({o.choice, "the schedule (--choice)"});
  // Refused before anything is generated, like flux unfold (one estimate);
  // a trace of a job whose workload would not fit is written from its
  // program (a choice needs the workload).
  const workload::WorkloadSize size = workload::estimate_llama_size(config);
  const std::uint64_t need = core::workload_memory_bytes(size.tasks, size.deps);
  const std::uint64_t have = frontend::available_memory();
  if (o.format == "chakra" && o.choice.empty() && have != 0 && need > have) {
    frontend::check_output_prefix(o.output, "-o");
    const workload::Program program = workload::generate_llama_program(config);
    const std::string wrote = write_trace(o, chakra::to_chakra(program, encoding_of(o)), inputs);
    std::cerr << "wrote " << wrote << ": " << program.name << ", " << program.num_tasks
              << " sends in " << program.collectives.size() << " collectives, from the job's "
              << "program (its workload, about " << core::format_bytes(static_cast<double>(need))
              << ", would not fit in the " << core::format_bytes(static_cast<double>(have))
              << " available)\n";
    return;
  }
  frontend::refuse_if_too_large(
      need,
      core::InputError("", "--dp", std::to_string(config.dp),
                       "about " + std::to_string(size.tasks) +
                           (config.moe.enabled()
                                ? " sends; generate fewer layers (--layers), micro-batches or DP "
                                  "replicas (a MoE job cannot be folded)"
                                : " sends; fold the DP replicas (--fold-dp, e.g. --fold-dp 4)")));
  if (o.format == "json") {
    io::check_outputs({{o.output, "the workload output", "-o", true}}, inputs);
  } else {
    frontend::check_output_prefix(o.output, "-o");
  }
  workload::Program program;
  const core::Workload w =
      workload::generate_llama(config, o.format == "chakra" ? &program : nullptr);
  // A trace with a schedule's choice holds the chosen sends: its figures.
  core::Choice choice;
  std::optional<core::Workload> chosen;
  if (!o.choice.empty()) {
    choice = choice_of_schedule(o.choice, w);
    chosen.emplace(core::resolve(w, choice));
  }
  const core::WorkloadSummary summary =
      summary_before_writing(chosen ? *chosen : w,
                             "--layers, --micro-batches, --seq, or the GPU's efficiencies "
                             "(--gemm-efficiency, --attention-efficiency, --memory-efficiency)");
  std::string wrote = output_name(o.output);
  if (o.format == "json") {
    formats::save_workload(o.output, w);
  } else {
    wrote = write_trace(o, chakra::to_chakra(w, program, encoding_of(o), choice), inputs);
  }
  if (chosen) wrote += " (the decompositions of " + o.choice + ")";
  print_written(wrote, chosen ? *chosen : w, summary);
}

void run_random(const RandomCliOptions& o) {
  try {
    o.random.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, workload::kRandomOptions);
  }
  check_format(o.format);
  if (o.format == "chakra") {
    // The exporter writes a generator's program (steps every rank runs); a
    // random DAG has none, and its deps cross ranks, which Chakra nodes
    // (waiting on their own rank's nodes only) cannot say.
    throw core::InputError("", "--format", o.format,
                           "a random DAG has no Chakra form (its deps join sends of unrelated "
                           "ranks; a Chakra node waits on its own rank's nodes): use json");
  }
  frontend::refuse_if_too_large(
      core::workload_memory_bytes(o.random.sends, o.random.max_deps()),
      core::InputError("", "--sends", std::to_string(o.random.sends), "generate fewer sends"));
  io::check_outputs({{o.output, "the workload output", "-o", true}}, {});
  const core::Workload w = workload::generate_random(o.random);
  const core::WorkloadSummary summary =
      summary_before_writing(w, "--sends, --transfer, --compute, --release or --tail");
  formats::save_workload(o.output, w);
  print_written(output_name(o.output), w, summary);
}

}  // namespace

void register_generate(CLI::App& app) {
  auto* gen =
      app.add_subcommand("generate", "generate a workload: a training iteration or a random DAG");
  gen->require_subcommand(1);
  auto add_training = [gen](const char* name, const char* help, bool moe,
                            const workload::TrainingConfig& base) {
    auto opts = std::make_shared<GenerateOptions>();
    auto* l = gen->add_subcommand(name, help);
    opts->training.moe = moe;
    add_training_options(*l, opts->training, base, true);
    l->add_option(
         "--format", opts->format,
         "json (flux.workload/v1) or chakra (OUTPUT.<rank>.et per rank, OUTPUT.json groups)")
        ->capture_default_str();
    l->add_option("--chakra-collectives", opts->chakra_collectives,
                  "chakra: collectives as comm-coll (COMM_COLL nodes) or send-recv (their sends)")
        ->capture_default_str();
    l->add_option("--choice", opts->choice,
                  "chakra, with --collective auto: a schedule of this job (flux schedule); each "
                  "collective is written in the decomposition it chose")
        ->check(non_empty_path());
    l->add_option("-o,--output", opts->output,
                  "workload file to write (--format chakra: the trace prefix)")
        ->required();
    l->callback([opts, base] { run_training(*opts, base); });
  };
  add_training("llama3",
               "Llama 3 under Megatron-LM parallelisms: TP (sequence parallel), CP, PP (1F1B), DP "
               "(sharded)",
               false, frontend::generate_defaults());
  add_training("moe",
               "a mixture-of-experts model (Megatron-Core): expert parallelism inside DP x CP, "
               "token all-to-alls by a routing, with TP, CP, PP and DP as llama3",
               true, frontend::moe_generate_defaults());

  auto ropts = std::make_shared<RandomCliOptions>();
  auto* r = gen->add_subcommand(
      "random", "a random DAG of sends: levels, fan-in, repeated pairs, spread sizes and compute");
  add_options(*r, workload::kRandomOptions, ropts->random);
  r->add_option("--format", ropts->format, "json (flux.workload/v1); chakra is refused")
      ->capture_default_str();
  r->add_option("-o,--output", ropts->output, "workload file to write")->required();
  r->callback([ropts] { run_random(*ropts); });
}

}  // namespace flux::cli
