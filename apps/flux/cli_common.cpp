#include "cli_common.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/core/summary.hpp"

namespace flux::cli {

void SystemOptions::add_to(CLI::App& app, bool with_switches_and_tau) {
  if (with_switches_and_tau) {
    app.add_option("--switches", switches, "number of optical circuit switches (s)")
        ->capture_default_str();
    app.add_option("--tau", tau, "reconfiguration delay with a unit, e.g. 10us, 1ms")
        ->capture_default_str();
  }
  app.add_option("--link-gbps", link_gbps, "rate of one link in Gb/s")->capture_default_str();
}

core::System SystemOptions::to_system() const {
  core::System s;
  s.switches = switches;
  s.link_gbps = link_gbps;
  s.reconfig_delay_ps = core::parse_duration(tau, "--tau");
  try {
    s.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  return s;
}

void SchedulerCliOptions::add_to(CLI::App& app, bool with_milp_files) {
  std::string names;
  for (std::string_view n : sched::scheduler_names()) {
    names += names.empty() ? "" : ", ";
    names += n;
  }
  app.add_option("--scheduler", scheduler, names)->capture_default_str();
  app.add_option("--time-limit", time_limit, "solver time limit, e.g. 60s, 10min")
      ->capture_default_str();
  app.add_option("--gap", sched.relative_gap, "relative gap at which the solver stops")
      ->capture_default_str();
  app.add_option("--threads", sched.threads, "solver threads")->capture_default_str();
  app.add_option("--duty-cycle", sched.duty_cycle,
                 "rotornet: share of a slot that carries data (slot = tau / (1 - duty))")
      ->capture_default_str();
  app.add_option("--seed", sched.seed, "flux: seed of the local search")->capture_default_str();
  app.add_option("--moves", sched.search_moves,
                 "flux: local search moves (0: until the time limit)")
      ->capture_default_str();
  app.add_flag("!--no-lp-bound", sched.lp_bound,
               "flux: skip the LP-relaxation bound on instances of <= 1,000 sends");
  app.add_flag("-v,--verbose", sched.verbose, "solver progress on stderr");
  if (with_milp_files) {
    app.add_option("--export-milp", sched.milp.export_path,
                   "also write the MILP as an .lp or .mps file (for Gurobi, HiGHS, SCIP, CPLEX)");
    app.add_option("--solution", sched.milp.solution_path,
                   "decode a solver's .sol file for the exported model instead of solving");
  }
  app.add_flag("--no-implied-pairs", no_implied, "keep pair rows the DAG already implies");
  app.add_flag("--no-symmetry", no_symmetry, "no symmetry breaking between switches");
  app.add_flag("--no-horizon", no_horizon, "the paper's global big-M, no incumbent horizon");
  app.add_flag("--no-warm-start", no_warm, "no MIP start from the greedy schedule");
  app.add_flag("--no-bound", no_bound, "no lower-bound row on the makespan");
}

sched::SchedulerOptions SchedulerCliOptions::resolve() const {
  sched::SchedulerOptions o = sched;
  o.time_limit_s = core::ps_to_seconds(core::parse_duration(time_limit, "--time-limit"));
  o.milp.drop_implied_pairs = !no_implied;
  o.milp.symmetry_breaking = !no_symmetry;
  o.milp.horizon_big_m = !no_horizon;
  o.milp.warm_start = !no_warm;
  o.milp.bound_rows = !no_bound;
  if (scheduler != "flux-milp") {
    const char* milp_only = !o.milp.export_path.empty()     ? "--export-milp"
                            : !o.milp.solution_path.empty() ? "--solution"
                                                            : nullptr;
    if (milp_only != nullptr) {
      throw core::InputError("", milp_only,
                             o.milp.export_path.empty() ? o.milp.solution_path : o.milp.export_path,
                             "applies to --scheduler flux-milp only (not " + scheduler + ")");
    }
  }
  try {
    o.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  return o;
}

schedule::Schedule run_named_scheduler(const std::string& name, const core::Workload& w,
                                       const core::System& system,
                                       const sched::SchedulerOptions& options) {
  try {
    return sched::run_scheduler(name, w, system, options);
  } catch (const core::InputError& e) {
    if (e.field() == "scheduler") throw as_option_error(e);
    throw;
  }
}

std::string human_bytes(double b) {
  return core::format_bytes(b);
}

void print_written(const std::string& where, const core::Workload& w) {
  const core::WorkloadSummary s = core::summarize(w, core::System{});
  std::cerr << "wrote " << where << ": " << w.name() << ", " << s.tasks << " sends, " << s.deps
            << " deps, " << human_bytes(static_cast<double>(s.total_bytes)) << "; critical path "
            << core::format_duration(s.critical_path_ps) << " on an ideal 800 Gb/s network\n";
}

core::InputError as_option_error(const core::InputError& e) {
  std::string field = e.field();
  for (char& ch : field) ch = ch == '_' ? '-' : ch;
  return core::InputError(e.source(), "--" + field, e.value(), e.problem());
}

void refuse_if_too_large(std::uint64_t need, const core::InputError& where) {
  const std::uint64_t have = available_memory();
  if (have == 0 || need <= have) return;
  throw core::InputError(where.source(), where.field(), where.value(),
                         "the job would need about " + core::format_bytes(need) + ", and " +
                             core::format_bytes(have) + " is available: " + where.problem());
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
