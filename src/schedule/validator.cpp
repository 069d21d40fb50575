// The independent validator, from the paper's section 3 (docs/model.md):
//
//   sum_s x_{v,s} = 1                          every task on exactly one switch (2)
//   t_v >= max(0, release_v)
//   t_v >= t_u + p_u + c_uv                    (u, v, c_uv) in E              (3)
//   t_v >= t_u + p_u + R_{u,v}                 (u, v) in K on one switch,
//                                              u the earlier                (4, 5)
//   R_{u,v} = 0 if (src_u, dst_u) == (src_v, dst_v), else tau
//   makespan = max_v (t_v + p_v + tail_v)
//
// With scale-up domains (core/system.hpp): a send inside a domain is on the
// scale-up fabric, every other send on a switch; two scale-up sends with the
// same src, or the same dst, do not overlap (R = 0: egress and ingress are
// separate ports, always connected), and the argument below holds for each
// egress and each ingress list as for a switch's port list.
//
// plus the consistency of the circuit timelines and of the circuit model,
// routing and period (validator.hpp).
//
// Conflicts per port. K holds exactly the pairs of distinct tasks sharing an
// accelerator, so on one switch they are the pairs of tasks in one port's
// list (the tasks with that accelerator as src or dst). Sort each list by
// start; it suffices to check consecutive entries w_k, w_{k+1}:
//     t_{k+1} >= t_k + p_k + R(w_k, w_{k+1}).                              (*)
// Proof. Let i < j. Chaining (*) from i to j gives
//     t_j >= t_i + p_i + sum_{i<k<j} p_k + sum_{i<=k<j} R(w_k, w_{k+1}).
// All terms are >= 0, so t_j >= t_i + p_i covers R(w_i, w_j) = 0. If
// R(w_i, w_j) = tau, the directed pairs of w_i and w_j differ, so some
// consecutive pair on the chain differs too and its R is tau: t_j >= t_i +
// p_i + tau. Constraint (4) is included: an ancestor starts first once (3)
// holds. Conversely a violated (*) is a real violation: since p >= 1 the
// other order, t_k >= t_{k+1} + p_{k+1} + R, fails as t_k <= t_{k+1}.
//
// Full duplex (System::duplex == kFull, core/system.hpp): K loses the pairs
// of a send and its reverse, which may overlap; every other pair sharing a
// port takes turns with the same R. (*) no longer suffices: in a list
// x->y [0, 10), y->x [1, 2), x->z [2 + tau, ...) the consecutive pairs pass
// but x->y and x->z are tau short. On a switch, the list of port x (sorted
// by start) splits into *epochs*, maximal runs whose sends have the same
// partner y (so are x->y or y->x). We check
//   (E1) within an epoch, consecutive sends of one direction: t_{k+1} >=
//        t_k + p_k (R = 0);
//   (E2) the first send v of each epoch but the first: t_v >= max over the
//        previous epoch of (t_u + p_u) + tau.
// Proof that (E1), (E2) imply every constraint on port x. Take a pair u, v
// of x's list in K_full, u first by start. Same epoch: u and v carry x-y in
// the same direction (reversed pairs are not in K_full), and chaining (E1)
// along that direction's sends gives t_v >= t_u + p_u = t_u + p_u + R.
// Different epochs: let E_u, E_v be theirs and v' the first send of the
// epoch after E_u; (E2) gives t_{v'} >= t_u + p_u + tau, and t_v >= t_{v'}
// by the order, so t_v >= t_u + p_u + tau >= t_u + p_u + R. Conversely each
// failure is a real violation: (E1) names two sends of one direction that
// overlap; (E2) names u (in the previous epoch, ending last) and v, which
// have different partners (different circuits, R = tau) and t_u <= t_v, so
// neither order satisfies (4, 5) (p >= 1 rules out v before u).
#include "flux/schedule/validator.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>

#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/system.hpp"

