#pragma once
#include <cstdint>
// Helpers shared by the CLI's subcommands: option parsing with units and the
// one place where errors become messages and exit codes.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/option.hpp"
#include "flux/core/summary.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/robust.hpp"
#include "flux/workload/routing.hpp"

namespace flux::cli {

/// The system's options (--switches, --link-gbps, --tau, --scaleup-size,
/// ...), from core::kSystemOptions.
struct SystemOptions {
  core::System system;

  /// Every option but those in `skip`.
  void add_to(CLI::App& app, std::initializer_list<std::string_view> skip = {});
  /// Validates; throws core::InputError naming the option.
  [[nodiscard]] core::System to_system() const;
  /// The system for workload `w`: without --scaleup-size (--scaleup-gbps)
  /// on the command line, the workload's hint (core::Workload::scaleup_size,
  /// scaleup_gbps) if it has one; validated, and the scale-up domains must tile its accelerators
  /// (core::System::validate_for). Errors name the option.
  [[nodiscard]] core::System to_system(const core::Workload& w) const;

 private:
  const CLI::Option* scaleup_size_ = nullptr;
  const CLI::Option* scaleup_gbps_ = nullptr;
};

/// The options of a scheduler run (`flux schedule`, `flux simulate`,
/// `flux evaluate`), from sched::kSchedulerOptions and sched::kMilpOptions.
struct SchedulerCliOptions {
  std::string scheduler = "flux";
  sched::SchedulerOptions sched;
  /// --robust-jitter as given ("" : plan for the mean compute).
  std::string robust_jitter;
  /// Other schedulers the options also go to (simulate's --replan-scheduler).
  std::vector<std::string> also_for;

  /// `with_scheduler`: also --scheduler; `with_milp_files`: also
  /// --export-milp and --solution.
  void add_to(CLI::App& app, bool with_scheduler, bool with_milp_files);
  /// Validates, and refuses an option that neither `scheduler` nor
  /// `also_for` reads (sched::check_options_read; not checked when both are
  /// empty); throws core::InputError naming the option.
  [[nodiscard]] sched::SchedulerOptions resolve() const;
  /// --robust-jitter (workload::kRobustPlanningOptions), validated; throws
  /// core::InputError naming the option.
  [[nodiscard]] workload::RobustPlanning robust_planning() const;
  /// The scheduler's schedule of `w`, planned on
  /// workload::robust_plan_workload(w, robust_planning()) and adopted for
  /// `w` (sched::adopt_plan) when --robust-jitter is given.
  [[nodiscard]] schedule::Schedule run(const core::Workload& w, const core::System& system) const;
};

/// The routing options beside --routing (RoutingSpec's fields) of
/// `flux generate moe` (and of the Python flux.generate.moe).
inline constexpr auto kRoutingCliOptions = std::tuple{
    core::NumberOption<workload::RoutingSpec, std::uint64_t>{
        "seed", "--routing-seed", "seed of the random routings (zipf)",
        &workload::RoutingSpec::seed, 0, core::kMaxSeed},
    core::NumberOption<workload::RoutingSpec, double>{
        "capacity_factor", "--capacity-factor",
        "expert capacity factor: each expert takes at most ceil(cf * T * K / experts) assignments "
        "per source rank, the rest dropped (0: no dropping)",
        &workload::RoutingSpec::capacity_factor, 0.0, 1e6},
};

/// The training job's options (`flux generate llama3`, `flux evaluate`):
/// the model preset and its overrides, parallelism, sizes, the GPU preset
/// and its efficiencies, from workload's option tables. Values given
/// override `base`, a preset chosen by the command.
struct TrainingCliOptions {
  std::string job;    ///< named job (workload::job_preset) replacing the base ("" : none)
  std::string model;  ///< Llama 3 preset ("" : the base's)
  std::string gpu;    ///< GPU preset ("" : the base's)
  std::string collective;
  std::string order;        ///< rank order ("" : the base's)
  std::string dp_sharding;  ///< "" : the base's
  bool sequence_parallel = false;
  bool embeddings = false;
  bool no_optimizer = false;
  std::vector<std::function<void(workload::TrainingConfig&)>> overrides;
  std::vector<std::function<void(workload::ModelConfig&)>> model_overrides;
  std::vector<std::function<void(workload::GpuSpec&)>> gpu_overrides;
  /// A MoE job (`flux generate moe`): --model names a MoE model
  /// (workload::moe_model) and the MoE options (workload::kMoeOptions,
  /// --routing, --routing-seed, --capacity-factor) are added; no --job.
  bool moe = false;
  std::string routing;  ///< --routing as given ("" : the base's)
  std::vector<std::function<void(workload::MoeConfig&)>> moe_overrides;
  std::vector<std::function<void(workload::RoutingSpec&)>> routing_overrides;

