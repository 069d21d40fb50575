// Builds the paper's MILP; the formulation and the reductions are in
// milp_model.hpp and docs/model.md ("The exact scheduler").
#include <algorithm>
#include <cmath>
#include <string>

#include "flux/sched/placement.hpp"
#include "model.hpp"

namespace flux::sched {
namespace {

using core::TaskIndex;
using core::TimePs;

double units(TimePs ps) {
  return static_cast<double>(ps) / kPsPerModelUnit;
}

std::string name_of(const char* prefix, std::uint64_t a) {
  std::string s(prefix);
  s.append(std::to_string(a));
  return s;
}
std::string name_of(const char* prefix, std::uint64_t a, std::uint64_t b) {
  std::string s = name_of(prefix, a);
  s.push_back('_');
  s.append(std::to_string(b));
  return s;
}

// Conflicting pairs (u, v) with u before v in topological order, each once:
// two OCS sends sharing an endpoint (they conflict on a common switch), two
// sends on one electrical fabric (scale-up or packet) sharing a source (the
// egress) or a destination (the ingress). Sends on different fabrics never
// conflict. `electrical`: 0 OCS, 1 scale-up, 2 packet. In full duplex
// (System::take_turns) a send and its reverse share a circuit at once: not a
// pair (K_full, docs/model.md "Duplex"); `reversed` counts those left out.
std::vector<std::pair<std::uint32_t, std::uint32_t>> conflicting_pairs(
    const core::Workload& w, const core::System& system, const std::vector<char>& electrical,
    std::uint64_t& reversed) {
  const auto tasks = w.tasks();
  const std::uint32_t ranks = w.accelerators();
  const bool any_electrical =
      std::any_of(electrical.begin(), electrical.end(), [](char e) { return e != 0; });
  // Ports [0, n): OCS; then the electrical ones at n + electrical_slot:
  // [n, 2n) scale-up egress, [2n, 3n) its ingress, [3n, 4n) packet egress,
  // [4n, 5n) its ingress.
  std::vector<std::vector<std::uint32_t>> by_port(
      std::size_t{ranks} * (any_electrical ? 1 + 2 * kElectricalFabrics : 1));
  for (TaskIndex v : w.topo_order()) {
    const core::Task& t = tasks[v.value()];
    if (electrical[v.value()]) {
      const core::SwitchId e(core::kScaleUpSwitch.value() + electrical[v.value()] - 1);
      by_port[ranks + electrical_slot(e, false, t.src, ranks)].push_back(v.value());
      by_port[ranks + electrical_slot(e, true, t.dst, ranks)].push_back(v.value());
    } else {
      by_port[t.src.value()].push_back(v.value());
      by_port[t.dst.value()].push_back(v.value());
    }
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::size_t x = 0; x < by_port.size(); ++x) {
    const auto& list = by_port[x];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const core::Task& a = tasks[list[i]];
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        const core::Task& b = tasks[list[j]];
        bool owner = false;
        if (x >= ranks && (x / ranks) % 2 == 0) {  // an electrical ingress
          owner = a.src != b.src;                  // sharing the source too: the egress owns it
        } else if (x >= ranks) {
          owner = true;
        } else if (!system.take_turns(a.src, a.dst, b.src, b.dst)) {
          // Full duplex, a send and its reverse: counted once, at a's source.
          reversed += a.src.value() == x;
        } else {  // the smallest shared endpoint owns the pair
          std::uint32_t shared = 0xffffffffu;
          for (core::Rank e : {a.src, a.dst}) {
            if (e == b.src || e == b.dst) shared = std::min(shared, e.value());
          }
          owner = shared == x;
        }
        if (owner) pairs.emplace_back(list[i], list[j]);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end(), [&](const auto& l, const auto& r) {
    const auto pl = w.topo_position(TaskIndex(l.first)), pr = w.topo_position(TaskIndex(r.first));
    return pl != pr ? pl < pr
                    : w.topo_position(TaskIndex(l.second)) < w.topo_position(TaskIndex(r.second));
  });
  return pairs;
}

}  // namespace

std::size_t MilpModel::num_integers() const {
  return static_cast<std::size_t>(std::count(is_integer.begin(), is_integer.end(), 1));
}

int MilpModel::add_col(double lb, double ub, double cost, bool integer, std::string name) {
  col_lb.push_back(lb);
  col_ub.push_back(ub);
  obj.push_back(cost);
  is_integer.push_back(integer ? 1 : 0);
  col_names.push_back(std::move(name));
  return static_cast<int>(col_lb.size() - 1);
}

void MilpModel::add_row(std::span<const int> cols, std::span<const double> coefs, double lb,
                        double ub) {
  for (std::size_t k = 0; k < cols.size(); ++k) {
    row_col.push_back(cols[k]);
    row_val.push_back(coefs[k]);
  }
  row_start.push_back(static_cast<std::int64_t>(row_col.size()));
  row_lb.push_back(lb);
  row_ub.push_back(ub);
}

MilpModel build_milp(const core::Workload& w, const core::System& system, const MilpInputs& in,
                     const MilpOptions& options) {
  const auto tasks = w.tasks();
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  const std::uint32_t S = system.switches;
  const TimePs tau = system.reconfig_delay_ps;
  const core::IdealTiming& timing = *in.timing;
  const auto p = in.p;
  constexpr double kInf = 1e30;

  MilpModel m;
  m.switches = S;
  // Sends inside a scale-up domain or on the packet fabric use an electrical
  // fabric: no switch (1: scale-up, 2: packet).
  std::vector<char> electrical(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    const core::Fabric f = system.fabric(tasks[v].src, tasks[v].dst);
    electrical[v] = f == core::Fabric::kScaleUp ? 1 : f == core::Fabric::kPacket ? 2 : 0;
  }
  // Global big-M (the paper's, extended by the largest release and tail).
  TimePs big = 0, max_release = 0, max_tail = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    big += p[v] + tau;
    max_release = std::max(max_release, tasks[v].release_ps);
    max_tail = std::max(max_tail, tasks[v].tail_ps);
  }
  for (const core::Dep& e : w.deps()) big += e.compute_ps;
  big += max_release + max_tail;
  m.big_m = units(big);

