// Online MoE scheduling (include/flux/runtime/online.hpp, docs/model.md
// "Online MoE scheduling"): the reveal model and the loop of forecasts and
// decisions.
#include "flux/runtime/online.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/sched/placement.hpp"
#include "flux/schedule/validator.hpp"

namespace flux::runtime {

std::string_view to_string(DecisionLatency l) {
  return l == DecisionLatency::kMeasured ? "measured" : "modelled";
}

DecisionLatency decision_latency_from_string(std::string_view s) {
  if (s == "modelled") return DecisionLatency::kModelled;
  if (s == "measured") return DecisionLatency::kMeasured;
  throw core::InputError("", "decision_latency", std::string(s), "must be modelled or measured");
}

void OnlineOptions::validate() const {
  core::check_options(kOnlineOptions, *this);
  if (reserve_ps == 0) return;
  const std::string value = core::format_duration(reserve_ps);
  if (latency != DecisionLatency::kMeasured) {
    throw core::InputError("", "decision_reserve", value,
                           "applies with a measured decision latency only");
  }
  if (reserve_ps >= budget_ps) {
    throw core::InputError(
        "", "decision_reserve", value,
        "must be below the decision budget (" + core::format_duration(budget_ps) + ")");
  }
}

namespace {

using core::TimePs;
constexpr std::uint32_t kNone = 0xffffffffu;

// The four all-to-alls of a MoE exchange, in the generator's order; the
// first is the one the router reveals.
constexpr std::array<std::string_view, 4> kParts = {".fwd.dispatch", ".fwd.combine", ".bwd.combine",
                                                    ".bwd.dispatch"};

struct Unit {
  std::uint32_t label = core::kNoLabel;
  std::vector<std::uint32_t> sends;  // task indices, ascending
  std::vector<std::uint32_t> entry;  // those no send of the unit precedes
  bool decided = false;
};

struct Group {
  std::array<std::uint32_t, 4> units{kNone, kNone, kNone, kNone};
  bool revealed = false;
  TimePs reveal_ps = 0;
};

struct Reveals {
  std::vector<Unit> units;
  std::vector<Group> groups;
  std::vector<std::uint32_t> unit_of;  // per task: its unit, or kNone
};

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// The MoE exchanges of `w` by their labels: per (prefix, connected set of
// ranks) a group of up to four all-to-alls. Groups without a dispatch are
// left out (nothing reveals them: they run as planned).
Reveals find_reveals(const core::Workload& w) {
  const auto labels = w.labels();
  std::map<std::string_view, std::uint32_t> prefixes;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> part_of(labels.size(), {kNone, 0});
  for (std::uint32_t l = 0; l < labels.size(); ++l) {
    const std::string_view s = labels[l];
    for (std::uint32_t k = 0; k < kParts.size(); ++k) {
      if (s.size() > kParts[k].size() && s.ends_with(kParts[k])) {
        const auto [it, fresh] = prefixes.emplace(s.substr(0, s.size() - kParts[k].size()),
                                                  static_cast<std::uint32_t>(prefixes.size()));
        part_of[l] = {it->second, k};
      }
    }
  }
  Reveals r;
  r.unit_of.assign(w.num_tasks(), kNone);
  if (prefixes.empty()) return r;
  // Per prefix, the connected sets of ranks its sends join.
  std::vector<std::vector<std::uint32_t>> by_prefix(prefixes.size());
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const std::uint32_t l = w.task(core::TaskIndex(v)).label;
    if (l != core::kNoLabel && part_of[l].first != kNone) by_prefix[part_of[l].first].push_back(v);
  }
  std::vector<std::uint32_t> parent(w.accelerators());
  std::iota(parent.begin(), parent.end(), 0u);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> group_of;  // (prefix, root)
  for (std::uint32_t x = 0; x < by_prefix.size(); ++x) {
    for (const std::uint32_t v : by_prefix[x]) {
      const core::Task& t = w.task(core::TaskIndex(v));
      parent[find_root(parent, t.src.value())] = find_root(parent, t.dst.value());
    }
    for (const std::uint32_t v : by_prefix[x]) {
      const core::Task& t = w.task(core::TaskIndex(v));
      const std::uint32_t root = find_root(parent, t.src.value());
      const auto [it, fresh] =
          group_of.emplace(std::make_pair(x, root), static_cast<std::uint32_t>(r.groups.size()));
      if (fresh) r.groups.emplace_back();
      Group& g = r.groups[it->second];
      const std::uint32_t k = part_of[t.label].second;
      if (g.units[k] == kNone) {
        g.units[k] = static_cast<std::uint32_t>(r.units.size());
        r.units.push_back(Unit{t.label, {}, {}, false});
      }
      r.units[g.units[k]].sends.push_back(v);
      r.unit_of[v] = g.units[k];
    }
    for (const std::uint32_t v : by_prefix[x]) {  // reset the ranks this prefix joined
      const core::Task& t = w.task(core::TaskIndex(v));
      parent[t.src.value()] = t.src.value();
      parent[t.dst.value()] = t.dst.value();
    }
  }
  for (std::uint32_t u = 0; u < r.units.size(); ++u) {
    for (const std::uint32_t v : r.units[u].sends) {
      bool entry = true;
      for (const std::uint32_t e : w.in_edge_ids(core::TaskIndex(v))) {
        if (r.unit_of[w.deps()[e].from.value()] == u) entry = false;
      }
      if (entry) r.units[u].entry.push_back(v);
    }
  }
  for (Group& g : r.groups) {  // nothing reveals a group without its dispatch
    if (g.units[0] != kNone) continue;
    for (const std::uint32_t u : g.units) {
      if (u == kNone) continue;
      r.units[u].decided = true;
      for (const std::uint32_t v : r.units[u].sends) r.unit_of[v] = kNone;
    }
    g.revealed = true;
  }
  return r;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The loop's state: the plan as switches and order keys, and the sizes,
// releases and compute known so far.
class Online {
 public:
  Online(const core::Workload& a, const core::Workload& b, const schedule::Schedule& plan,
         const OnlineOptions& options, const std::atomic<bool>* stop)
      : a_(a),
        b_(b),
        sys_(plan.system),
        options_(options),
        pa_(core::transmission_times(a, sys_)),
        pb_(core::transmission_times(b, sys_)),
        p_(pa_),
        sw_(a.num_tasks()),
        key_(a.num_tasks()),
        reveals_(find_reveals(b)),
        stop_(stop) {
    for (const core::Task& t : a.tasks()) release_.push_back(t.release_ps);
    for (const core::Dep& d : a.deps()) compute_.push_back(d.compute_ps);
    for (const schedule::TaskAssignment& t : plan.tasks) {
      const std::uint32_t v = a.find(t.task_id)->value();  // the validator passed the plan
      sw_[v] = t.sw;
      key_[v] = static_cast<double>(t.start_ps);
    }
  }

