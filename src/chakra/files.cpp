// The files around a Chakra trace: the rank files of a prefix and ASTRA-sim's
// communicator-group JSON; import options.
#include <algorithm>
#include <set>
#include <sstream>

#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/io/json_reader.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/io/output.hpp"

namespace flux::chakra {
namespace {

// ASTRA-sim's communicator groups: {"<name>": [rank, ...], ...}, no "format".
constexpr io::Node kGroupNodes[] = {
    {io::Kind::kMap, {}, 1},    // 0: the groups by name
    {io::Kind::kArray, {}, 2},  // 1: one group's ranks
    {io::Kind::kUint},          // 2: a rank
};
constexpr io::Schema kGroupSchema{kGroupNodes, ""};

class GroupHandler final : public io::Handler {
 public:
  explicit GroupHandler(CommGroups& groups) : groups_(groups) {}

  void begin(int node, const io::Cursor& at) override {
    if (node != 1) return;
    group_ = &groups_[std::string(at.key())];
    seen_.clear();
  }
  void end(int node, const io::Cursor& at) override {
    if (node == 1 && group_->empty()) {
      throw core::InputError("", at.path(), "[]", "expected a non-empty array of ranks");
    }
  }
  void leaf(int /*node*/, const io::Leaf& v, const io::Cursor& at) override {
    if (v.u >= 0xffffffffULL) {
      throw core::InputError("", at.path(), std::string(v.text), "a rank must be below 2^32-1");
    }
    const auto rank = static_cast<std::uint32_t>(v.u);
    if (!seen_.insert(rank).second) {
      throw core::InputError("", at.path(), std::string(v.text), "rank listed twice in the group");
    }
    group_->push_back(rank);
  }

 private:
  CommGroups& groups_;
  std::vector<std::uint32_t>* group_ = nullptr;
  std::set<std::uint32_t> seen_;
};

}  // namespace

CommGroups parse_comm_groups(std::string_view text, std::string_view source) {
  CommGroups groups;
  GroupHandler handler(groups);
  io::read_json(text, source, kGroupSchema, handler);
  return groups;
}

CommGroups read_comm_groups(const std::filesystem::path& file) {
  CommGroups groups;
  GroupHandler handler(groups);
  io::read_json_file(file, kGroupSchema, handler);
  return groups;
}

std::string comm_groups_json(const CommGroups& groups) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, ranks] : groups) {
    io::check_utf8(name, "pg_name");
    out += first ? "\n" : ",\n";
    first = false;
    std::ostringstream key;
    io::JsonWriter(key, io::JsonWriter::Style::kCompact).value(name).finish();
    out += "  " + key.str() + ": [";
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      out += (k > 0 ? ", " : "") + std::to_string(ranks[k]);
    }
    out += "]";
  }
  out += "\n}\n";
  return out;
}

void ImportOptions::validate() const {
  gpu.validate();
}

std::vector<std::filesystem::path> rank_files(const std::filesystem::path& prefix) {
  io::check_path(prefix, "");
  auto file_of = [&](std::uint64_t r) {
    return std::filesystem::path(prefix.string() + "." + std::to_string(r) + ".et");
  };
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (;;) {
    const std::filesystem::path file = file_of(files.size());
    const std::filesystem::file_status st = std::filesystem::status(file, ec);
    if (!std::filesystem::exists(st)) break;
    if (std::filesystem::is_directory(st)) {
      throw core::InputError(file.string(), "", "", "is a directory, not a file");
    }
    files.push_back(file);
  }
  if (files.empty()) {
    throw core::InputError(file_of(0).string(), "", "",
                           "no such file: a trace prefix P names the files P.0.et, P.1.et, ...");
  }
  // A file of a higher rank beyond the first gap means a rank is missing.
  const std::filesystem::path dir =
      prefix.has_parent_path() ? prefix.parent_path() : std::filesystem::path(".");
  const std::string base = prefix.filename().string() + ".";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= base.size() + 3 || name.compare(0, base.size(), base) != 0 ||
        name.compare(name.size() - 3, 3, ".et") != 0) {
      continue;
    }
    const std::string digits = name.substr(base.size(), name.size() - base.size() - 3);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    if (std::stoull(digits) >= files.size()) {
      throw core::InputError(file_of(files.size()).string(), "", "",
                             "no such file, but " + name + " exists: a rank is missing");
    }
  }
  return files;
}

std::vector<EtFile> read_traces(const std::filesystem::path& prefix) {
  std::vector<EtFile> traces;
  for (const std::filesystem::path& file : rank_files(prefix)) {
    traces.push_back(read_et_file(file));
  }
  return traces;
}

ImportResult import_chakra(const std::filesystem::path& prefix, const ImportOptions& options) {
  return import_traces(read_traces(prefix), options, prefix.filename().string());
}

}  // namespace flux::chakra