namespace flux::schedule {
namespace {

using core::TaskIndex;
using core::TimePs;

constexpr std::size_t kViolationsInMessage = 5;
constexpr TimePs kTimeMax = std::numeric_limits<TimePs>::max();
constexpr TimePs kTimeMin = std::numeric_limits<TimePs>::min();

// Saturating sum: schedules read from files may carry absurd times.
TimePs sat_add(TimePs a, TimePs b) {
  TimePs r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kTimeMax : kTimeMin;
  return r;
}

std::string ps(TimePs t) {
  std::ostringstream out;
  out << t << " ps";
  if (t >= 1000 || t <= -1000) out << " (" << core::format_duration(t) << ")";
  return out.str();
}

std::string circuit_str(core::Rank a, core::Rank b) {
  std::ostringstream out;
  out << '{' << a.value() << ',' << b.value() << '}';
  return out.str();
}

// One task as the user knows it: "task 7 (0->3)".
std::string task_str(const core::Workload& w, TaskIndex v) {
  const core::Task& t = w.task(v);
  std::ostringstream out;
  out << "task " << t.id << " (" << t.src.value() << "->" << t.dst.value() << ')';
  return out.str();
}

std::string interval_str(std::size_t index, const CircuitInterval& c) {
  std::ostringstream out;
  out << "circuits[" << index << "] " << circuit_str(c.a, c.b) << " [setup " << ps(c.setup_ps)
      << ", up " << ps(c.up_ps) << ", down " << ps(c.down_ps) << ')';
  return out.str();
}

// Where a task is placed: its first assignment in the schedule.
struct Placed {
  bool present = false;
  bool sw_ok = false;  // switch in range
  std::uint32_t sw = 0;
  TimePs start = 0;
};

class Checker {
 public:
  Checker(const core::Workload& w, const Schedule& s, const ValidationOptions& options,
          ValidationReport& report)
      : Checker(&w, nullptr, w.name(), w.accelerators(), s, options, report) {}
  // A workload whose collectives stay whole: the schedule-level checks only.
  Checker(const core::LazyWorkload& w, const Schedule& s, const ValidationOptions& options,
          ValidationReport& report)
      : Checker(nullptr, &w, w.name(), w.accelerators(), s, options, report) {}

  void run() {
    if (!check_header()) return;
    tau_ = s_.system.reconfig_delay_ps;
    if (lazy_ != nullptr) {
      core::check_transmission_times(*lazy_, s_.system);  // throws as below
    } else {
      p_ = core::transmission_times(*w_, s_.system);  // throws on times beyond kMaxTimePs
    }
    check_status();
    check_model();
    if (s_.circuit_model == CircuitModel::kTimeline) check_timelines();
    // Task-level checks are defined for direct, aperiodic timelines only;
    // check_model() reports task assignments in any other schedule.
    const bool task_model = s_.circuit_model == CircuitModel::kTimeline && !s_.period_ps &&
                            s_.routing == Routing::kDirect;
    if (lazy_ != nullptr) {
      if (!s_.tasks.empty()) {
        add("the schedule assigns " + std::to_string(s_.tasks.size()) +
            " sends, but the workload keeps its collectives whole (a schedule that names sends "
            "needs the workload expanded)");
      }
      if (!s_.choice.empty() || !s_.routes.empty()) {
        add("the schedule chooses decompositions or routes, but the workload keeps its "
            "collectives whole in one decomposition on a full wiring");
      }
    } else if (task_model && (!s_.tasks.empty() || w_->num_tasks() == 0)) {
      const bool complete = resolve_assignments();
      check_times();
      check_ports();
      if (options_.check_makespan && complete) check_makespan();
      check_sends_in_circuits();
    }
    check_lower_bound();
  }

 private:
  Checker(const core::Workload* w, const core::LazyWorkload* lazy, std::string name,
          std::uint32_t accelerators, const Schedule& s, const ValidationOptions& options,
          ValidationReport& report)
      : w_(w),
        lazy_(lazy),
        name_(std::move(name)),
        accelerators_(accelerators),
        s_(s),
        options_(options),
        report_(report) {}

  void add(const std::ostringstream& message) { add(message.str()); }
  void add(std::string message) {
    ++report_.violation_count;
    if (report_.violations.size() < options_.max_violations) {
      report_.violations.push_back(std::move(message));
    }
  }

  // Workload name, system, number of timelines. False: stop (no valid system).
  bool check_header() {
    if (s_.workload != name_) {
      std::ostringstream m;
      m << "the schedule is for workload '" << s_.workload << "', not '" << name_ << "'";
      add(m);
    }
    try {
      s_.system.validate_for(accelerators_);
    } catch (const core::InputError& e) {
      add(std::string("system: ").append(e.what()));
      return false;
    }
    try {
      if (w_ != nullptr) {
        core::check_routes(*w_, s_.system);
      } else if (s_.system.wiring.kind != core::WiringKind::kFull) {
        throw core::InputError("", "wiring", std::string(core::to_string(s_.system.wiring.kind)),
                               "collectives kept whole run on a full wiring only");
      }
    } catch (const core::InputError& e) {
      add(std::string("routes: ").append(e.what()));
      return false;
    }
    if (s_.timelines.size() != s_.system.switches) {
      std::ostringstream m;
      m << s_.timelines.size() << " timelines for " << s_.system.switches << " switches";
      add(m);
    }
    return true;
  }

