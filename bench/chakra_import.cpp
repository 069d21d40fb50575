// The Chakra import, materialised (import_traces) or with collectives kept
// whole (import_traces_lazy, issue 33), on one prefix: wall time of reading
// the files and of the import, what the workload holds, and the process's
// peak memory. One mode per run, so that the peak is that mode's
// (docs/benchmarks.md, "Collectives kept whole"). `check` runs both and
// compares the sends and every send's earliest start on an ideal network
// (exit 1 when they differ); `simulate` simulates the lazy import on the
// ideal network (sim::simulate_lazy), as `flux simulate PREFIX --scheduler
// ideal` does the materialised one.
//
//   chakra_import PREFIX [lazy|material|check|simulate]   (PREFIX.json: the communicator groups)
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "flux/chakra/import.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"

#include "process_clock.hpp"

using flux::bench::peak_mib;
using flux::bench::seconds_since;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: chakra_import PREFIX [lazy|material|check|simulate]\n");
    return 2;
  }
  const std::string mode = argc == 3 ? argv[2] : "lazy";
  try {
    auto t = std::chrono::steady_clock::now();
    std::vector<flux::chakra::EtFile> files;
    for (const auto& f : flux::chakra::rank_files(argv[1])) {
      files.push_back(flux::chakra::read_et_file(f));
    }
    flux::chakra::ImportOptions o;
    if (std::filesystem::exists(std::string(argv[1]) + ".json")) {
      o.comm_groups = flux::chakra::read_comm_groups(std::string(argv[1]) + ".json");
    }
    const double read_s = seconds_since(t);
    std::printf("read %zu files: %.2f s, peak %.0f MiB\n", files.size(), read_s, peak_mib());
    t = std::chrono::steady_clock::now();
    if (mode == "lazy") {
      const auto r = flux::chakra::import_traces_lazy(files, o, "t");
      const auto& w = r.workload;
      std::printf(
          "lazy: %.2f s; %llu sends, %zu shapes, %zu instances, %zu members, %zu edges, "
          "%.1f MiB held; peak %.0f MiB\n",
          seconds_since(t), static_cast<unsigned long long>(w.num_tasks()), w.num_shapes(),
          w.num_instances(), w.num_members(), w.num_edges(),
          static_cast<double>(w.memory_bytes()) / (1 << 20), peak_mib());
    } else if (mode == "material") {
      const auto r = flux::chakra::import_traces(files, o, "t");
      std::printf("material: %.2f s; %zu sends, %zu deps; peak %.0f MiB\n", seconds_since(t),
                  r.workload.num_tasks(), r.workload.num_deps(), peak_mib());
    } else if (mode == "simulate") {
      // The lazy import simulated on the ideal network at 800 Gb/s
      // (flux simulate PREFIX --scheduler ideal's system), the files freed
      // first.
      const auto r = flux::chakra::import_traces_lazy(files, o, "t");
      std::vector<flux::chakra::EtFile>().swap(files);
      const double import_s = seconds_since(t);
      flux::core::System system;
      if (r.workload.scaleup_size() != 0) system.scaleup_size = r.workload.scaleup_size();
      if (r.workload.scaleup_gbps() != 0) system.scaleup_gbps = r.workload.scaleup_gbps();
      const flux::schedule::Schedule s = flux::sched::ideal_network(r.workload.name(), system);
      flux::sim::SimOptions so;
      so.keep_records = false;
      const auto sim = flux::sim::simulate_lazy(r.workload, s, so);
      std::printf(
          "simulate: import %.2f s, simulate %.2f s (loop %.2f s), %llu events (%.1fM/s); "
          "iteration %lld ps; peak %.0f MiB\n",
          import_s, sim.metrics.wall_time_s, sim.metrics.loop_time_s,
          static_cast<unsigned long long>(sim.metrics.events),
          static_cast<double>(sim.metrics.events) / sim.metrics.loop_time_s / 1e6,
          static_cast<long long>(sim.metrics.iteration_time_ps), peak_mib());
    } else if (mode == "check") {
      // Both, and the lazy one expanded: the same sends, and the same
      // earliest start of every send on an ideal network of 800 Gb/s links.
      const auto m = flux::chakra::import_traces(files, o, "t");
      const auto l = flux::chakra::import_traces_lazy(files, o, "t");
      const flux::core::Workload x(l.workload.expand());
      const flux::core::Workload& w = m.workload;
      std::size_t differ = x.num_tasks() == w.num_tasks() ? 0 : 1;
      std::vector<flux::core::TimePs> p;
      for (std::uint32_t v = 0; differ == 0 && v < w.num_tasks(); ++v) {
        const auto& a = x.task(flux::core::TaskIndex(v));
        const auto& b = w.task(flux::core::TaskIndex(v));
        if (a.src != b.src || a.dst != b.dst || a.bytes != b.bytes || a.label != b.label) ++differ;
        p.push_back(static_cast<flux::core::TimePs>(b.bytes * 10));  // 800 Gb/s: 10 ps a byte
      }
      const auto tx = flux::core::ideal_timing(x, p);
      const auto tw = flux::core::ideal_timing(w, p);
      for (std::size_t v = 0; differ == 0 && v < p.size(); ++v) {
        if (tx.earliest_start[v] != tw.earliest_start[v]) ++differ;
      }
      std::printf(
          "check: %zu sends, %zu deps against %zu expanded; makespan %lld and %lld ps; "
          "%s\n",
          w.num_tasks(), w.num_deps(), x.num_deps(), static_cast<long long>(tw.makespan),
          static_cast<long long>(tx.makespan),
          differ == 0 && tx.makespan == tw.makespan && l.warnings == m.warnings
              ? "the same sends and earliest starts"
              : "DIFFERENT");
      if (differ != 0 || tx.makespan != tw.makespan) return 1;
    } else {
      std::fprintf(stderr, "chakra_import: mode is lazy, material, check or simulate\n");
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chakra_import: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
