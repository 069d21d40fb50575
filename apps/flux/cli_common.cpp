#include "cli_common.hpp"

#include "cli_options.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/core/summary.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/sched/baselines.hpp"
#include "flux/sim/perturb.hpp"

namespace flux::cli {

void SystemOptions::add_to(CLI::App& app, std::initializer_list<std::string_view> skip) {
  add_options(app, core::kSystemOptions, system, skip);
  scaleup_size_ = app.get_option_no_throw("--scaleup-size");
  scaleup_gbps_ = app.get_option_no_throw("--scaleup-gbps");
}

core::System SystemOptions::to_system() const {
  try {
    system.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return system;
}

core::System SystemOptions::to_system(const core::Workload& w) const {
  core::System s = system;
  if (w.scaleup_size() != 0 && (scaleup_size_ == nullptr || scaleup_size_->count() == 0)) {
    s.scaleup_size = w.scaleup_size();
  }
  if (w.scaleup_gbps() != 0 && (scaleup_gbps_ == nullptr || scaleup_gbps_->count() == 0)) {
    s.scaleup_gbps = w.scaleup_gbps();
  }
  try {
    s.validate_for(w.accelerators());
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return s;
}

void SchedulerCliOptions::add_to(CLI::App& app, bool with_scheduler, bool with_milp_files) {
  if (with_scheduler) {
    std::string names;
    for (std::string_view n : sched::scheduler_names()) {
      names += names.empty() ? "" : ", ";
      names += n;
    }
    app.add_option("--scheduler", scheduler, names)->capture_default_str();
    const auto& robust = std::get<0>(workload::kRobustPlanningOptions);
    app.add_option(std::string(robust.flag), robust_jitter,
                   std::string(robust.help) + " [" + robust.range_text() +
                       "; docs/model.md, Robust planning]")
        ->type_name(type_name(robust));
  }
  add_options(app, sched::kSchedulerOptions, sched);
  add_options(app, sched::kMilpOptions, sched.milp);
  if (with_milp_files) {
    app.add_option("--export-milp", sched.milp.export_path,
                   "also write the MILP as an .lp or .mps file (for Gurobi, HiGHS, SCIP, CPLEX)")
        ->check(non_empty_path());
    app.add_option("--solution", sched.milp.solution_path,
                   "decode a solver's .sol file for the exported model instead of solving")
        ->check(non_empty_path());
  }
}

workload::RobustPlanning SchedulerCliOptions::robust_planning() const {
  workload::RobustPlanning r;
  if (robust_jitter.empty()) return r;
  r.jitter = parse_value(std::get<0>(workload::kRobustPlanningOptions), robust_jitter);
  if (!r.any() || scheduler.empty()) return r;
  const std::vector<std::string_view> names = sched::scheduler_names();
  // An unknown name is the scheduler run's to report.
  if (std::find(names.begin(), names.end(), scheduler) != names.end() &&
      !sched::make_scheduler(scheduler)->task_level()) {
    std::string planners;  // the schedulers that place sends by their compute
    for (std::string_view n : names) {
      if (!sched::make_scheduler(n)->task_level()) continue;
      planners += (planners.empty() ? "" : ", ") + std::string(n);
    }
    throw core::InputError("", "--robust-jitter", robust_jitter,
                           scheduler +
                               " plans circuits from the traffic alone, not the compute, and "
                               "would ignore it (it applies to " +
                               planners + ")");
  }
  return r;
}

schedule::Schedule SchedulerCliOptions::run(const core::Workload& w,
                                            const core::System& system) const {
  const workload::RobustPlanning r = robust_planning();
  if (scheduler.starts_with("rotornet")) {  // its period holds every pair: sized up front
    refuse_if_too_large(
        sched::rotornet_memory_bytes(w.accelerators(), system),
        core::InputError("", "accelerators", std::to_string(w.accelerators()),
                         "rotornet connects every pair each period: use fewer accelerators or "
                         "bvn"));
  }
  if (!r.any()) return run_named_scheduler(scheduler, w, system, resolve());
  const core::Workload planned = workload::robust_plan_workload(w, r);
  return sched::adopt_plan(run_named_scheduler(scheduler, planned, system, resolve()), w);
}

sched::SchedulerOptions SchedulerCliOptions::resolve() const {
  try {
    sched.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, sched::kSchedulerOptions);
  }
  std::vector<std::string> readers = also_for;
  if (!scheduler.empty()) readers.push_back(scheduler);
  sched::check_options_read(readers, sched);
  return sched;
}

void TrainingCliOptions::add_to(CLI::App& app, const workload::TrainingConfig& base, bool all) {
  if (moe) {
    std::string names;
    for (std::string_view n : workload::moe_model_names()) {
      names += (names.empty() ? "" : ", ") + std::string(n);
    }
    app.add_option(
        "--model", model,
        "MoE model: " + names + " (docs/model.md, MoE models) [default " + base.model.name + "]");
    add_overrides(app, workload::kMoeOptions, moe_overrides, &base.moe);
    app.add_option("--routing", routing,
                   "token routing: uniform, zipf:S or file:R.json (docs/model.md, MoE routing) "
                   "[default " +
                       base.moe.routing.to_string() + "]");
    add_overrides(app, kRoutingCliOptions, routing_overrides, &base.moe.routing);
  } else {
    app.add_option("--model", model,
                   "Llama 3 preset: 8b, 70b, 405b [default " + base.model.name + "]");
  }
  app.add_option("--gpu", gpu, "compute model: a100, h100 [default " + base.gpu.name + "]");
  if (!all) {
    add_overrides(app, workload::kTrainingOptions, overrides, &base, {"--tp", "--dp"});
    return;
  }
  add_overrides(app, workload::kModelOptions, model_overrides);
  add_overrides(app, workload::kTrainingOptions, overrides, &base);
  add_overrides(app, workload::kGpuOptions, gpu_overrides);
  app.add_option("--collective", collective, "ring, direct, halving-doubling [default ring]");
  std::string jobs;
  for (std::string_view n : workload::job_names())
    jobs += (jobs.empty() ? "" : ", ") + std::string(n);
  if (!moe) {
    app.add_option("--job", job,
                   "a published training job as the defaults, which the other options override: " +
                       jobs + " (docs/model.md, Named jobs; all assume 8-GPU scale-up domains)");
  }
  app.add_option("--order", order,
                 "rank order, TP innermost: tp-cp-dp-pp (Megatron's) or tp-cp-pp-dp (Llama 3's) "
                 "[default " +
                     std::string(workload::to_string(base.order)) + "]");
  app.add_option("--dp-sharding", dp_sharding,
                 "none, optimizer (ZeRO-1 / distributed optimizer) or full (ZeRO-3 / FSDP) "
                 "[default " +
                     std::string(workload::to_string(base.dp_sharding)) + "]");
  app.add_flag("--sequence-parallel", sequence_parallel,
               "Megatron sequence parallelism: each TP all-reduce becomes a reduce-scatter and an "
               "all-gather");
  app.add_flag("--embeddings", embeddings,
               "also model the embedding, LM head and loss and their traffic");
  app.add_flag("--no-optimizer", no_optimizer, "omit the optimizer step's trailing compute");
}

workload::TrainingConfig TrainingCliOptions::resolve(workload::TrainingConfig c) const {
  try {
    if (!job.empty()) c = workload::job_preset(job).config;
    if (!model.empty() && moe) {
      const workload::MoeModel m = workload::moe_model(model);
      const std::uint32_t ep = c.moe.ep;  // the parallelism stays the base's
      c.model = m.model;
      c.moe = m.moe;
      c.moe.ep = ep;
    } else if (!model.empty()) {
      c.model = workload::ModelConfig::llama3(model);
    }
    for (const auto& set : moe_overrides) set(c.moe);
    if (!routing.empty()) c.moe.routing = workload::RoutingSpec::parse(routing);
    for (const auto& set : routing_overrides) set(c.moe.routing);
    for (const auto& set : model_overrides) set(c.model);
    if (!gpu.empty()) c.gpu = workload::GpuSpec::preset(gpu);
    for (const auto& set : gpu_overrides) set(c.gpu);
    for (const auto& set : overrides) set(c);
    if (!collective.empty()) c.collective = workload::algorithm_from_string(collective);
    if (!order.empty()) c.order = workload::rank_order_from_string(order);
    if (!dp_sharding.empty()) c.dp_sharding = workload::dp_sharding_from_string(dp_sharding);
    if (sequence_parallel) c.sequence_parallel = true;
    if (embeddings) c.embeddings = true;
    if (no_optimizer) c.optimizer = false;
    c.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, workload::kTrainingOptions, workload::kModelOptions,
                       workload::kGpuOptions, workload::kMoeOptions, kRoutingCliOptions);
  }
  return c;
}

workload::TrainingConfig generate_defaults() {
  workload::TrainingConfig c;
  c.tp = 4;
  c.dp = 2;
  return c;
}

workload::TrainingConfig moe_generate_defaults() {
  workload::TrainingConfig c;
  const workload::MoeModel m = workload::moe_model("mixtral-8x7b");
  c.model = m.model;
  c.moe = m.moe;
  c.gpu = workload::GpuSpec::preset("h100");
  c.tp = 1;
  c.dp = 8;
  c.moe.ep = 8;
  return c;
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& s) { return s.empty() ? std::string("an empty path") : ""; }, "PATH");
}

schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options) {
  try {
    return sched::run_scheduler(name, w, system, options);
  } catch (const core::InputError& e) {
    if (e.field() == "scheduler") throw option_error(e, sched::kSchedulerOptions);
    throw;
  }
}

std::string human_bytes(double b) {
  return core::format_bytes(b);
}

core::WorkloadSummary summary_before_writing(const core::Workload& w, const std::string& options) {
  try {
    return core::summarize(w, core::System{});
  } catch (const core::InputError& e) {
    // Every command reading the file would refuse it the same way: so is
    // its writing, before anything is written, naming what to change.
    throw core::InputError(e.source(), e.field(), e.value(),
                           e.problem() + "; nothing written: change " + options);
  }
}

void print_written(const std::string& where, const core::Workload& w) {
  print_written(where, w, core::summarize(w, core::System{}));
}

void print_written(const std::string& where, const core::Workload& w,
                   const core::WorkloadSummary& s) {
  std::cerr << "wrote " << where << ": " << w.name() << ", " << s.tasks << " sends, " << s.deps
            << " deps, " << human_bytes(static_cast<double>(s.total_bytes)) << "; critical path "
            << core::format_duration(s.critical_path_ps) << " on an ideal 800 Gb/s network\n";
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

void refuse_if_too_large(std::uint64_t need, const core::InputError& where) {
  const std::uint64_t have = available_memory();
  if (have == 0 || need <= have) return;
  throw core::InputError(where.source(), where.field(), where.value(),
                         "the job would need about " + core::format_bytes(need) + ", and " +
                             core::format_bytes(have) + " is available: " + where.problem());
}

core::InputError invalid_schedule(const std::string& file, const schedule::ScheduleError& e) {
  std::string what = e.what();
  what = what.substr(0, what.find('\n'));  // "invalid schedule ...: N violations"
  if (!e.violations().empty()) what += ": " + e.violations().front();
  if (e.violation_count() > 1) {
    what += " (and " + std::to_string(e.violation_count() - 1) + " more; flux validate lists them)";
  }
  return core::InputError(file, "", "", what);
}

std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FLUX_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLUX_SANITIZED 1
#endif

std::uint64_t limit_address_space() {
#ifdef FLUX_SANITIZED
  return 0;
#else
  const std::uint64_t available = available_memory();
  if (available == 0) return 0;
  const std::uint64_t cap = available + (std::uint64_t{1} << 30);
  rlimit current{};
  if (getrlimit(RLIMIT_AS, &current) != 0) return 0;
  if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= cap) return 0;
  const rlimit wanted{static_cast<rlim_t>(cap), current.rlim_max};
  return setrlimit(RLIMIT_AS, &wanted) == 0 ? cap : 0;
#endif
}

}  // namespace flux::cli