  // The circuit model, routing and period against each other, the timelines
  // and the task assignments.
  // infeasible, no_solution and error say there is no schedule: such a file
  // carries no tasks and no circuits (docs/formats.md), or its status lies.
  void check_status() {
    if (s_.status == SolveStatus::kOptimal || s_.status == SolveStatus::kFeasible) return;
    std::size_t circuits = 0;
    for (const SwitchTimeline& t : s_.timelines) circuits += t.circuits.size();
    if (s_.tasks.empty() && circuits == 0) return;
    std::ostringstream m;
    m << "status " << to_string(s_.status) << " means there is no schedule, but the schedule has "
      << s_.tasks.size() << " task assignments and " << circuits << " circuits";
    add(m);
  }

  void check_model() {
    const bool all_connected = s_.circuit_model == CircuitModel::kAllConnected;
    if (all_connected) {
      for (std::size_t sw = 0; sw < s_.timelines.size(); ++sw) {
        const std::size_t count = s_.timelines[sw].circuits.size();
        if (count == 0) continue;
        std::ostringstream m;
        m << "switch " << sw << ": " << count << (count == 1 ? " circuit" : " circuits")
          << " (first " << interval_str(0, s_.timelines[sw].circuits[0])
          << "), but circuit model all_connected has empty timelines";
        add(m);
      }
      if (s_.period_ps) {
        add("circuit model all_connected has no period, but the schedule has period " +
            ps(*s_.period_ps));
      }
    }
    if (s_.period_ps && *s_.period_ps <= 0) {
      add("period " + ps(*s_.period_ps) + " is not positive");
    }
    if (s_.routing == Routing::kVlb && all_connected) {
      add("routing vlb needs circuit model timeline, not all_connected");
    }
    if (s_.tasks.empty()) return;
    const auto no_tasks = [&](const std::string& what) {
      std::ostringstream m;
      m << what << " has no task assignments, but the schedule has " << s_.tasks.size()
        << " (first: task " << s_.tasks[0].task_id << ')';
      add(m);
    };
    if (all_connected) no_tasks("circuit model all_connected");
    if (s_.period_ps) no_tasks("a periodic schedule (period " + ps(*s_.period_ps) + ')');
    if (s_.routing == Routing::kVlb) no_tasks("routing vlb");
  }

  void check_timelines() {
    for (std::size_t sw = 0; sw < s_.timelines.size(); ++sw) {
      const auto& circuits = s_.timelines[sw].circuits;
      for (std::size_t i = 0; i < circuits.size(); ++i) check_interval(sw, i, circuits);
      check_port_overlaps(sw, circuits);
    }
  }

  void check_interval(std::size_t sw, std::size_t i, const std::vector<CircuitInterval>& all) {
    const CircuitInterval& c = all[i];
    const auto bad = [&](const char* what) {
      std::ostringstream m;
      m << "switch " << sw << ": " << interval_str(i, c) << ": " << what;
      return m;
    };
    if (!(c.a < c.b)) add(bad("needs a < b"));
    if (c.b.value() >= accelerators_ || c.a.value() >= accelerators_) {
      std::ostringstream m = bad("accelerator out of range (the workload has ");
      m << accelerators_ << " accelerators)";
      add(m);
    } else if (c.a != c.b && s_.system.fabric(c.a, c.b) == core::Fabric::kScaleUp) {
      std::ostringstream m = bad("joins two accelerators of one scale-up domain (size ");
      m << s_.system.scaleup_size << "), which talk over the electrical fabric";
      add(m);
    } else if (c.a != c.b && !s_.system.joined(c.a, c.b)) {
      std::ostringstream m = bad("no switch of this plane has both: ");
      m << "rank " << c.a.value() << " is on OCS "
        << s_.system.ocs_of(static_cast<std::uint32_t>(sw), c.a).value() << ", rank " << c.b.value()
        << " on OCS " << s_.system.ocs_of(static_cast<std::uint32_t>(sw), c.b).value()
        << " (--wiring " << core::to_string(s_.system.wiring) << ")";
      add(m);
    }
    if (s_.period_ps && *s_.period_ps > 0 && (c.setup_ps < 0 || c.down_ps > *s_.period_ps)) {
      std::ostringstream m = bad("outside the cycle [0, period ");
      m << ps(*s_.period_ps) << "): a periodic schedule needs 0 <= setup and down <= period";
      add(m);
    }
    if (!(c.setup_ps <= c.up_ps && c.up_ps <= c.down_ps)) {
      add(bad("needs setup <= up <= down"));
    } else if (TimePs setup_time = 0;
               __builtin_sub_overflow(c.up_ps, c.setup_ps, &setup_time) || setup_time != tau_) {
      std::ostringstream m = bad("up - setup = ");
      m << ps(setup_time) << ", but every setup takes tau = " << ps(tau_);
      add(m);
    }
    if (i > 0) {
      const CircuitInterval& prev = all[i - 1];
      if (std::tie(c.up_ps, c.a, c.b) < std::tie(prev.up_ps, prev.a, prev.b)) {
        add(bad("out of order: circuits must be sorted by (up, a, b)"));
      }
    }
  }

