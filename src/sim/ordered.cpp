// Ordered execution of a task-level schedule (docs/model.md, "Execution
// modes"): the plan's order is kept, its times are not.
//
// Nodes: every send v, and per circuit c (on switch sw, ports a and b) its
// setup and its release. Times, with p_v the send's transmission time
// (electrical for a scale-up send) and planned values marked ^:
//   ready_v   = max(release_v, max over edges u -> v of F_u + compute_uv)
//   S_v       = max(ready_v, up_c, F of the previous send of c in the same
//               direction)                         (a send over circuit c)
//   S_v       = max(ready_v, F of the previous scale-up send from src, F of
//               the previous scale-up send to dst)  (a scale-up send)
//   F_v       = S_v + p_v
//   setup_c   = max(min(setup^_c, 0), R of the previous circuit on port a of
//               sw, R of the previous circuit on port b of sw)
//   up_c      = setup_c + (up^_c - setup^_c)        (tau)
//   R_c       = max(up_c, F of every send over c)  (its ports are released)
//   down_c    = min(max(R_c, down^_c + setup_c - setup^_c), setup of the next
//               circuit on port a or b of sw)
// "Previous" is the planned order: circuits by (setup^, up^, index) per
// port, sends by (S^, index) per circuit direction or electrical port.
// Full duplex (System::duplex == kFull): an interval carries both directions
// (schedule/timeline.hpp), and a send waits for its circuit and for the
// previous send in its own direction, never for the reverse direction, as
// in the task model (the reversed pair does not conflict). In half duplex
// build_timelines gives every interval one direction.
// ordered-no-early also takes the max with the planned time (S^_v,
// setup^_c). Every relation is a max of predecessors plus a constant, so the
// times are longest paths in a DAG (edges go forward in planned time),
// computed in one topological pass. Without perturbation every time is <=
// its planned one; ordered-no-early reproduces the plan exactly.
#include "ordered.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"

