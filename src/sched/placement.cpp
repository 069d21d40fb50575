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

std::vector<TimePs> left_shift(const core::Workload& w, std::span<const TimePs> p, TimePs tau,
                               std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const auto tasks = w.tasks();
  // Per (switch, port) sequences, by key then topological position.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (order_key[a] != order_key[b]) return order_key[a] < order_key[b];
    return w.topo_position(core::TaskIndex(a)) < w.topo_position(core::TaskIndex(b));
  });
  const std::size_t ports = static_cast<std::size_t>(w.accelerators());
  std::vector<std::uint32_t> last_on_port;  // (switch, port) -> last task seen
  std::vector<std::uint32_t> chain_pred(2 * static_cast<std::size_t>(n), 0xffffffffu);
  {
    std::uint32_t max_sw = 0;
    for (auto s : sw) max_sw = std::max(max_sw, s.value());
    last_on_port.assign((max_sw + 1) * ports, 0xffffffffu);
  }
  for (std::uint32_t v : order) {
    const core::Task& t = tasks[v];
    const std::size_t base = sw[v].value() * ports;
    chain_pred[2 * v] = last_on_port[base + t.src.value()];
    chain_pred[2 * v + 1] = last_on_port[base + t.dst.value()];
    last_on_port[base + t.src.value()] = v;
    last_on_port[base + t.dst.value()] = v;
  }
  // Longest path over DAG edges and chain edges (Kahn's algorithm).
  std::vector<std::vector<std::uint32_t>> chain_succ(n);
  std::vector<std::uint32_t> indegree(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    indegree[v] = static_cast<std::uint32_t>(w.in_edge_ids(core::TaskIndex(v)).size());
    for (int k = 0; k < 2; ++k) {
      const std::uint32_t u = chain_pred[2 * v + k];
      if (u != 0xffffffffu && (k == 0 || u != chain_pred[2 * v])) {
        chain_succ[u].push_back(v);
        ++indegree[v];
      }
    }
  }
  std::vector<TimePs> start(n);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t v = 0; v < n; ++v) {
    start[v] = tasks[v].release_ps;
    if (indegree[v] == 0) queue.push_back(v);
  }
  std::size_t done = 0;
  for (std::size_t head = 0; head < queue.size(); ++head, ++done) {
    const std::uint32_t u = queue[head];
    const TimePs end = start[u] + p[u];
    for (const core::Dep& e : w.out_edges(core::TaskIndex(u))) {
      start[e.to.value()] = std::max(start[e.to.value()], end + e.compute_ps);
      if (--indegree[e.to.value()] == 0) queue.push_back(e.to.value());
    }
    for (std::uint32_t v : chain_succ[u]) {
      start[v] = std::max(start[v], end + reconfig_penalty(tasks[u], tasks[v], tau));
      if (--indegree[v] == 0) queue.push_back(v);
    }
  }
  if (done != n) {
    throw core::Error("left shift: the per-port send order contradicts the dependencies");
  }
  return start;
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

}  // namespace flux::sched
