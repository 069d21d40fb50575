// RotorNet (Mellette et al., SIGCOMM 2017), the paper's demand-oblivious
// baseline, in two variants: rotornet (single-hop: a send waits for a circuit
// joining its endpoints) and rotornet-vlb (the same circuits; the simulator
// routes with Valiant load balancing, schedule.routing = kVlb).
//
// Matchings. The n - 1 perfect matchings of the round-robin 1-factorization
// of K_n by the circle method: nodes 0 .. n-2 sit on a circle, node n-1 in
// the middle; round r (0 <= r < n-1) pairs n-1 with r and, for k = 1 ..
// n/2 - 1, (r + k) mod (n-1) with (r - k) mod (n-1). Every pair meets in
// exactly one round. For odd n a dummy node n is added (n + 1 nodes, n
// rounds); the accelerator paired with the dummy idles in that round, so odd
// n has M = n matchings of (n - 1) / 2 circuits, even n M = n - 1 matchings
// of n / 2.
//
// Scale-up domains (docs/model.md, "Scale-up domains"; k = scaleup_size,
// d = n / k domains). Traffic inside a domain takes the electrical fabric;
// the rotors serve the cross-domain pairs only, and no circuit may join two
// ranks of one domain. The matchings are those of the complete d-partite
// graph K_{k,...,k}, built as domain matchings times shifts: the
// round-robin matchings of the d domains (as above, on d nodes), and for
// each of them k shifts h = 0 .. k-1 pairing rank i of domain A with rank
// (i + h) mod k of domain B, for every pair (A, B) of the domain matching.
// Matching r k + h is domain round r with shift h. A cross-domain pair
// (A k + i, B k + j) meets in exactly one matching (the round joining A and
// B, shift h = (j - i) mod k), so the rotation stays oblivious and fair: one
// slot per pair per cycle. M = (d - 1) k for even d, d k for odd d (one
// domain idles per matching), k for d = 2, none for d = 1 (all traffic is
// electrical: no circuits, no period). For k = 1 the only shift is 0 and
// the matchings are exactly those of K_n above.
//
// Slots. A slot lasts T = tau / (1 - duty_cycle), rounded to the picosecond
// (duty_cycle = the share of the slot that carries data, 0.9 by default as
// in the paper; T is at least tau + 1 ps). Slot k occupies [k T, (k+1) T):
// every switch reconfigures over [k T, k T + tau) and then carries its
// matching's circuits over [k T + tau, (k+1) T). A rotor always
// reconfigures at a slot boundary, even when (s a multiple of M) it shows
// the same matching again.
//
// Sharing the s switches. In slot k switch j shows matching
// (k s + j) mod M. With s <= M the s switches show s distinct matchings at
// any time, and every matching is shown by some switch within any
// ceil(M / s) consecutive slots; with s > M matchings repeat across switches
// (extra capacity for the same pairs). The pattern repeats every M slots:
// period_ps = M T, and the timelines list the intervals of slots 0 .. M-1,
// sorted by (up, a, b).
//
// Wirings other than full (docs/model.md, "Wiring"): a plane's switches
// each rotate the matchings of their own group's ports, in the same slots.
// With G the largest group, matching r of plane-wide rotation is the union
// over the groups of round r of the round-robin matchings of G nodes, node x
// being the group's x-th accelerator (x past the group's size idles, and so
// does a pair of one scale-up domain): every cross-domain pair of a group
// meets once in the M = G - 1 (even G) or G (odd G) slots of the period.
//
// n < 3 is refused (k = 1): with 2 accelerators the single circuit never
// changes (use `ideal`). tau = 0 is refused: the slot would be empty.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "flux/sched/baselines.hpp"
#include "schedulers.hpp"

