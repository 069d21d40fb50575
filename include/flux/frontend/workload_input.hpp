#pragma once
// The workload a front end reads (`flux info`, `schedule`, `simulate`):
// a workload file (JSON, plain or gzip-compressed), or a Chakra trace
// prefix read directly, with no workload file in between (the compact path
// for large jobs); and the options of a Chakra import (`flux import
// chakra`, flux.import_chakra).
#include <string>
#include <vector>

#include "flux/chakra/import.hpp"
#include "flux/core/workload.hpp"
#include "flux/io/output.hpp"

namespace flux::frontend {

/// The options of a Chakra import, as given.
struct ChakraOptions {
  std::string comm_groups;
  std::string gpu = "a100";
  std::string collective;
  bool drop_missing_deps = false;

  /// Parses them for the traces of `prefix`; a group file found next to the
  /// traces (PREFIX.json) is used and named in `notes`.
  [[nodiscard]] chakra::ImportOptions resolve(const std::string& prefix,
                                              std::vector<std::string>& notes) const;
};

/// Throws core::InputError (--scaleup-size) unless options.scaleup_size
/// (when not 0) divides the ranks of the traces of `prefix`.
void check_import_scaleup(const std::string& prefix, const chakra::ImportOptions& options);

/// A workload read by load_workload, with what the front end should say
/// about it once it has succeeded (the import's summary and warnings).
struct LoadedWorkload {
  core::Workload workload;
  std::vector<std::string> notes;
};

/// True when `arg` names a Chakra prefix: no such file, and `arg`.0.et exists.
bool is_chakra_prefix(const std::string& arg);

/// The files reading `arg` reads, for io::check_outputs: the workload file,
/// or a prefix's rank files and its communicator-group file.
std::vector<io::InputSpec> workload_inputs(const std::string& arg, const ChakraOptions& chakra);

/// `arg` names a workload file (flux.workload/v1, plain or gzip), or a
/// Chakra prefix when `arg` is no file and `arg`.0.et exists. Traces whose
/// sends alone would not fit in the memory available are refused with
/// core::InputError before the workload is built (their sends counted by
/// chakra::import_chakra_lazy first).
LoadedWorkload load_workload(const std::string& arg, const ChakraOptions& chakra);

/// The one-line summary of an import ("read 8 ranks, 280 nodes (...)").
std::string import_summary(const chakra::ImportStats& s, const chakra::ImportOptions& options);

/// The traces of a Chakra prefix with their collectives kept whole
/// (chakra::import_traces_lazy), and what to say about them.
struct LoadedLazy {
  core::LazyWorkload workload;
  std::vector<std::string> notes;
};
/// Reads `prefix` as load_workload does, keeping collectives whole. Throws
/// chakra::NeedsEverySend where the import needs every send (--collective
/// auto): the caller loads it with load_workload instead.
LoadedLazy load_lazy(const std::string& prefix, const ChakraOptions& chakra);

}  // namespace flux::frontend