  // Intervals sharing a port must not overlap over [setup, down). Per port,
  // sorted by setup, each interval is compared with the one reaching
  // furthest among those before it.
  // Periodic schedules: cycle k holds [setup + kP, down + kP), which lies in
  // [kP, (k+1)P) since check_interval() requires 0 <= setup and down <= P.
  // Intervals of different cycles are therefore disjoint, and those of one
  // cycle are cycle 0's shifted: no overlap within [0, P) (checked here)
  // means no overlap across cycle boundaries either.
  void check_port_overlaps(std::size_t sw, const std::vector<CircuitInterval>& circuits) {
    struct Use {
      std::uint32_t port;
      TimePs setup;
      TimePs down;
      std::size_t index;
    };
    std::vector<Use> uses;
    for (std::size_t i = 0; i < circuits.size(); ++i) {
      const CircuitInterval& c = circuits[i];
      if (c.setup_ps >= c.down_ps) continue;  // empty, or reported as malformed
      uses.push_back({c.a.value(), c.setup_ps, c.down_ps, i});
      if (c.b != c.a) uses.push_back({c.b.value(), c.setup_ps, c.down_ps, i});
    }
    std::sort(uses.begin(), uses.end(), [](const Use& x, const Use& y) {
      return std::tie(x.port, x.setup, x.down, x.index) <
             std::tie(y.port, y.setup, y.down, y.index);
    });
    // Two intervals of one circuit meet on both of its ports: report once.
    std::set<std::pair<std::size_t, std::size_t>> reported_same_circuit;
    for (std::size_t k = 0, reach = 0; k < uses.size(); ++k) {
      if (k == 0 || uses[k].port != uses[k - 1].port) {
        reach = k;
        continue;
      }
      const std::size_t i = uses[reach].index;
      const std::size_t j = uses[k].index;
      const bool same_circuit = circuits[i].a == circuits[j].a && circuits[i].b == circuits[j].b;
      if (uses[k].setup < uses[reach].down &&
          (!same_circuit ||
           reported_same_circuit.insert({std::min(i, j), std::max(i, j)}).second)) {
        std::ostringstream m;
        m << "switch " << sw << ", port " << uses[k].port << ": " << interval_str(i, circuits[i])
          << " and " << interval_str(j, circuits[j]) << " overlap";
        add(m);
      }
      if (uses[k].down > uses[reach].down) reach = k;
    }
  }

  // Fills placed_ from the assignments; reports unknown ids, duplicates,
  // switches out of range and missing tasks. True when every task is placed.
  bool resolve_assignments() {
    placed_.assign(w_->num_tasks(), Placed{});
    std::vector<std::size_t> first_entry(w_->num_tasks(), 0);
    for (std::size_t i = 0; i < s_.tasks.size(); ++i) {
      const TaskAssignment& a = s_.tasks[i];
      const auto v = w_->find(a.task_id);
      if (!v) {
        std::ostringstream m;
        m << "schedule.tasks[" << i << "]: task " << a.task_id << " is not in workload '"
          << w_->name() << "'";
        add(m);
        continue;
      }
      Placed& pl = placed_[v->value()];
      if (pl.present) {
        std::ostringstream m;
        m << "task " << a.task_id << " is scheduled more than once (schedule.tasks["
          << first_entry[v->value()] << "] and schedule.tasks[" << i << "])";
        add(m);
        continue;
      }
      pl.present = true;
      pl.sw = a.sw.value();
      const core::Fabric on = a.sw == core::kScaleUpSwitch  ? core::Fabric::kScaleUp
                              : a.sw == core::kPacketSwitch ? core::Fabric::kPacket
                                                            : core::Fabric::kOcs;
      pl.sw_ok = on != core::Fabric::kOcs || (a.sw.valid() && a.sw.value() < s_.system.switches);
      pl.start = a.start_ps;
      first_entry[v->value()] = i;
      const core::Task& t = w_->task(*v);
      const core::Fabric fabric = s_.system.fabric(t.src, t.dst);
      if (!pl.sw_ok) {
        std::ostringstream m;
        m << task_str(*w_, *v) << " is on switch " << a.sw.value() << ", but the system has "
          << s_.system.switches << " switches";
        add(m);
      } else if (on != fabric) {
        std::ostringstream m;
        m << task_str(*w_, *v) << " is on " << fabric_str(on, pl.sw) << ", but its ranks are "
          << ranks_str(t, fabric) << ": it must use " << fabric_str(fabric, kNoSwitch);
        add(m);
        pl.sw_ok = false;
      }
    }
    bool complete = true;
    for (std::uint32_t v = 0; v < w_->num_tasks(); ++v) {
      if (placed_[v].present) continue;
      complete = false;
      add(task_str(*w_, TaskIndex(v)).append(" is not scheduled"));
    }
    return complete;
  }

