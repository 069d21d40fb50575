#pragma once
// Writing any output file by the rules of output.hpp: a regular file (or a
// new one) through a temporary beside it, renamed over it only when
// complete; a device or FIFO directly; "-" to standard output.
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

#include "flux/io/output.hpp"

namespace flux::io {

/// Calls `write` on a stream to `file` ("-": standard output) and completes
/// it (save_atomically). On any error (thrown by `write` or by I/O) a
/// regular `file` is untouched, no temporary is left, and the error
/// propagates; I/O errors are core::InputError naming `file`.
void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);

/// An output and what writes it.
using NamedWriter = std::pair<std::filesystem::path, std::function<void(std::ostream&)>>;

/// Several outputs as one: every target resolved first (one refused, none
/// written); then every regular file written to its temporary, then the
/// devices, then standard output ("-"), what cannot be taken back last; and
/// only when all are complete are the temporaries renamed into place. An
/// error leaves every regular target untouched and no temporary behind.
void save_files(const std::vector<NamedWriter>& files);

/// save_file with any callable.
template <class F>
void save_atomically(const std::filesystem::path& file, F&& write);

/// One output being written, by the kind of its target: a temporary file
/// beside it (registered for remove_temporaries), the device itself, or
/// standard output. Removes its temporary unless committed.
class OutputFile {
 public:
  explicit OutputFile(const OutputTarget& target);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] std::ostream& stream();
  /// The open file, for a writer of its own (a child process); its data goes
  /// where stream()'s would. A temporary is open for reading too.
  [[nodiscard]] int fd() const { return fd_; }
  /// Flushes and checks for write errors (core::InputError naming the
  /// target); a temporary stays temporary.
  void close();
  /// close(), then renames a temporary over the target.
  void commit();

 private:
  class Buffer;
  OutputTarget target_;
  int fd_ = -1;
  std::filesystem::path tmp_;
  void* temp_slot_ = nullptr;  // its entry in the table of live temporaries
  std::unique_ptr<Buffer> buf_;
  std::unique_ptr<std::ostream> out_;
  bool committed_ = false;
};

template <class F>
void save_atomically(const std::filesystem::path& file, F&& write) {
  OutputFile out(resolve_output(file, true));
  write(out.stream());
  out.commit();
}

}  // namespace flux::io
