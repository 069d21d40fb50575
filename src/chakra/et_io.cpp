// Reading and writing one rank's Chakra trace: gzip, length-delimited
// framing, and the protobuf messages of et_def.proto (compiled by protoc at
// build time). The framing is read here, byte by byte, so that a truncated
// file or a bad varint is reported at its offset; each record is then parsed
// by the generated code and checked for fields of the wrong wire type (the
// sign of a different message). Attribute values are decoded whatever
// integer type the writer chose.
#include <zlib.h>

#include <cstring>
#include <limits>
#include <set>

#include "et_def.pb.h"
#include "file_bytes.hpp"
#include "flux/chakra/et.hpp"
#include "flux/core/error.hpp"

namespace flux::chakra {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::size_t kZlibChunk = 1 << 18;

// --- gzip -----------------------------------------------------------------

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

unsigned char* zin(std::string_view s) {
  // zlib's input pointer is not const but is never written through.
  return reinterpret_cast<unsigned char*>(const_cast<char*>(s.data()));
}

/// Decompresses one or more concatenated gzip members.
std::string gunzip(std::string_view in, const std::string& source) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    throw core::InputError(source, "", "", "cannot initialise zlib");
  }
  std::string out;
  std::size_t fed = 0;
  while (true) {
    if (zs.avail_in == 0 && fed < in.size()) {
      const std::size_t more = std::min<std::size_t>(in.size() - fed, 0xffffffffu);
      zs.next_in = zin(in.substr(fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    const std::size_t used = out.size();
    out.resize(used + kZlibChunk);
    zs.next_out = reinterpret_cast<unsigned char*>(out.data() + used);
    zs.avail_out = static_cast<uInt>(kZlibChunk);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(used + kZlibChunk - zs.avail_out);
    if (rc == Z_STREAM_END) {
      const std::size_t consumed = fed - zs.avail_in;
      if (consumed == in.size()) break;
      if (!is_gzip(in.substr(consumed))) {
        inflateEnd(&zs);
        throw core::InputError(source, "byte " + std::to_string(consumed), "",
                               "data after the end of the gzip stream");
      }
      inflateReset(&zs);
      continue;
    }
    if (rc == Z_OK) continue;
    const bool truncated = rc == Z_BUF_ERROR && zs.avail_in == 0 && fed == in.size();
    const std::string msg = zs.msg != nullptr ? zs.msg : "error " + std::to_string(rc);
    inflateEnd(&zs);
    throw core::InputError(source, "", "",
                           truncated ? "truncated gzip stream" : "corrupt gzip data: " + msg);
  }
  inflateEnd(&zs);
  return out;
}

std::string gzip(std::string_view in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    throw core::Error("cannot initialise zlib");
  }
  std::string out;
  std::size_t fed = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.avail_in == 0 && fed < in.size()) {
      const std::size_t more = std::min<std::size_t>(in.size() - fed, 0xffffffffu);
      zs.next_in = zin(in.substr(fed));
      zs.avail_in = static_cast<uInt>(more);
      fed += more;
    }
    const std::size_t used = out.size();
    out.resize(used + kZlibChunk);
    zs.next_out = reinterpret_cast<unsigned char*>(out.data() + used);
    zs.avail_out = static_cast<uInt>(kZlibChunk);
    rc = deflate(&zs, fed == in.size() && zs.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    out.resize(used + kZlibChunk - zs.avail_out);
  }
  deflateEnd(&zs);
  return out;
}

// --- framing ----------------------------------------------------------------

struct Record {
  std::size_t index = 0;   // 0: GlobalMetadata, then the nodes
  std::size_t offset = 0;  // byte offset of its length prefix
  std::string_view body;
};

std::string record_field(const Record& r) {
  return "record " + std::to_string(r.index) + " at byte " + std::to_string(r.offset);
}

/// The next length-delimited record, or false at the end of the data.
bool next_record(std::string_view data, std::size_t& pos, std::size_t index, Record& out,
                 const std::string& source) {
  if (pos >= data.size()) return false;
  out.index = index;
  out.offset = pos;
  std::uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    if (pos >= data.size()) {
      throw core::InputError(source, record_field(out), "",
                             "truncated: the file ends inside the record's length");
    }
    const auto byte = static_cast<unsigned char>(data[pos++]);
    if (shift == 28 && (byte & 0xf0) != 0) {
      throw core::InputError(source, record_field(out), "",
                             "bad varint: the record's length has more than 32 bits (not a "
                             "length-delimited Chakra trace)");
    }
    length |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (length > data.size() - pos) {
    throw core::InputError(source, record_field(out), "",
                           "truncated: the record's length is " + std::to_string(length) +
                               " bytes, only " + std::to_string(data.size() - pos) +
                               " are left in the file");
  }
  out.body = data.substr(pos, length);
  pos += length;
  return true;
}

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
    const bool known = slot != nullptr || name == "pg_name" || name == "is_cpu_op";
    if (!known) continue;
    const std::string field = "node " + std::to_string(node.id) + "." + name;
    if (!seen.insert(name).second) {
      throw core::InputError(source, field, "", "attribute given twice");
    }
    if (slot != nullptr) {
      *slot = attr_int(a, source, field);
    } else if (name == "pg_name") {
      node.pg_name = attr_string(a, source, field);
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

EtFile parse_et(std::string_view bytes, std::string_view source) {
  EtFile file;
  file.source = std::string(source);
  std::string inflated;
  if (is_gzip(bytes)) {
    inflated = gunzip(bytes, file.source);
    bytes = inflated;
  }
  if (bytes.empty()) {
    throw core::InputError(file.source, "", "",
                           "empty file: a Chakra trace starts with a GlobalMetadata record");
  }
  std::set<int> noted;
  std::size_t pos = 0;
  Record r;
  next_record(bytes, pos, 0, r, file.source);
  parse_metadata(r, file, noted);
  for (std::size_t index = 1; next_record(bytes, pos, index, r, file.source); ++index) {
    file.nodes.push_back(parse_node(r, file, noted));
  }
  return file;
}

EtFile read_et_file(const std::filesystem::path& file) {
  return parse_et(file_bytes(file), file.string());
}

std::string serialize_et(const EtFile& file, bool compress) {
  std::string out;
  pb::GlobalMetadata md;
  md.set_version(file.version.empty() ? std::string(kSchemaVersion) : file.version);
  for (const auto& [name, value] : {std::pair{"flux_workload", &file.workload},
                                    std::pair{"flux_collective", &file.collective}}) {
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
    put_record(out, n);
  }
  return compress ? gzip(out) : out;
}

}  // namespace flux::chakra
