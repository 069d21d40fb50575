// Choosing each collective's decomposition (choose.hpp).
#include "choose.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "../heuristic/list_scheduler.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/routes.hpp"
#include "flux/sched/placement.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::sched::choice {

namespace {

// estimate() of a resolved workload whose routes are set.
core::TimePs estimate_resolved(const core::Workload& resolved, const core::System& system,
                               Estimate how) {
  const core::Routed routed(resolved, system);
  const core::Workload& r = routed.workload();
  const std::vector<core::TimePs> p = core::transmission_times(r, system);
  const core::IdealTiming timing = core::ideal_timing(r, p);
  if (how == Estimate::kCriticalPath) return timing.makespan;
  // The first seed of flux's portfolio (heuristic/flux_heuristic.cpp): the
  // list schedule with no reuse slack, with tau and with tau / 2. Keeping
  // circuits is what a decomposition with few partners gains by, and one
  // rule alone ranks decompositions by its own blind spots (measured on the
  // DeepSeek-V3-like job at tau = 1 ms: docs/results.md).
  const core::TimePs tau = system.reconfig_delay_ps;
  core::TimePs best = core::kMaxTimePs;
  for (const core::TimePs slack : {core::TimePs{0}, tau, tau / 2}) {
    best =
        std::min(best, makespan(r, p, list_schedule(r, system, p, timing, ListOptions{slack, 0})));
  }
  return best;
}

}  // namespace

core::TimePs estimate(const core::Workload& w, const core::System& system,
                      std::span<const std::uint32_t> choice, Estimate how) {
  const core::Workload resolved = core::resolve(w, choice);
  // Under --route auto, the best of the uniform choices of route (the
  // scheduler chooses them per send later: sched::run_scheduler).
  if (const std::optional<core::Workload> routes = core::route_choices(resolved, system)) {
    const core::System fixed = core::chosen_routes(system);
    core::TimePs best = core::kMaxTimePs;
    for (const std::string& name : core::alternative_names(*routes)) {
      const core::Choice c =
          core::uniform_choice(*routes, name, core::to_string(core::Route::kPacket));
      best = std::min(best, estimate_resolved(core::resolve(*routes, c), fixed, how));
    }
    return best;
  }
  return estimate_resolved(resolved, system, how);
}

core::Choice balanced_choice(const core::Workload& w, const core::System& system) {
  // Ports: per accelerator, OCS, scale-up and packet, egress and ingress.
  const std::size_t n = w.accelerators();
  const auto port = [&](core::Rank r, core::Fabric f, bool in) {
    return (static_cast<std::size_t>(f) * 2 + (in ? 1 : 0)) * n + r.value();
  };
  const double share = 1.0 / static_cast<double>(system.switches);
  // Transmission time in ps, an OCS send's spread over the switches.
  const auto load_of = [&](const core::Task& t) {
    const double p = static_cast<double>(system.transmission_ps(t.bytes, t.src, t.dst));
    return system.fabric(t.src, t.dst) == core::Fabric::kOcs ? p * share : p;
  };
  std::unordered_map<std::uint32_t, std::vector<double>> loads;  // per label
  const auto loads_of = [&](std::uint32_t label) -> std::vector<double>& {
    std::vector<double>& l = loads[label];
    if (l.empty()) l.assign(6 * n, 0.0);
    return l;
  };
  const auto add = [&](std::vector<double>& l, const core::Task& t) {
    const core::Fabric f = system.fabric(t.src, t.dst);
    const double p = load_of(t);
    l[port(t.src, f, false)] += p;
    l[port(t.dst, f, true)] += p;
  };
  for (std::size_t i = 0; i < w.num_tasks(); ++i) {
    const core::TaskIndex v(static_cast<std::uint32_t>(i));
    if (!w.alternative_of(v)) add(loads_of(w.task(v).label), w.task(v));
  }
  core::Choice c(w.choices().size(), 0);
  for (std::size_t g = 0; g < c.size(); ++g) {
    const core::ChoiceGroup& group = w.choices()[g];
    std::vector<double>& l = loads_of(group.label);
    double best = 0;
    for (std::uint32_t a = 0; a < group.alternatives.size(); ++a) {
      double end = 0;
      for (const core::TaskIndex v : group.alternatives[a].tasks) {
        const core::Task& t = w.task(v);
        const core::Fabric f = system.fabric(t.src, t.dst);
        const double p = load_of(t);
        end = std::max({end, l[port(t.src, f, false)] + p, l[port(t.dst, f, true)] + p});
      }
      if (a == 0 || end < best) {
        best = end;
        c[g] = a;
      }
    }
    for (const core::TaskIndex v : group.alternatives[c[g]].tasks) add(l, w.task(v));
  }
  return c;
}

SearchResult search(const core::Workload& w, const core::System& system, Estimate how,
                    const SearchLimits& limits) {
  const auto started = std::chrono::steady_clock::now();
  SearchResult best;
  const auto out_of_budget = [&] {
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
    return best.evaluations >= limits.max_evaluations || spent.count() >= limits.time_limit_s ||
           stop_requested(limits.stop);
  };
  const auto score = [&](const core::Choice& c) {
    ++best.evaluations;
    return estimate(w, system, c, how);
  };
  for (const std::string& name : core::alternative_names(w)) {
    core::Choice c = core::uniform_choice(w, name, limits.fallback);
    if (!best.choice.empty() && c == best.choice) continue;
    const core::TimePs t = score(c);
    if (best.choice.empty() || t < best.estimate_ps) {
      best.choice = std::move(c);
      best.estimate_ps = t;
    }
    // Every uniform choice is estimated, past the budget if need be: a
    // fixed algorithm is the least a choice must match.
    if (stop_requested(limits.stop)) return best;
  }
  if (limits.balanced) {
    core::Choice c = balanced_choice(w, system);
    if (c != best.choice) {
      const core::TimePs t = score(c);
      if (t < best.estimate_ps) {
        best.choice = std::move(c);
        best.estimate_ps = t;
      }
    }
  }
  if (out_of_budget()) return best;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t g = 0; g < best.choice.size(); ++g) {
      const auto alternatives = static_cast<std::uint32_t>(w.choices()[g].alternatives.size());
      for (std::uint32_t a = 0; a < alternatives; ++a) {
        if (a == best.choice[g]) continue;
        core::Choice c = best.choice;
        c[g] = a;
        const core::TimePs t = score(c);
        if (t < best.estimate_ps) {
          best.choice = std::move(c);
          best.estimate_ps = t;
          changed = true;
        }
        if (out_of_budget()) return best;
      }
    }
  }
  return best;
}

