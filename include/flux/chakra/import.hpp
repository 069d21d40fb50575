#pragma once
// Chakra execution traces -> Flux workload DAG. The mapping, in short
// (docs/formats.md, "Chakra execution traces", has it in full):
//
//   - Each rank's nodes form a DAG by data_deps and ctrl_deps (ids may point
//     forward). A rank's COMP nodes run one at a time: each also waits for the
//     rank's previous COMP node (in the rank's topological order, ties by node
//     id; CPU and GPU operations are two separate streams). COMP time is
//     flux_duration_ps (Flux's own exports, exact), else duration_micros,
//     else a roofline time from num_ops and tensor_size
//     (workload/compute.hpp).
//   - COMM_SEND and COMM_RECV are matched by (src, dst, comm_tag), in the
//     order each rank posts them; a matched pair is one send task, issued
//     when the COMM_SEND may start (eager: the receiver's dependencies do not
//     hold the data back); the COMM_RECV completes when its data has arrived
//     and its own dependencies are met.
//   - COMM_COLL nodes are matched across the ranks of their communicator
//     group (pg_name; none or "0" = every rank) by their order on each rank,
//     and decomposed into sends by a collective algorithm
//     (workload/collectives.hpp), as the generator does: each member's
//     compute connects to its initial sends, and waiting for the collective
//     means waiting for its terminal tasks.
//   - Walking each rank's DAG, every node carries a *frontier*: the tasks it
//     waits for, each with the compute since, plus the compute since the
//     iteration began. Compute between a rank's sends becomes edge weights,
//     compute before its first send the sends' release, compute after its
//     last sends their tail. Entries the rank's compute stream brings along
//     that the node's own dependencies already imply are dropped (within a search budget).
//   - Nodes of other types (METADATA, MEM_LOAD, MEM_STORE, INVALID, types of
//     newer schemas) take no time and are named in a warning.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/chakra/et.hpp"
#include "flux/core/lazy_workload.hpp"
#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/compute.hpp"

namespace flux::chakra {

/// Communicator groups: pg_name -> the ranks of the group, in group order
/// (the position in the list is the rank's position in its collectives).
using CommGroups = std::map<std::string, std::vector<std::uint32_t>>;

/// Parses ASTRA-sim's communicator-group JSON, `{"1": [0, 1], "2": [2, 3]}`.
/// Errors name `source`, the group and the value: not an object, a group
/// that is not a non-empty array of distinct ranks (integers 0 .. 2^32-2),
/// a duplicate group name.
CommGroups parse_comm_groups(std::string_view text, std::string_view source);
CommGroups read_comm_groups(const std::filesystem::path& file);
/// The same JSON, one group per line, groups in name order.
std::string comm_groups_json(const CommGroups& groups);

struct ImportOptions {
  /// How COMM_COLL nodes become sends; unset: the algorithm Flux recorded
  /// in traces it exported (per node where it wrote one), else ring. kAuto:
  /// every decomposition that applies, as choice groups (the generator's
  /// --collective auto), for the scheduler to choose.
  std::optional<workload::Algorithm> collective;
  /// Roofline for COMP nodes without flux_duration_ps or duration_micros.
  workload::GpuSpec gpu = workload::GpuSpec::preset("a100");
  /// Groups named by pg_name; needed when a COMM_COLL names a group.
  std::optional<CommGroups> comm_groups;
  /// Ignore dependencies on ids absent from the file (with a warning)
  /// instead of rejecting the file.
  bool drop_missing_deps = false;
  /// The workload's name; empty: the name Flux wrote into the traces, or
  /// the prefix's file name.
  std::string name;
  /// The scale-up domain size the job is laid out for, recorded in the
  /// workload (core::WorkloadData::scaleup_size): a trace does not say it.
  /// 0: the size Flux wrote into the traces it exported, else not said.
  std::uint32_t scaleup_size = 0;

  /// Throws core::InputError naming the field.
  void validate() const;
};

/// The import's numeric options (core/option.hpp): `flux import chakra` and
/// the Python flux.import_chakra build theirs from it.
inline constexpr auto kImportOptions = std::tuple{
    core::NumberOption<ImportOptions, std::uint32_t>{
        "scaleup_size", "--scaleup-size",
        "scale-up (NVLink) domain size the job is laid out for, recorded in the workload (a "
        "trace does not say it; 0: what Flux wrote into traces it exported)",
        &ImportOptions::scaleup_size, 0, 1u << 20},
};

struct ImportStats {
  std::uint32_t ranks = 0;
  std::uint64_t nodes = 0;
  std::uint64_t comp_nodes = 0;
  std::uint64_t roofline_nodes = 0;  ///< COMP nodes timed by the roofline
  std::uint64_t send_nodes = 0;
  std::uint64_t recv_nodes = 0;
  std::uint64_t coll_nodes = 0;
  std::uint64_t other_nodes = 0;  ///< types Flux does not model (warned)
  std::uint64_t collectives = 0;  ///< matched collectives (one per group and call)
};

/// What an import gives: the workload (core::Workload, or core::LazyWorkload
/// with collectives kept whole), what was read, and the warnings.
template <class W>
struct ImportResultOf {
  W workload;
  ImportStats stats;
  std::vector<std::string> warnings;
};
using ImportResult = ImportResultOf<core::Workload>;

/// Converts the traces of ranks 0 .. n-1 (`ranks[r]` is rank r). Errors are
/// core::InputError naming the file (EtFile::source), the node and the
/// field: dangling or cyclic dependencies, a COMM_SEND without its
/// COMM_RECV (or sizes that differ), collectives that do not line up across
/// a group (count, type or size), unsupported collective types, unknown
/// groups, a deadlock across ranks, out-of-range values.
/// `default_name` names the workload when options.name is empty and the
/// traces carry no Flux name.
ImportResult import_traces(const std::vector<EtFile>& ranks, const ImportOptions& options,
                           std::string_view default_name);

/// The trace files of `prefix`: prefix.0.et, prefix.1.et, ... up to the first
/// missing rank. Throws core::InputError when there is none, or when a file
/// of a higher rank exists beyond the gap.
std::vector<std::filesystem::path> rank_files(const std::filesystem::path& prefix);

/// Every rank's file of `prefix`, read (rank_files, read_et_file).
std::vector<EtFile> read_traces(const std::filesystem::path& prefix);

/// Reads every rank's file of `prefix` and converts them (the workload
/// named after the prefix's file name unless the traces or options name it).
ImportResult import_chakra(const std::filesystem::path& prefix, const ImportOptions& options);

/// What import_traces_lazy throws where the import needs every send (a
/// collective kept in several decompositions): the caller imports with
/// import_traces instead.
class NeedsEverySend : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

using LazyImportResult = ImportResultOf<core::LazyWorkload>;
/// The traces with collectives kept whole (core::LazyWorkload, issue 33):
/// the same sends in the same order as import_traces, the same warnings and
/// errors, and the same earliest start for every send at any link rate; the
/// dependencies can differ by redundant ones. Throws NeedsEverySend
/// where a collective is kept in several decompositions (--collective
/// auto): those need import_traces.
LazyImportResult import_traces_lazy(const std::vector<EtFile>& ranks, const ImportOptions& options,
                                    std::string_view default_name);
/// Reads every rank's file of `prefix` and imports them lazily (as
/// import_chakra).
LazyImportResult import_chakra_lazy(const std::filesystem::path& prefix,
                                    const ImportOptions& options);

}  // namespace flux::chakra
