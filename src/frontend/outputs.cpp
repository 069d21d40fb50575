// Checks on a Chakra trace prefix as an output
// (include/flux/frontend/outputs.hpp).
#include "flux/frontend/outputs.hpp"

#include <filesystem>

#include "flux/core/error.hpp"
#include "flux/io/output.hpp"

namespace flux::frontend {

void check_output_prefix(const std::string& prefix, const std::string& option) {
  if (prefix.empty()) throw core::InputError("", option, "''", "an empty prefix names no file");
  if (prefix == io::kStdoutPath) {
    throw core::InputError("", option, prefix,
                           "standard output cannot take Chakra traces (a file per rank): name a "
                           "prefix");
  }
  // PREFIX.0.et beside a directory, never hidden files inside it ("t/" would
  // write t/.0.et and t/.json).
  const std::string base = std::filesystem::path(prefix).filename().string();
  if (base.empty() || base == "." || base == "..") {
    throw core::InputError("", option, prefix,
                           "names a directory, not a prefix: the files are PREFIX.<rank>.et, so "
                           "give a name in it (e.g. " +
                               (prefix.back() == '/' ? prefix : prefix + "/") + "trace)");
  }
  // Every file it names lies in one directory: the first stands for all.
  io::check_outputs({{prefix + ".0.et", "the traces", option, false}}, {});
}

}  // namespace flux::frontend