  const bool horizon = options.horizon_big_m && in.horizon_ps.has_value();
  // Bounds derived from the horizon are loosened by a picosecond so that
  // rounding to model units never makes a feasible schedule infeasible.
  const double slack = units(1);
  const TimePs H = horizon ? *in.horizon_ps : 0;
  auto t_lb = [&](std::uint32_t v) { return timing.earliest_start[v]; };
  auto t_ub = [&](std::uint32_t v) { return H - timing.to_end[v]; };

  // Columns: t_v, x_{v,s}, C; y added with the pairs.
  m.t_col.resize(n);
  for (std::uint32_t v = 0; v < n; ++v) {
    m.t_col[v] = m.add_col(units(t_lb(v)), horizon ? units(t_ub(v)) + slack : kInf, 0, false,
                           name_of("t_", tasks[v].id));
  }
  // Symmetry: the i-th OCS send in topological order may use switches 0..i
  // (with no scale-up sends, i is the topological position).
  std::vector<std::uint32_t> ocs_pos(n, 0);
  std::uint32_t ocs_sends = 0;
  for (TaskIndex v : w.topo_order()) {
    if (!electrical[v.value()]) ocs_pos[v.value()] = ocs_sends++;
  }
  m.x_col.assign(static_cast<std::size_t>(n) * S, -1);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (electrical[v]) continue;
    for (std::uint32_t s = 0; s < S; ++s) {
      const bool allowed = !options.symmetry_breaking || s <= ocs_pos[v];
      m.x_col[v * S + s] = m.add_col(0, allowed ? 1 : 0, 0, true, name_of("x_", tasks[v].id, s));
    }
  }
  const double c_lb =
      options.bound_rows && in.lower_bound_ps ? units(*in.lower_bound_ps) - slack : 0;
  m.c_col = m.add_col(c_lb, horizon ? units(H) + slack : kInf, 1, false, "C");

  // (1) C >= t_v + p_v + tail_v, unless a child implies it.
  for (std::uint32_t v = 0; v < n; ++v) {
    bool implied = false;
    for (const core::Dep& e : w.out_edges(TaskIndex(v))) {
      const std::uint32_t c = e.to.value();
      implied = implied || e.compute_ps + p[c] + tasks[c].tail_ps >= tasks[v].tail_ps;
    }
    if (implied) continue;
    const int cols[] = {m.c_col, m.t_col[v]};
    const double vals[] = {1, -1};
    m.add_row(cols, vals, units(p[v] + tasks[v].tail_ps), kInf);
  }
  // (2) each OCS send on one switch.
  for (std::uint32_t v = 0; v < n; ++v) {
    if (electrical[v]) continue;
    std::vector<double> ones(S, 1.0);
    m.add_row(std::span<const int>(&m.x_col[v * S], S), ones, 1, 1);
  }
  // (3) dependencies.
  for (const core::Dep& e : w.deps()) {
    const int cols[] = {m.t_col[e.to.value()], m.t_col[e.from.value()]};
    const double vals[] = {1, -1};
    m.add_row(cols, vals, units(p[e.from.value()] + e.compute_ps), kInf);
  }

  // Big-M of "t_b >= t_a + p_a + R": the largest violation possible.
  auto row_m = [&](std::uint32_t a, std::uint32_t b, TimePs r) -> double {
    if (!horizon) return m.big_m;
    return units(t_ub(a) + p[a] + r - t_lb(b)) + slack;
  };
  // Adds, for every switch, t_b - t_a - M x_as - M x_bs [-+ M y] >= p_a + R - k M;
  // for two electrical sends (no switch) the one row t_b - t_a [-+ M y] >= p_a [- M].
  auto add_pair_rows = [&](std::uint32_t a, std::uint32_t b, TimePs r, double big_m, int y_col,
                           double y_sign) {
    const bool on_switch = !electrical[a];
    for (std::uint32_t s = 0; s < (on_switch ? S : 1); ++s) {
      std::vector<int> cols = {m.t_col[b], m.t_col[a]};
      std::vector<double> vals = {1, -1};
      double rhs = units(p[a] + r);
      if (on_switch) {
        const int xa = m.x_col[a * S + s], xb = m.x_col[b * S + s];
        if (m.col_ub[xa] == 0 || m.col_ub[xb] == 0) continue;  // never both on s
        cols.insert(cols.end(), {xa, xb});
        vals.insert(vals.end(), {-big_m, -big_m});
        rhs -= 2 * big_m;
      }
      if (y_col >= 0) {
        cols.push_back(y_col);
        vals.push_back(y_sign * big_m);
        if (y_sign < 0) rhs -= big_m;  // the u-before-v row: 3 - x - x - y
      }
      m.add_row(cols, vals, rhs, kInf);
    }
  };

  const auto pairs = conflicting_pairs(w, system, electrical, m.reversed_pairs);
  m.conflicting_pairs = pairs.size();
  std::vector<TimePs> dist;
  std::uint32_t dist_of = 0xffffffffu;
  for (const auto& [u, v] : pairs) {
    if (dist_of != u) {
      dist = core::longest_from(w, p, TaskIndex(u));
      dist_of = u;
    }
    // Electrical ports are always connected: R = 0.
    const TimePs r_uv = electrical[u] ? 0 : reconfig_penalty(tasks[u], tasks[v], tau);
    if (dist[v] >= 0) {  // ordered: u is an ancestor of v
      ++m.ordered_pairs;
      if (options.drop_implied_pairs && dist[v] >= r_uv) continue;
      const double mu = row_m(u, v, r_uv);
      if (mu <= 0) continue;
      ++m.ordered_kept;
      add_pair_rows(u, v, r_uv, mu, -1, 0);
      continue;
    }
    ++m.incomparable_pairs;
    const TimePs r_vu = electrical[u] ? 0 : reconfig_penalty(tasks[v], tasks[u], tau);
    const double m_uv = row_m(u, v, r_uv), m_vu = row_m(v, u, r_vu);
    if (m_uv <= 0 || m_vu <= 0) continue;  // one order always holds: nothing to decide
    ++m.incomparable_kept;
    // y = 1: u before v. An order that cannot fit in the horizon fixes y.
    const bool uv_fits = !horizon || t_lb(u) + p[u] + r_uv <= t_ub(v);
    const bool vu_fits = !horizon || t_lb(v) + p[v] + r_vu <= t_ub(u);
    // Neither order fits: never on one switch. (Two electrical sends always
    // share their port; a valid incumbent orders them, so one order fits.)
    if (!uv_fits && !vu_fits && !electrical[u]) {
      for (std::uint32_t s = 0; s < S; ++s) {
        const int cols[] = {m.x_col[u * S + s], m.x_col[v * S + s]};
        const double vals[] = {1, 1};
        m.add_row(cols, vals, -kInf, 1);
      }
      continue;
    }
    const int y = m.add_col(vu_fits || !uv_fits ? 0 : 1, uv_fits || !vu_fits ? 1 : 0, 0, true,
                            name_of("y_", tasks[u].id, tasks[v].id));
    m.y_pair.emplace_back(u, v);
    m.y_col.push_back(y);
    add_pair_rows(u, v, r_uv, m_uv, y, -1);  // active when y = 1
    add_pair_rows(v, u, r_vu, m_vu, y, +1);  // active when y = 0
  }
  return m;
}

