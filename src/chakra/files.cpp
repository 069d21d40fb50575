// The files around a Chakra trace: the rank files of a prefix and ASTRA-sim's
// communicator-group JSON; import options.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "file_bytes.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/trace/json_writer.hpp"

namespace flux::chakra {
CommGroups parse_comm_groups(std::string_view text, std::string_view source_view) {
  const std::string source(source_view);
  std::set<std::string> keys;
  std::string duplicate;
  // Duplicate keys are an error: nlohmann would keep the last one silently.
  const nlohmann::json::parser_callback_t check =
      [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed.is_string() &&
            !keys.insert(parsed.get<std::string>()).second && duplicate.empty()) {
          duplicate = parsed.get<std::string>();
        }
        return true;
      };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end(), check);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(source, "", "", std::string("malformed JSON: ") + e.what());
  }
  if (!duplicate.empty()) {
    throw core::InputError(source, "\"" + duplicate + "\"", "", "group given twice");
  }
  if (!j.is_object()) {
    throw core::InputError(source, "", "",
                           "expected a JSON object of groups, e.g. {\"1\": [0, 1], \"2\": [2, 3]}");
  }
  CommGroups groups;
  for (const auto& [name, ranks] : j.items()) {
    const std::string field = "\"" + name + "\"";
    if (!ranks.is_array() || ranks.empty()) {
      throw core::InputError(source, field, ranks.dump(), "expected a non-empty array of ranks");
    }
    std::vector<std::uint32_t>& list = groups[name];
    std::set<std::uint32_t> seen;
    for (const auto& r : ranks) {
      if (!r.is_number_integer() || r.get<std::int64_t>() < 0 ||
          r.get<std::int64_t>() >= 0xffffffffLL) {
        throw core::InputError(source, field, r.dump(), "a rank must be an integer >= 0");
      }
      const auto rank = static_cast<std::uint32_t>(r.get<std::int64_t>());
      if (!seen.insert(rank).second) {
        throw core::InputError(source, field, r.dump(), "rank listed twice in the group");
      }
      list.push_back(rank);
    }
  }
  return groups;
}

CommGroups read_comm_groups(const std::filesystem::path& file) {
  return parse_comm_groups(file_bytes(file), file.string());
}

std::string comm_groups_json(const CommGroups& groups) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, ranks] : groups) {
    trace::check_utf8(name, "pg_name");
    out += first ? "\n" : ",\n";
    first = false;
    out += "  " + nlohmann::json(name).dump() + ": [";
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
  auto file_of = [&](std::uint64_t r) {
    return std::filesystem::path(prefix.string() + "." + std::to_string(r) + ".et");
  };
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  while (std::filesystem::is_regular_file(file_of(files.size()), ec)) {
    files.push_back(file_of(files.size()));
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

ImportResult import_chakra(const std::filesystem::path& prefix, const ImportOptions& options) {
  std::vector<EtFile> traces;
  for (const std::filesystem::path& file : rank_files(prefix)) {
    traces.push_back(read_et_file(file));
  }
  return import_traces(traces, options, prefix.filename().string());
}

}  // namespace flux::chakra
