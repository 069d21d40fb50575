// DAG analysis on a generated workload of ~160k sends (Llama 3 70B, all 80
// layers, TP8 x DP4): building the validated Workload, the ideal timing, and
// ancestor queries as the MILP asks them (conflicting pairs, i.e. pairs of
// sends sharing an endpoint), in one batch and one at a time.
#include <benchmark/benchmark.h>

#include <memory>

#include "flux/core/dag.hpp"
#include "flux/workload/llama.hpp"

namespace {

using namespace flux;

const core::Workload& instance() {
  static const std::unique_ptr<core::Workload> w = [] {
    workload::TrainingConfig c;
    c.model = workload::ModelConfig::llama3("70b");
    c.tp = 8;
    c.dp = 4;
    return std::make_unique<core::Workload>(workload::generate_llama(c));
  }();
  return *w;
}

// `count` conflicting pairs drawn deterministically: consecutive sends of the
// same source rank at a stride, so both near and far pairs occur.
std::vector<std::pair<core::TaskIndex, core::TaskIndex>> conflicting_pairs(const core::Workload& w,
                                                                           std::size_t count) {
  std::vector<std::vector<std::uint32_t>> by_src(w.accelerators());
  for (std::uint32_t i = 0; i < w.num_tasks(); ++i) by_src[w.tasks()[i].src.value()].push_back(i);
  std::vector<std::pair<core::TaskIndex, core::TaskIndex>> q;
  std::uint64_t s = 12345;
  while (q.size() < count) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const auto& v = by_src[(s >> 33) % by_src.size()];
    const std::size_t a = (s >> 20) % v.size(), b = (s >> 7) % v.size();
    if (a != b) q.emplace_back(core::TaskIndex(v[a]), core::TaskIndex(v[b]));
  }
  return q;
}

void BM_BuildWorkload(benchmark::State& state) {
  const core::WorkloadData data = instance().data();
  for (auto _ : state) {
    core::Workload w(data);
    benchmark::DoNotOptimize(w.num_tasks());
  }
  state.counters["sends"] = static_cast<double>(data.tasks.size());
}
BENCHMARK(BM_BuildWorkload)->Unit(benchmark::kMillisecond);

void BM_IdealTiming(benchmark::State& state) {
  const core::Workload& w = instance();
  const auto p = core::transmission_times(w, core::System{});
  for (auto _ : state) benchmark::DoNotOptimize(core::ideal_timing(w, p).makespan);
  state.counters["sends"] = static_cast<double>(w.num_tasks());
}
BENCHMARK(BM_IdealTiming)->Unit(benchmark::kMillisecond);

void BM_ReachesBatch(benchmark::State& state) {
  const core::Workload& w = instance();
  const auto q = conflicting_pairs(w, static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(core::Reachability(w).reaches_batch(q).data());
  state.counters["queries_per_s"] = benchmark::Counter(
      static_cast<double>(q.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReachesBatch)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_ReachesSingle(benchmark::State& state) {
  const core::Workload& w = instance();
  const auto q = conflicting_pairs(w, 1000);
  core::Reachability r(w);
  for (auto _ : state) {
    std::size_t hits = 0;
    for (const auto& [u, v] : q) hits += r.reaches(u, v);
    benchmark::DoNotOptimize(hits);
  }
  state.counters["queries_per_s"] = benchmark::Counter(
      static_cast<double>(q.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReachesSingle)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
