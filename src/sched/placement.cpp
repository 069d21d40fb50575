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
// sends on the scale-up or the packet fabric (core::kScaleUpSwitch,
// core::kPacketSwitch), per egress (source) and ingress (destination) port
// of that fabric instead (electrical_slot), with R = 0.
//
// In full duplex (System::duplex == kFull) a port's sends in key order form
// epochs, maximal runs whose circuit has the same partner y. Inside an epoch
// of port x the sends x -> y form one chain and the sends y -> x another
// (R = 0; the two directions may overlap). Between consecutive epochs every
// send of the earlier one ends tau before any send of the later one starts:
// since a chain's ends increase (p > 0), the edges from the last send of
// each direction of the earlier epoch to the first send of each direction of
// the later one (p_u + tau) imply all of those pairs, and the chains imply
// the rest. The edges are exactly the pairs of K_full in key order (and
// implied ones), so the longest paths, forward and backward (tails), are
// those of the pairwise model.
struct Chains {
  std::vector<std::vector<std::uint32_t>> succ;
  std::vector<std::uint32_t> indegree;  // DAG parents + chain predecessors
  std::span<const core::SwitchId> sw;

  // The gap a chain edge u -> v imposes beyond p_u (both on one fabric):
  // 0 within a circuit's direction (and on the electrical fabric), else tau
  // (an epoch boundary in full duplex connects two circuits).
  TimePs penalty(const core::Workload& w, std::uint32_t u, std::uint32_t v, TimePs tau) const {
    if (core::is_electrical(sw[u])) return 0;
    return reconfig_penalty(w.tasks()[u], w.tasks()[v], tau);
  }

  void add(std::uint32_t u, std::uint32_t v) {
    if (u == kNone || (!succ[u].empty() && succ[u].back() == v)) return;  // none, or a duplicate
    succ[u].push_back(v);
    ++indegree[v];
  }
  static constexpr std::uint32_t kNone = 0xffffffffu;
};

// A full-duplex port's state while its sends are visited in key order: the
// current epoch's partner and the last send of each direction in it, and
// the last send of each direction of the epoch before.
struct EpochState {
  std::uint32_t partner = Chains::kNone;
  std::uint32_t last[2] = {Chains::kNone, Chains::kNone};  // [0]: sent by the port, [1]: received
  std::uint32_t before[2] = {Chains::kNone, Chains::kNone};

  // Send v, on this port with circuit partner `y`, direction `d`.
  void visit(Chains& c, std::uint32_t v, std::uint32_t y, int d) {
    if (y != partner) {  // a new epoch
      partner = y;
      before[0] = last[0];
      before[1] = last[1];
      last[0] = last[1] = Chains::kNone;
    }
    if (last[d] != Chains::kNone) {
      c.add(last[d], v);
    } else {  // the first of its direction in the epoch
      c.add(before[0], v);
      c.add(before[1], v);
    }
    last[d] = v;
  }
};

Chains build_chains(const core::Workload& w, core::Duplex duplex,
                    std::span<const core::SwitchId> sw, std::span<const double> order_key) {
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
    if (!core::is_electrical(s)) max_sw = std::max(max_sw, s.value());
  }
  // Slots: (switch, port) for the OCS, then the electrical ports.
  const std::size_t electrical = (max_sw + 1) * ports;
  const bool full = duplex == core::Duplex::kFull;
  std::vector<std::uint32_t> last_on_port(electrical + 2 * kElectricalFabrics * ports,
                                          Chains::kNone);
  std::vector<EpochState> epochs(full ? electrical : 0);
  Chains c;
  c.sw = sw;
  c.succ.resize(n);
  c.indegree.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    c.indegree[v] = static_cast<std::uint32_t>(w.in_edge_ids(core::TaskIndex(v)).size());
  }
  for (std::uint32_t v : order) {
    const core::Task& t = tasks[v];
    const bool on_electrical = core::is_electrical(sw[v]);
    const std::size_t src = on_electrical ? electrical + electrical_slot(sw[v], false, t.src, ports)
                                          : sw[v].value() * ports + t.src.value();
    const std::size_t dst = on_electrical ? electrical + electrical_slot(sw[v], true, t.dst, ports)
                                          : sw[v].value() * ports + t.dst.value();
    if (full && !on_electrical) {
      epochs[src].visit(c, v, t.dst.value(), 0);
      epochs[dst].visit(c, v, t.src.value(), 1);
      continue;
    }
    const std::uint32_t a = last_on_port[src];
    const std::uint32_t b = last_on_port[dst];
    if (a != Chains::kNone) {
      c.succ[a].push_back(v);
      ++c.indegree[v];
    }
    if (b != Chains::kNone && b != a) {
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
// `d.p` holds p; empty `d.release_ps` / `d.compute_ps`: the workload's.
std::vector<TimePs> forward(const core::Workload& w, const Durations& d, TimePs tau, Chains c,
                            std::vector<std::uint32_t>& topo) {
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const auto tasks = w.tasks();
  const std::span<const TimePs> p = d.p;
  const core::Dep* const first_dep = w.deps().data();
  std::vector<TimePs> start(n);
  topo.clear();
  for (std::uint32_t v = 0; v < n; ++v) {
    start[v] = d.release_ps.empty() ? tasks[v].release_ps : d.release_ps[v];
    if (c.indegree[v] == 0) topo.push_back(v);
  }
  for (std::size_t head = 0; head < topo.size(); ++head) {
    const std::uint32_t u = topo[head];
    const TimePs end = start[u] + p[u];
    for (const core::Dep& e : w.out_edges(core::TaskIndex(u))) {
      const TimePs compute = d.compute_ps.empty()
                                 ? e.compute_ps
                                 : d.compute_ps[static_cast<std::size_t>(&e - first_dep)];
      start[e.to.value()] = std::max(start[e.to.value()], end + compute);
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

// The forward starts and the backward tails through the same graph.
ScheduleTiming timing_of(const core::Workload& w, std::span<const TimePs> p, TimePs tau,
                         const Chains& chains) {
  std::vector<std::uint32_t> topo;
  ScheduleTiming st;
  st.start_ps = forward(w, Durations{p, {}, {}}, tau, chains, topo);
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

}  // namespace

std::vector<TimePs> left_shift(const core::Workload& w, std::span<const TimePs> p,
                               const core::System& system, std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  return left_shift(w, Durations{p, {}, {}}, system, sw, order_key);
}

std::vector<TimePs> left_shift(const core::Workload& w, const Durations& d,
                               const core::System& system, std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  std::vector<std::uint32_t> topo;
  return forward(w, d, system.reconfig_delay_ps, build_chains(w, system.duplex, sw, order_key),
                 topo);
}

ScheduleTiming schedule_timing(const core::Workload& w, std::span<const TimePs> p,
                               const core::System& system, std::span<const core::SwitchId> sw,
                               std::span<const double> order_key) {
  return timing_of(w, p, system.reconfig_delay_ps, build_chains(w, system.duplex, sw, order_key));
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
