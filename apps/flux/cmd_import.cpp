// flux import chakra PREFIX -o w.json: Chakra execution traces (PREFIX.<rank>.et,
// one per rank) as a workload file.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/io/output.hpp"
#include "outputs.hpp"

namespace flux::cli {
namespace {

struct ImportCliOptions {
  std::string prefix;
  std::string comm_groups;
  std::string gpu = "a100";
  std::string collective;
  std::string name;
  bool drop_missing_deps = false;
  std::string output;
};

void run_import(const ImportCliOptions& o) {
  chakra::ImportOptions options;
  try {
    options.gpu = workload::GpuSpec::preset(o.gpu);
    if (!o.collective.empty()) options.collective = workload::algorithm_from_string(o.collective);
  } catch (const core::InputError& e) {
    throw option_error(e, workload::kGpuOptions);
  }
  options.name = o.name;
  options.drop_missing_deps = o.drop_missing_deps;
  std::vector<io::InputSpec> inputs = {
      {o.comm_groups.empty() ? o.prefix + ".json" : o.comm_groups, "the communicator groups"}};
  try {
    for (const auto& f : chakra::rank_files(o.prefix)) inputs.push_back({f, "an input trace"});
  } catch (const core::InputError&) {
    // No trace files: the import says so.
  }
  io::check_outputs({{o.output, "the workload output", "-o", true}}, inputs);
  if (!o.comm_groups.empty()) {
    options.comm_groups = chakra::read_comm_groups(o.comm_groups);
  } else if (const std::filesystem::path next = o.prefix + ".json";
             std::filesystem::is_regular_file(next)) {
    // ASTRA-sim's examples keep the group file next to the traces.
    options.comm_groups = chakra::read_comm_groups(next);
    std::cerr << "using communicator groups from " << next.string() << "\n";
  }
  const chakra::ImportResult r = chakra::import_chakra(o.prefix, options);
  for (const std::string& w : r.warnings) std::cerr << "flux: warning: " << w << "\n";
  formats::save_workload(o.output, r.workload);
  const chakra::ImportStats& s = r.stats;
  std::cerr << "read " << s.ranks << " ranks, " << s.nodes << " nodes (" << s.comp_nodes
            << " COMP, " << s.send_nodes << " COMM_SEND, " << s.recv_nodes << " COMM_RECV, "
            << s.coll_nodes << " COMM_COLL in " << s.collectives << " collectives, "
            << s.other_nodes << " other)";
  if (s.roofline_nodes > 0) {
    std::cerr << "; " << s.roofline_nodes << " COMP timed by the " << options.gpu.name
              << " roofline";
  }
  std::cerr << "\n";
  print_written(output_name(o.output), r.workload);
}

}  // namespace

void register_import(CLI::App& app) {
  auto* imp = app.add_subcommand("import", "convert traces of other tools into a workload");
  imp->require_subcommand(1);
  auto opts = std::make_shared<ImportCliOptions>();
  auto* c = imp->add_subcommand(
      "chakra", "Chakra execution traces (ASTRA-sim's input): PREFIX.0.et, PREFIX.1.et, ...");
  c->add_option("prefix", opts->prefix, "trace prefix: the files are PREFIX.<rank>.et")->required();
  c->add_option("--comm-groups", opts->comm_groups,
                "communicator groups JSON ({\"1\": [0, 1], ...}; default: PREFIX.json if present)");
  c->add_option("--gpu", opts->gpu, "roofline for COMP nodes without duration: a100, h100")
      ->capture_default_str();
  c->add_option("--collective", opts->collective,
                "algorithm for COMM_COLL nodes: ring, direct, halving-doubling (default: the "
                "one Flux recorded in traces it wrote, else ring)");
  c->add_option("--name", opts->name, "workload name (default: from the traces or the prefix)");
  c->add_flag("--drop-missing-deps", opts->drop_missing_deps,
              "ignore dependencies on node ids absent from a file (with a warning)");
  c->add_option("-o,--output", opts->output, "workload file to write (flux.workload/v1 JSON)")
      ->required();
  c->callback([opts] { run_import(*opts); });
}

}  // namespace flux::cli
