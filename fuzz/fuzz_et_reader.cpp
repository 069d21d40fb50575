// libFuzzer target: the Chakra .et reader (gzip, framing, messages,
// attributes) and the import behind it (rank graphs, matching, the walk).
// Every input must either be read or be rejected with core::InputError;
// anything else (a crash, a sanitizer report, another exception) is a bug.
// What is read must also survive writing and reading again unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "flux/chakra/et.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"

namespace {

using flux::chakra::EtFile;
using flux::chakra::EtNode;
using flux::chakra::NodeType;

bool same(const EtNode& a, const EtNode& b) {
  return a.id == b.id && a.name == b.name && a.type == b.type && a.data_deps == b.data_deps &&
         a.ctrl_deps == b.ctrl_deps && a.duration_micros == b.duration_micros &&
         a.comm_type == b.comm_type && a.comm_size == b.comm_size && a.comm_src == b.comm_src &&
         a.comm_dst == b.comm_dst && a.comm_tag == b.comm_tag && a.pg_name == b.pg_name &&
         a.num_ops == b.num_ops && a.tensor_size == b.tensor_size && a.is_cpu_op == b.is_cpu_op &&
         a.duration_ps == b.duration_ps;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  EtFile file;
  try {
    file = flux::chakra::parse_et(bytes, "fuzz.et");
  } catch (const flux::core::InputError&) {
    return 0;
  }
  // Written and read back, the file holds the same nodes.
  const EtFile again = flux::chakra::parse_et(flux::chakra::serialize_et(file), "again.et");
  if (again.nodes.size() != file.nodes.size()) std::abort();
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    if (!same(file.nodes[i], again.nodes[i])) std::abort();
  }
  // The file as the only rank; as both ranks of a two-rank trace (for
  // collectives); and as rank 0 with its mirror image as rank 1, in which
  // every COMM_SEND is the matching COMM_RECV and every COMM_RECV the
  // matching COMM_SEND (for point-to-point pairs).
  EtFile mirror = file;
  for (EtNode& n : mirror.nodes) {
    const auto type = static_cast<NodeType>(n.type);
    if (type != NodeType::kCommSend && type != NodeType::kCommRecv) continue;
    n.type = static_cast<std::uint32_t>(type == NodeType::kCommSend ? NodeType::kCommRecv
                                                                    : NodeType::kCommSend);
    n.comm_src.reset();
    n.comm_dst.reset();
    (type == NodeType::kCommSend ? n.comm_src : n.comm_dst) = 0;
  }
  flux::chakra::ImportOptions options;
  options.comm_groups = flux::chakra::CommGroups{{"1", {0}}, {"2", {1, 0}}};
  for (const std::vector<EtFile>& files :
       {std::vector<EtFile>{file}, std::vector<EtFile>{file, file},
        std::vector<EtFile>{file, mirror}}) {
    try {
      (void)flux::chakra::import_traces(files, options, "fuzz");
    } catch (const flux::core::InputError&) {
    }
  }
  return 0;
}
