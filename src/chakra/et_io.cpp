// Reading and writing one rank's Chakra trace: gzip, length-delimited
// framing, and the protobuf messages of et_def.proto (compiled by protoc at
// build time). The file is read as a stream, inflated as it goes when it is
// gzip, one record at a time: memory follows the records, never the whole
// inflated file. The framing is read here, byte by byte, so that a truncated
// file, a bad varint or an implausible length is reported at its offset,
// before anything is allocated for it; each record is then parsed
// by the generated code and checked for fields of the wrong wire type (the
// sign of a different message). Attribute values are decoded whatever
// integer type the writer chose.
#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include "et_def.pb.h"
#include "flux/chakra/et.hpp"
#include "flux/core/error.hpp"
#include "flux/io/gzip.hpp"
#include "flux/io/input_file.hpp"

namespace flux::chakra {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
// A record longer than this is not a Chakra node (the largest seen are a few
// KiB): the length is corrupt, and reading on would only allocate.
constexpr std::uint64_t kMaxRecordBytes = std::uint64_t{64} << 20;
// A record's body is read in pieces of this size, so that memory follows the
// data actually present, not the length a corrupt prefix claims.
constexpr std::size_t kReadPiece = std::size_t{1} << 20;

/// A read-only streambuf over bytes in memory (no copy).
class ViewBuf final : public std::streambuf {
 public:
  explicit ViewBuf(std::string_view s) {
    char* p = const_cast<char*>(s.data());  // never written through
    setg(p, p, p + s.size());
  }
};

// --- framing ----------------------------------------------------------------

struct Record {
  std::size_t index = 0;     // 0: GlobalMetadata, then the nodes
  std::uint64_t offset = 0;  // byte offset of its length prefix (in the inflated data)
  std::string body;
};

std::string record_field(const Record& r) {
  return "record " + std::to_string(r.index) + " at byte " + std::to_string(r.offset);
}

/// Length-delimited records, one at a time, from a stream: only the current
/// record is in memory. `size` is the number of bytes in the stream when
/// known (plain files), so that a length beyond it fails before any read.
class RecordReader {
 public:
  RecordReader(std::streambuf& in, std::optional<std::uint64_t> size, const std::string& source)
      : in_(in), size_(size), source_(source) {}

  /// The next record into `out`, or false at the end of the data.
  bool next(std::size_t index, Record& out) {
    using Traits = std::streambuf::traits_type;
    if (Traits::eq_int_type(in_.sgetc(), Traits::eof())) return false;
    out.index = index;
    out.offset = pos_;
    std::uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      const auto ch = in_.sbumpc();
      if (Traits::eq_int_type(ch, Traits::eof())) {
        throw core::InputError(source_, record_field(out), "",
                               "truncated: the file ends inside the record's length");
      }
      ++pos_;
      const auto byte = static_cast<unsigned char>(Traits::to_char_type(ch));
      if (shift == 28 && (byte & 0xf0) != 0) {
        throw core::InputError(source_, record_field(out), "",
                               "bad varint: the record's length has more than 32 bits (not a "
                               "length-delimited Chakra trace)");
      }
      length |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    if (size_ && length > *size_ - pos_) truncated(out, length, *size_ - pos_);
    if (length > kMaxRecordBytes) {
      throw core::InputError(source_, record_field(out), "",
                             "implausible: the record's length is " + std::to_string(length) +
                                 " bytes, more than the 64 MiB any Chakra node needs (corrupt "
                                 "data, or not a Chakra trace)");
    }
    out.body.clear();
    while (out.body.size() < length) {
      const std::size_t have = out.body.size();
      const std::size_t piece = std::min<std::uint64_t>(length - have, kReadPiece);
      out.body.resize(have + piece);
      const auto got = std::max<std::streamsize>(
          in_.sgetn(out.body.data() + have, static_cast<std::streamsize>(piece)), 0);
      out.body.resize(have + static_cast<std::size_t>(got));
      pos_ += static_cast<std::uint64_t>(got);
      if (static_cast<std::size_t>(got) < piece) truncated(out, length, out.body.size());
    }
    return true;
  }

