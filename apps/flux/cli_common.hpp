#pragma once
#include <cstdint>
// Helpers shared by the CLI's subcommands: option parsing with units and the
// one place where errors become messages and exit codes.
#include <CLI/CLI.hpp>
#include <string>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::cli {

/// Options that describe the system (switches, link rate, tau), as strings
/// with units until validated.
struct SystemOptions {
  std::uint32_t switches = 2;
  double link_gbps = 800.0;
  std::string tau = "10us";

  void add_to(CLI::App& app, bool with_switches_and_tau);
  /// Parses and validates; throws core::InputError naming the option.
  [[nodiscard]] core::System to_system() const;
};

/// The options of a scheduler run (`flux schedule`, `flux simulate`).
struct SchedulerCliOptions {
  std::string scheduler = "flux";
  std::string time_limit = "60s";
  sched::SchedulerOptions sched;
  bool no_implied = false, no_symmetry = false, no_horizon = false, no_warm = false,
       no_bound = false;

  /// `with_milp_files`: also --export-milp and --solution.
  void add_to(CLI::App& app, bool with_milp_files);
  /// Parses and validates; throws core::InputError naming the option.
  [[nodiscard]] sched::SchedulerOptions resolve() const;
};

/// sched::run_scheduler, with an unknown scheduler reported as the option.
schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options);

/// Bytes with a binary unit: "16.00 MiB".
std::string human_bytes(double bytes);

/// The line a command prints for a workload it wrote to `where`: name,
/// sends, deps, bytes and the critical path on an ideal network.
void print_written(const std::string& where, const core::Workload& w);

/// The same error, naming the command-line option (`--micro-batches`)
/// instead of the library's field (`micro_batches`).
core::InputError as_option_error(const core::InputError& e);

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

/// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
std::uint64_t available_memory();

/// Caps the process's address space at the memory available now plus
/// 1 GiB, so that a job too large for the machine ends in std::bad_alloc
/// (reported by main) instead of the kernel's out-of-memory killer. Does
/// nothing under sanitizers (they reserve terabytes of address space) or
/// when a lower limit is already set. Returns the cap, 0 if none was set.
std::uint64_t limit_address_space();

}  // namespace flux::cli
