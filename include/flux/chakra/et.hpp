#pragma once
// Chakra execution traces (MLCommons Chakra, schema et_def.proto v0.0.4): one
// file per rank, `<prefix>.<rank>.et`, holding a GlobalMetadata message and
// then the rank's nodes, each message preceded by its length as a varint
// (protobuf's length-delimited framing); files may be gzip-compressed.
//
// This layer reads and writes one file and decodes the attributes Flux uses;
// chakra/import.hpp turns the files of all ranks into a workload DAG and
// chakra/export.hpp writes them. docs/formats.md ("Chakra execution traces")
// has the format and the mapping.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flux::chakra {

/// NodeType of the schema. Files may hold other values; EtNode keeps the number.
enum class NodeType : std::uint32_t {
  kInvalid = 0,
  kMetadata = 1,
  kMemLoad = 2,
  kMemStore = 3,
  kComp = 4,
  kCommSend = 5,
  kCommRecv = 6,
  kCommColl = 7,
};

/// CollectiveCommType of the schema (the `comm_type` attribute of COMM_COLL nodes).
enum class CommType : std::uint32_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};

/// "COMP", "COMM_SEND", ...; a value outside the schema as "type 12".
std::string node_type_name(std::uint32_t type);
/// "ALL_REDUCE", ...; a value outside the schema as its number.
std::string comm_type_name(std::int64_t type);

/// Version string Flux writes into GlobalMetadata.
inline constexpr std::string_view kSchemaVersion = "0.0.4";

/// One node with the attributes Flux uses decoded. Integer attributes are
/// accepted in every integer type of the schema (int32 ... sfixed64, and
/// bool); an absent attribute is nullopt. Other attributes are ignored.
struct EtNode {
  std::uint64_t id = 0;
  std::string name;
  std::uint32_t type = 0;  ///< NodeType value as stored
  std::vector<std::uint64_t> data_deps;
  std::vector<std::uint64_t> ctrl_deps;
  /// Compute time in microseconds; 0 means none (proto3 stores 0 as absent).
  std::uint64_t duration_micros = 0;
  std::optional<std::int64_t> comm_type;    ///< CommType value (COMM_COLL)
  std::optional<std::int64_t> comm_size;    ///< bytes
  std::optional<std::int64_t> comm_src;     ///< rank (COMM_RECV: the sender)
  std::optional<std::int64_t> comm_dst;     ///< rank (COMM_SEND: the receiver)
  std::optional<std::int64_t> comm_tag;     ///< matches a COMM_SEND with its COMM_RECV
  std::optional<std::string> pg_name;       ///< communicator group (COMM_COLL)
  std::optional<std::int64_t> num_ops;      ///< COMP: floating-point operations
  std::optional<std::int64_t> tensor_size;  ///< COMP: bytes of memory traffic
  std::optional<bool> is_cpu_op;
  /// Flux's exact compute time in picoseconds (attribute "flux_duration_ps",
  /// written next to the rounded duration_micros); readers prefer it.
  std::optional<std::int64_t> duration_ps;
  /// ALL_GATHER written by Flux: the exact gathered output in bytes
  /// (attribute "flux_gathered_bytes"), present only when it is not
  /// comm_size times the group size (comm_size is each rank's input, rounded
  /// up); readers prefer it.
  std::optional<std::int64_t> gathered_bytes;
  /// COMM_COLL written by Flux: the algorithm decomposing this collective
  /// (attribute "flux_collective", a string: "ring", "bruck", ...), written
  /// when the trace's collectives do not share one (the rank's metadata
  /// says it then); readers prefer it to the metadata's.
  std::optional<std::string> collective;
};

/// One rank's trace.
struct EtFile {
  std::string source;    ///< the file it came from, for messages
  std::string version;   ///< GlobalMetadata.version (empty if the writer left it out)
  std::string workload;  ///< workload name Flux wrote (metadata attribute "flux_workload")
  /// Collective algorithm of the workload Flux exported (metadata attribute
  /// "flux_collective": "ring", "direct", "halving-doubling", "bruck" or
  /// "hierarchical"), if every collective of the trace used it.
  std::string collective;
  /// The scale-up domain size the workload Flux exported was laid out for
  /// (metadata attribute "flux_scaleup_size", decimal), if any.
  std::string scaleup_size;
  /// And its bandwidth per GPU and direction, Gb/s ("flux_scaleup_gbps").
  std::string scaleup_gbps;
  std::vector<EtNode> nodes;          ///< in file order
  std::vector<std::string> warnings;  ///< e.g. fields of a newer schema that were ignored
};

/// Decodes one rank's trace from its bytes, plain or gzip-compressed
/// (recognised by the gzip magic; concatenated gzip members are accepted).
/// Errors are core::InputError naming `source`, the record (and its byte
/// offset) or the node id, and the field: empty or truncated file, bad
/// varint, truncated or corrupt gzip, a record that is not the expected
/// message (a known field with the wrong wire type), an attribute Flux uses
/// with a non-integer value, an integer too large for int64, a duplicated
/// attribute.
EtFile parse_et(std::string_view bytes, std::string_view source);

/// parse_et on a file's contents; the source is the file name.
EtFile read_et_file(const std::filesystem::path& file);

/// Encodes `file`: GlobalMetadata (its version, or kSchemaVersion when
/// empty, the workload name and collective algorithm if set), then every node with the attributes
/// that are set, in the types ASTRA-sim's own traces use (comm_type, comm_size, num_ops int64;
/// comm_src, comm_dst, comm_tag int32 when they fit; tensor_size, flux_duration_ps,
/// flux_gathered_bytes uint64;
/// is_cpu_op bool; pg_name, flux_collective string). With `gzip`, the result is gzip-compressed.
std::string serialize_et(const EtFile& file, bool gzip = false);

}  // namespace flux::chakra
