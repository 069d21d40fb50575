// How often this machine stops a running thread, and for how long: reads
// the steady clock in a busy loop for a few seconds and counts the gaps
// between consecutive readings above 5, 20, 50 and 100 us (a hypervisor's
// or the kernel's preemption). A measured online decision (docs/model.md,
// "Online MoE scheduling") passes its budget when such a stall falls in
// its last steps; docs/benchmarks.md, "Online decisions", quotes this.
// Usage: clock_stalls [SECONDS] (default 5).
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  if (!(seconds > 0 && seconds <= 3600)) {
    std::fprintf(stderr, "clock_stalls: error: SECONDS must be in (0, 3600]\n");
    return 2;
  }
  constexpr std::array<double, 4> kOverUs = {5, 20, 50, 100};
  std::array<long, kOverUs.size()> count{};
  double longest_us = 0;
  const Clock::time_point start = Clock::now();
  const Clock::time_point stop =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  Clock::time_point prev = start;
  for (Clock::time_point now = start; now < stop; prev = now) {
    now = Clock::now();
    const double gap_us = std::chrono::duration<double, std::micro>(now - prev).count();
    if (gap_us > longest_us) longest_us = gap_us;
    for (std::size_t i = 0; i < kOverUs.size(); ++i) count[i] += gap_us > kOverUs[i] ? 1 : 0;
  }
  std::printf("clock stalls in %.1f s of a busy thread, per second:", seconds);
  for (std::size_t i = 0; i < kOverUs.size(); ++i) {
    std::printf("%s%.0f over %.0f us", i ? ", " : " ", static_cast<double>(count[i]) / seconds,
                kOverUs[i]);
  }
  std::printf("; longest %.1f us\n", longest_us);
  return 0;
}