  OnlineRun run() {
    OnlineRun out;
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      start_ = sched::left_shift(a_, sched::Durations{p_, release_, compute_}, sys_, sw_, key_);
      ready_ = release_;
      for (std::size_t e = 0; e < a_.deps().size(); ++e) {
        const core::Dep& d = a_.deps()[e];
        ready_[d.to.value()] = std::max(ready_[d.to.value()],
                                        start_[d.from.value()] + p_[d.from.value()] + compute_[e]);
      }
      // The forecast's starts become the order keys; a decision moves some.
      for (std::size_t v = 0; v < key_.size(); ++v) key_[v] = static_cast<double>(start_[v]);
      placed_ = start_;
      out.forecast_wall_s += seconds_since(t0);
      const std::vector<Event> events = pending_events();
      if (events.empty()) break;
      // The events before the first decision lands see the forecast as it
      // is (a decision changes nothing before it lands): one batch.
      const TimePs window = core::add_time(events.front().at, options_.budget_ps, "decision time");
      for (const Event& e : events) {
        if (e.at != events.front().at && e.at >= window) break;
        if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) throw core::Stopped();
        now_ = std::max(now_, e.at);
        std::uint32_t u = e.index;
        if (e.reveal) {
          reveal(e.index, e.at);
          ++out.reveals;
          u = reveals_.groups[e.index].units[0];  // the dispatch, decided at once
        }
        if (!decide(u, now_, out)) ++out.kept;
      }
    }
    const std::vector<TimePs> starts =
        sched::left_shift(b_, sched::Durations{pb_, release_, {}}, sys_, sw_, key_);
    out.schedule = sched::to_schedule(b_, sys_, pb_, sched::Placement{sw_, starts});
    return out;
  }

 private:
  struct Event {
    TimePs at = 0;
    bool reveal = false;
    std::uint32_t index = 0;  // group (reveal) or unit (decision)
  };

  // Where send v ends in the forecast with this batch's decisions.
  [[nodiscard]] TimePs end(std::uint32_t v) const { return placed_[v] + p_[v]; }

