// What an output path means (output.hpp), checked before any work.
#include "flux/io/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "flux/core/error.hpp"

namespace flux::io {
namespace {

namespace fs = std::filesystem;

// The Linux limit on symlinks followed in one lookup.
constexpr int kMaxSymlinks = 40;

core::InputError cannot_write(const fs::path& given, int err, const fs::path& dir = {}) {
  std::string problem = std::string("cannot write: ") + std::strerror(err);
  if (!dir.empty()) problem += " (in " + dir.string() + ")";
  return core::InputError(given.string(), "", "", problem);
}

fs::path directory_of(const fs::path& p) {
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// The final target of `path`'s symlinks (the path itself if none); `st` is
// its lstat, `exists` whether there is one (a dangling link's target is new).
fs::path follow_links(const fs::path& given, struct stat& st, bool& exists) {
  fs::path p = given;
  for (int hops = 0;; ++hops) {
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) throw cannot_write(given, errno);
      exists = false;
      return p;
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      return p;
    }
    if (hops == kMaxSymlinks) throw cannot_write(given, ELOOP);
    std::error_code ec;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw cannot_write(given, ec.value());
    p = target.is_absolute() ? target : directory_of(p) / target;
  }
}

void check_writable_directory(const fs::path& given, const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw cannot_write(given, errno, dir);
  if (!S_ISDIR(st.st_mode)) throw cannot_write(given, ENOTDIR, dir);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw cannot_write(given, errno, dir);
}

}  // namespace

void check_path(const fs::path& path, const std::string& role) {
  const std::string& text = path.native();
  const std::size_t nul = text.find('\0');
  if (nul == std::string::npos) return;
  throw core::InputError(text.substr(0, nul) + "\\0" + text.substr(nul + 1), role, "",
                         "a path cannot hold a NUL character");
}

OutputTarget resolve_output(const fs::path& given, bool allow_stdout) {
  OutputTarget t;
  t.given = given;
  if (given.empty()) {
    throw core::InputError("", "output", "''", "an empty path names no file");
  }
  check_path(given, "");
  if (given == kStdoutPath) {
    if (!allow_stdout) {
      throw core::InputError(given.string(), "", "",
                             "standard output cannot take this output: name a file");
    }
    t.kind = OutputKind::kStdout;
    return t;
  }
  struct stat st {};
  t.path = follow_links(given, st, t.exists);
  if (!t.exists) {
    const std::string name = t.path.filename().string();
    if (name.empty() || name == "." || name == "..") {
      throw core::InputError(given.string(), "", "", "not a file name");
    }
    check_writable_directory(given, directory_of(t.path));
    return t;
  }
  if (S_ISDIR(st.st_mode)) throw core::InputError(given.string(), "", "", "is a directory");
  if (S_ISREG(st.st_mode)) {
    t.kind = OutputKind::kFile;
    check_writable_directory(given, directory_of(t.path));
  } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
    t.kind = OutputKind::kDevice;
  } else {
    throw core::InputError(
        given.string(), "", "",
        S_ISSOCK(st.st_mode) ? "is a socket, not a file" : "is neither a file nor a device");
  }
  // Refused as open(2) would refuse it; replacing it would not ask.
  if (::access(t.path.c_str(), W_OK) != 0) throw cannot_write(given, errno);
  t.device = st.st_dev;
  t.inode = st.st_ino;
  t.mode = st.st_mode;
  t.uid = st.st_uid;
  t.gid = st.st_gid;
  return t;
}

