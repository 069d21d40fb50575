#pragma once
// Writing any output file atomically: the content goes to a temporary file
// next to the target, which is renamed over it only when complete.
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <utility>
#include <vector>

namespace flux::io {

/// Calls `write` on a stream to a temporary file next to `file`, then renames
/// it over `file`. On any error (thrown by `write` or by I/O) the temporary
/// file is removed, `file` is untouched and the error propagates; I/O errors
/// are core::InputError naming `file`.
void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);

/// Several files as one: every file is written to its temporary first, and
/// only when all are complete are they renamed into place. An error while
/// writing (or a target that is a directory, refused up front) leaves every
/// target untouched and no temporary file behind.
void save_files(
    const std::vector<std::pair<std::filesystem::path, std::function<void(std::ostream&)>>>& files);

/// Writes through `write` to a temporary file next to `file`, then renames it
/// over `file`. On any error the temporary file is removed, `file` is left as
/// it was, and the error is rethrown (I/O errors as core::InputError naming
/// `file`).
template <class F>
void save_atomically(const std::filesystem::path& file, F&& write);

// Implementation detail of save_atomically.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& target);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  [[nodiscard]] std::ostream& stream() { return out_; }
  /// Flushes, closes and checks for write errors (the file stays temporary).
  void close();
  /// close(), then renames over the target.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

template <class F>
void save_atomically(const std::filesystem::path& file, F&& write) {
  TempFile tmp(file);
  write(tmp.stream());
  tmp.commit();
}

}  // namespace flux::io
