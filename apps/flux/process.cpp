// The flux process's own setup (process.hpp).
#include "process.hpp"

#include <sys/resource.h>

#include <csignal>

#include "flux/frontend/memory.hpp"
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

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FLUX_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FLUX_SANITIZED 1
#endif

std::uint64_t limit_address_space() {
#ifdef FLUX_SANITIZED
  return 0;
#else
  const std::uint64_t available = frontend::available_memory();
  if (available == 0) return 0;
  const std::uint64_t cap = available + (std::uint64_t{1} << 30);
  rlimit current{};
  if (getrlimit(RLIMIT_AS, &current) != 0) return 0;
  if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur <= cap) return 0;
  const rlimit wanted{static_cast<rlim_t>(cap), current.rlim_max};
  return setrlimit(RLIMIT_AS, &wanted) == 0 ? cap : 0;
#endif
}

}  // namespace flux::cli
