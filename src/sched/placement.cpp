// Left shift and packing of task-level schedules; see placement.hpp.
#include "flux/sched/placement.hpp"

#include <algorithm>
#include <numeric>

#include "flux/core/error.hpp"
#include "flux/schedule/timeline.hpp"

namespace flux::sched {

using core::TimePs;

TimePs makespan(const core::Workload& w, std::span<const TimePs> p, const Placement& pl) {
  TimePs m = 0;
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    m = std::max(m, pl.start_ps[v] + p[v] + w.tasks()[v].tail_ps);
  }
  return m;
}

namespace {

// The schedule's precedence graph besides the DAG: per (switch, port), an
// edge from each send to the next one in key order (ties: topological); for
// sends on the scale-up fabric (core::kScaleUpSwitch), per electrical egress
// (source) and ingress (destination) port instead, with R = 0.
struct Chains {
  std::vector<std::vector<std::uint32_t>> succ;
  std::vector<std::uint32_t> indegree;  // DAG parents + chain predecessors
  std::span<const core::SwitchId> sw;

  // The gap a chain edge u -> v imposes beyond p_u (both on one fabric).
  TimePs penalty(const core::Workload& w, std::uint32_t u, std::uint32_t v, TimePs tau) const {
    if (sw[u] == core::kScaleUpSwitch) return 0;
    return reconfig_penalty(w.tasks()[u], w.tasks()[v], tau);
  }
};

Chains build_chains(const core::Workload& w, std::span<const core::SwitchId> sw,
                    std::span<const double> order_key) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const auto tasks = w.tasks();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (order_key[a] != order_key[b]) return order_key[a] < order_key[b];
    return w.topo_position(core::TaskIndex(a)) < w.topo_position(core::TaskIndex(b));
  });
  const std::size_t ports = static_cast<std::size_t>(w.accelerators());
  std::uint32_t max_sw = 0;
  for (auto s : sw) {
    if (s != core::kScaleUpSwitch) max_sw = std::max(max_sw, s.value());
  }
  // Slots: (switch, port) for the OCS, then the egress and ingress ports.
  const std::size_t egress = (max_sw + 1) * ports, ingress = egress + ports;
  std::vector<std::uint32_t> last_on_port(ingress + ports, 0xffffffffu);
  Chains c;
  c.sw = sw;
  c.succ.resize(n);
  c.indegree.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    c.indegree[v] = static_cast<std::uint32_t>(w.in_edge_ids(core::TaskIndex(v)).size());
  }
  for (std::uint32_t v : order) {
    const core::Task& t = tasks[v];
    const bool electrical = sw[v] == core::kScaleUpSwitch;
    const std::size_t src = (electrical ? egress : sw[v].value() * ports) + t.src.value();
    const std::size_t dst = (electrical ? ingress : sw[v].value() * ports) + t.dst.value();
    const std::uint32_t a = last_on_port[src];
    const std::uint32_t b = last_on_port[dst];
    if (a != 0xffffffffu) {
      c.succ[a].push_back(v);
      ++c.indegree[v];
    }
    if (b != 0xffffffffu && b != a) {
      c.succ[b].push_back(v);
      ++c.indegree[v];
    }
    last_on_port[src] = v;
    last_on_port[dst] = v;
  }
  return c;
}

// Forward longest path (Kahn); `topo` receives the order. Throws when the
// chains contradict the DAG.
std::vector<TimePs> forward(const core::Workload& w, std::span<const TimePs> p, TimePs tau,
                            Chains c, std::vector<std::uint32_t>& topo) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const auto tasks = w.tasks();
  std::vector<TimePs> start(n);
  topo.clear();
  for (std::uint32_t v = 0; v < n; ++v) {
    start[v] = tasks[v].release_ps;
    if (c.indegree[v] == 0) topo.push_back(v);
  }
  for (std::size_t head = 0; head < topo.size(); ++head) {
    const std::uint32_t u = topo[head];
    const TimePs end = start[u] + p[u];
    for (const core::Dep& e : w.out_edges(core::TaskIndex(u))) {
      start[e.to.value()] = std::max(start[e.to.value()], end + e.compute_ps);
      if (--c.indegree[e.to.value()] == 0) topo.push_back(e.to.value());
    }
    for (std::uint32_t v : c.succ[u]) {
      start[v] = std::max(start[v], end + c.penalty(w, u, v, tau));
      if (--c.indegree[v] == 0) topo.push_back(v);
    }
  }
  if (topo.size() != n) {
    throw core::Error("left shift: the per-port send order contradicts the dependencies");
  }
  return start;
}

}  // namespace

std::vector<TimePs> left_shift(const core::Workload& w, std::span<const TimePs> p, TimePs tau,
                               std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  std::vector<std::uint32_t> topo;
  return forward(w, p, tau, build_chains(w, sw, order_key), topo);
}

ScheduleTiming schedule_timing(const core::Workload& w, std::span<const TimePs> p, TimePs tau,
                               std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  const Chains chains = build_chains(w, sw, order_key);
  std::vector<std::uint32_t> topo;
  ScheduleTiming st;
  st.start_ps = forward(w, p, tau, chains, topo);
  const auto tasks = w.tasks();
  st.tail_ps.assign(w.num_tasks(), 0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const std::uint32_t u = *it;
    TimePs after = tasks[u].tail_ps;
    for (const core::Dep& e : w.out_edges(core::TaskIndex(u))) {
      after = std::max(after, e.compute_ps + st.tail_ps[e.to.value()]);
    }
    for (std::uint32_t v : chains.succ[u]) {
      after = std::max(after, chains.penalty(w, u, v, tau) + st.tail_ps[v]);
    }
    st.tail_ps[u] = p[u] + after;
    st.makespan_ps = std::max(st.makespan_ps, st.start_ps[u] + st.tail_ps[u]);
  }
  return st;
}

schedule::Schedule to_schedule(const core::Workload& w, const core::System& system,
                               std::span<const TimePs> p, const Placement& pl) {
  schedule::Schedule s;
  s.workload = w.name();
  s.system = system;
  s.makespan_ps = makespan(w, p, pl);
  s.tasks.reserve(w.num_tasks());
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    s.tasks.push_back(schedule::TaskAssignment{w.tasks()[v].id, pl.sw[v], pl.start_ps[v]});
  }
  s.timelines = schedule::build_timelines(w, system, s.tasks);
  return s;
}

void finish_schedule(schedule::Schedule& s, core::TimePs bound_ps, schedule::SolveStatus otherwise,
                     std::chrono::steady_clock::time_point started) {
  const core::TimePs bound = std::min(bound_ps, s.makespan_ps);
  s.lower_bound_ps = bound;
  s.gap = bound > 0 ? static_cast<double>(s.makespan_ps - bound) / static_cast<double>(bound) : 0.0;
  s.status = bound == s.makespan_ps ? schedule::SolveStatus::kOptimal : otherwise;
  s.solve_time_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace flux::sched