  static constexpr std::uint32_t kNoSwitch = 0xffffffffu;
  // "the scale-up fabric", "the packet fabric", "switch 3" / "an optical switch".
  static std::string fabric_str(core::Fabric f, std::uint32_t sw) {
    switch (f) {
      case core::Fabric::kScaleUp:
        return "the scale-up fabric";
      case core::Fabric::kPacket:
        return "the packet fabric";
      case core::Fabric::kOcs:
        break;
    }
    return sw == kNoSwitch ? "an optical switch" : "switch " + std::to_string(sw);
  }
  // Why a send of `t` belongs on `f` (System::fabric).
  [[nodiscard]] std::string ranks_str(const core::Task& t, core::Fabric f) const {
    const std::string size = std::to_string(s_.system.scaleup_size);
    switch (f) {
      case core::Fabric::kScaleUp:
        return "in one scale-up domain (size " + size + ")";
      case core::Fabric::kPacket:
        return "joined by no switch (--wiring " + core::to_string(s_.system.wiring) + ", --route " +
               std::string(core::to_string(s_.system.route)) + ")";
      case core::Fabric::kOcs:
        break;
    }
    return "in different scale-up domains (size " + size + ")" +
           (s_.system.joined(t.src, t.dst) ? "" : " and there is no packet route for them");
  }

  // Start >= 0, release and dependencies (3).
  void check_times() {
    for (std::uint32_t i = 0; i < w_->num_tasks(); ++i) {
      const Placed& pl = placed_[i];
      if (!pl.present) continue;
      const TaskIndex v(i);
      if (pl.start < 0) {
        std::ostringstream m;
        m << task_str(*w_, v) << " starts at " << ps(pl.start) << ", before time 0";
        add(m);
      } else if (pl.start < w_->task(v).release_ps) {
        std::ostringstream m;
        m << task_str(*w_, v) << " starts at " << ps(pl.start) << ", before its release "
          << ps(w_->task(v).release_ps);
        add(m);
      }
    }
    for (const core::Dep& e : w_->deps()) {
      const Placed& u = placed_[e.from.value()];
      const Placed& v = placed_[e.to.value()];
      if (!u.present || !v.present) continue;
      const TimePs end_u = sat_add(u.start, p_[e.from.value()]);
      const TimePs earliest = sat_add(end_u, e.compute_ps);
      if (v.start >= earliest) continue;
      std::ostringstream m;
      m << task_str(*w_, e.to) << " starts at " << ps(v.start) << ", before its parent "
        << task_str(*w_, e.from) << " ends at " << ps(end_u) << " plus compute " << ps(e.compute_ps)
        << " (earliest " << ps(earliest) << ')';
      add(m);
    }
  }

  // Conflicting pairs (4, 5): consecutive tasks on each (switch, port) in
  // half duplex, epochs in full duplex (top of the file). The scale-up
  // fabric's egress and ingress ports are two more "switches" past every
  // real one, with R = 0, and the packet fabric's two more.
  static constexpr std::uint32_t kEgress = core::kMaxSwitches;
  static constexpr std::uint32_t kIngress = core::kMaxSwitches + 1;
  static constexpr std::uint32_t kPacketEgress = core::kMaxSwitches + 2;
  static constexpr std::uint32_t kPacketIngress = core::kMaxSwitches + 3;
  struct PortUse {
    std::uint32_t sw;
    std::uint32_t port;
    TimePs start;
    TimePs end;
    std::uint32_t task;
  };
  void check_ports() {
    std::vector<PortUse> uses;
    for (std::uint32_t i = 0; i < w_->num_tasks(); ++i) {
      const Placed& pl = placed_[i];
      if (!pl.present || !pl.sw_ok) continue;
      const core::Task& t = w_->task(TaskIndex(i));
      const TimePs end = sat_add(pl.start, p_[i]);
      if (pl.sw == core::kScaleUpSwitch.value()) {
        uses.push_back({kEgress, t.src.value(), pl.start, end, i});
        uses.push_back({kIngress, t.dst.value(), pl.start, end, i});
        continue;
      }
      if (pl.sw == core::kPacketSwitch.value()) {
        uses.push_back({kPacketEgress, t.src.value(), pl.start, end, i});
        uses.push_back({kPacketIngress, t.dst.value(), pl.start, end, i});
        continue;
      }
      uses.push_back({pl.sw, t.src.value(), pl.start, end, i});
      uses.push_back({pl.sw, t.dst.value(), pl.start, end, i});
    }
    std::sort(uses.begin(), uses.end(), [](const PortUse& x, const PortUse& y) {
      return std::tie(x.sw, x.port, x.start, x.end, x.task) <
             std::tie(y.sw, y.port, y.start, y.end, y.task);
    });
    const bool full = s_.system.duplex == core::Duplex::kFull;
    for (std::size_t begin = 0, end = 0; begin < uses.size(); begin = end) {
      end = begin + 1;
      while (end < uses.size() && uses[end].sw == uses[begin].sw &&
             uses[end].port == uses[begin].port) {
        ++end;
      }
      const std::span<const PortUse> list(uses.data() + begin, end - begin);
      if (full && list.front().sw < kEgress) {
        check_epochs(list);
      } else {
        check_consecutive(list);
      }
    }
  }

