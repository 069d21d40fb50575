// flux unfold FOLD.json -o JOB.json [--schedule S.json --schedule-output JS.json]:
// a folded workload (and a schedule of it) lifted to the job it stands for
// (docs/model.md, "Folding"). The lifted schedule passes the validator
// against the lifted workload before anything is written.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/core/fold.hpp"
#include "flux/core/format.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"
#include "flux/schedule/fold.hpp"
#include "flux/schedule/validator.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct UnfoldOptions {
  std::string workload;
  std::string output;
  std::string schedule;
  std::string schedule_output;
};

// Refuses a job whose workload would not fit in memory, before anything is
// allocated (the address-space cap in main.cpp would stop it only after
// filling the machine's memory).
void check_fits(const core::Workload& fold, const std::string& path) {
  const std::uint64_t copies = fold.fold().copies;
  frontend::refuse_if_too_large(
      core::workload_memory_bytes(copies * fold.num_tasks(), copies * fold.num_deps()),
      core::InputError(path, "fold.copies", std::to_string(copies),
                       "schedule and simulate the fold itself"));
}

void run_unfold(const UnfoldOptions& o) {
  if (o.schedule.empty() != o.schedule_output.empty()) {
    throw core::InputError("", o.schedule.empty() ? "--schedule-output" : "--schedule",
                           o.schedule.empty() ? o.schedule_output : o.schedule,
                           "give --schedule and --schedule-output together");
  }
  std::vector<io::OutputSpec> outputs = {{o.output, "the workload output (-o)", "-o", true}};
  if (!o.schedule_output.empty()) {
    outputs.push_back(
        {o.schedule_output, "the schedule output (--schedule-output)", "--schedule-output", true});
  }
  io::check_outputs(outputs, {{o.workload, "the input workload"},
                              {o.schedule, "the input schedule (--schedule)"}});
  const core::Workload fold = formats::read_workload(o.workload);
  check_fits(fold, o.workload);
  const core::Workload job = core::unfold(fold);
  std::optional<schedule::Schedule> lifted;
  if (!o.schedule.empty()) {
    const schedule::Schedule s = formats::read_schedule(o.schedule);
    try {
      schedule::check_schedule(fold, s);  // the user's file: a violation is bad input
      lifted = schedule::unfold(fold, s);
    } catch (const schedule::ScheduleError& e) {
      throw invalid_schedule(o.schedule, e);
    } catch (const core::InputError& e) {
      throw e.with_source(o.schedule);
    }
    lifted->workload = job.name();
    schedule::check_schedule(job, *lifted);  // a failure here would be a bug of the lift
  }
  // Everything is checked; now write, both outputs or neither.
  std::vector<io::NamedWriter> files = {
      {o.output, [&](std::ostream& out) { formats::write_workload_as(out, job, o.output); }}};
  if (lifted) {
    files.push_back(
        {o.schedule_output, [&](std::ostream& out) { formats::write_schedule(out, *lifted); }});
  }
  io::save_files(files);
  print_written(output_name(o.output), job);
  if (lifted) {
    std::fprintf(report_stream({o.output, o.schedule_output}),
                 "wrote %s: %s schedule of %s, %zu sends, iteration time %s\n",
                 o.schedule_output.c_str(), lifted->scheduler.c_str(), job.name().c_str(),
                 lifted->tasks.size(), core::format_duration(lifted->makespan_ps).c_str());
  }
}

}  // namespace

void register_unfold(CLI::App& app) {
  auto opts = std::make_shared<UnfoldOptions>();
  auto* cmd = app.add_subcommand(
      "unfold", "lift a folded workload (and a schedule of it) to the job it stands for");
  cmd->add_option("workload", opts->workload, "folded workload file")->required();
  cmd->add_option("-o,--output", opts->output, "the job's workload file to write")->required();
  cmd->add_option("--schedule", opts->schedule, "a schedule of the folded workload");
  cmd->add_option("--schedule-output", opts->schedule_output, "the job's schedule file to write");
  cmd->callback([opts] { run_unfold(*opts); });
}

}  // namespace flux::cli
