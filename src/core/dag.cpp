#include "flux/core/dag.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <string>

#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"

namespace flux::core {

std::vector<TimePs> transmission_times(const Workload& w, const System& system) {
  // Domains must tile the ranks; of a folded workload, its own ranks: the
  // lift adds whole workloads of ranks, so it keeps every send's fabric.
  system.validate_for(w.accelerators());
  check_routes(w, system);
  std::vector<TimePs> p;
  p.reserve(w.num_tasks());
  // The serial horizon: every send and a reconfiguration after another, all
  // the compute in between, the latest release first. It bounds every time
  // the schedulers, bounds and validator compute from these p, so checking it
  // here, once, keeps their loops free of checks. Each term is in [0,
  // kMaxTimePs], so an unsigned 128-bit sum cannot wrap.
  __extension__ typedef unsigned __int128 U128;
  U128 horizon = 0;
  TimePs max_release = 0;
  const auto tasks = w.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    try {
      p.push_back(system.transmission_ps(t.bytes, t.src, t.dst));
    } catch (const InputError& e) {
      throw InputError(e.source(), "tasks[" + std::to_string(i) + "].bytes", e.value(),
                       e.problem());
    }
    horizon += static_cast<U128>(p.back()) + static_cast<U128>(system.reconfig_delay_ps) +
               static_cast<U128>(t.tail_ps);
    max_release = std::max(max_release, t.release_ps);
  }
  for (const Dep& e : w.deps()) horizon += static_cast<U128>(e.compute_ps);
  horizon += static_cast<U128>(max_release);
  if (horizon > static_cast<U128>(kMaxTimePs)) {
    throw_serial_horizon(tasks.size(), system, static_cast<double>(horizon) / 1e12);
  }
  return p;
}

void throw_serial_horizon(std::size_t sends, const System& system, double seconds) {
  char what[160];
  std::snprintf(what, sizeof what,
                "running every send one after another at %g Gb/s (with all compute and a "
                "reconfiguration each)",
                system.link_gbps);
  throw_time_range("tasks", std::to_string(sends) + " sends", what, seconds);
}

void check_fold_lift(const Fold& fold, std::uint64_t job_accelerators, const System& system) {
  if (system.wiring.kind == WiringKind::kFull || !fold.folded()) return;
  const std::string copies = std::to_string(fold.copies) + " copies";
  if (system.wiring.kind == WiringKind::kExplicit) {
    throw InputError("", "fold", copies,
                     "a folded workload cannot run on a wiring file (its switches differ from "
                     "copy to copy): generate the job without folding");
  }
  const std::uint64_t domains = job_accelerators / system.scaleup_size;
  if (domains > system.ocs_radix || fold.block_ranks % system.scaleup_size != 0) {
    throw InputError(
        "", "fold", copies,
        "under rails the lift of a folded schedule is exact only when each rail is one switch "
        "per plane (" +
            std::to_string(domains) + " domains, radix " + std::to_string(system.ocs_radix) +
            ") and blocks are whole scale-up domains (docs/model.md, \"Wiring\"): generate "
            "the job without folding");
  }
}

void check_routes(const Workload& w, const System& system) {
  if (system.wiring.kind == WiringKind::kFull) return;
  check_fold_lift(w.fold(), std::uint64_t{w.accelerators()} * w.fold().copies, system);
  const auto tasks = w.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (system.fabric(t.src, t.dst) != Fabric::kOcs || system.joined(t.src, t.dst)) continue;
    const std::string what = "send " + std::to_string(t.id);
    const std::string field = "tasks[" + std::to_string(i) + "]";
    if (const auto via = forwarder(t.src, t.dst, system)) {
      throw InputError("", field, what,
                       "goes through rank " + std::to_string(via->value()) +
                           " over the scale-up fabric: schedule, check and run the routed "
                           "workload (core::Routed)");
    }
    throw_no_route(i, t, system);
  }
}

