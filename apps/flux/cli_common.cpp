// The option groups the subcommands share, as CLI11 options filling the
// front end's structs (cli_common.hpp).
#include "cli_common.hpp"

#include "cli_options.hpp"

#include <string_view>
#include <vector>

#include "flux/core/option.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/robust.hpp"

namespace flux::cli {

void add_system_options(CLI::App& app, frontend::SystemOptions& o,
                        std::initializer_list<std::string_view> skip) {
  add_options(app, core::kSystemOptions, o.system, skip);
  // Given or not decides whether a workload's scale-up hints apply.
  if (CLI::Option* size = app.get_option_no_throw("--scaleup-size")) {
    size->each([&o](const std::string&) { o.scaleup_size_given = true; });
  }
  if (CLI::Option* gbps = app.get_option_no_throw("--scaleup-gbps")) {
    gbps->each([&o](const std::string&) { o.scaleup_gbps_given = true; });
  }
  if (CLI::Option* switches = app.get_option_no_throw("--switches")) {
    switches->each([&o](const std::string&) { o.switches_given = true; });
  }
}

void add_scheduler_options(CLI::App& app, frontend::SchedulerRun& run, bool with_scheduler,
                           bool with_milp_files) {
  if (with_scheduler) {
    std::string names;
    for (std::string_view n : sched::scheduler_names()) {
      names += names.empty() ? "" : ", ";
      names += n;
    }
    app.add_option("--scheduler", run.scheduler, names)->capture_default_str();
    const auto& robust = std::get<0>(workload::kRobustPlanningOptions);
    app.add_option(std::string(robust.flag), run.robust_jitter,
                   std::string(robust.help) + " [" + robust.range_text() +
                       "; docs/model.md, Robust planning]")
        ->type_name(type_name(robust));
    app.add_option("--alternative", run.sched.collective,
                   "a workload generated with --collective auto: run every collective in its "
                   "alternative of this name (ring, direct, halving-doubling, bruck, "
                   "hierarchical) where it has one, instead of choosing")
        ->type_name("NAME")
        ->check(CLI::Validator(
            [](const std::string& v) { return v.empty() ? std::string("must not be empty") : ""; },
            "NAME"));
  }
  add_options(app, sched::kSchedulerOptions, run.sched);
  add_options(app, sched::kMilpOptions, run.sched.milp);
  if (with_milp_files) {
    app.add_option("--export-milp", run.sched.milp.export_path,
                   "also write the MILP as an .lp or .mps file (for Gurobi, HiGHS, SCIP, CPLEX)")
        ->check(non_empty_path());
    app.add_option("--solution", run.sched.milp.solution_path,
                   "decode a solver's .sol file for the exported model instead of solving")
        ->check(non_empty_path());
  }
}

void add_training_options(CLI::App& app, frontend::TrainingOptions& o,
                          const workload::TrainingConfig& base, bool all) {
  if (o.moe) {
    std::string names;
    for (std::string_view n : workload::moe_model_names()) {
      names += (names.empty() ? "" : ", ") + std::string(n);
    }
    app.add_option(
        "--model", o.model,
        "MoE model: " + names + " (docs/model.md, MoE models) [default " + base.model.name + "]");
    add_overrides(app, workload::kMoeOptions, o.moe_overrides, &base.moe);
    app.add_option("--routing", o.routing,
                   "token routing: uniform, zipf:S, zipf-drift:S:D or file:R.json (docs/model.md, "
                   "MoE routing) "
                   "[default " +
                       base.moe.routing.to_string() + "]");
    add_overrides(app, workload::kRoutingOptions, o.routing_overrides, &base.moe.routing);
  } else {
    app.add_option("--model", o.model,
                   "Llama 3 preset: 8b, 70b, 405b [default " + base.model.name + "]");
  }
  app.add_option("--gpu", o.gpu, "compute model: a100, h100 [default " + base.gpu.name + "]");
  if (!all) {
    add_overrides(app, workload::kTrainingOptions, o.overrides, &base, {"--tp", "--dp"});
    return;
  }
  add_overrides(app, workload::kModelOptions, o.model_overrides);
  add_overrides(app, workload::kTrainingOptions, o.overrides, &base);
  add_overrides(app, workload::kGpuOptions, o.gpu_overrides);
  app.add_option("--collective", o.collective,
                 "ring, direct, halving-doubling, bruck (the all-to-alls; ring elsewhere), "
                 "hierarchical (collectives across scale-up domains; ring elsewhere), or auto: "
                 "every one that applies, for the scheduler to choose per collective "
                 "[default ring]");
  std::string jobs;
  for (std::string_view n : workload::job_names())
    jobs += (jobs.empty() ? "" : ", ") + std::string(n);
  if (!o.moe) {
    app.add_option("--job", o.job,
                   "a published training job as the defaults, which the other options override: " +
                       jobs + " (docs/model.md, Named jobs; all assume 8-GPU scale-up domains)");
  }
  app.add_option("--order", o.order,
                 "rank order, TP innermost: tp-cp-dp-pp (Megatron's) or tp-cp-pp-dp (Llama 3's) "
                 "[default " +
                     std::string(workload::to_string(base.order)) + "]");
  app.add_option("--dp-sharding", o.dp_sharding,
                 "none, optimizer (ZeRO-1 / distributed optimizer) or full (ZeRO-3 / FSDP) "
                 "[default " +
                     std::string(workload::to_string(base.dp_sharding)) + "]");
  app.add_flag("--sequence-parallel", o.sequence_parallel,
               "Megatron sequence parallelism: each TP all-reduce becomes a reduce-scatter and an "
               "all-gather");
  app.add_flag("--embeddings", o.embeddings,
               "also model the embedding, LM head and loss and their traffic");
  app.add_flag("--no-optimizer", o.no_optimizer, "omit the optimizer step's trailing compute");
}

void add_chakra_options(CLI::App& app, frontend::ChakraOptions& o) {
  app.add_option("--comm-groups", o.comm_groups,
                 "Chakra: communicator groups JSON ({\"1\": [0, 1], ...}; default: PREFIX.json "
                 "if present)")
      ->check(non_empty_path());
  app.add_option("--gpu", o.gpu, "Chakra: roofline for COMP nodes without duration: a100, h100")
      ->capture_default_str();
  app.add_option("--collective", o.collective,
                 "Chakra: algorithm for COMM_COLL nodes: ring, direct, halving-doubling, "
                 "bruck, hierarchical, or auto: every one that applies, for the scheduler to "
                 "choose (default: the one Flux recorded in traces it wrote, else ring)");
  app.add_flag("--drop-missing-deps", o.drop_missing_deps,
               "Chakra: ignore dependencies on node ids absent from a file (with a warning)");
}

void add_workload_argument(CLI::App& app, std::string& input, frontend::ChakraOptions& chakra) {
  app.add_option("workload", input,
                 "workload: a file (flux.workload/v1 JSON, or gzip of it), or a Chakra trace "
                 "prefix P (P.0.et, P.1.et, ...) read directly")
      ->required();
  add_chakra_options(app, chakra);
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& s) { return s.empty() ? std::string("an empty path") : ""; }, "PATH");
}

