// The workload a front end reads (include/flux/frontend/workload_input.hpp).
#include "flux/frontend/workload_input.hpp"

#include <malloc.h>

#include <filesystem>
#include <sstream>

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/core/workload.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"

namespace flux::frontend {

chakra::ImportOptions ChakraOptions::resolve(const std::string& prefix,
                                             std::vector<std::string>& notes) const {
  chakra::ImportOptions options;
  try {
    options.gpu = workload::GpuSpec::preset(gpu);
    if (!collective.empty()) options.collective = workload::algorithm_from_string(collective);
  } catch (const core::InputError& e) {
    throw option_error(e, workload::kGpuOptions);
  }
  options.drop_missing_deps = drop_missing_deps;
  if (!comm_groups.empty()) {
    options.comm_groups = chakra::read_comm_groups(comm_groups);
  } else if (const std::filesystem::path next = prefix + ".json";
             std::filesystem::is_regular_file(next)) {
    // ASTRA-sim's examples keep the group file next to the traces.
    options.comm_groups = chakra::read_comm_groups(next);
    notes.push_back("using communicator groups from " + next.string());
  }
  return options;
}

void check_import_scaleup(const std::string& prefix, const chakra::ImportOptions& options) {
  if (const std::size_t ranks = chakra::rank_files(prefix).size();
      options.scaleup_size != 0 && ranks % options.scaleup_size != 0) {
    throw core::InputError("", "--scaleup-size", std::to_string(options.scaleup_size),
                           "must divide the " + std::to_string(ranks) +
                               " ranks of the traces into whole scale-up domains");
  }
}

std::string import_summary(const chakra::ImportStats& s, const chakra::ImportOptions& options) {
  std::ostringstream out;
  out << "read " << s.ranks << " ranks, " << s.nodes << " nodes (" << s.comp_nodes << " COMP, "
      << s.send_nodes << " COMM_SEND, " << s.recv_nodes << " COMM_RECV, " << s.coll_nodes
      << " COMM_COLL in " << s.collectives << " collectives, " << s.other_nodes << " other)";
  if (s.roofline_nodes > 0) {
    out << "; " << s.roofline_nodes << " COMP timed by the " << options.gpu.name << " roofline";
  }
  return out.str();
}

bool is_chakra_prefix(const std::string& arg) {
  std::error_code ec;
  return !std::filesystem::exists(arg, ec) && std::filesystem::exists(arg + ".0.et", ec);
}

std::vector<io::InputSpec> workload_inputs(const std::string& arg, const ChakraOptions& chakra) {
  if (!is_chakra_prefix(arg)) return {{arg, "the input workload"}};
  std::vector<io::InputSpec> inputs = {
      {chakra.comm_groups.empty() ? arg + ".json" : chakra.comm_groups, "the communicator groups"}};
  try {
    for (const auto& f : chakra::rank_files(arg)) inputs.push_back({f, "an input trace"});
  } catch (const core::InputError&) {
    // A rank missing: the import says so.
  }
  return inputs;
}

namespace {

// Traces whose workload would not fit are refused before it is built: the
// import with collectives kept whole (a few bytes a send, a few percent of
// the import's time) counts its sends first, on the traces as read. Bad
// traces throw here as the import would; a choice of algorithms
// (--collective auto) is not counted.
void refuse_if_too_large(const std::vector<chakra::EtFile>& traces, const std::string& prefix,
                         const chakra::ImportOptions& options, const std::string& name) {
  const std::uint64_t have = available_memory();
  if (have == 0) return;
  std::uint64_t sends = 0;
  try {
    sends = chakra::import_traces_lazy(traces, options, name).workload.num_tasks();
  } catch (const chakra::NeedsEverySend&) {
    return;
  }
  malloc_trim(0);
  // Its sends alone, without a dependency: at least this much.
  const std::uint64_t need = core::workload_memory_bytes(sends, 0);
  if (need <= have) return;
  throw core::InputError(
      prefix, "", "",
      "the traces hold " + std::to_string(sends) + " sends: their workload would need at least " +
          core::format_bytes(static_cast<double>(need)) + ", and " +
          core::format_bytes(static_cast<double>(have)) + " is available; `flux simulate " +
          prefix + " --scheduler ideal` keeps their collectives whole");
}

}  // namespace

LoadedWorkload load_workload(const std::string& arg, const ChakraOptions& chakra) {
  if (!is_chakra_prefix(arg)) return {formats::read_workload(arg), {}};
  std::vector<std::string> notes;
  const chakra::ImportOptions options = chakra.resolve(arg, notes);
  chakra::ImportResult r = [&] {
    const std::vector<chakra::EtFile> traces = chakra::read_traces(arg);
    const std::string name = std::filesystem::path(arg).filename().string();  // as import_chakra
    refuse_if_too_large(traces, arg, options, name);
    return chakra::import_traces(traces, options, name);
  }();
  notes.push_back(import_summary(r.stats, options));
  for (std::string& w : r.warnings) notes.push_back("flux: warning: " + std::move(w));
  LoadedWorkload out{std::move(r.workload), std::move(notes)};
  // The import's traces and graphs are freed by now, in many small blocks
  // that malloc keeps; hand them back so that the scheduler's and the
  // simulator's large arrays do not come on top of them.
  malloc_trim(0);
  return out;
}

LoadedLazy load_lazy(const std::string& prefix, const ChakraOptions& chakra) {
  std::vector<std::string> notes;
  const chakra::ImportOptions options = chakra.resolve(prefix, notes);
  chakra::LazyImportResult r = chakra::import_chakra_lazy(prefix, options);
  notes.push_back(import_summary(r.stats, options));
  for (std::string& w : r.warnings) notes.push_back("flux: warning: " + std::move(w));
  LoadedLazy out{std::move(r.workload), std::move(notes)};
  malloc_trim(0);  // as load_workload: the traces' many small blocks back
  return out;
}

}  // namespace flux::frontend