core::TimePs choice_lower_bound(const core::Workload& w, const core::System& system) {
  using core::TimePs;
  const std::vector<TimePs> p = core::transmission_times(w, system);
  const std::size_t groups = w.choices().size();
  constexpr std::uint32_t kNone = core::kNoLabel;
  const auto group_of = [&](core::TaskIndex v) {
    const auto a = w.alternative_of(v);
    return a ? *a : std::pair<std::uint32_t, std::uint32_t>{kNone, 0};
  };
  // head[v]: a bound on v's start in every choice that runs v.
  std::vector<TimePs> head(w.num_tasks(), 0);
  // Per group and alternative: the latest bound on an end it gives.
  std::vector<std::vector<TimePs>> group_end(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    group_end[g].assign(w.choices()[g].alternatives.size(), 0);
  }
  std::vector<std::vector<TimePs>> waits(groups);  // scratch, per group and alternative
  std::vector<std::uint32_t> touched;
  TimePs bound = 0;
  for (const core::TaskIndex v : w.topo_order()) {
    const auto own = group_of(v);
    TimePs h = w.task(v).release_ps;
    touched.clear();
    for (const std::uint32_t j : w.in_edge_ids(v)) {
      const core::Dep& e = w.deps()[j];
      const TimePs ready = head[e.from.value()] + p[e.from.value()] + e.compute_ps;
      const auto from = group_of(e.from);
      if (from.first == kNone || from.first == own.first) {
        h = std::max(h, ready);
        continue;
      }
      std::vector<TimePs>& wt = waits[from.first];
      if (wt.empty()) {
        wt.assign(w.choices()[from.first].alternatives.size(), -1);
        touched.push_back(from.first);
      }
      wt[from.second] = std::max(wt[from.second], ready);
    }
    for (const std::uint32_t g : touched) {
      // The least over the alternatives; one v does not wait on counts 0.
      TimePs least = std::numeric_limits<TimePs>::max();
      for (const TimePs t : waits[g]) least = std::min(least, std::max<TimePs>(t, 0));
      h = std::max(h, least);
      waits[g].clear();
    }
    head[v.value()] = h;
    const TimePs end = h + p[v.value()] + w.task(v).tail_ps;
    if (own.first == kNone) {
      bound = std::max(bound, end);
    } else {
      group_end[own.first][own.second] = std::max(group_end[own.first][own.second], end);
    }
  }
  for (const std::vector<TimePs>& ends : group_end) {
    bound = std::max(bound, *std::min_element(ends.begin(), ends.end()));
  }
  // Port loads (half duplex: a port carries one send at a time): what every
  // choice puts on each accelerator's OCS links, spread over its switches,
  // plus each group's least over its alternatives.
  if (system.switches > 0 && system.duplex == core::Duplex::kHalf) {
    std::vector<TimePs> load(w.accelerators(), 0);
    // Per group: (rank, alternative, time) of each send's two ends.
    std::vector<std::vector<std::tuple<std::uint32_t, std::uint32_t, TimePs>>> ends(groups);
    for (std::size_t v = 0; v < w.num_tasks(); ++v) {
      const core::Task& t = w.tasks()[v];
      if (system.fabric(t.src, t.dst) != core::Fabric::kOcs) continue;
      const auto own = group_of(core::TaskIndex(static_cast<std::uint32_t>(v)));
      for (const core::Rank x : {t.src, t.dst}) {
        if (own.first == kNone) {
          load[x.value()] += p[v];
        } else {
          ends[own.first].emplace_back(x.value(), own.second, p[v]);
        }
      }
    }
    for (std::size_t g = 0; g < groups; ++g) {
      std::sort(ends[g].begin(), ends[g].end());
      std::vector<TimePs> per_alt(w.choices()[g].alternatives.size());
      for (std::size_t i = 0; i < ends[g].size();) {
        const std::uint32_t x = std::get<0>(ends[g][i]);
        std::fill(per_alt.begin(), per_alt.end(), 0);
        for (; i < ends[g].size() && std::get<0>(ends[g][i]) == x; ++i) {
          per_alt[std::get<1>(ends[g][i])] += std::get<2>(ends[g][i]);
        }
        load[x] += *std::min_element(per_alt.begin(), per_alt.end());
      }
    }
    for (const TimePs l : load) {
      bound = std::max(bound, (l + system.switches - 1) / system.switches);
    }
  }
  return bound;
}

core::Choice nth_choice(const core::Workload& w, std::uint64_t index) {
  core::Choice c(w.choices().size());
  for (std::size_t g = 0; g < c.size(); ++g) {
    const std::uint64_t n = w.choices()[g].alternatives.size();
    c[g] = static_cast<std::uint32_t>(index % n);
    index /= n;
  }
  return c;
}

}  // namespace flux::sched::choice
