#pragma once
// The workload argument of the commands that read one (schedule, simulate,
// info) and the options of `flux import chakra`: a workload file (JSON, plain
// or gzip-compressed), or a Chakra trace prefix read directly, with no
// workload file in between (the compact path for large jobs).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "flux/chakra/import.hpp"
#include "flux/core/workload.hpp"
#include "flux/io/output.hpp"

namespace flux::cli {

/// The options of a Chakra import, as given on the command line.
struct ChakraCliOptions {
  std::string comm_groups;
  std::string gpu = "a100";
  std::string collective;
  bool drop_missing_deps = false;

  /// --comm-groups, --gpu, --collective, --drop-missing-deps.
  void add_to(CLI::App& app);
  /// Parses them for the traces of `prefix`; a group file found next to the
  /// traces (PREFIX.json) is used and named in `notes`.
  [[nodiscard]] chakra::ImportOptions resolve(const std::string& prefix,
                                              std::vector<std::string>& notes) const;
};

/// Throws core::InputError (--scaleup-size) unless options.scaleup_size
/// (when not 0) divides the ranks of the traces of `prefix`.
void check_import_scaleup(const std::string& prefix, const chakra::ImportOptions& options);

/// The positional `workload` argument (a file or a Chakra prefix) and the
/// import options that apply to a prefix.
void add_workload_argument(CLI::App& app, std::string& input, ChakraCliOptions& chakra);

/// A workload read by load_workload, with what the command should say about
/// it once it has succeeded (the import's summary and warnings).
struct LoadedWorkload {
  core::Workload workload;
  std::vector<std::string> notes;
};

/// True when `arg` names a Chakra prefix: no such file, and `arg`.0.et exists.
bool is_chakra_prefix(const std::string& arg);

/// The files reading `arg` reads, for io::check_outputs: the workload file,
/// or a prefix's rank files and its communicator-group file.
std::vector<io::InputSpec> workload_inputs(const std::string& arg, const ChakraCliOptions& chakra);

/// `arg` names a workload file (flux.workload/v1, plain or gzip), or a
/// Chakra prefix when `arg` is no file and `arg`.0.et exists.
LoadedWorkload load_workload(const std::string& arg, const ChakraCliOptions& chakra);

/// The one-line summary of an import ("read 8 ranks, 280 nodes (...)").
std::string import_summary(const chakra::ImportResult& r, const chakra::ImportOptions& options);

/// Prints notes to stderr, warnings prefixed as such by the import already.
void print_notes(const std::vector<std::string>& notes);

}  // namespace flux::cli
