#pragma once
// For benchmarks that run one mode per process: wall time since a point and
// the process's peak resident memory.
#include <sys/resource.h>

#include <chrono>

namespace flux::bench {

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// Peak resident set of this process so far, MiB.
inline double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace flux::bench
