// Exact branch and bound over serial generation (docs/model.md, "Exact
// search by serial generation", which has the proofs).
//
// Serial generation: take the sends in a sequence that is a linear extension
// of the DAG and put each on a chosen switch s at
//   t_v = max( ready_v, free_s(src) + R(last_s(src), v), free_s(dst) + R(last_s(dst), v) )
// (ready_v: release and placed parents' end + compute; free/last: the end of
// and the last send on that (switch, port); R = 0 for the same directed
// pair, else tau). This is the left shift of the port orders the sequence
// induces, and ordering an optimal schedule's sends by start time (p_v > 0)
// gives a sequence whose generation is no later. So a depth-first search
// over (eligible send, switch) finds an optimum. Placed starts never change,
// so every bound below holds for every completion of a node:
//   (a) max over placed v of t_v + to_end_v;
//   (b) max over unplaced v of lb_v + to_end_v, lb_v the earliest start
//       from placed parents, the head, the ports' free times (the cheapest
//       switch), and unplaced parents' lb + p + c (in topological order);
//   (c) per port x: the unplaced sends U_x touching x end at the latest at
//       M >= h, the least level with sum_s (h - f_s)^+ >= sum_{U_x} p +
//       (d_x - s)^+ tau (d_x: distinct pairs in U_x; f_s = max(free_s(x) +
//       R_min, min_{U_x} lb), R_min = tau unless U_x holds the last send's
//       pair), plus min_{U_x} (to_end - p).
// A node is cut when its bound reaches the incumbent. Reductions, each
// keeping one optimal sequence: switches that hold nothing are
// interchangeable (only the lowest empty one is tried), and two adjacent
// independent placements (no DAG edge, and different switches or no shared
// endpoint) generate the same schedule in either order, so only the one
// whose send index rises is kept (the lexicographically least sequence of
// each class survives). Children are tried by earliest start, then the
// longest remaining critical path, so good schedules come first.
// Scale-up domains and the packet fabric: a send inside a domain has one
// "switch", the scale-up fabric (kScaleUp), a send on the packet fabric one
// too (kPacket), and is placed at max(ready_v, free_e(src), free_i(dst)) on
// its source's egress and destination's ingress of that fabric (no R; the
// two fabrics' ports are distinct, placement.hpp); its lb_v in (b) takes
// those two ports; (c) counts the optical ports' OCS sends only and bounds
// each electrical egress and ingress as one server without tau:
// max(min lb, free) + sum p + min (to_end - p); two placements on one
// electrical fabric are independent unless they share a source or a
// destination (or a DAG edge), and placements on different fabrics (or
// switches) unless they share a DAG edge.
// Windows (ExactWindow): children come from the window's sends only, and
// (b) and (c) range over its unplaced sends and the ports they touch only,
// so a node costs O(window) (a max over fewer valid terms: still a bound,
// perhaps weaker); the whole instance is the window of every send, node for
// node the search without windows. A leaf replays the suffix and stops once
// a replayed send's t + to_end (a lower bound) reaches the incumbent.
// Full duplex (System::duplex, docs/model.md "Full duplex" under the exact
// search): a send and its reverse on one switch do not conflict. A (switch,
// port) keeps its current epoch (the run of placements with one partner, the
// last send's other endpoint) and the ends of the epoch's last send out of
// and into the port (both the epoch's start when it opens: the previous
// latest end + tau). x -> y waits on x for the last send out of x if the
// partner is y, else for the latest end + tau (a new epoch; nothing on an
// unused port); likewise on y with the sends into y. This is exactly the
// pairwise constraints against the earlier placed conflicting sends. (b)
// uses that term; (c) is per direction: a port's unplaced sends and its
// unplaced receives are two servers (each one at a time per switch, tau
// between partners), since a send and its reverse overlap; and per
// circuit: the port's epochs are one server whose work is, per partner,
// the larger of the two directions' loads, tau between partners. The switch
// symmetry and the partial-order reduction are unchanged (independent
// placements touch disjoint port states). Half duplex compiles without it.
#include "branch_and_bound.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::sched {
namespace {

using core::TimePs;
using Clock = std::chrono::steady_clock;

__extension__ typedef __int128 I128;  // GCC/Clang extension, silences -Wpedantic

constexpr std::uint32_t kNone = 0xffffffffu;
constexpr TimePs kInf = ExactResult::kNone;
// The "switch" of a send on the scale-up fabric (its only choice), and of one
// on the packet fabric: every switch from kScaleUp on is electrical.
constexpr std::uint32_t kScaleUp = core::kScaleUpSwitch.value();
static_assert(core::kPacketSwitch.value() == kScaleUp + 1);

struct PortState {
  TimePs free = 0;             // end of the last send on this (switch, port)
  std::uint32_t last = kNone;  // that send
  // Full duplex only (OCS ports): `free` is the end of the last send out of
  // the port in its current epoch (or the epoch's start), `rx_free` that of
  // the last send into it; `last` the last send placed, whose other
  // endpoint is the epoch's partner.
  TimePs rx_free = 0;
};

// The unplaced load of one port, for bound (c).
struct PortLoad {
  TimePs sum_p = 0;
  TimePs min_lb = kInf;
  TimePs min_q = kInf;
  std::uint32_t pairs = 0;
};

// kDomains: the instance has sends on the scale-up or the packet fabric.
// Without (k = 1 or no send inside a domain, and no packet send) every
// electrical test compiles away, so the paper's model runs the search of
// before, instruction for instruction.
// kFull: full-duplex circuits (System::duplex); false compiles every
// full-duplex test away, so half duplex is the search of before.
template <bool kDomains, bool kFull>
class Search {
 public:
  Search(const core::Workload& w, std::span<const TimePs> p, const core::System& system,
         const core::IdealTiming& timing, std::uint32_t min_switches = 0)
      : w_(w),
        p_(p),
        tau_(system.reconfig_delay_ps),
        n_(static_cast<std::uint32_t>(w.num_tasks())),
        ranks_(w.accelerators()),
        to_end_(timing.to_end),
        head_(timing.earliest_start) {
    const auto tasks = w.tasks();
    rx_ = 5 * ranks_;
    circuit_ = 6 * ranks_;
    electrical_.assign(n_, 0);
    std::uint32_t ocs_sends = 0;
    for (std::uint32_t v = 0; v < n_; ++v) {
      const core::SwitchId e = core::electrical_switch(system.fabric(tasks[v].src, tasks[v].dst));
      electrical_[v] = core::is_electrical(e) ? static_cast<std::uint8_t>(e.value() - kScaleUp + 1)
                                              : std::uint8_t{0};
      ocs_sends += electrical_[v] ? 0 : 1;
    }
    if (!kDomains && ocs_sends < n_) throw core::Error("exact search: electrical sends unexpected");
    if (kFull != (system.duplex == core::Duplex::kFull)) {
      throw core::Error("exact search: duplex mode unexpected");
    }
    s_ = std::max<std::uint32_t>({1, min_switches, std::min(system.switches, ocs_sends)});
    start_.assign(n_, 0);
    sw_.assign(n_, 0);
    placed_.assign(n_, 0);
    missing_.resize(n_);
    ready_.resize(n_);
    lb_.resize(n_);
    pair_.resize(n_);
    pair_stamp_.assign(n_, 0);
    for (std::uint32_t v = 0; v < n_; ++v) {
      missing_[v] = static_cast<std::uint32_t>(w.in_edge_ids(core::TaskIndex(v)).size());
      ready_[v] = tasks[v].release_ps;
    }
    // Pair id: the first send with the same (src, dst).
    std::unordered_map<std::uint64_t, std::uint32_t> first;
    for (std::uint32_t v = 0; v < n_; ++v) {
      const std::uint64_t key =
          static_cast<std::uint64_t>(tasks[v].src.value()) * ranks_ + tasks[v].dst.value();
      pair_[v] = first.try_emplace(key, v).first->second;
    }
    if constexpr (kFull) {  // the pair id of each send's reverse, kNone if none
      rev_pair_.assign(n_, kNone);
      for (std::uint32_t v = 0; v < n_; ++v) {
        const std::uint64_t key =
            static_cast<std::uint64_t>(tasks[v].dst.value()) * ranks_ + tasks[v].src.value();
        const auto it = first.find(key);
        if (it != first.end()) rev_pair_[v] = it->second;
      }
    }
    port_.assign(static_cast<std::size_t>(s_) * ranks_, PortState{});
    electrical_port_.assign(2 * kElectricalFabrics * static_cast<std::size_t>(ranks_), PortState{});
    // Full duplex: the OCS ports' receive loads after the OCS and electrical
    // ports (at rx_), then their circuit loads (at circuit_).
    load_.resize((kFull ? 7 : 5) * static_cast<std::size_t>(ranks_));
    if constexpr (kFull) {
      pair_load_.assign(n_, 0);
      circuit_stamp_.assign(n_, 0);
    }
    in_window_.assign(n_, 1);
    set_window_lists();
  }

