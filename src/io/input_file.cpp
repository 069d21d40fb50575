#include "flux/io/input_file.hpp"

#include <cerrno>
#include <cstring>

#include "flux/core/error.hpp"
#include "flux/io/output.hpp"

namespace flux::io {

InputFile::InputFile(const std::filesystem::path& file, std::size_t buffer_bytes)
    : source_(file.string()), buffer_(buffer_bytes) {
  check_path(file, "");
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw core::InputError(source_, "", "", "is a directory, not a file");
  }
  file_.pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  if (file_.open(file, std::ios::in | std::ios::binary) == nullptr) {
    throw core::InputError(source_, "", "", std::string("cannot open: ") + std::strerror(errno));
  }
  if (starts_with_gzip(file_)) {
    gz_ = std::make_unique<GzipInBuf>(file_, source_);
  } else if (const auto n = std::filesystem::file_size(file, ec); !ec) {
    size_ = n;
  }
}

}  // namespace flux::io