std::string usage_error(const CLI::App& app, const CLI::ParseError& e, int argc,
                        const char* const* argv) {
  // The innermost subcommand that was given, for "flux schedule --help".
  const CLI::App* at = &app;
  std::string command = "flux";
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : at->get_subcommands()) {
      at = sub;
      command += " " + sub->get_name();
      deeper = true;
      break;
    }
  }
  std::string known;
  for (const CLI::App* sub : at->get_subcommands({})) {
    known += known.empty() ? "" : ", ";
    known += sub->get_name();
  }
  const std::string help = " (" + command + " --help)";
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
      at->get_require_subcommand_min() > 0 && at->get_subcommands().empty()) {
    // "flux frobnicate" or "flux": the first word that is not an option.
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (!word.empty() && word[0] != '-' && command.find(" " + word) == std::string::npos) {
        return "'" + word + "': unknown command (known: " + known + ")" + help;
      }
    }
    return "a command is required (" + known + ")" + help;
  }
  if (const auto* extras = dynamic_cast<const CLI::ExtrasError*>(&e); extras != nullptr) {
    std::vector<std::string> args = at->remaining();
    if (args.empty()) args = app.remaining();
    const std::string first = args.empty() ? std::string() : args.front();
    if (!first.empty() && first[0] == '-') return first + ": unknown option" + help;
    if (!first.empty()) return "'" + first + "': unexpected argument" + help;
  }
  // CLI11's own words, on one line.
  std::string what = e.what();
  for (char& ch : what) ch = ch == '\n' ? ' ' : ch;
  return what + help;
}

}  // namespace flux::cli