 private:
  [[noreturn]] void truncated(const Record& r, std::uint64_t length, std::uint64_t left) const {
    throw core::InputError(source_, record_field(r), "",
                           "truncated: the record's length is " + std::to_string(length) +
                               " bytes, only " + std::to_string(left) + " are left in the file");
  }

  std::streambuf& in_;
  std::optional<std::uint64_t> size_;
  const std::string& source_;
  std::uint64_t pos_ = 0;
};

// --- messages -----------------------------------------------------------------

/// Rejects a message whose known fields came with the wrong wire type: the
/// protobuf library keeps those as unknown fields, and they mean the record
/// is some other message. Unknown field numbers above `max_known` are fields
/// of a newer schema: noted once per file.
void check_unknown(const google::protobuf::Message& m, int max_known, const std::string& source,
                   const std::string& where, const char* what, EtFile& file, std::set<int>& noted) {
  const google::protobuf::UnknownFieldSet& u = m.GetReflection()->GetUnknownFields(m);
  for (int i = 0; i < u.field_count(); ++i) {
    const int number = u.field(i).number();
    if (number <= max_known) {
      throw core::InputError(source, where, "",
                             "field " + std::to_string(number) +
                                 " has the wrong wire type: not a Chakra " + what +
                                 " (wrong message, or corrupt data)");
    }
    if (noted.insert(number).second) {
      file.warnings.push_back(source + ": " + where + ": ignored field " + std::to_string(number) +
                              " of " + what + ", unknown to schema v0.0.4");
    }
  }
}

std::string attr_type_name(const pb::AttributeProto& a) {
  const auto* field = pb::AttributeProto::descriptor()->FindFieldByNumber(a.value_case());
  return field != nullptr ? std::string(field->name()) : "no value";
}

/// The integer value of an attribute, whatever integer type the writer used.
std::int64_t attr_int(const pb::AttributeProto& a, const std::string& source,
                      const std::string& field) {
  auto from_unsigned = [&](std::uint64_t v) {
    if (v > static_cast<std::uint64_t>(kInt64Max)) {
      throw core::InputError(source, field, std::to_string(v), "too large (above 2^63-1)");
    }
    return static_cast<std::int64_t>(v);
  };
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val:
      return a.int32_val();
    case pb::AttributeProto::kInt64Val:
      return a.int64_val();
    case pb::AttributeProto::kUint32Val:
      return a.uint32_val();
    case pb::AttributeProto::kUint64Val:
      return from_unsigned(a.uint64_val());
    case pb::AttributeProto::kSint32Val:
      return a.sint32_val();
    case pb::AttributeProto::kSint64Val:
      return a.sint64_val();
    case pb::AttributeProto::kFixed32Val:
      return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val:
      return from_unsigned(a.fixed64_val());
    case pb::AttributeProto::kSfixed32Val:
      return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val:
      return a.sfixed64_val();
    case pb::AttributeProto::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      throw core::InputError(source, field, attr_type_name(a),
                             "expected an integer attribute (any integer type)");
  }
}

std::string attr_string(const pb::AttributeProto& a, const std::string& source,
                        const std::string& field) {
  switch (a.value_case()) {
    case pb::AttributeProto::kStringVal:
      return a.string_val();
    case pb::AttributeProto::kBytesVal:
      return a.bytes_val();
    default:
      // pg_name written as a number: its decimal form names the same group.
      return std::to_string(attr_int(a, source, field));
  }
}

void decode_attrs(const pb::Node& n, EtNode& node, const std::string& source) {
  std::set<std::string_view> seen;
  for (const pb::AttributeProto& a : n.attr()) {
    const std::string& name = a.name();
    std::optional<std::int64_t>* slot = nullptr;
    if (name == "comm_type") slot = &node.comm_type;
    if (name == "comm_size") slot = &node.comm_size;
    if (name == "comm_src") slot = &node.comm_src;
    if (name == "comm_dst") slot = &node.comm_dst;
    if (name == "comm_tag") slot = &node.comm_tag;
    if (name == "num_ops") slot = &node.num_ops;
    if (name == "tensor_size") slot = &node.tensor_size;
    if (name == "flux_duration_ps") slot = &node.duration_ps;
    if (name == "flux_gathered_bytes") slot = &node.gathered_bytes;
    const bool known =
        slot != nullptr || name == "pg_name" || name == "is_cpu_op" || name == "flux_collective";
    if (!known) continue;
    const std::string field = "node " + std::to_string(node.id) + "." + name;
    if (!seen.insert(name).second) {
      throw core::InputError(source, field, "", "attribute given twice");
    }
    if (slot != nullptr) {
      *slot = attr_int(a, source, field);
    } else if (name == "pg_name") {
      node.pg_name = attr_string(a, source, field);
    } else if (name == "flux_collective") {
      node.collective = attr_string(a, source, field);
    } else {
      node.is_cpu_op = attr_int(a, source, field) != 0;
    }
  }
}