  ExactResult run(const Placement* incumbent, const ExactLimits& limits,
                  const ExactWindow& window) {
    ExactResult r;
    limits_ = limits;
    t0_ = Clock::now();
    suffix_ = window.suffix;
    fixed_sw_ = window.fixed_sw;
    in_window_.assign(n_, 1);
    for (std::uint32_t v : window.suffix) in_window_[v] = 0;
    // The prefix, generated once; then the search starts after it.
    TimePs path_bound = 0, fixed = 0;
    for (std::uint32_t v : window.prefix) {
      const TimePs t = place_fixed(v);
      in_window_[v] = 0;
      path_bound = std::max(path_bound, t + to_end_[v]);
      fixed = std::max(fixed, t + p_[v] + w_.tasks()[v].tail_ps);
    }
    set_window_lists();
    for (std::uint32_t v : window_) {
      for (std::uint32_t id : w_.in_edge_ids(core::TaskIndex(v))) {
        const std::uint32_t u = w_.deps()[id].from.value();
        if (!placed_[u] && !in_window_[u]) {
          throw core::Error("exact search: send " + std::to_string(v) +
                            " of the window depends on the suffix");
        }
      }
    }
    // Switches named by the suffix are not interchangeable with empty ones.
    if (!suffix_.empty()) used_ = s_;
    if (incumbent != nullptr) {
      best_ = *incumbent;
      best_ms_ = makespan(w_, p_, best_);
    } else {
      best_.sw.assign(n_, core::SwitchId(0));
      best_.start_ps.assign(n_, 0);
    }
    const TimePs incumbent_ms = best_ms_;
    best_ms_ = std::min(best_ms_, limits.cutoff_ps);
    r.root_bound_ps = std::max(path_bound, node_bound());
    dfs(kNone, path_bound, fixed);
    r.complete = !aborted_;
    r.improved = improved_;
    r.nodes = nodes_;
    if (improved_ || incumbent_ms != kInf) {
      r.best = std::move(best_);
      r.makespan_ps = improved_ ? best_ms_ : incumbent_ms;
    }
    return r;
  }

