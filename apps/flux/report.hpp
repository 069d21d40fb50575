#pragma once
// What the CLI's subcommands print once they have succeeded, where it goes,
// and how their errors name the file at fault.
#include <cstdio>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/summary.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/validator.hpp"

namespace flux::cli {

/// Where a command prints its report: standard error when one of its data
/// outputs is standard output ("-"), so that the data stays clean.
FILE* report_stream(const std::vector<std::string>& outputs);

/// An output as a report names it: "standard output" for "-".
std::string output_name(const std::string& path);

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

/// Prints notes (frontend::LoadedWorkload::notes) to stderr, warnings
/// prefixed as such by the import already.
void print_notes(const std::vector<std::string>& notes);

/// "forwarded  12 sends through a scale-up peer (1.50 GiB)" when the
/// wiring routes sends (core/routes.hpp); nothing otherwise.
/// `width`: the report's label column (16 for schedule and info, 17 for
/// simulate).
void print_routes(FILE* out, const core::Routed& routed, int width);

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

/// Calls f(). An InputError naming a schedule's choice or routes
/// (choice[...], routes[...]) and no file is attributed to `schedule_file`
/// when there is one (a schedule the user gave).
template <class F>
decltype(auto) blame_schedule(const std::string& schedule_file, F&& f) {
  try {
    return f();
  } catch (const core::InputError& e) {
    if (!schedule_file.empty() && e.source().empty() &&
        (e.field().starts_with("choice") || e.field().starts_with("routes"))) {
      throw e.with_source(schedule_file);
    }
    throw;
  }
}

/// A schedule the user gave (`file`) that the validator refused, as one
/// line: the first violation and how many more there are.
core::InputError invalid_schedule(const std::string& file, const schedule::ScheduleError& e);

}  // namespace flux::cli