bool Reachability::reaches(TaskIndex u, TaskIndex v) const {
  if (u == v) return false;
  const std::uint32_t target_pos = w_.topo_position(v);
  if (w_.topo_position(u) >= target_pos) return false;
  // Depth-first search from u, never entering tasks past v in topological
  // order. Visited marks are epochs, so no per-query clearing.
  if (seen_.size() != w_.num_tasks() || ++epoch_ == 0) {
    seen_.assign(w_.num_tasks(), 0);
    epoch_ = 1;
  }
  stack_.assign(1, u.value());
  seen_[u.value()] = epoch_;
  while (!stack_.empty()) {
    const TaskIndex x(stack_.back());
    stack_.pop_back();
    for (const Dep& e : w_.out_edges(x)) {
      if (e.to == v) return true;
      const std::uint32_t y = e.to.value();
      if (seen_[y] != epoch_ && w_.topo_position(e.to) < target_pos) {
        seen_[y] = epoch_;
        stack_.push_back(y);
      }
    }
  }
  return false;
}

Reachability::Order Reachability::order(TaskIndex u, TaskIndex v) const {
  if (u == v) return Order::kSame;
  if (w_.topo_position(u) < w_.topo_position(v)) {
    return reaches(u, v) ? Order::kBefore : Order::kIncomparable;
  }
  return reaches(v, u) ? Order::kAfter : Order::kIncomparable;
}

std::vector<std::uint8_t> Reachability::reaches_batch(
    std::span<const std::pair<TaskIndex, TaskIndex>> queries) const {
  std::vector<std::uint8_t> result(queries.size(), 0);
  const std::size_t n = w_.num_tasks();
  // Distinct sources in topological order; each gets one bit in a sweep.
  std::vector<std::uint32_t> sources;
  for (const auto& q : queries) {
    if (q.first != q.second && w_.topo_position(q.first) < w_.topo_position(q.second)) {
      sources.push_back(q.first.value());
    }
  }
  std::sort(sources.begin(), sources.end(), [&](std::uint32_t a, std::uint32_t b) {
    return w_.topo_position(TaskIndex(a)) < w_.topo_position(TaskIndex(b));
  });
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  if (sources.empty()) return result;

  // Words per task: up to 8 (512 sources a sweep), capped at ~256 MiB of bits.
  const std::size_t max_words =
      std::max<std::size_t>(1, (256u << 20) / (8 * std::max<std::size_t>(n, 1)));
  const std::size_t words = std::min<std::size_t>({8, max_words, (sources.size() + 63) / 64});
  const std::size_t per_sweep = words * 64;
  std::vector<std::uint64_t> bits(n * words, 0);
  std::vector<std::uint32_t> slot(n, 0xffffffffu);  // source -> bit number in this sweep

  // Queries grouped by source so each sweep answers its own.
  std::vector<std::uint32_t> order(queries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return w_.topo_position(queries[a].first) < w_.topo_position(queries[b].first);
  });

  std::size_t qi = 0;
  for (std::size_t first = 0; first < sources.size(); first += per_sweep) {
    const std::size_t last = std::min(sources.size(), first + per_sweep);
    const std::uint32_t from_pos = w_.topo_position(TaskIndex(sources[first]));
    const std::uint32_t to_pos_src = w_.topo_position(TaskIndex(sources[last - 1]));
    // Furthest target of this sweep's queries bounds the sweep.
    std::uint32_t to_pos = from_pos;
    std::size_t qend = qi;
    while (qend < order.size() && w_.topo_position(queries[order[qend]].first) <= to_pos_src) {
      to_pos = std::max(to_pos, w_.topo_position(queries[order[qend]].second));
      ++qend;
    }
    for (std::size_t k = first; k < last; ++k) {
      const std::uint32_t b = static_cast<std::uint32_t>(k - first);
      slot[sources[k]] = b;
      bits[sources[k] * words + b / 64] |= std::uint64_t{1} << (b % 64);
    }
    const auto topo = w_.topo_order();
    for (std::uint32_t pos = from_pos; pos <= to_pos; ++pos) {
      const std::uint32_t x = topo[pos].value();
      const std::uint64_t* bx = &bits[x * words];
      bool any = false;
      for (std::size_t k = 0; k < words; ++k) any |= bx[k] != 0;
      if (!any) continue;
      for (const Dep& e : w_.out_edges(topo[pos])) {
        std::uint64_t* by = &bits[e.to.value() * words];
        for (std::size_t k = 0; k < words; ++k) by[k] |= bx[k];
      }
    }
    for (; qi < qend; ++qi) {
      const auto& q = queries[order[qi]];
      const std::uint32_t b = slot[q.first.value()];
      if (b == 0xffffffffu || q.first == q.second) continue;  // never a candidate
      result[order[qi]] = (bits[q.second.value() * words + b / 64] >> (b % 64)) & 1u;
    }
    for (std::uint32_t pos = from_pos; pos <= to_pos; ++pos) {
      std::fill_n(&bits[topo[pos].value() * words], words, 0);
    }
    // Tasks past to_pos were never reached by a sweep that stops there, but
    // edges from inside the range may have set their bits: clear those too.
    for (std::uint32_t pos = from_pos; pos <= to_pos; ++pos) {
      for (const Dep& e : w_.out_edges(topo[pos])) {
        std::fill_n(&bits[e.to.value() * words], words, 0);
      }
    }
    for (std::size_t k = first; k < last; ++k) slot[sources[k]] = 0xffffffffu;
  }
  return result;
}