void parse_metadata(const Record& r, EtFile& file, std::set<int>& noted) {
  pb::GlobalMetadata md;
  if (!md.ParseFromArray(r.body.data(), static_cast<int>(r.body.size()))) {
    throw core::InputError(file.source, record_field(r), "",
                           "not a valid protobuf GlobalMetadata (not a Chakra trace, or corrupt "
                           "data)");
  }
  check_unknown(md, 2, file.source, record_field(r), "GlobalMetadata", file, noted);
  file.version = md.version();
  for (const pb::AttributeProto& a : md.attr()) {
    if (a.value_case() != pb::AttributeProto::kStringVal) continue;
    if (a.name() == "flux_workload") file.workload = a.string_val();
    if (a.name() == "flux_collective") file.collective = a.string_val();
    if (a.name() == "flux_scaleup_size") file.scaleup_size = a.string_val();
    if (a.name() == "flux_scaleup_gbps") file.scaleup_gbps = a.string_val();
  }
}

EtNode parse_node(const Record& r, EtFile& file, std::set<int>& noted) {
  pb::Node n;
  if (!n.ParseFromArray(r.body.data(), static_cast<int>(r.body.size()))) {
    throw core::InputError(file.source, record_field(r), "",
                           "not a valid protobuf Node (not a Chakra trace, or corrupt data)");
  }
  check_unknown(n, 10, file.source, record_field(r), "Node", file, noted);
  for (const pb::AttributeProto& a : n.attr()) {
    check_unknown(a, 32, file.source, record_field(r) + " attribute \"" + a.name() + "\"",
                  "AttributeProto", file, noted);
  }
  EtNode node;
  node.id = n.id();
  node.name = n.name();
  node.type = static_cast<std::uint32_t>(n.type());
  node.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
  node.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  node.duration_micros = n.duration_micros();
  decode_attrs(n, node, file.source);
  return node;
}

// --- writing ------------------------------------------------------------------

void add_int(pb::Node& n, const char* name, const std::optional<std::int64_t>& v, bool narrow) {
  if (!v) return;
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  if (narrow && *v >= std::numeric_limits<std::int32_t>::min() &&
      *v <= std::numeric_limits<std::int32_t>::max()) {
    a->set_int32_val(static_cast<std::int32_t>(*v));
  } else {
    a->set_int64_val(*v);
  }
}

void add_uint(pb::Node& n, const char* name, const std::optional<std::int64_t>& v) {
  if (!v) return;
  if (*v < 0) {
    add_int(n, name, v, false);
    return;
  }
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_uint64_val(static_cast<std::uint64_t>(*v));
}

