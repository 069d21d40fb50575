// Workload generation: time and peak memory (max RSS of the process, so run
// one benchmark per process for a clean peak: bench/run.sh does).
//   generate_bench --benchmark_filter=Paper        the paper's instances
//   generate_bench --benchmark_filter=Llama405b    ~11.7M sends
//   generate_bench --benchmark_filter=Random       random DAGs, 1M sends
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "flux/workload/llama.hpp"
#include "flux/workload/random.hpp"

namespace {

using flux::workload::ModelConfig;
using flux::workload::TrainingConfig;

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

template <class Generate>
void run(benchmark::State& state, Generate generate) {
  std::size_t sends = 0, deps = 0;
  for (auto _ : state) {
    const auto w = generate();
    sends = w.num_tasks();
    deps = w.num_deps();
    benchmark::DoNotOptimize(sends);
  }
  state.counters["sends"] = static_cast<double>(sends);
  state.counters["deps"] = static_cast<double>(deps);
  state.counters["sends_per_s"] =
      benchmark::Counter(static_cast<double>(sends), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_Paper8b(benchmark::State& state) {
  TrainingConfig c;
  c.model.layers = static_cast<std::uint32_t>(state.range(0));
  c.tp = 4;
  c.dp = 2;
  run(state, [&] { return flux::workload::generate_llama(c); });
}
BENCHMARK(BM_Paper8b)->Arg(8)->Arg(16)->Unit(benchmark::kMillisecond);

// Llama 3 405B, all 126 layers, TP8 x DP64 = 512 GPUs, ring: 11.7M sends.
void BM_Llama405b(benchmark::State& state) {
  TrainingConfig c;
  c.model = ModelConfig::llama3("405b");
  c.tp = 8;
  c.dp = static_cast<std::uint32_t>(state.range(0));
  run(state, [&] { return flux::workload::generate_llama(c); });
}
BENCHMARK(BM_Llama405b)->Arg(64)->Iterations(1)->Unit(benchmark::kSecond);

// flux generate random --ranks 64 --sends 1000000 --depth 1000 (fan-in 2).
void BM_Random(benchmark::State& state) {
  flux::workload::RandomOptions o;
  o.ranks = 64;
  o.sends = static_cast<std::uint32_t>(state.range(0));
  o.depth = 1000;
  run(state, [&] { return flux::workload::generate_random(o); });
}
BENCHMARK(BM_Random)->Arg(1'000'000)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
