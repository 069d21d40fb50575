// flux info w.json: counts, bytes, the traffic matrix, the critical path on
// an ideal network and the compute share.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/summary.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/workload_input.hpp"
#include "report.hpp"

namespace flux::cli {
namespace {

struct InfoOptions {
  std::string input;
  frontend::ChakraOptions chakra;
  frontend::SystemOptions system;
  std::size_t top = 10;
};

void print_matrix(const core::Workload& w, std::size_t top) {
  const std::size_t n = w.accelerators();
  const std::vector<core::PairTraffic> pairs = core::traffic_pairs(w);  // sorted by (src, dst)
  if (n <= 16) {
    std::printf("traffic matrix (MiB, row = src, column = dst):\n     ");
    for (std::size_t d = 0; d < n; ++d) std::printf("%8zu", d);
    std::printf("\n");
    auto next = pairs.begin();
    for (std::size_t s = 0; s < n; ++s) {
      std::printf("%4zu ", s);
      for (std::size_t d = 0; d < n; ++d) {
        if (next == pairs.end() || next->src.value() != s || next->dst.value() != d) {
          std::printf("%8s", ".");
        } else {
          std::printf("%8.1f", static_cast<double>(next++->bytes) / (1024.0 * 1024.0));
        }
      }
      std::printf("\n");
    }
    return;
  }
  std::vector<std::size_t> order(pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t k = std::min(top, order.size());
  // Largest first; ties in (src, dst) order, which is the index order.
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return pairs[a].bytes != pairs[b].bytes ? pairs[a].bytes > pairs[b].bytes
                                                              : a < b;
                    });
  std::printf("traffic matrix: %zu x %zu, %zu pairs with traffic; the %zu largest:\n", n, n,
              pairs.size(), k);
  for (std::size_t i = 0; i < k; ++i) {
    const core::PairTraffic& p = pairs[order[i]];
    std::printf("  %6u -> %-6u %s\n", p.src.value(), p.dst.value(),
                human_bytes(static_cast<double>(p.bytes)).c_str());
  }
}

// With scale-up domains: the sends and bytes that stay inside them.
void print_scaleup(const core::Workload& w, const core::System& system) {
  if (!system.has_scaleup()) return;
  std::uint64_t sends = 0, bytes = 0;
  for (std::size_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(core::TaskIndex(v));
    if (system.fabric(t.src, t.dst) != core::Fabric::kScaleUp) continue;
    ++sends;
    bytes += t.bytes;
  }
  const double total = std::max<double>(1, static_cast<double>(w.total_bytes()));
  std::printf(
      "scale-up        %u domains of %u at %g Gb/s: %llu sends, %s (%.1f%% of the bytes) inside "
      "them; %llu sends, %s across the OCS\n",
      w.accelerators() / system.scaleup_size, system.scaleup_size, system.scaleup_gbps,
      static_cast<unsigned long long>(sends), human_bytes(static_cast<double>(bytes)).c_str(),
      100 * static_cast<double>(bytes) / total,
      static_cast<unsigned long long>(w.num_tasks() - sends),
      human_bytes(static_cast<double>(w.total_bytes() - bytes)).c_str());
}

void run_info(const InfoOptions& o) {
  (void)o.system.to_system();  // option errors before any file is read
  const frontend::LoadedWorkload loaded = frontend::load_workload(o.input, o.chakra);
  const core::System system = o.system.to_system(loaded.workload);
  // With choice groups: the figures of the first alternative of each.
  const core::Workload& given = loaded.workload;
  std::vector<std::string> first;
  if (given.has_choices()) {
    first = core::choice_names(given, core::Choice(given.choices().size(), 0));
  }
  // As the wiring routes it (core/routes.hpp): the sends that run, with the
  // first route of each send that has several under --route auto.
  std::uint64_t route_choices = 0;
  const core::Routed routed =
      blame_workload(o.input, [&] { return core::first_routed(given, system, &route_choices); });
  const core::Workload& w = routed.workload();
  const core::WorkloadSummary s =
      blame_workload(o.input, [&] { return core::summarize(w, system); });
  std::printf("workload        %s\n", w.name().c_str());
  std::printf("accelerators    %u\n", w.accelerators());
  if (w.fold().folded()) {
    std::printf(
        "fold            %u copies of %u blocks of %u ranks: stands for %llu accelerators "
        "and %llu sends\n",
        w.fold().copies, w.accelerators() / w.fold().block_ranks, w.fold().block_ranks,
        static_cast<unsigned long long>(w.job_accelerators()),
        static_cast<unsigned long long>(w.num_tasks()) * w.fold().copies);
  }
  if (given.has_choices()) {
    std::string names;
    for (const std::string& n : core::alternative_names(given))
      names += (names.empty() ? "" : ", ") + n;
    const std::uint64_t count = core::choice_count(given);
    std::printf(
        "choices         %zu collectives in several decompositions (%s): %s choices; the "
        "figures below are for the first of each (%s)\n",
        given.choices().size(), names.c_str(),
        count == ~std::uint64_t{0} ? "over 2^64" : std::to_string(count).c_str(),
        core::describe_choice(given, core::choice_from_names(given, first)).c_str());
  }
  std::printf("sends           %llu\n", static_cast<unsigned long long>(s.tasks));
  std::printf("dependencies    %llu\n", static_cast<unsigned long long>(s.deps));
  std::printf("labels          %llu\n", static_cast<unsigned long long>(s.labels));
  std::printf("bytes           %s total; per send %s .. %s\n",
              human_bytes(static_cast<double>(s.total_bytes)).c_str(),
              human_bytes(static_cast<double>(s.min_bytes)).c_str(),
              human_bytes(static_cast<double>(s.max_bytes)).c_str());
  std::printf("pairs           %llu (src, dst) with traffic\n",
              static_cast<unsigned long long>(s.pairs));
  std::printf("link            %g Gb/s: transmission %s in all\n", system.link_gbps,
              core::format_duration(s.transmission_sum_ps).c_str());
  print_scaleup(w, system);
  if (const std::string wiring = system.wiring_text(w.job_accelerators()); !wiring.empty()) {
    std::printf("wiring          %s\n", wiring.c_str());
  }
  if (route_choices != 0) {
    std::printf(
        "route choices   %llu sends with several routes (--route auto): the scheduler picks one "
        "each; the figures are for the first of each\n",
        static_cast<unsigned long long>(route_choices));
  }
  print_routes(stdout, routed, 16);
  std::printf("critical path   %s on an ideal network (every pair connected, no reconfiguration)\n",
              core::format_duration(s.critical_path_ps).c_str());
  const double share = s.critical_path_ps ? static_cast<double>(s.compute_on_path_ps) /
                                                static_cast<double>(s.critical_path_ps)
                                          : 0.0;
  std::printf("compute share   %.1f%% of the critical path is compute, %.1f%% transmission\n",
              100 * share, 100 * (1 - share));
  print_matrix(w, o.top);
  print_notes(loaded.notes);
}

}  // namespace

void register_info(CLI::App& app) {
  auto opts = std::make_shared<InfoOptions>();
  auto* info = app.add_subcommand("info", "summarise a workload file");
  add_workload_argument(*info, opts->input, opts->chakra);
  add_system_options(*info, opts->system, {"--switches", "--tau"});
  info->add_option("--top", opts->top, "pairs to list when the matrix is too large to print")
      ->capture_default_str();
  info->callback([opts] { run_info(*opts); });
}

}  // namespace flux::cli
