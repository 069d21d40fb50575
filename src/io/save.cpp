// Writing outputs by the kind of their target (output.hpp): a temporary
// renamed over a regular file, a device written directly, standard output.
#include "flux/io/save.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <streambuf>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "temporaries.hpp"

namespace flux::io {
namespace {

core::InputError write_error(const OutputTarget& t, int err) {
  const std::string name = t.kind == OutputKind::kStdout ? "standard output" : t.given.string();
  return core::InputError(name, "", "", std::string("cannot write: ") + std::strerror(err));
}

}  // namespace

// A stream buffer on a file descriptor that keeps the first write error's
// errno (std::ofstream only says that something failed).
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), buf_(kSize) { reset(); }
  [[nodiscard]] int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  static constexpr std::size_t kSize = 1 << 16;
  void reset() { setp(buf_.data(), buf_.data() + buf_.size()); }
  bool drain() {
    const char* p = pbase();
    auto left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno != EINTR) error_ = errno;
        continue;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    reset();  // after an error, what follows is dropped
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

OutputFile::OutputFile(const OutputTarget& target) : target_(target) {
  static std::atomic<std::uint64_t> counter{0};
  switch (target_.kind) {
    case OutputKind::kStdout:
      std::fflush(stdout);  // what printf holds goes first
      fd_ = STDOUT_FILENO;
      break;
    case OutputKind::kDevice:
      fd_ = ::open(target_.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd_ < 0) throw write_error(target_, errno);
      break;
    case OutputKind::kFile: {
      const std::filesystem::path dir = target_.path.parent_path();
      const std::string name = target_.path.filename().string();
      // An existing file's contents stay as private as they were while written.
      const mode_t mode = target_.exists ? 0600 : 0666;
      for (int attempt = 0; attempt < 1000 && fd_ < 0; ++attempt) {
        tmp_ = dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" +
                      std::to_string(counter.fetch_add(1)));
        // In the table before it exists: a signal can come at any moment.
        temp_slot_ = detail::register_temporary(tmp_.string());
        fd_ = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd_ >= 0) break;
        const int err = errno;
        detail::unregister_temporary(temp_slot_);
        if (err != EEXIST) {
          tmp_.clear();
          const std::string where = dir.empty() ? std::string(".") : dir.string();
          throw core::InputError(
              target_.given.string(), "", "",
              std::string("cannot write: ") + std::strerror(err) + " (in " + where + ")");
        }
      }
      if (fd_ < 0) {
        tmp_.clear();
        throw core::InputError(target_.given.string(), "", "", "cannot create a temporary file");
      }
      if (target_.exists) {
        // Owner and group where allowed (root; a group of ours), then the
        // bits (chown may clear set-id bits).
        if (::fchown(fd_, target_.uid, target_.gid) != 0) {
          // Not allowed: the file becomes ours, as any new file would.
        }
        if (::fchmod(fd_, target_.mode & 07777) != 0) {
          const int err = errno;
          ::close(fd_);
          fd_ = -1;
          ::unlink(tmp_.c_str());
          detail::unregister_temporary(temp_slot_);
          tmp_.clear();
          throw write_error(target_, err);
        }
      }
      break;
    }
  }
  buf_ = std::make_unique<Buffer>(fd_);
  out_ = std::make_unique<std::ostream>(buf_.get());
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && target_.kind != OutputKind::kStdout) ::close(fd_);
  if (!tmp_.empty() && !committed_) {
    ::unlink(tmp_.c_str());
    detail::unregister_temporary(temp_slot_);
  }
}

std::ostream& OutputFile::stream() {
  return *out_;
}

void OutputFile::close() {
  if (fd_ < 0) return;
  out_->flush();
  int err = buf_->error();
  if (target_.kind != OutputKind::kStdout && ::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err != 0) throw write_error(target_, err);
}

void OutputFile::commit() {
  close();
  if (tmp_.empty() || committed_) return;
  if (::rename(tmp_.c_str(), target_.path.c_str()) != 0) {
    throw core::InputError(target_.given.string(), "", "",
                           std::string("cannot replace the file: ") + std::strerror(errno));
  }
  committed_ = true;
  detail::unregister_temporary(temp_slot_);
}

void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
  save_atomically(file, write);
}

void save_files(const std::vector<NamedWriter>& files) {
  // Every target first: a refused one stops before any write.
  std::vector<OutputTarget> targets;
  for (const auto& entry : files) targets.push_back(resolve_output(entry.first, true));
  // Temporaries, then devices, then standard output: what cannot be taken
  // back goes last, once everything that can fail before it has not.
  std::vector<std::unique_ptr<OutputFile>> outs;
  for (const OutputKind kind : {OutputKind::kFile, OutputKind::kDevice, OutputKind::kStdout}) {
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (targets[k].kind != kind) continue;
      outs.push_back(std::make_unique<OutputFile>(targets[k]));
      files[k].second(outs.back()->stream());
      outs.back()->close();
    }
  }
  for (auto& out : outs) out->commit();
}

}  // namespace flux::io
