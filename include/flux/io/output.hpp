#pragma once
// What an output path means, decided here for every file Flux writes:
//
//   ""              refused
//   "-"             standard output, where the caller allows it
//   a symlink       followed: its final target is what gets written (the
//                   link stays a link)
//   a regular file, or nothing yet: replaced atomically, by a temporary in
//                   the same directory renamed over it, keeping the file's
//                   permission bits (and owner and group, when allowed)
//   a character or block device, a FIFO: written directly, never renamed over
//   a directory, a socket: refused
//
// A command checks its outputs up front (check_outputs): each one as above,
// and none the same file as one of its inputs or another of its outputs.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace flux::io {

/// Refuses (core::InputError naming `role`, e.g. "-o" or "the workload")
/// a path with a NUL character: the system would read it as the shorter path
/// before the NUL, so "w.json\0x" would name w.json. Every path Flux opens,
/// for reading or writing, passes here first.
void check_path(const std::filesystem::path& path, const std::string& role);

/// The path that means standard output, where the caller allows it.
inline constexpr const char* kStdoutPath = "-";

enum class OutputKind {
  kStdout,  ///< "-": written as produced, not atomically
  kFile,    ///< a regular file or none yet: a temporary renamed over it
  kDevice,  ///< a character or block device or a FIFO: written directly
};

/// An output path resolved (resolve_output).
struct OutputTarget {
  std::filesystem::path given;  ///< as the caller named it, for messages
  std::filesystem::path path;   ///< what is written: symlinks followed
  OutputKind kind = OutputKind::kFile;
  bool exists = false;
  // Of the existing file (exists): identity, permission bits, owner.
  std::uint64_t device = 0, inode = 0;
  std::uint32_t mode = 0, uid = 0, gid = 0;
};

/// Resolves `path` by the rules above; throws core::InputError naming it when
/// it is refused or cannot be written (missing or read-only directory, a file
/// without write permission).
OutputTarget resolve_output(const std::filesystem::path& path, bool allow_stdout);

/// A file a command writes, named for messages.
struct OutputSpec {
  std::filesystem::path path;
  std::string role;    ///< "the metrics output (-o)"
  std::string option;  ///< the option naming it ("-o")
  bool allow_stdout;   ///< "-" is standard output
};

/// A file a command reads, named for messages.
struct InputSpec {
  std::filesystem::path path;
  std::string role;  ///< "the input workload"
};

/// A command's outputs checked before any work: each resolved by the rules
/// above (an empty path refused), and none the same file as an input or as
/// another output (the same device and inode, or, for files not there yet,
/// the same path once symlinks are followed). Devices are exempt: writing
/// one replaces nothing. Inputs that do not exist are skipped (reading them
/// reports it). Throws core::InputError: "m.json: --trace: is also the
/// metrics output (-o)".
void check_outputs(const std::vector<OutputSpec>& outputs, const std::vector<InputSpec>& inputs);

/// An output directory (flux evaluate -o DIR) made ready before any work:
/// created if missing; refused (core::InputError; an empty path or "-" named
/// as `option`) if empty, "-", not a directory, or not writable (a file is
/// created in it and removed).
void prepare_output_directory(const std::filesystem::path& dir, const std::string& option);

/// An exclusive, non-blocking lock on a directory (flock on `dir/name`, a
/// file that holds the owner's pid and stays behind), released when
/// destroyed or when the process dies. Throws core::InputError
/// "DIR: another <who> is writing here (pid N)" when it is held already.
/// The lock file is Flux's own: made with O_EXCL, opened with O_NOFOLLOW,
/// and an existing one is refused (core::InputError naming it) unless it is
/// a regular file with one link holding a pid or nothing, so that a symlink,
/// hard link, FIFO or other file planted under its name is never written.
class DirectoryLock {
 public:
  DirectoryLock(const std::filesystem::path& dir, const std::string& name, const std::string& who);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

/// Removes every temporary file Flux is writing now. Async-signal-safe (it
/// only unlinks paths stored beforehand): for a program's SIGINT/SIGTERM
/// handler, which the program installs (the library never does). The table
/// of live temporaries behind it is Flux's one piece of process-wide state.
void remove_temporaries() noexcept;

}  // namespace flux::io