namespace flux::sim::detail {
namespace {

constexpr std::string_view kField = "simulated time";
constexpr std::uint32_t kNo = 0xffffffffu;

struct CircuitRef {
  std::uint32_t sw;
  std::uint32_t i;
};

}  // namespace

schedule::Schedule retime(const core::Workload& w, const schedule::Schedule& s, bool no_early) {
  if (s.tasks.empty() || s.period_ps) return s;  // circuit-only: data-driven already
  const std::size_t n = w.num_tasks();
  const std::vector<core::TimePs> p = core::transmission_times(w, s.system);
  std::vector<CircuitRef> circuits;
  for (std::uint32_t sw = 0; sw < s.timelines.size(); ++sw) {
    for (std::uint32_t i = 0; i < s.timelines[sw].circuits.size(); ++i) circuits.push_back({sw, i});
  }
  const std::size_t nc = circuits.size();
  auto iv = [&](std::size_t c) -> const schedule::CircuitInterval& {
    return s.timelines[circuits[c].sw].circuits[circuits[c].i];
  };
  // Sends' switch, planned start and circuit.
  std::vector<std::uint32_t> sw_of(n, kNo), circ_of(n, kNo);
  std::vector<core::TimePs> start(n, 0);
  for (const schedule::TaskAssignment& a : s.tasks) {
    const auto v = w.find(a.task_id);
    if (!v) {
      throw core::InputError("", "tasks.id", std::to_string(a.task_id),
                             "the schedule names a task the workload lacks");
    }
    sw_of[v->value()] = a.sw.value();
    start[v->value()] = a.start_ps;
  }
  // (sw, a, b, up, c) sorted: a send's circuit is the last one up by its start.
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, core::TimePs, std::uint32_t>>
      by_pair;
  for (std::uint32_t c = 0; c < nc; ++c) {
    by_pair.emplace_back(circuits[c].sw, iv(c).a.value(), iv(c).b.value(), iv(c).up_ps, c);
  }
  std::sort(by_pair.begin(), by_pair.end());
  for (std::size_t v = 0; v < n; ++v) {
    const core::Task& t = w.task(core::TaskIndex(v));
    if (s.system.fabric(t.src, t.dst) != core::Fabric::kOcs) continue;
    const std::uint32_t a = std::min(t.src.value(), t.dst.value());
    const std::uint32_t b = std::max(t.src.value(), t.dst.value());
    auto it = std::upper_bound(by_pair.begin(), by_pair.end(),
                               std::make_tuple(sw_of[v], a, b, start[v], kNo));
    if (it == by_pair.begin() || std::get<0>(*(it - 1)) != sw_of[v] ||
        std::get<1>(*(it - 1)) != a || std::get<2>(*(it - 1)) != b) {
      throw std::logic_error("retime: a send without its circuit (the validator passed it)");
    }
    circ_of[v] = std::get<4>(*(it - 1));
  }

  // Graph: sends [0, n), setups [n, n + nc), releases [n + nc, n + 2 nc).
  const std::size_t nodes = n + 2 * nc;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (from, to)
  auto setup_node = [&](std::size_t c) { return static_cast<std::uint32_t>(n + c); };
  auto release_node = [&](std::size_t c) { return static_cast<std::uint32_t>(n + nc + c); };
  for (const core::Dep& d : w.deps()) edges.emplace_back(d.from.value(), d.to.value());
  // Planned order of sends per circuit direction or per electrical port.
  std::vector<std::tuple<std::uint64_t, core::TimePs, std::uint32_t>> queues;
  const std::uint64_t nacc = w.accelerators();
  for (std::uint32_t v = 0; v < n; ++v) {
    const core::Task& t = w.task(core::TaskIndex(v));
    if (circ_of[v] == kNo) {  // the scale-up fabric's ports, then the packet fabric's
      const std::uint64_t base =
          nc + (s.system.fabric(t.src, t.dst) == core::Fabric::kPacket ? 2 * nacc : 0);
      queues.emplace_back(2 * (base + t.src.value()), start[v], v);         // egress
      queues.emplace_back(2 * (base + nacc + t.dst.value()), start[v], v);  // ingress
    } else {
      const std::uint64_t dir = t.src.value() < t.dst.value() ? 0 : 1;
      queues.emplace_back(2 * std::uint64_t{circ_of[v]} + dir, start[v], v);
      edges.emplace_back(setup_node(circ_of[v]), v);
      edges.emplace_back(v, release_node(circ_of[v]));
    }
  }
  std::sort(queues.begin(), queues.end());
  for (std::size_t k = 1; k < queues.size(); ++k) {
    if (std::get<0>(queues[k]) == std::get<0>(queues[k - 1])) {
      edges.emplace_back(std::get<2>(queues[k - 1]), std::get<2>(queues[k]));
    }
  }
  // Planned order of circuits per (switch, port).
  std::vector<std::tuple<std::uint32_t, std::uint32_t, core::TimePs, core::TimePs, std::uint32_t>>
      ports;
  for (std::uint32_t c = 0; c < nc; ++c) {
    edges.emplace_back(setup_node(c), release_node(c));
    for (const core::Rank r : {iv(c).a, iv(c).b}) {
      ports.emplace_back(circuits[c].sw, r.value(), iv(c).setup_ps, iv(c).up_ps, c);
    }
  }
  std::sort(ports.begin(), ports.end());
  std::vector<std::vector<std::uint32_t>> next_circuits(nc);
  for (std::size_t k = 1; k < ports.size(); ++k) {
    if (std::get<0>(ports[k]) != std::get<0>(ports[k - 1]) ||
        std::get<1>(ports[k]) != std::get<1>(ports[k - 1])) {
      continue;
    }
    const std::uint32_t prev = std::get<4>(ports[k - 1]), c = std::get<4>(ports[k]);
    edges.emplace_back(release_node(prev), setup_node(c));
    next_circuits[prev].push_back(c);
  }

  // Longest paths, in Kahn's order.
  std::vector<std::uint32_t> offsets(nodes + 1, 0), indegree(nodes, 0);
  for (const auto& [from, to] : edges) {
    ++offsets[from + 1];
    ++indegree[to];
  }
  for (std::size_t k = 0; k < nodes; ++k) offsets[k + 1] += offsets[k];
  std::vector<std::uint32_t> succ(edges.size());
  {
    std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for (const auto& [from, to] : edges) succ[fill[from]++] = to;
  }
  std::vector<core::TimePs> time(nodes, 0);  // lower bounds, then the node's time
  for (std::uint32_t v = 0; v < n; ++v) {
    time[v] = std::max(w.task(core::TaskIndex(v)).release_ps, no_early ? start[v] : 0);
  }
  for (std::size_t c = 0; c < nc; ++c) {
    time[setup_node(c)] = no_early ? iv(c).setup_ps : std::min<core::TimePs>(iv(c).setup_ps, 0);
    time[release_node(c)] = std::numeric_limits<core::TimePs>::min();
  }
  std::vector<std::uint32_t> stack;
  for (std::uint32_t k = 0; k < nodes; ++k) {
    if (indegree[k] == 0) stack.push_back(k);
  }
  std::size_t done = 0;
  std::vector<core::TimePs> finish(n, 0), up(nc, 0);
  while (!stack.empty()) {
    const std::uint32_t k = stack.back();
    stack.pop_back();
    ++done;
    core::TimePs out = 0;  // what successors see
    if (k < n) {
      // Successors: children (+ compute), the next send in queue and the
      // circuit's release (+ 0 from F).
      finish[k] = core::add_time(time[k], p[k], kField);
      for (std::uint32_t e = offsets[k]; e < offsets[k + 1]; ++e) {
        const std::uint32_t to = succ[e];
        time[to] = std::max(time[to], finish[k]);
      }
      for (const core::Dep& d : w.out_edges(core::TaskIndex(k))) {
        const std::uint32_t to = d.to.value();
        time[to] = std::max(time[to], core::add_time(finish[k], d.compute_ps, kField));
      }
    } else if (k < n + nc) {
      const std::size_t c = k - n;
      up[c] = core::add_time(time[k], iv(c).up_ps - iv(c).setup_ps, kField);
      out = up[c];
    } else {
      out = time[k];
    }
    if (k >= n) {
      for (std::uint32_t e = offsets[k]; e < offsets[k + 1]; ++e) {
        time[succ[e]] = std::max(time[succ[e]], out);
      }
    }
    for (std::uint32_t e = offsets[k]; e < offsets[k + 1]; ++e) {
      if (--indegree[succ[e]] == 0) stack.push_back(succ[e]);
    }
  }
  if (done != nodes) throw std::logic_error("retime: the plan's order has a cycle (a bug)");

  schedule::Schedule r = s;
  for (auto& a : r.tasks) a.start_ps = time[w.find(a.task_id)->value()];
  core::TimePs makespan = 0;
  for (std::size_t v = 0; v < n; ++v) {
    makespan =
        std::max(makespan, core::add_time(finish[v], w.task(core::TaskIndex(v)).tail_ps, kField));
  }
  r.makespan_ps = makespan;
  for (std::uint32_t c = 0; c < nc; ++c) {
    schedule::CircuitInterval& out = r.timelines[circuits[c].sw].circuits[circuits[c].i];
    const core::TimePs setup = time[setup_node(c)];
    core::TimePs down = std::max(time[release_node(c)], iv(c).down_ps + (setup - iv(c).setup_ps));
    for (const std::uint32_t next : next_circuits[c]) down = std::min(down, time[setup_node(next)]);
    out.setup_ps = setup;
    out.up_ps = up[c];
    out.down_ps = down;
  }
  for (auto& tl : r.timelines) {
    std::sort(tl.circuits.begin(), tl.circuits.end(), [](const auto& x, const auto& y) {
      return std::tie(x.up_ps, x.a, x.b) < std::tie(y.up_ps, y.a, y.b);
    });
  }
  return r;
}

}  // namespace flux::sim::detail