namespace flux::sched {

using core::Rank;
using core::TimePs;

std::vector<Matching> round_robin_matchings(std::uint32_t n) {
  if (n < 2) return {};
  const std::uint32_t m = n % 2 == 0 ? n : n + 1;  // nodes incl. the dummy (== n)
  const std::uint32_t rounds = m - 1;
  std::vector<Matching> result(rounds);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    Matching& matching = result[r];
    const auto add = [&](std::uint32_t x, std::uint32_t y) {
      if (x == n || y == n) return;  // the dummy's partner idles
      matching.emplace_back(Rank(std::min(x, y)), Rank(std::max(x, y)));
    };
    add(m - 1, r);
    for (std::uint32_t k = 1; k < m / 2; ++k) add((r + k) % rounds, (r + rounds - k) % rounds);
    std::sort(matching.begin(), matching.end());
  }
  return result;
}

std::vector<Matching> rotornet_matchings(std::uint32_t n, std::uint32_t k) {
  core::System tiling;  // its check and message: k divides n
  tiling.scaleup_size = k;
  tiling.validate_for(n);
  const std::vector<Matching> domains = round_robin_matchings(n / k);
  std::vector<Matching> result;
  result.reserve(domains.size() * k);
  for (const Matching& round : domains) {
    for (std::uint32_t h = 0; h < k; ++h) {
      Matching& matching = result.emplace_back();
      for (const auto& [a, b] : round) {
        for (std::uint32_t i = 0; i < k; ++i) {
          matching.emplace_back(Rank(a.value() * k + i), Rank(b.value() * k + (i + h) % k));
        }
      }
      std::sort(matching.begin(), matching.end());
    }
  }
  return result;
}

TimePs rotornet_slot_ps(TimePs tau_ps, double duty_cycle) {
  if (!(duty_cycle > 0) || !(duty_cycle < 1)) {
    throw core::InputError("", "duty_cycle", std::to_string(duty_cycle), "must be in (0, 1)");
  }
  if (tau_ps <= 0) {
    throw core::InputError("", "reconfig_delay", std::to_string(tau_ps) + " ps",
                           "rotornet's slot is tau / (1 - duty_cycle): with tau = 0 it would be "
                           "empty (use ideal for a network without reconfiguration)");
  }
  const double slot = std::round(static_cast<double>(tau_ps) / (1.0 - duty_cycle));
  if (!(slot < 9e18)) {
    throw core::InputError("", "duty_cycle", std::to_string(duty_cycle),
                           "the rotornet slot tau / (1 - duty_cycle) exceeds the time range");
  }
  return std::max(static_cast<TimePs>(slot), tau_ps + 1);
}

namespace {

std::uint64_t saturating_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t p = 1;
  for (const std::uint64_t f : factors) {
    if (__builtin_mul_overflow(p, f, &p)) return UINT64_MAX;
  }
  return p;
}

}  // namespace

std::uint64_t rotornet_circuits(std::uint32_t n, const core::System& system) {
  const std::uint64_t k = std::max<std::uint32_t>(system.scaleup_size, 1);
  const std::uint64_t d = n / k;  // domains
  if (d < 2) return 0;
  const std::uint64_t rounds = d % 2 == 0 ? d - 1 : d;
  // s switches x (rounds x k) matchings x (floor(d / 2) x k) circuits each.
  return saturating_product({system.switches, rounds, k, d / 2, k});
}

std::uint64_t rotornet_memory_bytes(std::uint32_t n, const core::System& system) {
  const std::uint64_t circuits = rotornet_circuits(n, system);
  const std::uint64_t per_switch = circuits / std::max<std::uint32_t>(system.switches, 1);
  const std::uint64_t intervals = saturating_product({circuits, sizeof(schedule::CircuitInterval)});
  const std::uint64_t matchings =
      saturating_product({per_switch, sizeof(std::pair<core::Rank, core::Rank>)});
  std::uint64_t bytes = 0;
  return __builtin_add_overflow(intervals, matchings, &bytes) ? UINT64_MAX : bytes;
}