  TimePs root_bound() { return node_bound(); }

 private:
  // The window's sends (by index and in topological order) and the ports
  // they touch, from in_window_: every send for the whole instance. Ports
  // are numbered as in load_: OCS port x (window_ports_), then electrical
  // port ranks_ + electrical_slot (window_electrical_ports_).
  void set_window_lists() {
    window_.clear();
    window_topo_.clear();
    window_ports_.clear();
    std::vector<std::uint8_t> touched(5 * static_cast<std::size_t>(ranks_), 0);
    for (std::uint32_t v = 0; v < n_; ++v) {
      if (!in_window_[v]) continue;
      window_.push_back(v);
      const auto [a, b] = load_index(v);
      touched[a] = touched[b] = 1;
    }
    for (core::TaskIndex v : w_.topo_order()) {
      if (in_window_[v.value()]) window_topo_.push_back(v.value());
    }
    window_electrical_ports_.clear();
    for (std::uint32_t x = 0; x < touched.size(); ++x) {
      if (touched[x]) (x < ranks_ ? window_ports_ : window_electrical_ports_).push_back(x);
    }
  }

  // The two ports v occupies, as indices of load_.
  std::pair<std::uint32_t, std::uint32_t> load_index(std::uint32_t v) const {
    const core::Task& t = w_.tasks()[v];
    if (!on_electrical(v)) return {t.src.value(), t.dst.value()};
    const core::SwitchId e(electrical_switch(v));
    return {ranks_ + static_cast<std::uint32_t>(electrical_slot(e, false, t.src, ranks_)),
            ranks_ + static_cast<std::uint32_t>(electrical_slot(e, true, t.dst, ranks_))};
  }

  PortState& port(std::uint32_t s, core::Rank x) {
    return port_[static_cast<std::size_t>(s) * ranks_ + x.value()];
  }

  // The state of the port v occupies at its source (OCS port on switch s, or
  // the egress of the electrical fabric s >= kScaleUp) and at its
  // destination.
  PortState& src_port(std::uint32_t v, std::uint32_t s) {
    const core::Rank x = w_.tasks()[v].src;
    return kDomains && s >= kScaleUp
               ? electrical_port_[electrical_slot(core::SwitchId(s), false, x, ranks_)]
               : port(s, x);
  }
  PortState& dst_port(std::uint32_t v, std::uint32_t s) {
    const core::Rank x = w_.tasks()[v].dst;
    return kDomains && s >= kScaleUp
               ? electrical_port_[electrical_slot(core::SwitchId(s), true, x, ranks_)]
               : port(s, x);
  }

  // Whether v is on the scale-up or the packet fabric.
  bool on_electrical(std::uint32_t v) const {
    if constexpr (kDomains) return electrical_[v] != 0;
    return false;
  }
  // Its "switch" there (kScaleUp or kPacket), when on_electrical(v).
  std::uint32_t electrical_switch(std::uint32_t v) const { return kScaleUp + electrical_[v] - 1; }