IdealTiming ideal_timing(const Workload& w, std::span<const TimePs> p) {
  const std::size_t n = w.num_tasks();
  assert(p.size() == n);
  IdealTiming r;
  r.earliest_start.assign(n, 0);
  r.to_end.assign(n, 0);
  const auto topo = w.topo_order();
  const auto tasks = w.tasks();
  for (const TaskIndex v : topo) {
    TimePs h = tasks[v.value()].release_ps;
    for (std::uint32_t j : w.in_edge_ids(v)) {
      const Dep& e = w.deps()[j];
      h = std::max(h, r.earliest_start[e.from.value()] + p[e.from.value()] + e.compute_ps);
    }
    r.earliest_start[v.value()] = h;
  }
  for (std::size_t k = n; k-- > 0;) {
    const TaskIndex v = topo[k];
    TimePs after = tasks[v.value()].tail_ps;
    for (const Dep& e : w.out_edges(v))
      after = std::max(after, e.compute_ps + r.to_end[e.to.value()]);
    r.to_end[v.value()] = p[v.value()] + after;
  }
  if (n == 0) return r;
  // The critical path ends at the task whose end plus tail is latest; walk
  // back through parents that determine each head (lowest index on ties).
  std::uint32_t last = 0;
  TimePs best = -1;
  for (std::uint32_t v = 0; v < n; ++v) {
    const TimePs end = r.earliest_start[v] + p[v] + tasks[v].tail_ps;
    if (end > best) {
      best = end;
      last = v;
    }
  }
  r.makespan = best;
  r.compute_on_path = tasks[last].tail_ps;
  std::uint32_t v = last;
  r.critical_path.push_back(TaskIndex(v));
  for (;;) {
    std::uint32_t parent = 0xffffffffu;
    TimePs c = 0;
    for (std::uint32_t j : w.in_edge_ids(TaskIndex(v))) {
      const Dep& e = w.deps()[j];
      const std::uint32_t u = e.from.value();
      if (r.earliest_start[u] + p[u] + e.compute_ps == r.earliest_start[v] && u < parent) {
        parent = u;
        c = e.compute_ps;
      }
    }
    if (parent == 0xffffffffu) break;
    r.compute_on_path += c;
    v = parent;
    r.critical_path.push_back(TaskIndex(v));
  }
  r.compute_on_path += tasks[v].release_ps;
  std::reverse(r.critical_path.begin(), r.critical_path.end());
  return r;
}

std::vector<TimePs> longest_from(const Workload& w, std::span<const TimePs> p, TaskIndex u,
                                 std::uint32_t limit) {
  std::vector<TimePs> dist(w.num_tasks(), -1);
  for (const Dep& e : w.out_edges(u))
    dist[e.to.value()] = std::max(dist[e.to.value()], e.compute_ps);
  const auto topo = w.topo_order();
  const std::uint32_t end =
      std::min<std::uint32_t>(limit, static_cast<std::uint32_t>(topo.size() - 1));
  for (std::uint32_t pos = w.topo_position(u) + 1; pos <= end && pos < topo.size(); ++pos) {
    const std::uint32_t x = topo[pos].value();
    if (dist[x] < 0) continue;
    for (const Dep& e : w.out_edges(topo[pos])) {
      dist[e.to.value()] = std::max(dist[e.to.value()], dist[x] + p[x] + e.compute_ps);
    }
  }
  return dist;
}

}  // namespace flux::core
