// gnuplot run by a front end (include/flux/frontend/gnuplot.hpp).
#include "flux/frontend/gnuplot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "flux/core/error.hpp"

extern char** environ;

namespace flux::frontend {

bool run_gnuplot(const std::string& script, const std::vector<int>& outputs) {
  // Held by descriptors, not names: a signal that removes the temporaries
  // leaves gnuplot nothing to recreate.
  const int in = memfd_create("plot.gp", MFD_CLOEXEC);
  if (in < 0 || ::write(in, script.data(), script.size()) != static_cast<ssize_t>(script.size()) ||
      ::lseek(in, 0, SEEK_SET) != 0) {
    throw core::Error(std::string("cannot pass the script to gnuplot: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  std::vector<int> high;  // above 3 + k, so that no dup2 overwrites another's source
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    high.push_back(::fcntl(outputs[k], F_DUPFD_CLOEXEC, 10));
    posix_spawn_file_actions_adddup2(&actions, high.back(), 3 + static_cast<int>(k));
  }
  char arg0[] = "gnuplot";
  char* argv[] = {arg0, nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  for (const int fd : high) ::close(fd);
  ::close(in);
  if (spawned != 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return false;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw core::Error("gnuplot failed (" +
                      (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                         : "signal " + std::to_string(WTERMSIG(status))) +
                      "): no plots written");
  }
  return true;
}

void check_plot(const io::OutputFile& plot, const std::filesystem::path& file,
                std::string_view end) {
  struct stat st {};
  std::string tail(end.size() + 64, '\0');
  if (::fstat(plot.fd(), &st) != 0) throw core::InputError(file.string(), "", "", "cannot read");
  const auto size = static_cast<std::size_t>(st.st_size);
  const std::size_t n = std::min(size, tail.size());
  const ssize_t got = ::pread(plot.fd(), tail.data(), n, static_cast<off_t>(size - n));
  tail.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  if (end.back() == '>') {  // text: whitespace may follow
    while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back()))) tail.pop_back();
  }
  if (size == 0 || !tail.ends_with(end)) {
    throw core::InputError(file.string(), "", "",
                           "gnuplot wrote an incomplete plot (" + std::to_string(size) +
                               " bytes; is the disk full?): no plots written");
  }
}

}  // namespace flux::frontend
