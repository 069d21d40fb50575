// How often this machine stops a running thread, and for how long: reads
// the steady clock in a busy loop for a few seconds and counts the gaps
// between consecutive readings above 5, 20, 50 and 100 us (a hypervisor's
// or the kernel's preemption), and how many of the gaps over 20 us the
// thread's own CPU clock counted too (time charged to the thread: not
// another process run in its place, but a stall below the kernel or the
// kernel's own work on its behalf). A measured online decision
// (docs/model.md, "Online MoE scheduling") passes its budget when such a
// stall falls in its last steps; docs/benchmarks.md, "Online decisions",
// quotes this. Usage: clock_stalls [SECONDS] (default 5).
#include <time.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

// The calling thread's CPU time, us.
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  double seconds = 5.0;
  if (argc > 1) {
    char* end = nullptr;
    seconds = std::strtod(argv[1], &end);
    if (end == argv[1] || *end != '\0') seconds = -1;
  }
  if (argc > 2 || !(seconds > 0 && seconds <= 3600)) {
    std::fprintf(stderr, "clock_stalls: error: SECONDS must be a number in (0, 3600]\n");
    return 2;
  }
  constexpr std::array<double, 4> kOverUs = {5, 20, 50, 100};
  constexpr double kChargedOverUs = 20;
  std::array<long, kOverUs.size()> count{};
  long charged = 0;  // gaps over 20 us the thread's CPU clock counted too
  double longest_us = 0;
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::time_point prev = start;
  double prev_cpu_us = thread_cpu_us();
  for (Clock::time_point now = start; now < stop; prev = now) {
    now = Clock::now();
    const double cpu_us = thread_cpu_us();
    const double gap_us = std::chrono::duration<double, std::micro>(now - prev).count();
    if (gap_us > longest_us) longest_us = gap_us;
    for (std::size_t i = 0; i < kOverUs.size(); ++i) count[i] += gap_us > kOverUs[i] ? 1 : 0;
    if (gap_us > kChargedOverUs && cpu_us - prev_cpu_us > kChargedOverUs) ++charged;
    prev_cpu_us = cpu_us;
  }
  std::printf("clock stalls in %.1f s of a busy thread, per second:", seconds);
  for (std::size_t i = 0; i < kOverUs.size(); ++i) {
    std::printf("%s%.0f over %.0f us", i ? ", " : " ", static_cast<double>(count[i]) / seconds,
                kOverUs[i]);
  }
  std::printf(
      "; longest %.1f us; of those over %.0f us, %.0f%% charged to the thread's CPU time\n",
      longest_us, kChargedOverUs,
      count[1] > 0 ? 100.0 * static_cast<double>(charged) / static_cast<double>(count[1]) : 0.0);
  return 0;
}
