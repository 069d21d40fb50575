#include "outputs.hpp"

#include <csignal>
#include <filesystem>

#include "flux/core/error.hpp"
#include "flux/io/output.hpp"

namespace flux::cli {
namespace {

void on_terminating_signal(int sig) {
  flux::io::remove_temporaries();  // async-signal-safe: unlink only
  // SA_RESETHAND restored the default action and SA_NODEFER left the signal
  // unblocked: the process dies of it here, with the status a shell expects.
  std::raise(sig);
}

}  // namespace

void remove_temporaries_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_terminating_signal;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal ignored by the parent (nohup) stays ignored.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

FILE* report_stream(const std::vector<std::string>& outputs) {
  for (const std::string& o : outputs) {
    if (o == io::kStdoutPath) return stderr;
  }
  return stdout;
}

std::string output_name(const std::string& path) {
  return path == io::kStdoutPath ? "standard output" : path;
}

void check_output_prefix(const std::string& prefix, const std::string& option) {
  if (prefix.empty()) throw core::InputError("", option, "''", "an empty prefix names no file");
  if (prefix == io::kStdoutPath) {
    throw core::InputError("", option, prefix,
                           "standard output cannot take Chakra traces (a file per rank): name a "
                           "prefix");
  }
  // PREFIX.0.et beside a directory, never hidden files inside it ("t/" would
  // write t/.0.et and t/.json).
  const std::string base = std::filesystem::path(prefix).filename().string();
  if (base.empty() || base == "." || base == "..") {
    throw core::InputError("", option, prefix,
                           "names a directory, not a prefix: the files are PREFIX.<rank>.et, so "
                           "give a name in it (e.g. " +
                               (prefix.back() == '/' ? prefix : prefix + "/") + "trace)");
  }
  // Every file it names lies in one directory: the first stands for all.
  io::check_outputs({{prefix + ".0.et", "the traces", option, false}}, {});
}

}  // namespace flux::cli