  // Half duplex, and the scale-up ports: (*) on consecutive entries.
  void check_consecutive(std::span<const PortUse> list) {
    for (std::size_t k = 1; k < list.size(); ++k) {
      const PortUse& x = list[k - 1];
      const PortUse& y = list[k];
      const core::Task& tu = w_->task(TaskIndex(x.task));
      const core::Task& tv = w_->task(TaskIndex(y.task));
      const bool same_direction = tu.src == tv.src && tu.dst == tv.dst;
      const bool reversed = tu.src == tv.dst && tu.dst == tv.src;
      const bool electrical = x.sw >= kEgress;
      const TimePs r = same_direction || electrical ? 0 : tau_;
      if (y.start >= sat_add(x.end, r)) continue;
      if (electrical) {
        std::ostringstream m;
        m << (x.sw >= kPacketEgress ? "packet " : "scale-up ")
          << (x.sw == kEgress || x.sw == kPacketEgress ? "egress" : "ingress") << " of accelerator "
          << x.port << ": " << task_str(*w_, TaskIndex(x.task)) << " runs [" << ps(x.start) << ", "
          << ps(x.end) << ") and " << task_str(*w_, TaskIndex(y.task)) << " starts at "
          << ps(y.start) << ": electrical transfers sharing a port overlap";
        add(m);
        continue;
      }
      if ((same_direction || reversed) && !first_report(x.task, y.task)) continue;
      std::ostringstream m;
      m << "switch " << x.sw << ", port " << x.port << ": ";
      if (y.start < x.end) {
        m << task_str(*w_, TaskIndex(x.task)) << " runs [" << ps(x.start) << ", " << ps(x.end)
          << ") and " << task_str(*w_, TaskIndex(y.task)) << " starts at " << ps(y.start)
          << ": sends sharing a port overlap";
        if (reversed) {
          m << " (half duplex: reversing the circuit needs tau = " << ps(tau_)
            << "; in full duplex a send and its reverse may overlap)";
        }
      } else {
        m << task_str(*w_, TaskIndex(y.task)) << " starts at " << ps(y.start) << ", "
          << ps(y.start - x.end) << " after " << task_str(*w_, TaskIndex(x.task)) << " ends at "
          << ps(x.end) << "; " << (reversed ? "reversing" : "changing")
          << " the circuit needs tau = " << ps(tau_);
      }
      add(m);
    }
  }

  // Full duplex, one (switch, port x) list sorted by start: epochs (maximal
  // runs with one partner y). Within an epoch, consecutive sends of one
  // direction must not overlap; the next epoch's first send starts >= tau
  // after the latest end in the previous epoch (top of the file).
  void check_epochs(std::span<const PortUse> list) {
    const std::uint32_t x = list.front().port;
    const auto partner = [&](const PortUse& u) {
      const core::Task& t = w_->task(TaskIndex(u.task));
      return t.src.value() == x ? t.dst.value() : t.src.value();
    };
    constexpr std::size_t kNo = std::numeric_limits<std::size_t>::max();
    std::size_t latest = 0;      // the send ending last in the current epoch
    std::size_t last_out = kNo;  // its latest send x -> y
    std::size_t last_in = kNo;   // its latest send y -> x
    for (std::size_t k = 0; k < list.size(); ++k) {
      const PortUse& v = list[k];
      const bool out = w_->task(TaskIndex(v.task)).src.value() == x;
      if (k > 0 && partner(v) != partner(list[k - 1])) {
        const PortUse& u = list[latest];
        if (v.start < sat_add(u.end, tau_)) report_epoch_change(u, v);
        latest = k;
        last_out = last_in = kNo;
      } else if (k > 0) {
        std::size_t& prev = out ? last_out : last_in;
        if (prev != kNo && v.start < list[prev].end && first_report(list[prev].task, v.task)) {
          const PortUse& u = list[prev];
          std::ostringstream m;
          m << "switch " << v.sw << ", port " << x << ": " << task_str(*w_, TaskIndex(u.task))
            << " runs [" << ps(u.start) << ", " << ps(u.end) << ") and "
            << task_str(*w_, TaskIndex(v.task)) << " starts at " << ps(v.start)
            << ": sends in one direction of a circuit overlap (full duplex: only a send and its "
               "reverse may)";
          add(m);
        }
        if (v.end > list[latest].end) latest = k;
      }
      (out ? last_out : last_in) = k;
    }
  }