  // When v's electrical egress and ingress are both free.
  TimePs electrical_free(std::uint32_t v) const {
    const std::uint32_t s = electrical_switch(v);
    return std::max(src_port_free(v, s), dst_port_free(v, s));
  }
  TimePs src_port_free(std::uint32_t v, std::uint32_t s) const {
    return electrical_port_[electrical_slot(core::SwitchId(s), false, w_.tasks()[v].src, ranks_)]
        .free;
  }
  TimePs dst_port_free(std::uint32_t v, std::uint32_t s) const {
    return electrical_port_[electrical_slot(core::SwitchId(s), true, w_.tasks()[v].dst, ranks_)]
        .free;
  }

  // The switch index of a fixed send (kScaleUp, kPacket for the electrical
  // fabrics).
  std::uint32_t fixed_switch(std::uint32_t v) const { return fixed_sw_[v].value(); }

  TimePs reconfig(std::uint32_t last, std::uint32_t v) const {
    return pair_[last] == pair_[v] ? 0 : tau_;
  }

  // Full duplex: the earliest start of v (from x to y when `out`, else from
  // y to x) on port x of switch s after the sends placed there: in the
  // current epoch if its partner is y (after the last send of v's
  // direction, the reverse one may overlap), else tau after the port's
  // latest end (a new epoch; none on an unused port).
  TimePs duplex_port_start(const PortState& ps, core::Rank x, core::Rank y, bool out) const {
    if (ps.last == kNone) return 0;
    const core::Task& l = w_.tasks()[ps.last];
    if ((l.src == x ? l.dst : l.src) == y) return out ? ps.free : ps.rx_free;
    return std::max(ps.free, ps.rx_free) + tau_;
  }

  // The earliest start of v on switch s's ports after the sends placed
  // there (0 if both are unused).
  TimePs ocs_port_start(std::uint32_t v, std::uint32_t s) {
    const core::Task& t = w_.tasks()[v];
    TimePs start = 0;
    if constexpr (kFull) {
      start = duplex_port_start(port(s, t.src), t.src, t.dst, true);
      return std::max(start, duplex_port_start(port(s, t.dst), t.dst, t.src, false));
    }
    for (core::Rank x : {t.src, t.dst}) {
      const PortState& ps = port(s, x);
      if (ps.last != kNone) start = std::max(start, ps.free + reconfig(ps.last, v));
    }
    return start;
  }

  // Start of v appended to switch s (its parents all placed: ready_ final);
  // on an electrical fabric, after its egress and ingress are free (no tau).
  TimePs start_on(std::uint32_t v, std::uint32_t s) {
    TimePs start = ready_[v];
    if (kDomains && s >= kScaleUp) return std::max(start, electrical_free(v));
    return std::max(start, ocs_port_start(v, s));
  }

  // Full duplex: port x's state after v (from x to y when `out`, else from
  // y to x) is placed on it at t: a new epoch, if its partner was not y,
  // starts at the previous latest end + tau (0 on an unused port), when
  // both directions are free.
  void duplex_place(PortState& ps, core::Rank x, core::Rank y, bool out, std::uint32_t v,
                    TimePs t) const {
    bool same = false;
    if (ps.last != kNone) {
      const core::Task& l = w_.tasks()[ps.last];
      same = (l.src == x ? l.dst : l.src) == y;
    }
    if (!same) {
      const TimePs epoch = ps.last == kNone ? 0 : std::max(ps.free, ps.rx_free) + tau_;
      ps.free = ps.rx_free = epoch;
    }
    (out ? ps.free : ps.rx_free) = t + p_[v];
    ps.last = v;
  }

  // Undo record of one placement.
  struct Undo {
    PortState src, dst;
    std::uint32_t used;
  };

  Undo place(std::uint32_t v, std::uint32_t s, TimePs t) {
    PortState& src = src_port(v, s);
    PortState& dst = dst_port(v, s);
    Undo u{src, dst, used_};
    start_[v] = t;
    sw_[v] = s;
    placed_[v] = 1;
    ++placed_count_;
    if (!kDomains || s < kScaleUp) used_ = std::max(used_, s + 1);
    if (kFull && !(kDomains && s >= kScaleUp)) {
      const core::Task& task = w_.tasks()[v];
      duplex_place(src, task.src, task.dst, true, v, t);
      duplex_place(dst, task.dst, task.src, false, v, t);
    } else {
      src = PortState{t + p_[v], v};
      dst = PortState{t + p_[v], v};
    }
    for (const core::Dep& e : w_.out_edges(core::TaskIndex(v))) --missing_[e.to.value()];
    return u;
  }

