#pragma once
// A file opened for reading as a stream, plain or gzip (recognised by its
// magic bytes, whatever its name, and inflated as it is read): what the
// readers of every input format share.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flux/io/gzip.hpp"

namespace flux::io {

class InputFile {
 public:
  /// Throws core::InputError naming `file` when it is a directory or cannot
  /// be opened.
  explicit InputFile(const std::filesystem::path& file, std::size_t buffer_bytes = 1 << 20);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The file's bytes, inflated when it is gzip. Errors of a gzip stream
  /// propagate from the streambuf's functions (GzipInBuf).
  [[nodiscard]] std::streambuf& bytes() { return gz_ ? *gz_ : static_cast<std::streambuf&>(file_); }
  /// Bytes in the file when it is plain and its size is known; nullopt for
  /// gzip (what it inflates to is known only at its end).
  [[nodiscard]] std::optional<std::uint64_t> size() const { return size_; }
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::vector<char> buffer_;
  std::filebuf file_;
  std::unique_ptr<GzipInBuf> gz_;
  std::optional<std::uint64_t> size_;
};

}  // namespace flux::io