  void report_epoch_change(const PortUse& u, const PortUse& v) {
    std::ostringstream m;
    m << "switch " << v.sw << ", port " << v.port << ": ";
    if (v.start < u.end) {
      m << task_str(*w_, TaskIndex(u.task)) << " runs [" << ps(u.start) << ", " << ps(u.end)
        << ") and " << task_str(*w_, TaskIndex(v.task)) << " starts at " << ps(v.start)
        << ": sends on different circuits sharing a port overlap (full duplex)";
    } else {
      m << task_str(*w_, TaskIndex(v.task)) << " starts at " << ps(v.start) << ", "
        << ps(v.start - u.end) << " after " << task_str(*w_, TaskIndex(u.task)) << " ends at "
        << ps(u.end) << "; changing the circuit needs tau = " << ps(tau_) << " (full duplex)";
    }
    add(m);
  }

  // Two tasks on the same circuit meet on both of its ports: true the first
  // time the pair is reported.
  bool first_report(std::uint32_t u, std::uint32_t v) {
    return reported_same_circuit_.insert({std::min(u, v), std::max(u, v)}).second;
  }

  void check_makespan() {
    TimePs end = 0;
    std::uint32_t last = 0;
    for (std::uint32_t i = 0; i < w_->num_tasks(); ++i) {
      const TimePs e = sat_add(sat_add(placed_[i].start, p_[i]), w_->task(TaskIndex(i)).tail_ps);
      if (i == 0 || e > end) {
        end = e;
        last = i;
      }
    }
    if (end == s_.makespan_ps) return;
    std::ostringstream m;
    m << "makespan is " << ps(s_.makespan_ps) << ", but max(t_v + p_v + tail_v) = " << ps(end);
    if (w_->num_tasks() > 0) m << " (" << task_str(*w_, TaskIndex(last)) << ')';
    add(m);
  }

  // Every send [t_v, t_v + p_v) within [up, down) of an interval of its
  // circuit on its switch. Per switch, intervals sorted by (a, b, up) with the
  // running maximum of down: some interval with up <= t_v reaches t_v + p_v
  // iff the maximum over those does.
  void check_sends_in_circuits() {
    struct Entry {
      core::Rank a;
      core::Rank b;
      TimePs up;
      TimePs max_down;  // over the entries of this circuit up to here
    };
    std::vector<std::vector<Entry>> index(s_.timelines.size());
    for (std::size_t sw = 0; sw < s_.timelines.size(); ++sw) {
      auto& entries = index[sw];
      for (const CircuitInterval& c : s_.timelines[sw].circuits) {
        entries.push_back({c.a, c.b, c.up_ps, c.down_ps});
      }
      std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
        return std::tie(x.a, x.b, x.up, x.max_down) < std::tie(y.a, y.b, y.up, y.max_down);
      });
      for (std::size_t k = 1; k < entries.size(); ++k) {
        if (entries[k].a == entries[k - 1].a && entries[k].b == entries[k - 1].b) {
          entries[k].max_down = std::max(entries[k].max_down, entries[k - 1].max_down);
        }
      }
    }
    for (std::uint32_t i = 0; i < w_->num_tasks(); ++i) {
      const Placed& pl = placed_[i];
      if (!pl.present || !pl.sw_ok || pl.sw >= index.size()) continue;
      const core::Task& t = w_->task(TaskIndex(i));
      const core::Rank a = std::min(t.src, t.dst);
      const core::Rank b = std::max(t.src, t.dst);
      const TimePs end = sat_add(pl.start, p_[i]);
      const auto& entries = index[pl.sw];
      // First entry after every (a, b, up <= start).
      const auto it =
          std::upper_bound(entries.begin(), entries.end(), std::make_tuple(a, b, pl.start),
                           [](const std::tuple<core::Rank, core::Rank, TimePs>& key,
                              const Entry& e) { return key < std::make_tuple(e.a, e.b, e.up); });
      if (it != entries.begin()) {
        const Entry& e = *std::prev(it);
        if (e.a == a && e.b == b && e.max_down >= end) continue;
      }
      std::ostringstream m;
      m << task_str(*w_, TaskIndex(i)) << " on switch " << pl.sw << " runs [" << ps(pl.start)
        << ", " << ps(end) << "), outside every interval of circuit " << circuit_str(a, b)
        << " on that switch";
      add(m);
    }
  }

  void check_lower_bound() {
    if (!s_.lower_bound_ps) return;
    const TimePs bound = *s_.lower_bound_ps;
    if (bound < 0) {
      add(std::string("lower bound ").append(ps(bound)).append(" is negative"));
    } else if (bound > s_.makespan_ps) {
      std::ostringstream m;
      m << "lower bound " << ps(bound) << " exceeds the makespan " << ps(s_.makespan_ps);
      add(m);
    }
  }