  void unplace(std::uint32_t v, const Undo& u) {
    for (const core::Dep& e : w_.out_edges(core::TaskIndex(v))) ++missing_[e.to.value()];
    dst_port(v, sw_[v]) = u.dst;
    src_port(v, sw_[v]) = u.src;
    used_ = u.used;
    placed_[v] = 0;
    --placed_count_;
  }

  // Places v on its fixed switch (prefix and suffix); returns its start.
  TimePs place_fixed(std::uint32_t v) {
    if (missing_[v] != 0) {
      throw core::Error("exact search: send " + std::to_string(v) +
                        " comes before one of its parents in the window's order");
    }
    ready_[v] = ready_from_parents(v);
    const std::uint32_t s = fixed_switch(v);
    const TimePs t = start_on(v, s);
    place(v, s, t);
    return t;
  }

  // ready_ of v from its placed parents (all of them, when v is eligible).
  TimePs ready_from_parents(std::uint32_t v) const {
    TimePs r = w_.tasks()[v].release_ps;
    for (std::uint32_t id : w_.in_edge_ids(core::TaskIndex(v))) {
      const core::Dep& e = w_.deps()[id];
      const std::uint32_t u = e.from.value();
      if (placed_[u]) r = std::max(r, start_[u] + p_[u] + e.compute_ps);
    }
    return r;
  }

  bool has_edge(std::uint32_t u, std::uint32_t v) const {
    const auto out = w_.out_edges(core::TaskIndex(u));
    return std::binary_search(
        out.begin(), out.end(), core::Dep{core::TaskIndex(u), core::TaskIndex(v), 0},
        [](const core::Dep& a, const core::Dep& b) { return a.to.value() < b.to.value(); });
  }

  // Independent placements: swapping them adjacent leaves every (switch,
  // port) order, every electrical port order and every ready time unchanged.
  bool independent(std::uint32_t u, std::uint32_t su, std::uint32_t v, std::uint32_t sv) const {
    if (has_edge(u, v)) return false;
    if (su != sv) return true;  // different switches or fabrics
    const core::Task& a = w_.tasks()[u];
    const core::Task& b = w_.tasks()[v];
    if (kDomains && su >= kScaleUp) return a.src != b.src && a.dst != b.dst;  // egress, ingress
    return a.src != b.src && a.src != b.dst && a.dst != b.src && a.dst != b.dst;
  }

  // Bounds (b) and (c) of the header comment; (a) is passed down the path.
  TimePs node_bound() {
    const auto tasks = w_.tasks();
    TimePs bound = 0;
    for (std::uint32_t v : window_topo_) {
      const core::TaskIndex vi(v);
      if (placed_[v]) continue;
      lb_[v] = std::max(head_[v], ready_from_parents(v));
      for (std::uint32_t id : w_.in_edge_ids(vi)) {
        const core::Dep& e = w_.deps()[id];
        const std::uint32_t u = e.from.value();
        if (!placed_[u]) lb_[v] = std::max(lb_[v], lb_[u] + p_[u] + e.compute_ps);
      }
      // The ports' free times: the electrical ones, or the cheapest switch's.
      if (on_electrical(v)) {
        lb_[v] = std::max(lb_[v], electrical_free(v));
      } else {
        TimePs port_est = kInf;
        for (std::uint32_t s = 0; s < s_ && port_est > lb_[v]; ++s) {
          port_est = std::min(port_est, ocs_port_start(v, s));
        }
        lb_[v] = std::max(lb_[v], port_est);
      }
      bound = std::max(bound, lb_[v] + to_end_[v]);
    }
    // (c): per OCS port, the unplaced load water-filled over the switches
    // (in full duplex, per direction: its sends, and its receives, at
    // rx_ + x); per electrical port, the unplaced load after the port is
    // free.
    ++stamp_;
    for (std::uint32_t x : window_ports_) {
      load_[x] = PortLoad{};
      if constexpr (kFull) load_[rx_ + x] = load_[circuit_ + x] = PortLoad{};
    }
    for (std::uint32_t x : window_electrical_ports_) load_[x] = PortLoad{};
    for (std::uint32_t v : window_) {
      if (placed_[v]) continue;
      const bool new_pair = pair_stamp_[pair_[v]] != stamp_;
      pair_stamp_[pair_[v]] = stamp_;
      auto [a, b] = load_index(v);
      if (!on_electrical(v) && kFull) {
        b += rx_;
        pair_load_[pair_[v]] = (new_pair ? 0 : pair_load_[pair_[v]]) + p_[v];
        for (std::uint32_t x : {a, b - rx_}) {
          PortLoad& l = load_[circuit_ + x];
          l.min_lb = std::min(l.min_lb, lb_[v]);
          l.min_q = std::min(l.min_q, to_end_[v] - p_[v]);
        }
      }
      for (std::uint32_t x : {a, b}) {
        PortLoad& l = load_[x];
        l.sum_p += p_[v];
        l.min_lb = std::min(l.min_lb, lb_[v]);
        l.min_q = std::min(l.min_q, to_end_[v] - p_[v]);
        l.pairs += new_pair ? 1 : 0;
      }
    }
    if constexpr (kFull) add_circuit_loads();
    for (std::uint32_t x : window_electrical_ports_) {  // one server each, no tau
      const PortLoad& l = load_[x];
      if (l.sum_p == 0) continue;
      const TimePs f = std::max(l.min_lb, electrical_port_[x - ranks_].free);  // load_index
      bound = std::max(bound, f + l.sum_p + l.min_q);
    }
    for (std::uint32_t x : window_ports_) {
      if constexpr (kFull) {
        bound = std::max(bound, duplex_load_bound(x, true));
        bound = std::max(bound, duplex_load_bound(x, false));
        bound = std::max(bound, circuit_load_bound(x));
        continue;
      }
      const PortLoad& l = load_[x];
      if (l.sum_p == 0) continue;
      levels_.clear();
      for (std::uint32_t s = 0; s < s_; ++s) {
        const PortState& ps = port(s, core::Rank(x));
        TimePs f = l.min_lb;
        if (ps.last != kNone) {
          const TimePs r_min = pair_stamp_[pair_[ps.last]] == stamp_ ? 0 : tau_;
          f = std::max(f, ps.free + r_min);
        }
        levels_.push_back(f);
      }
      bound = std::max(bound, load_bound(l));
    }
    return bound;
  }

