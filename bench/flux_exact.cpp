// `flux` against exact references on random DAGs (issue 15), and the branch
// and bound's reach.
//
//   flux_exact compare INSTANCES MILP_LIMIT_S
//     INSTANCES random DAGs of 4 to 10 sends on 3-6 accelerators, 1-3
//     switches, two families (instance() below). Each is scheduled by `flux` (default options)
//     and by `flux-milp` (MILP_LIMIT_S, gap 0), and up to kBruteMaxSends
//     sends also by the brute force of tests/brute_force.hpp. Prints one
//     table row per send count and every miss.
//   flux_exact scaling MAX_SENDS PER_SIZE [DOMAIN]
//     The branch and bound alone, from the greedy list schedule, on PER_SIZE
//     instances per send count 6, 8, ..., MAX_SENDS (the same families),
//     at most 20 s each: nodes, time to prove, node rate. DOMAIN > 1: with
//     scale-up domains of that size (instance()).
//   flux_exact budget NODES [DOMAIN]
//     The exact search as `flux` runs it (from its heuristic's schedule,
//     NODES nodes) on 12 instances each of 16 to 128 sends: proved,
//     improved, by how much, time. How flux's size limit was chosen.
//   flux_exact lns WINDOW NODES
//     A prototype large-neighbourhood search (lns() below) on random
//     instances of 40, 100 and 300 sends: how much windows of WINDOW sends,
//     NODES nodes each, improve on flux's heuristic.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "flux/core/dag.hpp"
#include "flux/sched/bounds.hpp"
#include "flux/sched/scheduler.hpp"
#include "sched/exact/branch_and_bound.hpp"
#include "sched/heuristic/flux_heuristic.hpp"
#include "sched/heuristic/list_scheduler.hpp"
#include "sched_test_util.hpp"

