// All-to-all (mixture-of-experts) instances against the baselines (issue 13).
// Each instance (tests/a2a_instances.hpp, Mixtral 8x7B sizes) is scheduled by
// flux (default options but the time limit), rotornet, rotornet-vlb, bvn and
// ideal through sched::run_scheduler (validated) and replayed by
// sim::simulate; one markdown table row per (instance, tau, switches).
//
//   a2a_compare TIME_LIMIT_S FAMILY[,FAMILY...] RANKS[,RANKS...] [TAUS] [SWITCHES] [DUPLEX]
//     FAMILY  d   dispatch all-to-all alone, uniform routing
//             dc  dispatch, expert compute, combine; uniform
//             zdc the same with zipf(1.2) routing
//             dc2 two layers of dc
//     RANKS   expert-parallel group sizes p (4, 8, 16, 32, 64)
//     TAUS    comma list of durations, default 1us,10us,100us,1ms
//     SWITCHES comma list, default 1,2
//     DUPLEX  comma list of half, full (System::duplex), default half
//   e.g. a2a_compare 10 d,dc,zdc 4,8,16,32,64
//
// Columns: iteration times (ms) as simulated; flux's bound and gap; best =
// the best of rotornet, rotornet-vlb and bvn; bound/best > 1 says that no
// task-level schedule can reach that baseline (docs/benchmarks.md explains
// the duplex difference); peak NIC memory (MB) and reconfigurations of flux
// and of the best baseline; flux's wall time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "a2a_instances.hpp"
#include "flux/core/time.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/simulator.hpp"

namespace {

using flux::core::TimePs;
namespace testing = flux::sched::testing;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// Mixtral 8x7B expert FFN per rank: 2 * 3 * 4096 * 14336 flop per token for
// T K = 8192 tokens, 2.9 TFLOP, at about 480 TFLOP/s (H100 bf16 at ~50%):
// 6 ms. Between layers (attention and the rest): 2 ms.
constexpr TimePs kExpertComputePs = 6 * flux::core::kPsPerS / 1000;
constexpr TimePs kLayerComputePs = 2 * flux::core::kPsPerS / 1000;

testing::A2aSpec spec_of(const std::string& family, std::uint32_t p) {
  testing::A2aSpec s;
  s.ranks = p;
  s.bytes_per_pair = testing::mixtral_pair_bytes(p);
  s.expert_compute_ps = kExpertComputePs;
  s.layer_compute_ps = kLayerComputePs;
  if (family == "d") return s;
  s.combine = true;
  if (family == "zdc") s.zipf_s = 1.2;
  if (family == "dc2") s.layers = 2;
  if (family != "dc" && family != "zdc" && family != "dc2") {
    throw std::runtime_error("unknown family " + family);
  }
  return s;
}

struct Run {
  TimePs ps = 0;
  double ms = 0;
  double nic_mb = 0;
  std::uint64_t reconf = 0;
};

Run simulate(const flux::core::Workload& w, const flux::schedule::Schedule& s) {
  const auto r = flux::sim::simulate(w, s);
  return {r.metrics.iteration_time_ps, flux::core::ps_to_seconds(r.metrics.iteration_time_ps) * 1e3,
          static_cast<double>(r.metrics.peak_nic_bytes) / 1e6, r.metrics.reconfigurations};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 7) {
    std::fprintf(stderr,
                 "usage: a2a_compare TIME_LIMIT_S FAMILIES RANKS [TAUS] [SWITCHES] [DUPLEX]\n"
                 "  e.g. a2a_compare 10 d,dc,zdc 4,8,16,32,64 1us,10us,100us,1ms 1,2 half,full\n");
    return 2;
  }
  try {
    const double limit = std::stod(argv[1]);
    const auto families = split(argv[2]);
    const auto ranks = split(argv[3]);
    const auto taus = split(argc > 4 ? argv[4] : "1us,10us,100us,1ms");
    const auto switch_counts = split(argc > 5 ? argv[5] : "1,2");
    const auto duplexes = split(argc > 6 ? argv[6] : "half");
    std::printf(
        "| instance | sends | tau | s | duplex | flux | bound | gap | rotornet | rotornet-vlb | "
        "bvn | ideal "
        "| "
        "flux/best | bound/best | NIC MB flux/best | reconf flux/best | flux wall s |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& family : families) {
      for (const auto& pr : ranks) {
        const auto p = static_cast<std::uint32_t>(std::stoul(pr));
        const flux::core::Workload w = testing::a2a_workload(spec_of(family, p));
        for (const auto& tau_text : taus) {
          for (const auto& sw_text : switch_counts) {
            for (const auto& duplex_text : duplexes) {
              flux::core::System sys;
              sys.duplex = flux::core::duplex_from_string(duplex_text);
              sys.reconfig_delay_ps = flux::core::parse_duration(tau_text, "tau");
              sys.switches = static_cast<std::uint32_t>(std::stoul(sw_text));
              flux::sched::SchedulerOptions o;
              o.time_limit_s = limit;
              const auto t0 = std::chrono::steady_clock::now();
              const auto fs = flux::sched::run_scheduler("flux", w, sys, o);
              const double wall =
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
              const Run f = simulate(w, fs);
              if (fs.makespan_ps != f.ps) {
                throw std::runtime_error("flux replay differs from its makespan");
              }
              const char* names[] = {"rotornet", "rotornet-vlb", "bvn", "ideal"};
              Run base[4];
              for (int k = 0; k < 4; ++k) {
                base[k] = simulate(w, flux::sched::run_scheduler(names[k], w, sys, o));
              }
              const int best = static_cast<int>(
                  std::min_element(base, base + 3,
                                   [](const Run& a, const Run& b) { return a.ms < b.ms; }) -
                  base);
              const double bound = flux::core::ps_to_seconds(fs.lower_bound_ps.value_or(0)) * 1e3;
              std::printf(
                  "| %s-p%u | %zu | %s | %u | %s | %.4g | %.4g | %.1f%% | %.4g | %.4g | %.4g | "
                  "%.4g | "
                  "%.3f (%s) | %.3f | %.3g / %.3g | %llu / %llu | %.1f |\n",
                  family.c_str(), p, w.num_tasks(), tau_text.c_str(), sys.switches,
                  duplex_text.c_str(), f.ms, bound, 100 * fs.gap.value_or(0), base[0].ms,
                  base[1].ms, base[2].ms, base[3].ms, f.ms / base[best].ms, names[best],
                  bound / base[best].ms, f.nic_mb, base[best].nic_mb,
                  static_cast<unsigned long long>(f.reconf),
                  static_cast<unsigned long long>(base[best].reconf), wall);
              std::fflush(stdout);
            }
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "a2a_compare: %s\n", e.what());
    return 1;
  }
  return 0;
}
