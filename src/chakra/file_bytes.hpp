#pragma once
// Internal: a whole file's bytes, for the readers of .et and group files.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "flux/core/error.hpp"

namespace flux::chakra {

/// Throws core::InputError naming the file when it cannot be opened or read.
inline std::string file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw core::InputError(file.string(), "", "", "cannot open file");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw core::InputError(file.string(), "", "", "read error");
  return std::move(buf).str();
}

}  // namespace flux::chakra