void check_outputs(const std::vector<OutputSpec>& outputs, const std::vector<InputSpec>& inputs) {
  // The outputs seen so far by what makes two the same: standard output; a
  // file's device and inode; a path not there yet, its canonical form (two
  // outputs one there and one not are not the same); each names the output's
  // index. Looked up, not compared pairwise:
  // a trace of 8,192 ranks is 8,193 outputs.
  std::optional<std::size_t> stdout_at;
  std::map<std::pair<dev_t, ino_t>, std::size_t> by_inode;
  std::map<fs::path, std::size_t> by_path;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const OutputSpec& out = outputs[k];
    if (out.path.empty()) {
      throw core::InputError("", out.option, "''", "an empty path names no file");
    }
    const OutputTarget t = resolve_output(out.path, out.allow_stdout);
    const auto collision = [&](const std::string& role) {
      return core::InputError(out.path.string(), out.option, "", "is also " + role);
    };
    if (t.kind == OutputKind::kDevice) continue;
    for (const InputSpec& in : inputs) {
      struct stat st {};
      if (t.exists && ::stat(in.path.c_str(), &st) == 0 && st.st_dev == t.device &&
          st.st_ino == t.inode) {
        throw collision(in.role);
      }
    }
    std::optional<std::size_t> earlier;
    if (t.kind == OutputKind::kStdout) {
      earlier = stdout_at;
      stdout_at = k;
    } else if (t.exists) {
      const auto [it, added] = by_inode.try_emplace({t.device, t.inode}, k);
      if (!added) earlier = it->second;
    } else {
      std::error_code ec;
      const fs::path canonical = fs::weakly_canonical(t.path, ec);
      if (!ec) {
        const auto [it, added] = by_path.try_emplace(canonical, k);
        if (!added) earlier = it->second;
      }
    }
    if (earlier) throw collision(outputs[*earlier].role);
  }
}

void prepare_output_directory(const fs::path& dir, const std::string& option) {
  if (dir.empty()) throw core::InputError("", option, "''", "an empty path names no directory");
  if (dir == kStdoutPath) {
    throw core::InputError("", option, kStdoutPath,
                           "standard output cannot take a directory of results");
  }
  check_path(dir, option);
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw core::InputError(dir.string(), "", "", "not a directory");
  } else if (fs::create_directories(dir, ec); ec) {
    throw core::InputError(dir.string(), "", "", "cannot create the directory: " + ec.message());
  }
  // The one sure test of writing: a file made and removed.
  const fs::path probe = dir / (".flux-probe-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw cannot_write(dir, errno);
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {

core::InputError not_a_lock(const fs::path& file, const std::string& why) {
  return core::InputError(file.string(), "", "",
                          why + ": not a lock file Flux made; remove it if no run is using it");
}

// What Flux writes into its lock files: a pid and a newline, or nothing yet
// (a crash between creating and writing).
bool holds_a_pid(int fd, std::string& owner) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n < 0) return false;
  owner.assign(buf, static_cast<std::size_t>(n));
  while (!owner.empty() && owner.back() == '\n') owner.pop_back();
  for (const char c : owner) {
    if (c < '0' || c > '9') return false;
  }
  return owner.size() <= 20;
}

}  // namespace

DirectoryLock::DirectoryLock(const fs::path& dir, const std::string& name, const std::string& who) {
  const fs::path file = dir / name;
  check_path(file, "");
  // The lock is the tool's own file, never the user's: created exclusively
  // when new, never through a symlink (O_NOFOLLOW), and, when it is there
  // already, used only if it is what Flux makes (a regular file with no
  // other link, holding a pid or nothing). So a link planted in a shared
  // results directory cannot make a run write anywhere else.
  bool created = true;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool writable = fd_ >= 0;
  if (fd_ < 0 && errno == EEXIST) {
    created = false;
    // O_NONBLOCK: a FIFO planted there must not block the open.
    fd_ = ::open(file.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    writable = fd_ >= 0;
    if (fd_ < 0 && errno == EACCES) {
      // Another user's lock: it can still be locked, not written.
      fd_ = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    }
  }
  if (fd_ < 0) {
    const int err = errno;
    if (err == ELOOP) throw not_a_lock(file, "is a symbolic link");
    throw cannot_write(file, err);
  }
  const auto refuse = [&](const std::string& why) {
    ::close(fd_);
    fd_ = -1;
    return not_a_lock(file, why);
  };
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw refuse(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw refuse("is not a regular file");
  std::string owner;
  if (!created) {
    if (st.st_nlink != 1) throw refuse("has other hard links");
    if (!holds_a_pid(fd_, owner)) throw refuse("holds something other than a pid");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    holds_a_pid(fd_, owner);
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw cannot_write(file, err);
    throw core::InputError(dir.string(), "", "",
                           "another " + who + " is writing here (pid " +
                               (owner.empty() ? std::string("unknown") : owner) + ")");
  }
  if (!writable) return;
  // Only a file checked above (made here, or holding a pid) is rewritten.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()) ||
      ::ftruncate(fd_, static_cast<off_t>(pid.size())) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw cannot_write(file, err);
  }
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace flux::io