namespace {

// The plane-wide matchings of a wiring's groups (above).
std::vector<Matching> group_matchings(std::uint32_t n, const core::System& system) {
  const std::vector<std::vector<Rank>> groups = system.ocs_groups(n);
  std::size_t largest = 0;
  for (const auto& g : groups) largest = std::max(largest, g.size());
  const std::vector<Matching> rounds = round_robin_matchings(static_cast<std::uint32_t>(largest));
  std::uint64_t circuits = 0;
  for (const auto& g : groups) circuits += g.size() / 2;
  if (saturating_product({system.switches, rounds.size(), circuits}) > kMaxRotornetCircuits) {
    throw core::InputError("", "accelerators", std::to_string(n),
                           "rotornet's period joins every pair of every group on every plane: "
                           "more than " +
                               std::to_string(kMaxRotornetCircuits) + " circuits; use bvn");
  }
  std::vector<Matching> result(rounds.size());
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    for (const auto& g : groups) {
      for (const auto& [x, y] : rounds[r]) {
        if (y.value() >= g.size()) continue;  // x < y: past the group's size, idle
        const Rank a = g[x.value()], b = g[y.value()];
        if (system.fabric(a, b) == core::Fabric::kOcs) result[r].emplace_back(a, b);
      }
    }
    std::sort(result[r].begin(), result[r].end());
  }
  std::erase_if(result, [](const Matching& m) { return m.empty(); });
  return result;
}

}  // namespace

PeriodicTimelines rotornet_timelines(std::uint32_t n, const core::System& system,
                                     double duty_cycle) {
  system.validate_for(n);
  const bool wired_fully = system.wiring.kind == core::WiringKind::kFull;
  if (const std::uint64_t circuits = rotornet_circuits(n, system);
      wired_fully && circuits > kMaxRotornetCircuits) {
    throw core::InputError(
        "", "accelerators", std::to_string(n),
        "rotornet's period connects every pair of accelerators on every switch: " +
            std::to_string(circuits) + " circuits (about " +
            core::format_bytes(static_cast<double>(rotornet_memory_bytes(n, system))) +
            "), beyond its limit of " + std::to_string(kMaxRotornetCircuits) +
            ": use fewer accelerators or switches, larger scale-up domains, or bvn");
  }
  if (n < 3 && !system.has_scaleup()) {
    throw core::InputError(
        "", "accelerators", std::to_string(n),
        "rotornet needs at least 3 accelerators; with 2 the single circuit never changes: use "
        "ideal");
  }
  const TimePs tau = system.reconfig_delay_ps;
  const TimePs slot = rotornet_slot_ps(tau, duty_cycle);
  const std::vector<Matching> matchings =
      wired_fully ? rotornet_matchings(n, system.scaleup_size) : group_matchings(n, system);
  const std::uint64_t m = matchings.size();
  PeriodicTimelines out;
  out.timelines.resize(system.switches);
  if (m == 0) return out;  // one domain (or groups of one): no circuit to rotate
  if (__builtin_mul_overflow(slot, static_cast<TimePs>(m), &out.period_ps)) {
    throw core::InputError(
        "", "reconfig_delay", std::to_string(tau) + " ps",
        "the rotornet period (" + std::to_string(m) + " slots) exceeds the time range");
  }
  for (std::uint32_t j = 0; j < system.switches; ++j) {
    auto& circuits = out.timelines[j].circuits;
    circuits.reserve(m * matchings.front().size());
    for (std::uint64_t k = 0; k < m; ++k) {
      const TimePs start = static_cast<TimePs>(k) * slot;
      for (const auto& [a, b] : matchings[(k * system.switches + j) % m]) {
        circuits.push_back({a, b, start, start + tau, start + slot});
      }
    }
  }
  return out;
}

schedule::Schedule RotorNetScheduler::run(const core::Workload& w, const core::System& system,
                                          const SchedulerOptions& options) const {
  const auto t0 = std::chrono::steady_clock::now();
  PeriodicTimelines periodic = rotornet_timelines(w.accelerators(), system, options.duty_cycle);
  schedule::Schedule s;
  s.scheduler = std::string(name());
  s.workload = w.name();
  s.system = system;
  s.status = schedule::SolveStatus::kFeasible;
  s.timelines = std::move(periodic.timelines);
  if (periodic.period_ps > 0) s.period_ps = periodic.period_ps;
  s.routing = routing_;
  s.solve_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace flux::sched