  // The pending events, earliest first: a reveal of each group not yet
  // revealed (then its dispatch is decided), a decision of each other
  // all-to-all of a revealed group; at one instant reveals first, then by
  // index.
  [[nodiscard]] std::vector<Event> pending_events() const {
    std::vector<Event> events;
    for (std::uint32_t g = 0; g < reveals_.groups.size(); ++g) {
      const Group& group = reveals_.groups[g];
      if (group.revealed) {
        for (std::uint32_t k = 1; k < kParts.size(); ++k) {
          const std::uint32_t u = group.units[k];
          if (u == kNone || reveals_.units[u].decided) continue;
          TimePs t = std::numeric_limits<TimePs>::max();
          for (const std::uint32_t v : reveals_.units[u].entry) t = std::min(t, ready_[v]);
          // Never before an event already handled (a batch may have
          // handled a later reveal): a decision sees only what is known.
          events.push_back(
              Event{std::max({group.reveal_ps, t - options_.budget_ps, now_}), false, u});
        }
        continue;
      }
      TimePs r = 0;  // every router of the group has run
      for (const std::uint32_t v : reveals_.units[group.units[0]].entry) {
        r = std::max(r, ready_[v]);
      }
      events.push_back(Event{std::max(r, now_), true, g});
    }
    std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
      if (x.at != y.at) return x.at < y.at;
      if (x.reveal != y.reveal) return x.reveal;
      return x.index < y.index;
    });
    return events;
  }

  // Group g's sizes and compute become the actual iteration's.
  void reveal(std::uint32_t g, TimePs at) {
    Group& group = reveals_.groups[g];
    group.revealed = true;
    group.reveal_ps = at;
    for (const std::uint32_t u : group.units) {
      if (u == kNone) continue;
      for (const std::uint32_t v : reveals_.units[u].sends) {
        p_[v] = pb_[v];
        release_[v] = b_.task(core::TaskIndex(v)).release_ps;
        for (const std::uint32_t e : b_.in_edge_ids(core::TaskIndex(v))) {
          compute_[e] = b_.deps()[e].compute_ps;
        }
        const core::Dep* first = b_.deps().data();
        for (const core::Dep& d : b_.out_edges(core::TaskIndex(v))) {
          compute_[static_cast<std::size_t>(&d - first)] = d.compute_ps;
        }
      }
    }
  }

  // Decides unit u at `at`; false when its sizes were the plan's (kept).
  bool decide(std::uint32_t u, TimePs at, OnlineRun& out) {
    Unit& unit = reveals_.units[u];
    unit.decided = true;
    if (std::all_of(unit.sends.begin(), unit.sends.end(),
                    [&](std::uint32_t v) { return pa_[v] == pb_[v]; })) {
      return false;
    }
    const std::size_t n = a_.num_tasks();
    // What the decision may move: the unit's sends on the OCS that the plan
    // starts after the decision lands (the others have started by then).
    const TimePs lands = core::add_time(at, options_.budget_ps, "decision time");
    std::vector<std::uint32_t> moved;
    for (const std::uint32_t v : unit.sends) {
      if (!core::is_electrical(sw_[v]) && placed_[v] >= lands) moved.push_back(v);
    }
    std::sort(moved.begin(), moved.end(), [&](std::uint32_t x, std::uint32_t y) {
      return placed_[x] != placed_[y] ? placed_[x] < placed_[y] : x < y;
    });
    std::vector<std::uint32_t> slot(n, kNone);  // a moved send's request
    for (std::uint32_t i = 0; i < moved.size(); ++i) slot[moved[i]] = i;
    std::vector<sched::InsertRequest> requests;
    std::vector<TimePs> plan_end;
    for (const std::uint32_t v : moved) {
      const core::Task& t = a_.task(core::TaskIndex(v));
      sched::InsertRequest q;
      q.task = v;
      q.src = t.src;
      q.dst = t.dst;
      q.p_ps = p_[v];
      q.plan_sw = sw_[v];
      q.release_ps = std::max(release_[v], lands);
      for (const std::uint32_t e : a_.in_edge_ids(core::TaskIndex(v))) {
        const std::uint32_t from = a_.deps()[e].from.value();
        if (slot[from] != kNone) {
          q.after.emplace_back(slot[from], compute_[e]);
        } else {
          q.release_ps = std::max(q.release_ps, end(from) + compute_[e]);
        }
      }
      q.before_ps = sched::kNoBound;
      for (const core::Dep& d : a_.out_edges(core::TaskIndex(v))) {
        if (slot[d.to.value()] == kNone) q.before_ps = std::min(q.before_ps, placed_[d.to.value()]);
      }
      requests.push_back(std::move(q));
      plan_end.push_back(end(v));
    }
    // The port timelines without them, as far as they can matter: holds on
    // the unit's ports that end, with tau, after the decision lands and
    // start before the last place a request may take ends, with tau.
    const TimePs tau = sys_.reconfig_delay_ps;
    TimePs horizon = 0;
    for (const sched::InsertRequest& q : requests) {
      horizon = std::max(
          horizon, q.before_ps == sched::kNoBound ? sched::kNoBound : q.before_ps + q.p_ps + tau);
    }
    std::vector<bool> port(a_.accelerators(), false);
    for (const std::uint32_t v : unit.sends) {
      port[a_.task(core::TaskIndex(v)).src.value()] = true;
      port[a_.task(core::TaskIndex(v)).dst.value()] = true;
    }
    sched::PortTimelines timelines(sys_.switches, a_.accelerators());
    for (std::uint32_t v = 0; v < n; ++v) {
      if (core::is_electrical(sw_[v]) || slot[v] != kNone) continue;
      const core::Task& t = a_.task(core::TaskIndex(v));
      if (!port[t.src.value()] && !port[t.dst.value()]) continue;
      if (end(v) + tau <= lands || placed_[v] >= horizon) continue;
      timelines.add(sw_[v], sched::PortHold{placed_[v], end(v), t.src, t.dst});
    }
    timelines.sort();
    const bool measured = options_.latency == DecisionLatency::kMeasured;
    const auto t0 = std::chrono::steady_clock::now();
    const sched::Decided decided = sched::decide_insertion(
        timelines, requests, plan_end, tau, sys_.duplex,
        measured ? std::optional(t0 + std::chrono::nanoseconds(
                                          (options_.budget_ps - options_.reserve_ps) / 1000))
                 : std::nullopt);
    Decision d;
    d.wall_s = seconds_since(t0);
    d.label = std::string(a_.label(core::TaskIndex(unit.sends.front())));
    d.instant_ps = at;
    d.latency_ps = measured ? core::seconds_to_ps(d.wall_s) : options_.budget_ps;
    d.sends = static_cast<std::uint32_t>(moved.size());
    d.pick = decided.pick;
    const TimePs released = core::add_time(at, d.latency_ps, "decision time");
    for (const sched::Inserted& x : decided.placed) {
      if (!x.at) continue;
      ++d.placed;
      sw_[x.task] = x.at->first;
      key_[x.task] = static_cast<double>(x.at->second) + 0.5;  // between integer keys
      placed_[x.task] = x.at->second;
      release_[x.task] = std::max(release_[x.task], released);
    }
    out.decisions.push_back(std::move(d));
    return true;
  }

  const core::Workload& a_;
  const core::Workload& b_;
  const core::System& sys_;
  const OnlineOptions& options_;
  const std::vector<TimePs> pa_, pb_;
  std::vector<TimePs> p_, release_, compute_;
  std::vector<core::SwitchId> sw_;
  std::vector<double> key_;
  Reveals reveals_;
  std::vector<TimePs> start_, ready_;  // the current forecast
  std::vector<TimePs> placed_;         // its starts with this batch's decisions
  TimePs now_ = 0;                     // the latest event handled
  const std::atomic<bool>* stop_;
};

}  // namespace

