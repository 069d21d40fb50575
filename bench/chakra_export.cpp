// Chakra export of Llama 3 8B (32 layers, TP 8, DP N, the defaults of
// `flux generate llama3 --model 8b --layers 32 --tp 8 --dp N --format
// chakra`), from the job's program alone (workload::generate_llama_program,
// chakra::to_chakra of a program: no send is made) or through the
// materialised workload, as flux generate writes it when it fits: wall time
// of each step and the process's peak memory (docs/benchmarks.md, "8,192
// ranks"). One mode per run, so that the peak is that mode's; the files of
// the two modes are byte-identical (cmp them).
//
//   chakra_export DP PREFIX [program|workload]
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "flux/chakra/export.hpp"
#include "flux/frontend/training.hpp"
#include "flux/workload/llama.hpp"

#include "process_clock.hpp"

using flux::bench::peak_mib;
using flux::bench::seconds_since;

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: chakra_export DP PREFIX [program|workload]\n");
    return 2;
  }
  const std::string mode = argc == 4 ? argv[3] : "program";
  if (mode != "program" && mode != "workload") {
    std::fprintf(stderr, "chakra_export: unknown mode '%s'\n", mode.c_str());
    return 2;
  }
  try {
    flux::workload::TrainingConfig c = flux::frontend::generate_defaults();
    c.model = flux::workload::ModelConfig::llama3("8b");
    c.model.layers = 32;
    c.tp = 8;
    c.dp = static_cast<std::uint32_t>(std::stoul(argv[1]));
    auto t = std::chrono::steady_clock::now();
    flux::workload::Program program;
    flux::chakra::ChakraTrace trace;
    if (mode == "program") {
      program = flux::workload::generate_llama_program(c);
      std::printf("program: %.2f s, %zu collectives, %llu sends, peak %.0f MiB\n", seconds_since(t),
                  program.collectives.size(), static_cast<unsigned long long>(program.num_tasks),
                  peak_mib());
      t = std::chrono::steady_clock::now();
      trace = flux::chakra::to_chakra(program, flux::chakra::CollectiveEncoding::kCommColl);
    } else {
      const flux::core::Workload w = flux::workload::generate_llama(c, &program);
      std::printf("workload: %.2f s, %zu sends, peak %.0f MiB\n", seconds_since(t), w.num_tasks(),
                  peak_mib());
      t = std::chrono::steady_clock::now();
      trace = flux::chakra::to_chakra(w, program, flux::chakra::CollectiveEncoding::kCommColl);
    }
    std::size_t nodes = 0;
    for (const auto& f : trace.ranks) nodes += f.nodes.size();
    std::printf("trace: %.2f s, %zu ranks, %zu nodes, peak %.0f MiB\n", seconds_since(t),
                trace.ranks.size(), nodes, peak_mib());
    t = std::chrono::steady_clock::now();
    flux::chakra::save_chakra(argv[2], trace);
    std::printf("saved: %.2f s, peak %.0f MiB\n", seconds_since(t), peak_mib());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chakra_export: %s\n", e.what());
    return 1;
  }
  return 0;
}
