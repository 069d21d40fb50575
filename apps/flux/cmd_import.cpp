// flux import chakra PREFIX -o w.json: Chakra execution traces (PREFIX.<rank>.et,
// one per rank) as a workload file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <tuple>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/workload_input.hpp"
#include "flux/io/output.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct ImportCliOptions {
  std::string prefix;
  frontend::ChakraOptions chakra;
  std::string name;
  chakra::ImportOptions table;  ///< the fields of chakra::kImportOptions
  std::string output;
};

void run_import(const ImportCliOptions& o) {
  io::check_outputs({{o.output, "the workload output", "-o", true}},
                    frontend::workload_inputs(o.prefix, o.chakra));
  std::vector<std::string> notes;
  chakra::ImportOptions options = o.chakra.resolve(o.prefix, notes);
  options.name = o.name;
  options.scaleup_size = o.table.scaleup_size;
  frontend::check_import_scaleup(o.prefix, options);
  chakra::ImportResult r = chakra::import_chakra(o.prefix, options);
  const core::WorkloadSummary summary =
      summary_before_writing(r.workload, "the traces (their COMP durations or message sizes)");
  formats::save_workload(o.output, r.workload);
  // Notes only once the command has succeeded: an error stays one line.
  notes.push_back(frontend::import_summary(r.stats, options));
  print_notes(notes);
  for (const std::string& w : r.warnings) std::cerr << "flux: warning: " << w << "\n";
  print_written(output_name(o.output), r.workload, summary);
}

}  // namespace

void register_import(CLI::App& app) {
  auto* imp = app.add_subcommand("import", "convert traces of other tools into a workload");
  imp->require_subcommand(1);
  auto opts = std::make_shared<ImportCliOptions>();
  auto* c = imp->add_subcommand(
      "chakra", "Chakra execution traces (ASTRA-sim's input): PREFIX.0.et, PREFIX.1.et, ...");
  c->add_option("prefix", opts->prefix, "trace prefix: the files are PREFIX.<rank>.et")->required();
  add_chakra_options(*c, opts->chakra);
  c->add_option("--name", opts->name, "workload name (default: from the traces or the prefix)");
  add_options(*c, chakra::kImportOptions, opts->table);
  c->add_option("-o,--output", opts->output, "workload file to write (flux.workload/v1 JSON)")
      ->required();
  c->callback([opts] { run_import(*opts); });
}

}  // namespace flux::cli