namespace {

using flux::core::TimePs;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kBruteMaxSends = 8;
constexpr TimePs kTausPs[] = {500'000, 1'000'000, 2'000'000, 5'000'000, 10'000'000, 20'000'000};

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Instance {
  flux::core::Workload w;
  flux::core::System sys;
  std::uint32_t sends;
};

// Instance i: two families alternate. Even i: random_dag (1-5 us sends,
// compute 0-20 us, tau 0.5-20 us). Odd i: brute_force.hpp's random_instance
// (10-50 ns sends, releases and tails, dense dependencies, tau 2-100 ns, so
// that the ports bind). Sends 4..10, switches 1..3, tau and accelerators
// varied so that every combination recurs.
// With scale-up domains of `domain` > 1 ranks, the accelerators are rounded
// up to at least two whole domains (3-6 become 4-6 for 2, 8 for 4).
Instance instance(std::uint32_t i, std::uint32_t min_sends, std::uint32_t max_sends,
                  std::uint64_t seed0 = 1, std::uint32_t domain = 1) {
  const std::uint32_t j = i / 2;
  const std::uint32_t span = max_sends - min_sends + 1;
  const std::uint32_t n = min_sends + j % span;
  const std::uint32_t switches = 1 + (j / span) % 3;
  const std::uint32_t k = (j / (span * 3)) % 6;
  std::uint32_t ranks = 3 + (j / (span * 18)) % 4;
  if (domain > 1) ranks = domain * std::max<std::uint32_t>(2, (ranks + domain - 1) / domain);
  constexpr TimePs kShortTausPs[] = {2'000, 5'000, 10'000, 20'000, 50'000, 100'000};
  Instance in = i % 2 == 0
                    ? Instance{flux::sched::testing::random_dag(seed0 + i, n, ranks),
                               flux::sched::testing::system_with(kTausPs[k], switches), n}
                    : Instance{flux::sched::testing::random_instance(seed0 + i, n, ranks),
                               flux::sched::testing::system_with(kShortTausPs[k], switches), n};
  in.sys.scaleup_size = domain;
  return in;
}

struct Row {
  int instances = 0, heuristic_optimal = 0, flux_optimal = 0, flux_proved = 0, milp_proved = 0,
      brute = 0, brute_agree = 0;
  double worst_heuristic_miss = 0, worst_miss = 0, flux_s = 0, flux_max_s = 0, milp_s = 0,
         milp_max_s = 0;
};

int compare(std::uint32_t count, double milp_limit) {
  std::map<std::uint32_t, Row> rows;
  for (std::uint32_t i = 0; i < count; ++i) {
    const Instance in = instance(i, 4, 10);
    flux::sched::SchedulerOptions fo;
    auto t0 = Clock::now();
    const auto f = flux::sched::run_scheduler("flux", in.w, in.sys, fo);
    const double flux_s = since(t0);
    flux::sched::SchedulerOptions mo;
    mo.time_limit_s = milp_limit;
    mo.relative_gap = 0;
    t0 = Clock::now();
    const auto m = flux::sched::run_scheduler("flux-milp", in.w, in.sys, mo);
    const double milp_s = since(t0);
    Row& r = rows[in.sends];
    ++r.instances;
    const bool milp_optimal = m.status == flux::schedule::SolveStatus::kOptimal;
    r.milp_proved += milp_optimal;
    TimePs reference = m.makespan_ps;
    if (in.sends <= kBruteMaxSends) {
      const TimePs bf = flux::sched::testing::brute_force(in.w, in.sys);
      ++r.brute;
      r.brute_agree += bf == m.makespan_ps;
      if (bf != m.makespan_ps) {
        std::printf("instance %u: brute force %lld ps, flux-milp %lld ps\n", i,
                    static_cast<long long>(bf), static_cast<long long>(m.makespan_ps));
      }
      reference = std::min(reference, bf);
    }
    // What flux found before the exact search: its heuristic alone, as
    // FluxScheduler::run calls it (default seed and move budget).
    {
      const auto p = flux::core::transmission_times(in.w, in.sys);
      const auto timing = flux::core::ideal_timing(in.w, p);
      const auto bound = flux::sched::lower_bounds(in.w, in.sys, p, timing).best();
      const auto h = flux::sched::flux_heuristic(in.w, in.sys, p, timing, bound,
                                                 flux::sched::HeuristicOptions{});
      const TimePs ms = flux::sched::makespan(in.w, p, h);
      r.heuristic_optimal += ms <= reference;
      r.worst_heuristic_miss =
          std::max(r.worst_heuristic_miss,
                   static_cast<double>(ms - reference) / static_cast<double>(reference));
    }
    if (f.makespan_ps <= reference) {
      ++r.flux_optimal;
    } else {
      const double miss =
          static_cast<double>(f.makespan_ps - reference) / static_cast<double>(reference);
      r.worst_miss = std::max(r.worst_miss, miss);
      std::printf(
          "instance %u (%u sends, %u switches, tau %lld ps): flux %lld ps, optimum %lld "
          "ps (+%.2f%%)%s\n",
          i, in.sends, in.sys.switches, static_cast<long long>(in.sys.reconfig_delay_ps),
          static_cast<long long>(f.makespan_ps), static_cast<long long>(reference), 100 * miss,
          milp_optimal ? "" : ", flux-milp not proven");
    }
    if (f.makespan_ps < reference) {
      std::printf("instance %u: flux %lld ps below the reference %lld ps: a bug\n", i,
                  static_cast<long long>(f.makespan_ps), static_cast<long long>(reference));
    }
    r.flux_proved += f.status == flux::schedule::SolveStatus::kOptimal;
    r.flux_s += flux_s;
    r.flux_max_s = std::max(r.flux_max_s, flux_s);
    r.milp_s += milp_s;
    r.milp_max_s = std::max(r.milp_max_s, milp_s);
  }
  std::printf(
      "\n| sends | instances | heuristic alone optimal (worst miss) | flux optimal | flux proved "
      "optimal | worst miss | "
      "flux-milp proved | brute force agrees | flux s mean / max | "
      "flux-milp s mean / max |\n|---|---|---|---|---|---|---|---|---|---|\n");
  Row total;
  auto print = [](const std::string& name, const Row& r) {
    std::printf(
        "| %s | %d | %d (%.2f%%) | %d | %d | %.2f%% | %d | %d of %d | %.3f / %.3f | %.3f / %.3f "
        "|\n",
        name.c_str(), r.instances, r.heuristic_optimal, 100 * r.worst_heuristic_miss,
        r.flux_optimal, r.flux_proved, 100 * r.worst_miss, r.milp_proved, r.brute_agree, r.brute,
        r.flux_s / r.instances, r.flux_max_s, r.milp_s / r.instances, r.milp_max_s);
  };
  for (const auto& [n, r] : rows) {
    print(std::to_string(n), r);
    total.instances += r.instances;
    total.heuristic_optimal += r.heuristic_optimal;
    total.worst_heuristic_miss = std::max(total.worst_heuristic_miss, r.worst_heuristic_miss);
    total.flux_optimal += r.flux_optimal;
    total.flux_proved += r.flux_proved;
    total.milp_proved += r.milp_proved;
    total.brute += r.brute;
    total.brute_agree += r.brute_agree;
    total.worst_miss = std::max(total.worst_miss, r.worst_miss);
    total.flux_s += r.flux_s;
    total.flux_max_s = std::max(total.flux_max_s, r.flux_max_s);
    total.milp_s += r.milp_s;
    total.milp_max_s = std::max(total.milp_max_s, r.milp_max_s);
  }
  print("all", total);
  return 0;
}

int scaling(std::uint32_t max_sends, std::uint32_t per_size, std::uint32_t domain) {
  std::printf(
      "| sends | instances | proved | nodes median / max | seconds median / max | "
      "nodes per second |\n|---|---|---|---|---|---|\n");
  for (std::uint32_t n = 6; n <= max_sends; n += 2) {
    std::vector<std::uint64_t> nodes;
    std::vector<double> secs;
    int proved = 0;
    std::uint64_t all_nodes = 0;
    double all_s = 0;
    for (std::uint32_t k = 0; k < per_size; ++k) {
      const Instance in = instance(k, n, n, 1000 * n, domain);
      const auto p = flux::core::transmission_times(in.w, in.sys);
      const auto timing = flux::core::ideal_timing(in.w, p);
      const auto greedy = flux::sched::list_schedule(in.w, in.sys, p, timing);
      const auto t0 = Clock::now();
      const auto r = flux::sched::branch_and_bound(in.w, p, in.sys, timing, &greedy,
                                                   flux::sched::ExactLimits{200'000'000, 20});
      const double s = since(t0);
      proved += r.complete;
      nodes.push_back(r.nodes);
      secs.push_back(s);
      all_nodes += r.nodes;
      all_s += s;
    }
    std::sort(nodes.begin(), nodes.end());
    std::sort(secs.begin(), secs.end());
    std::printf("| %u | %u | %d | %llu / %llu | %.4f / %.3f | %.3g |\n", n, per_size, proved,
                static_cast<unsigned long long>(nodes[nodes.size() / 2]),
                static_cast<unsigned long long>(nodes.back()), secs[secs.size() / 2], secs.back(),
                static_cast<double>(all_nodes) / std::max(all_s, 1e-9));
    std::fflush(stdout);
  }
  return 0;
}

// A prototype large-neighbourhood search: windows of `k` consecutive sends
// (by start, stride k/2) re-optimised by the branch and bound with `nodes`
// nodes each, the rest fixed, up to three passes over the schedule, from
// flux's heuristic; not (yet) part of `flux`.
int lns(std::uint32_t k, std::uint64_t nodes) {
  std::printf(
      "| family | sends | heuristic | after windows | improvement | bound | windows "
      "(improving) | seconds |\n|---|---|---|---|---|---|---|---|\n");
  for (std::uint32_t n : {40u, 100u, 300u}) {
    for (int family = 0; family < 2; ++family) {
      const Instance in = family == 0
                              ? Instance{flux::sched::testing::random_instance(n, n, 4 + n % 3),
                                         flux::sched::testing::system_with(20'000, 2), n}
                              : Instance{flux::sched::testing::random_dag(n, n, 6),
                                         flux::sched::testing::system_with(5'000'000, 2), n};
      const auto p = flux::core::transmission_times(in.w, in.sys);
      const auto timing = flux::core::ideal_timing(in.w, p);
      const TimePs bound = flux::sched::lower_bounds(in.w, in.sys, p, timing).best();
      flux::sched::Placement cur = flux::sched::flux_heuristic(in.w, in.sys, p, timing, bound,
                                                               flux::sched::HeuristicOptions{});
      const TimePs first = flux::sched::makespan(in.w, p, cur);
      TimePs ms = first;
      const auto t0 = Clock::now();
      int windows = 0, improving = 0;
      for (int pass = 0, any = 1; pass < 3 && any; ++pass) {
        any = 0;
        for (std::size_t i = 0; i + k <= n; i += std::max<std::uint32_t>(1, k / 2)) {
          const std::vector<std::uint32_t> order = flux::sched::testing::by_start(cur);
          const std::span<const std::uint32_t> all(order);
          const auto r = flux::sched::branch_and_bound(
              in.w, p, in.sys, timing, &cur, flux::sched::ExactLimits{nodes, 1e9},
              flux::sched::ExactWindow{all.first(i), all.subspan(i + k), cur.sw});
          ++windows;
          if (r.improved) {
            cur = r.best;
            ms = r.makespan_ps;
            ++improving;
            any = 1;
          }
        }
      }
      std::printf("| %s | %u | %lld | %lld | %.2f%% | %lld | %d (%d) | %.2f |\n",
                  family == 0 ? "random_instance, tau 20 ns" : "random_dag, tau 5 us", n,
                  static_cast<long long>(first), static_cast<long long>(ms),
                  100.0 * static_cast<double>(first - ms) / static_cast<double>(first),
                  static_cast<long long>(bound), windows, improving, since(t0));
      std::fflush(stdout);
    }
  }
  return 0;
}

// What the exact search adds in `flux` by size: from the heuristic's
// schedule, with flux's node budget, on 12 instances per send count (the
// same families): how many it proves, how many it improves, by how much at
// most, and its time.
int budget(std::uint64_t nodes, std::uint32_t domain) {
  std::printf(
      "| sends | instances | proved | improved | best improvement | seconds mean |\n"
      "|---|---|---|---|---|---|\n");
  for (std::uint32_t n : {16u, 24u, 32u, 40u, 48u, 64u, 96u, 128u}) {
    int proved = 0, improved = 0;
    double gain = 0, secs = 0;
    for (std::uint32_t k = 0; k < 12; ++k) {
      const Instance in = instance(k, n, n, 7000 * n, domain);
      const auto p = flux::core::transmission_times(in.w, in.sys);
      const auto timing = flux::core::ideal_timing(in.w, p);
      const TimePs bound = flux::sched::lower_bounds(in.w, in.sys, p, timing).best();
      const auto h = flux::sched::flux_heuristic(in.w, in.sys, p, timing, bound,
                                                 flux::sched::HeuristicOptions{});
      const auto t0 = Clock::now();
      const auto r = flux::sched::branch_and_bound(in.w, p, in.sys, timing, &h,
                                                   flux::sched::ExactLimits{nodes, 1e9});
      secs += since(t0);
      proved += r.complete;
      improved += r.improved;
      const TimePs before = flux::sched::makespan(in.w, p, h);
      gain =
          std::max(gain, static_cast<double>(before - r.makespan_ps) / static_cast<double>(before));
    }
    std::printf("| %u | 12 | %d | %d | %.2f%% | %.2f |\n", n, proved, improved, 100 * gain,
                secs / 12);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "compare" && argc == 4) {
      return compare(static_cast<std::uint32_t>(std::stoul(argv[2])), std::stod(argv[3]));
    }
    // An optional last argument: the scale-up domain size (default 1).
    auto domain = [&](int at) {
      return argc > at ? static_cast<std::uint32_t>(std::stoul(argv[at])) : 1u;
    };
    if (mode == "budget" && (argc == 3 || argc == 4))
      return budget(std::stoull(argv[2]), domain(3));
    if (mode == "lns" && argc == 4) {
      return lns(static_cast<std::uint32_t>(std::stoul(argv[2])), std::stoull(argv[3]));
    }
    if (mode == "scaling" && (argc == 4 || argc == 5)) {
      return scaling(static_cast<std::uint32_t>(std::stoul(argv[2])),
                     static_cast<std::uint32_t>(std::stoul(argv[3])), domain(4));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flux_exact: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: flux_exact compare INSTANCES MILP_LIMIT_S\n"
               "       flux_exact scaling MAX_SENDS PER_SIZE [DOMAIN]\n"
               "       flux_exact budget NODES [DOMAIN]\n"
               "       flux_exact lns WINDOW NODES\n");
  return 2;
}