  // (c) of one server: the water level of the load over levels_, plus the
  // least tail.
  TimePs load_bound(const PortLoad& l) {
    const TimePs work = l.sum_p + static_cast<TimePs>(l.pairs > s_ ? l.pairs - s_ : 0) * tau_;
    // Sums over the switches can pass int64 on extreme horizons: in 128
    // bits, clamped (a bound beyond every time cuts the node, rightly).
    const I128 b = water_level(work) + l.min_q;
    return b > kInf ? kInf : static_cast<TimePs>(b);
  }

  // Full duplex: the unplaced window sends' circuits, once each: the larger
  // of its two directions' unplaced loads (pair_load_) on both its ports'
  // circuit loads, and one more partner for each.
  void add_circuit_loads() {
    const auto tasks = w_.tasks();
    for (std::uint32_t v : window_) {
      if (placed_[v] || on_electrical(v)) continue;
      const std::uint32_t rev = rev_pair_[v];
      const bool both = rev != kNone && pair_stamp_[rev] == stamp_;
      const std::uint32_t c = both ? std::min(pair_[v], rev) : pair_[v];
      if (circuit_stamp_[c] == stamp_) continue;
      circuit_stamp_[c] = stamp_;
      const TimePs work = std::max(pair_load_[pair_[v]], both ? pair_load_[rev] : 0);
      for (core::Rank x : {tasks[v].src, tasks[v].dst}) {
        PortLoad& l = load_[circuit_ + x.value()];
        l.sum_p += work;
        ++l.pairs;
      }
    }
  }

  // Full duplex, (c) of OCS port x's circuits: on one switch its epochs run
  // one at a time, tau apart, each at least as long as the larger of its
  // two directions' loads; so the sum over partners of the larger unplaced
  // direction plus tau per partner change is the port's work (pairs: its
  // distinct partners). The level on switch s: the earlier of the current
  // epoch's two directions if the load holds a send on the epoch's
  // circuit, else tau after the port's latest end.
  TimePs circuit_load_bound(std::uint32_t x) {
    const PortLoad& l = load_[circuit_ + x];
    if (l.sum_p == 0) return 0;
    levels_.clear();
    for (std::uint32_t s = 0; s < s_; ++s) {
      const PortState& ps = port(s, core::Rank(x));
      TimePs f = l.min_lb;
      if (ps.last != kNone) {
        const std::uint32_t rev = rev_pair_[ps.last];
        const bool in_load =
            pair_stamp_[pair_[ps.last]] == stamp_ || (rev != kNone && pair_stamp_[rev] == stamp_);
        f = std::max(
            f, in_load ? std::min(ps.free, ps.rx_free) : std::max(ps.free, ps.rx_free) + tau_);
      }
      levels_.push_back(f);
    }
    return load_bound(l);
  }