OnlineRun run_online(const core::Workload& planned, const core::Workload& actual,
                     const schedule::Schedule& plan, const OnlineOptions& options,
                     const sim::SimOptions& sim_options) {
  options.validate();
  sim_options.validate();
  if (plan.tasks.empty() || plan.period_ps) {
    throw core::InputError("", "scheduler", plan.scheduler,
                           "online scheduling needs a task-level plan (a switch and a start per "
                           "send); this scheduler's is circuit-only");
  }
  if (sim_options.perturbation.any() || sim_options.trials != 1) {
    throw core::InputError("", "trials", std::to_string(sim_options.trials),
                           "an online run is one unperturbed iteration");
  }
  const core::Routed ra(planned, plan.system, plan.choice, plan.routes);
  const core::Routed rb(actual, plan.system, plan.choice, plan.routes);
  const core::Workload& a = ra.workload();
  const core::Workload& b = rb.workload();
  sim::check_same_structure(a, b);
  schedule::ValidationOptions routed;
  routed.routed = true;
  schedule::check_schedule(a, plan, routed);

  OnlineRun out = Online(a, b, plan, options, sim_options.stop).run();
  out.schedule.scheduler = plan.scheduler;
  out.schedule.choice = plan.choice;
  out.schedule.routes = plan.routes;
  out.schedule.status = schedule::SolveStatus::kFeasible;
  double wall = 0;
  for (const Decision& d : out.decisions) wall += d.wall_s;
  out.schedule.solve_time_s = wall;
  try {
    schedule::check_schedule(b, out.schedule, routed);
  } catch (const schedule::ScheduleError& e) {
    throw std::logic_error(std::string("online: the online schedule is not valid (a bug): ") +
                           e.what());
  }
  out.replay = sim::simulate(actual, out.schedule, sim_options);
  return out;
}

}  // namespace flux::runtime