void put_record(std::string& out, const google::protobuf::Message& m) {
  const std::string body = m.SerializeAsString();
  std::uint64_t length = body.size();
  if (length > 0xffffffffu) throw core::Error("Chakra record above 4 GiB");
  do {
    auto byte = static_cast<unsigned char>(length & 0x7f);
    length >>= 7;
    if (length != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (length != 0);
  out += body;
}

}  // namespace

std::string node_type_name(std::uint32_t type) {
  static constexpr const char* kNames[] = {"INVALID", "METADATA",  "MEM_LOAD",  "MEM_STORE",
                                           "COMP",    "COMM_SEND", "COMM_RECV", "COMM_COLL"};
  if (type < std::size(kNames)) return kNames[type];
  return "type " + std::to_string(type);
}

std::string comm_type_name(std::int64_t type) {
  static constexpr const char* kNames[] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  if (type >= 0 && static_cast<std::size_t>(type) < std::size(kNames)) return kNames[type];
  return std::to_string(type);
}

namespace {

/// One rank's trace from a stream of `size` bytes (when known), inflated.
EtFile parse_stream(std::streambuf& bytes, std::optional<std::uint64_t> size, std::string source) {
  EtFile file;
  file.source = std::move(source);
  using Traits = std::streambuf::traits_type;
  if (Traits::eq_int_type(bytes.sgetc(), Traits::eof())) {
    throw core::InputError(file.source, "", "",
                           "empty file: a Chakra trace starts with a GlobalMetadata record");
  }
  RecordReader reader(bytes, size, file.source);
  std::set<int> noted;
  Record r;
  reader.next(0, r);
  parse_metadata(r, file, noted);
  // A repeated id fails at its record, before the rest of the file is read.
  std::unordered_map<std::uint64_t, std::size_t> seen;
  for (std::size_t index = 1; reader.next(index, r); ++index) {
    file.nodes.push_back(parse_node(r, file, noted));
    const std::uint64_t id = file.nodes.back().id;
    if (const auto [it, inserted] = seen.emplace(id, index); !inserted) {
      throw core::InputError(file.source, record_field(r) + ": node " + std::to_string(id) + ".id",
                             std::to_string(id),
                             "duplicate id (records " + std::to_string(it->second) + " and " +
                                 std::to_string(index) + ")");
    }
  }
  return file;
}

}  // namespace

EtFile parse_et(std::string_view bytes, std::string_view source) {
  ViewBuf buf(bytes);
  if (!io::starts_with_gzip(buf)) return parse_stream(buf, bytes.size(), std::string(source));
  io::GzipInBuf gz(buf, std::string(source));
  return parse_stream(gz, std::nullopt, std::string(source));
}

EtFile read_et_file(const std::filesystem::path& file) {
  io::InputFile input(file, kReadPiece);
  return parse_stream(input.bytes(), input.size(), input.source());
}

std::string serialize_et(const EtFile& file, bool compress) {
  std::string out;
  pb::GlobalMetadata md;
  md.set_version(file.version.empty() ? std::string(kSchemaVersion) : file.version);
  for (const auto& [name, value] :
       {std::pair{"flux_workload", &file.workload}, std::pair{"flux_collective", &file.collective},
        std::pair{"flux_scaleup_size", &file.scaleup_size},
        std::pair{"flux_scaleup_gbps", &file.scaleup_gbps}}) {
    if (value->empty()) continue;
    pb::AttributeProto* a = md.add_attr();
    a->set_name(name);
    a->set_string_val(*value);
  }
  put_record(out, md);
  pb::Node n;
  for (const EtNode& node : file.nodes) {
    n.Clear();
    n.set_id(node.id);
    n.set_name(node.name);
    n.set_type(static_cast<pb::NodeType>(node.type));
    for (std::uint64_t d : node.data_deps) n.add_data_deps(d);
    for (std::uint64_t d : node.ctrl_deps) n.add_ctrl_deps(d);
    n.set_duration_micros(node.duration_micros);
    add_int(n, "comm_type", node.comm_type, false);
    add_int(n, "comm_size", node.comm_size, false);
    add_int(n, "comm_src", node.comm_src, true);
    add_int(n, "comm_dst", node.comm_dst, true);
    add_int(n, "comm_tag", node.comm_tag, true);
    if (node.pg_name) {
      pb::AttributeProto* a = n.add_attr();
      a->set_name("pg_name");
      a->set_string_val(*node.pg_name);
    }
    add_int(n, "num_ops", node.num_ops, false);
    add_uint(n, "tensor_size", node.tensor_size);
    if (node.is_cpu_op) {
      pb::AttributeProto* a = n.add_attr();
      a->set_name("is_cpu_op");
      a->set_bool_val(*node.is_cpu_op);
    }
    add_uint(n, "flux_duration_ps", node.duration_ps);
    add_uint(n, "flux_gathered_bytes", node.gathered_bytes);
    if (node.collective) {
      pb::AttributeProto* a = n.add_attr();
      a->set_name("flux_collective");
      a->set_string_val(*node.collective);
    }
    put_record(out, n);
  }
  return compress ? io::gzip_bytes(out) : out;
}

}  // namespace flux::chakra