  // Full duplex, (c) of OCS port x's sends (`out`) or receives: they go one
  // at a time on each switch, tau apart between different partners (pairs:
  // their distinct partners), the first on switch s no earlier than its
  // level: the end of the current epoch's last send in that direction if
  // the load holds a send to (from) the epoch's partner, else tau after the
  // port's latest end (docs/model.md, "Full duplex").
  TimePs duplex_load_bound(std::uint32_t x, bool out) {
    const PortLoad& l = load_[out ? x : rx_ + x];
    if (l.sum_p == 0) return 0;
    levels_.clear();
    for (std::uint32_t s = 0; s < s_; ++s) {
      const PortState& ps = port(s, core::Rank(x));
      TimePs f = l.min_lb;
      if (ps.last != kNone) {
        // The pair x -> partner (out) or partner -> x of the current epoch.
        const bool last_out = w_.tasks()[ps.last].src.value() == x;
        const std::uint32_t pair = last_out == out ? pair_[ps.last] : rev_pair_[ps.last];
        const bool in_load = pair != kNone && pair_stamp_[pair] == stamp_;
        f = std::max(f,
                     in_load ? (out ? ps.free : ps.rx_free) : std::max(ps.free, ps.rx_free) + tau_);
      }
      levels_.push_back(f);
    }
    return load_bound(l);
  }

  // The least integer h with sum_s (h - levels_[s])^+ >= work.
  I128 water_level(TimePs work) {
    std::sort(levels_.begin(), levels_.end());
    I128 filled = 0;  // sum of the k lowest levels
    for (std::size_t k = 1; k <= levels_.size(); ++k) {
      filled += levels_[k - 1];
      const auto kk = static_cast<I128>(k);
      // The k lowest switches take the work: k h - filled >= work.
      const I128 h = (work + filled + kk - 1) / kk;
      if (k == levels_.size() || h <= levels_[k]) return h;
    }
    return 0;
  }

  bool out_of_budget() {
    if (nodes_ >= limits_.max_nodes) return true;
    if ((nodes_ & 1023) == 0 &&
        (std::chrono::duration<double>(Clock::now() - t0_).count() > limits_.time_s ||
         stop_requested(limits_.stop))) {
      return true;
    }
    return false;
  }

  // A leaf: the window is placed; replays the suffix and keeps the schedule
  // if it is better. The replay stops once a replayed send's t + to_end (a
  // lower bound of the leaf's makespan) reaches the incumbent.
  void leaf(TimePs fixed) {
    std::vector<Undo>& undo = leaf_undo_;
    undo.clear();
    TimePs ms = fixed;
    bool cut = false;
    for (std::uint32_t v : suffix_) {
      const Undo u{src_port(v, fixed_switch(v)), dst_port(v, fixed_switch(v)), used_};
      const TimePs t = place_fixed(v);
      undo.push_back(u);
      ms = std::max(ms, t + p_[v] + w_.tasks()[v].tail_ps);
      if (std::max(ms, t + to_end_[v]) >= best_ms_) {
        cut = true;
        break;
      }
    }
    if (!cut && ms < best_ms_) {
      best_ms_ = ms;
      improved_ = true;
      for (std::uint32_t v = 0; v < n_; ++v) {
        best_.sw[v] = core::SwitchId(sw_[v]);
        best_.start_ps[v] = start_[v];
      }
    }
    for (std::size_t k = undo.size(); k-- > 0;) unplace(suffix_[k], undo[k]);
  }

  // `last`: the previous placement's send (kNone at the root); `path_bound`:
  // bound (a) of the placed sends; `fixed`: max over them of t + p + tail.
  void dfs(std::uint32_t last, TimePs path_bound, TimePs fixed) {
    if (aborted_) return;
    if (out_of_budget()) {
      aborted_ = true;
      return;
    }
    ++nodes_;
    if (placed_count_ + suffix_.size() == n_) {
      leaf(fixed);
      return;
    }
    if (std::max(path_bound, node_bound()) >= best_ms_) return;
    // Children: (start, -to_end, send, switch), best first.
    std::vector<std::tuple<TimePs, TimePs, std::uint32_t, std::uint32_t>> children;
    const std::uint32_t switches = std::min(s_, used_ + 1);
    for (std::uint32_t v : window_) {
      if (placed_[v] || missing_[v] != 0) continue;
      ready_[v] = ready_from_parents(v);
      const std::uint32_t first = on_electrical(v) ? electrical_switch(v) : 0;
      const std::uint32_t end = on_electrical(v) ? first + 1 : switches;
      for (std::uint32_t s = first; s < end; ++s) {
        if (last != kNone && v < last && independent(last, sw_[last], v, s)) continue;
        const TimePs t = start_on(v, s);
        if (t + to_end_[v] >= best_ms_) continue;
        children.emplace_back(t, -to_end_[v], v, s);
      }
    }
    std::sort(children.begin(), children.end());
    for (const auto& [t, neg_to_end, v, s] : children) {
      if (aborted_) return;
      if (t - neg_to_end >= best_ms_) continue;  // the incumbent improved meanwhile
      const Undo u = place(v, s, t);
      dfs(v, std::max(path_bound, t - neg_to_end),
          std::max(fixed, t + p_[v] + w_.tasks()[v].tail_ps));
      unplace(v, u);
    }
  }