MilpSize estimate_milp_size(const core::Workload& w, const core::System& system) {
  // Sends per port: a pair shares a port, so there are at most sum C(k, 2).
  // OCS sends count on their OCS ports, scale-up and packet sends on their
  // fabric's egress and ingress.
  const std::uint32_t ranks = w.accelerators();
  std::vector<std::uint64_t> per_port(ranks, 0);
  std::vector<std::uint64_t> per_electrical(
      system.has_scaleup() || system.has_packet() ? 2 * kElectricalFabrics * std::size_t{ranks} : 0,
      0);
  double scaleup_sends = 0;  // and packet sends
  for (const core::Task& t : w.tasks()) {
    if (const core::SwitchId e = core::electrical_switch(system.fabric(t.src, t.dst));
        core::is_electrical(e)) {
      ++per_electrical[electrical_slot(e, false, t.src, ranks)];
      ++per_electrical[electrical_slot(e, true, t.dst, ranks)];
      ++scaleup_sends;
      continue;
    }
    ++per_port[t.src.value()];
    ++per_port[t.dst.value()];
  }
  const auto pairs_of = [](const std::vector<std::uint64_t>& count) {
    double pairs = 0;
    for (std::uint64_t k : count)
      pairs += 0.5 * static_cast<double>(k) * static_cast<double>(k - (k > 0));
    return pairs;
  };
  double pairs = pairs_of(per_port);
  const double scaleup_pairs = pairs_of(per_electrical);
  if (system.duplex == core::Duplex::kFull) {
    // A send and its reverse share both ports, so sum C(k, 2) counts their
    // pair twice; in full duplex it is no pair (c_ab c_ba of them per {a, b}).
    std::vector<std::uint64_t> directed;  // src * ranks + dst, OCS sends
    for (const core::Task& t : w.tasks()) {
      if (system.fabric(t.src, t.dst) == core::Fabric::kOcs) {
        directed.push_back(std::uint64_t{t.src.value()} * ranks + t.dst.value());
      }
    }
    std::sort(directed.begin(), directed.end());
    const auto count = [&](std::uint64_t key) {
      const auto [lo, hi] = std::equal_range(directed.begin(), directed.end(), key);
      return static_cast<double>(hi - lo);
    };
    for (std::size_t i = 0; i < directed.size();) {
      std::size_t j = i;
      while (j < directed.size() && directed[j] == directed[i]) ++j;
      const std::uint64_t src = directed[i] / ranks, dst = directed[i] % ranks;
      if (src < dst) pairs -= 2 * static_cast<double>(j - i) * count(dst * ranks + src);
      i = j;
    }
  }
  const double n = static_cast<double>(w.num_tasks()), s = system.switches;
  const double ocs_sends = n - scaleup_sends;
  // Rows: one per dep and send (precedence, release, makespan), one per
  // switch per order of an OCS pair, one per order of an electrical pair; 5
  // nonzeros in an OCS pair row (t, t, x, x, y), 3 in an electrical one (t, t, y).
  const double rows = n * 3 + static_cast<double>(w.num_deps()) + pairs * 2 * s + scaleup_pairs * 2;
  const double cols = ocs_sends * (s + 1) + scaleup_sends + 1 + pairs + scaleup_pairs;
  const double nonzeros = ocs_sends * (s + 3) + scaleup_sends * 3 +
                          2 * static_cast<double>(w.num_deps()) + pairs * 2 * s * 5 +
                          scaleup_pairs * 2 * 3;
  // Model: 12 B per nonzero (column index, value), 24 B per row (start, bounds),
  // ~64 B per column (bounds, cost, name); CBC holds ~3 more copies.
  const double bytes = 4 * (12 * nonzeros + 24 * rows + 64 * cols);
  const auto clamp = [](double x) {
    return x >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(x);
  };
  return {clamp(pairs + scaleup_pairs), clamp(rows), clamp(cols), clamp(nonzeros), clamp(bytes)};
}

std::vector<double> milp_solution_of(const MilpModel& m, const core::Workload& w,
                                     std::span<const TimePs> p, std::span<const core::SwitchId> sw,
                                     std::span<const TimePs> start_ps) {
  std::vector<double> x(m.num_cols(), 0.0);
  const std::uint32_t n = static_cast<std::uint32_t>(w.num_tasks());
  TimePs c = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    x[m.t_col[v]] = units(start_ps[v]);
    // A scale-up or packet send has no switch columns.
    if (m.x_col[v * m.switches] >= 0 && sw[v].value() < m.switches) {
      x[m.x_col[v * m.switches + sw[v].value()]] = 1;
    }
    c = std::max(c, start_ps[v] + p[v] + w.tasks()[v].tail_ps);
  }
  for (std::size_t k = 0; k < m.y_col.size(); ++k) {
    const auto [u, v] = m.y_pair[k];
    x[m.y_col[k]] = start_ps[u] < start_ps[v] ? 1 : 0;
  }
  x[m.c_col] = units(c);
  return x;
}

}  // namespace flux::sched