  /// `all`: every option (generate); otherwise --model, --tp, --dp, --gpu
  /// (what evaluate records per row). `base` gives the defaults shown.
  void add_to(CLI::App& app, const workload::TrainingConfig& base, bool all);
  /// `base` (or the named job's configuration) with the given options
  /// applied, validated; throws
  /// core::InputError naming the option.
  [[nodiscard]] workload::TrainingConfig resolve(workload::TrainingConfig base) const;
};

/// The defaults of `flux generate llama3` (and of the Python
/// flux.generate.llama3): Llama 3 8B, TP4 x DP2 on A100s (the paper's setup).
workload::TrainingConfig generate_defaults();
/// The defaults of `flux generate moe`: Mixtral 8x7B, EP8 over DP8 on H100s.
workload::TrainingConfig moe_generate_defaults();

/// For an optional path option: an empty path given on purpose is an
/// error ("an empty path"), not "no file".
CLI::Validator non_empty_path();

/// sched::run_scheduler, with an unknown scheduler reported as the option.
schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options);

/// Bytes with a binary unit: "16.00 MiB".
std::string human_bytes(double bytes);

/// The line a command prints for a workload it wrote to `where`: name,
/// sends, deps, bytes and the critical path on an ideal network.
void print_written(const std::string& where, const core::Workload& w);
void print_written(const std::string& where, const core::Workload& w,
                   const core::WorkloadSummary& s);

/// The summary print_written prints, computed before a command writes `w`:
/// it refuses (core::InputError) a workload that every command reading it
/// would refuse (a send or the serial horizon past what Flux represents on
/// the default system), adding "nothing written: change <options>".
core::WorkloadSummary summary_before_writing(const core::Workload& w, const std::string& options);

/// A command-line parse error as one line: which argument, what is wrong
/// and where the help is ("--bogus: unknown option (flux schedule --help)").
std::string usage_error(const CLI::App& app, const CLI::ParseError& e, int argc,
                        const char* const* argv);

/// Throws `where` (its file, field and value; its problem is the advice)
/// when `need` bytes exceed the memory available, with both amounts.
void refuse_if_too_large(std::uint64_t need, const core::InputError& where);

/// Calls f(). An InputError naming a workload field (tasks[...], deps[...],
/// tasks: a time beyond core::kMaxTimePs once the workload meets the system)
/// and no file is attributed to `workload_file`.
template <class F>
decltype(auto) blame_workload(const std::string& workload_file, F&& f) {
  try {
    return f();
  } catch (const core::InputError& e) {
    if (e.field().starts_with("tasks") || e.field().starts_with("deps")) {
      throw e.with_source(workload_file);
    }
    throw;
  }
}

/// The option names of `table` given on `app` ("--switches, --tau"), in the
/// table's order; "" when none was given.
template <class Table>
std::string given_flags(const CLI::App& app, const Table& table);

/// A schedule the user gave (`file`) that the validator refused, as one
/// line: the first violation and how many more there are.
core::InputError invalid_schedule(const std::string& file, const schedule::ScheduleError& e);

/// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
std::uint64_t available_memory();

/// Caps the process's address space at the memory available now plus
/// 1 GiB, so that a job too large for the machine ends in std::bad_alloc
/// (reported by main) instead of the kernel's out-of-memory killer. Does
/// nothing under sanitizers (they reserve terabytes of address space) or
/// when a lower limit is already set. Returns the cap, 0 if none was set.
std::uint64_t limit_address_space();

template <class Table>
std::string given_flags(const CLI::App& app, const Table& table) {
  std::string flags;
  core::for_each_option(table, [&](const auto& option) {
    const std::string flag(option.flag);
    if (flag.empty() || app.get_option_no_throw(flag) == nullptr || app.count(flag) == 0) return;
    flags += (flags.empty() ? "" : ", ") + flag;
  });
  return flags;
}

}  // namespace flux::cli
