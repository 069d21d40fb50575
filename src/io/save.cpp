#include "flux/io/save.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "flux/core/error.hpp"

namespace flux::io {

TempFile::TempFile(const std::filesystem::path& target) : target_(target) {
  static std::atomic<std::uint64_t> counter{0};
  const std::string name = target.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw core::InputError(target.string(), "", "", "not a file name");
  }
  const std::filesystem::path dir = target.parent_path();
  for (int attempt = 0; attempt < 1000 && tmp_.empty(); ++attempt) {
    const std::filesystem::path candidate =
        dir / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" +
               std::to_string(counter.fetch_add(1)));
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      tmp_ = candidate;
    } else if (errno != EEXIST) {
      const std::string where = dir.empty() ? std::string(".") : dir.string();
      throw core::InputError(
          target.string(), "", "",
          std::string("cannot write: ") + std::strerror(errno) + " (in " + where + ")");
    }
  }
  if (tmp_.empty()) {
    throw core::InputError(target.string(), "", "", "cannot create a temporary file");
  }
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const std::string problem = std::string("cannot write: ") + std::strerror(errno);
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
    throw core::InputError(target.string(), "", "", problem);
  }
}

TempFile::~TempFile() {
  if (committed_) return;
  if (out_.is_open()) out_.close();
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

void TempFile::close() {
  if (!out_.is_open()) return;
  out_.flush();
  out_.close();
  if (!out_) {
    throw core::InputError(target_.string(), "", "", "write failed (disk full?)");
  }
}

void TempFile::commit() {
  close();
  std::error_code ec;
  std::filesystem::rename(tmp_, target_, ec);
  if (ec) {
    throw core::InputError(target_.string(), "", "", "cannot replace the file: " + ec.message());
  }
  committed_ = true;
}

void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
  save_atomically(file, write);
}

void save_files(
    const std::vector<std::pair<std::filesystem::path, std::function<void(std::ostream&)>>>&
        files) {
  // What would make a rename fail once others are done: checked first.
  for (const auto& entry : files) {
    if (std::filesystem::is_directory(entry.first)) {
      throw core::InputError(entry.first.string(), "", "", "is a directory");
    }
  }
  std::vector<std::unique_ptr<TempFile>> temps;
  for (const auto& [file, write] : files) {
    temps.push_back(std::make_unique<TempFile>(file));
    write(temps.back()->stream());
    temps.back()->close();
  }
  for (auto& t : temps) t->commit();
}

}  // namespace flux::io