  const core::Workload* w_ = nullptr;         // the task-level checks' workload
  const core::LazyWorkload* lazy_ = nullptr;  // or one whose collectives stay whole
  std::string name_;
  std::uint32_t accelerators_ = 0;
  const Schedule& s_;
  const ValidationOptions& options_;
  ValidationReport& report_;
  TimePs tau_ = 0;
  std::vector<TimePs> p_;       // transmission time per TaskIndex
  std::vector<Placed> placed_;  // per TaskIndex
  std::set<std::pair<std::uint32_t, std::uint32_t>> reported_same_circuit_;
};

}  // namespace

void ValidationOptions::validate() const {
  if (max_violations == 0) {
    throw core::InputError("", "max_violations", "0", "must be at least 1");
  }
}

std::string ValidationReport::to_string() const {
  if (ok()) return "valid";
  std::ostringstream out;
  out << violation_count << (violation_count == 1 ? " violation:" : " violations:");
  for (const std::string& v : violations) out << "\n  " << v;
  if (violation_count > violations.size()) {
    out << "\n  ... and " << violation_count - violations.size() << " more";
  }
  return out.str();
}

namespace {

// A workload with choice groups (core::ChoiceGroup): false, with a violation
// for each, when the schedule places a send of an alternative it did not
// choose (two alternatives of a group, or a mix). Throws core::InputError
// when the choice itself does not fit the workload.
bool unchosen_sends(const core::Workload& w, const Schedule& s, const ValidationOptions& options,
                    ValidationReport& report) {
  const core::Choice choice = core::choice_from_names(w, s.choice);
  for (const TaskAssignment& a : s.tasks) {
    const auto v = w.find(a.task_id);
    if (!v) continue;  // the checks on the resolved workload name it
    const auto alt = w.alternative_of(*v);
    if (!alt || choice[alt->first] == alt->second) continue;
    if (report.violations.size() < options.max_violations) {
      report.violations.push_back(
          "task " + std::to_string(a.task_id) + " is a send of alternative '" +
          w.choices()[alt->first].alternatives[alt->second].name + "' of choice group " +
          std::to_string(alt->first) + ", but the schedule chose '" + s.choice[alt->first] + "'");
    }
    ++report.violation_count;
  }
  return report.violation_count == 0;
}

}  // namespace

ValidationReport validate(const core::Workload& w, const Schedule& s,
                          const ValidationOptions& options) {
  options.validate();
  ValidationReport report;
  // The routed workload (core/routes.hpp) when the wiring forwards sends;
  // when routing fails, the checks on `w` report why.
  std::optional<core::Routed> routed;
  if (!options.routed) {
    try {
      s.system.validate_for(w.accelerators());  // else the checks report the system
      try {
        if (w.has_choices() && !s.choice.empty() && !unchosen_sends(w, s, options, report)) {
          return report;
        }
        routed.emplace(w, s.system, s.choice, s.routes);
      } catch (const core::InputError& e) {
        const bool choice = e.field().starts_with("choice");
        report.violations.push_back(std::string(choice ? "choice: " : "routes: ").append(e.what()));
        report.violation_count = 1;
        return report;
      }
    } catch (const core::InputError&) {
    }
  }
  Checker(routed ? routed->workload() : w, s, options, report).run();
  return report;
}

ScheduleError::ScheduleError(const std::string& message, std::vector<std::string> violations,
                             std::size_t violation_count)
    : core::Error(message), violations_(std::move(violations)), violation_count_(violation_count) {}

ValidationReport validate(const core::LazyWorkload& w, const Schedule& s,
                          const ValidationOptions& options) {
  options.validate();
  ValidationReport report;
  Checker(w, s, options, report).run();
  return report;
}

namespace {

void throw_report(ValidationReport report, const std::string& workload, const Schedule& s) {
  if (report.ok()) return;
  std::ostringstream m;
  m << "invalid schedule";
  if (!s.scheduler.empty()) m << " from " << s.scheduler;
  m << " for workload '" << workload << "': " << report.violation_count
    << (report.violation_count == 1 ? " violation" : " violations");
  const std::size_t shown = std::min(report.violations.size(), kViolationsInMessage);
  for (std::size_t i = 0; i < shown; ++i) m << "\n  " << report.violations[i];
  if (report.violation_count > shown)
    m << "\n  ... and " << report.violation_count - shown << " more";
  throw ScheduleError(m.str(), std::move(report.violations), report.violation_count);
}

}  // namespace

void check_schedule(const core::Workload& w, const Schedule& s, const ValidationOptions& options) {
  throw_report(validate(w, s, options), w.name(), s);
}

void check_schedule(const core::LazyWorkload& w, const Schedule& s,
                    const ValidationOptions& options) {
  throw_report(validate(w, s, options), w.name(), s);
}

}  // namespace flux::schedule