  const core::Workload& w_;
  std::span<const TimePs> p_;
  TimePs tau_;
  std::uint32_t n_, s_, ranks_;
  std::uint32_t rx_ = 0, circuit_ = 0;  // offsets in load_ (full duplex): receives, circuits
  const std::vector<TimePs>& to_end_;
  const std::vector<TimePs>& head_;
  std::vector<std::uint32_t> pair_;       // pair id of each send
  std::vector<std::uint32_t> rev_pair_;   // full duplex: of its reverse (kNone: none)
  std::vector<std::uint8_t> electrical_;  // 0: OCS, 1: scale-up, 2: packet fabric
  // Search state.
  std::vector<TimePs> start_, ready_, lb_;
  std::vector<std::uint32_t> sw_, missing_;
  std::vector<std::uint8_t> placed_, in_window_;
  std::vector<std::uint32_t> window_, window_topo_, window_ports_, window_electrical_ports_;
  std::vector<Undo> leaf_undo_;  // scratch of leaf()
  std::span<const std::uint32_t> suffix_;
  std::span<const core::SwitchId> fixed_sw_;
  std::vector<PortState> port_;
  std::vector<PortState> electrical_port_;  // by electrical_slot
  std::uint32_t placed_count_ = 0, used_ = 0;
  // Scratch of node_bound().
  std::vector<PortLoad> load_;
  std::vector<std::uint64_t> pair_stamp_;
  std::vector<TimePs> pair_load_;             // full duplex: unplaced load per pair
  std::vector<std::uint64_t> circuit_stamp_;  // full duplex: circuit counted
  std::uint64_t stamp_ = 0;
  std::vector<TimePs> levels_;
  // Incumbent and limits.
  Placement best_;
  TimePs best_ms_ = kInf;
  bool improved_ = false, aborted_ = false;
  std::uint64_t nodes_ = 0;
  ExactLimits limits_;
  Clock::time_point t0_;
};

bool has_electrical_sends(const core::Workload& w, const core::System& system) {
  for (const core::Task& t : w.tasks()) {
    if (system.fabric(t.src, t.dst) != core::Fabric::kOcs) return true;
  }
  return false;
}

}  // namespace

ExactResult branch_and_bound(const core::Workload& w, std::span<const TimePs> p,
                             const core::System& system, const core::IdealTiming& timing,
                             const Placement* incumbent, const ExactLimits& limits,
                             const ExactWindow& window) {
  if ((!window.prefix.empty() || !window.suffix.empty()) &&
      window.fixed_sw.size() != w.num_tasks()) {
    throw core::Error("exact search: a window needs the switch of every send");
  }
  std::uint32_t min_switches = 0;
  for (const auto* part : {&window.prefix, &window.suffix}) {
    for (std::uint32_t v : *part) {
      const bool electrical = core::is_electrical(window.fixed_sw[v]);
      const core::Task& t = w.tasks()[v];
      const core::Fabric f = system.fabric(t.src, t.dst);
      if (electrical ? window.fixed_sw[v] != core::electrical_switch(f) : f != core::Fabric::kOcs) {
        throw core::Error("exact search: send " + std::to_string(v) +
                          " is fixed on the wrong fabric");
      }
      if (!electrical) min_switches = std::max(min_switches, window.fixed_sw[v].value() + 1);
    }
  }
  const bool full = system.duplex == core::Duplex::kFull;
  if (has_electrical_sends(w, system)) {
    if (full) {
      return Search<true, true>(w, p, system, timing, min_switches).run(incumbent, limits, window);
    }
    return Search<true, false>(w, p, system, timing, min_switches).run(incumbent, limits, window);
  }
  if (full) {
    return Search<false, true>(w, p, system, timing, min_switches).run(incumbent, limits, window);
  }
  return Search<false, false>(w, p, system, timing, min_switches).run(incumbent, limits, window);
}

TimePs exact_root_bound(const core::Workload& w, std::span<const TimePs> p,
                        const core::System& system, const core::IdealTiming& timing) {
  const bool full = system.duplex == core::Duplex::kFull;
  if (has_electrical_sends(w, system)) {
    if (full) return Search<true, true>(w, p, system, timing).root_bound();
    return Search<true, false>(w, p, system, timing).root_bound();
  }
  if (full) return Search<false, true>(w, p, system, timing).root_bound();
  return Search<false, false>(w, p, system, timing).root_bound();
}

}  // namespace flux::sched
