// MoE token routing (workload/routing.hpp): the time to draw one EP group's
// matrix for one MoE layer and micro-batch. The cost is O(ep * experts),
// independent of the tokens per rank T (BM_ZipfTokens shows it).
//   routing_bench                               all
//   routing_bench --benchmark_filter=Zipf/      DeepSeek-V3-like shape
#include <benchmark/benchmark.h>

#include "flux/workload/routing.hpp"

namespace {

using flux::workload::Router;
using flux::workload::RoutingShape;
using flux::workload::RoutingSpec;

// ep 64, 256 experts, top-8, T tokens per rank, 61 MoE layers.
RoutingShape deepseek_like(std::uint64_t tokens) {
  RoutingShape s;
  s.moe_layers = 61;
  s.ep = 64;
  s.experts = 256;
  s.top_k = 8;
  s.tokens_per_rank = tokens;
  s.micro_batches = 1'000'000;
  return s;
}

void run(benchmark::State& state, const RoutingSpec& spec, std::uint64_t tokens) {
  const Router router(spec, deepseek_like(tokens));
  std::uint32_t mb = 0;
  for (auto _ : state) {
    auto m = router.route(mb % 61, 0, mb);  // a new draw each time
    benchmark::DoNotOptimize(m.tokens.data());
    ++mb;
  }
  state.counters["matrices_per_s"] =
      benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Uniform(benchmark::State& state) {
  run(state, RoutingSpec{}, 16384);
}

void BM_Zipf(benchmark::State& state) {
  run(state, RoutingSpec::parse("zipf:1.2"), 16384);
}

void BM_ZipfCapacity(benchmark::State& state) {
  RoutingSpec spec = RoutingSpec::parse("zipf:1.2");
  spec.capacity_factor = 1.0;
  run(state, spec, 16384);
}

void BM_ZipfTokens(benchmark::State& state) {
  run(state, RoutingSpec::parse("zipf:1.2"), static_cast<std::uint64_t>(state.range(0)));
}

}  // namespace

BENCHMARK(BM_Uniform)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Zipf)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ZipfCapacity)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ZipfTokens)->Arg(16)->Arg(16384)->Arg(1 << 24)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
