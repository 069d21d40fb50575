// Circuit timelines from a task-level schedule (docs/model.md, "Circuit
// timeline"):
//
//   a send v on switch s occupies circuit {src_v, dst_v} over [t_v, t_v + p_v);
//   v joins the open interval I of its circuit iff I carries (src_v, dst_v)
//   (full duplex: (src_v, dst_v) or (dst_v, src_v)) and the latest send on
//   both ports (on s) belongs to I; down_I = max end of I's sends;
//   else a new interval: setup = t_v - tau, up = t_v, down = t_v + p_v.
#include "flux/schedule/timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "flux/core/error.hpp"

namespace flux::schedule {
namespace {

constexpr std::int32_t kNoInterval = -1;

struct Send {
  core::TimePs start = 0;
  std::uint32_t task = 0;  // TaskIndex value
};

struct OpenInterval {
  CircuitInterval interval;
  core::Rank src;  // direction of its first send (half duplex: of all of them)
  core::Rank dst;
};

std::string assignment_field(std::size_t i, const char* name) {
  std::string field = "tasks[";
  field.append(std::to_string(i)).append("].").append(name);
  return field;
}

// Groups the sends of one switch (sorted by start) into circuit intervals.
std::vector<CircuitInterval> group_sends(const core::Workload& w, const core::System& system,
                                         std::span<const Send> sends) {
  const core::TimePs tau = system.reconfig_delay_ps;
  const bool full = system.duplex == core::Duplex::kFull;
  std::vector<OpenInterval> open;
  std::vector<std::int32_t> last_on_port(w.accelerators(), kNoInterval);
  for (const Send& s : sends) {
    const core::Task& t = w.task(core::TaskIndex(s.task));
    const core::TimePs end =
        core::add_time(s.start, system.transmission_ps(t.bytes), "tasks.start_s");
    const std::int32_t cur = last_on_port[t.src.value()];
    if (cur != kNoInterval && last_on_port[t.dst.value()] == cur) {
      OpenInterval& o = open[static_cast<std::size_t>(cur)];
      // Both ports' latest send is in o, so o's circuit has ports src and
      // dst: {o.src, o.dst} == {src, dst}, in one direction or the other.
      if ((o.src == t.src && o.dst == t.dst) || full) {
        o.interval.down_ps = std::max(o.interval.down_ps, end);
        continue;
      }
    }
    OpenInterval o;
    o.interval.a = std::min(t.src, t.dst);
    o.interval.b = std::max(t.src, t.dst);
    o.interval.setup_ps = s.start - tau;
    o.interval.up_ps = s.start;
    o.interval.down_ps = end;
    o.src = t.src;
    o.dst = t.dst;
    const auto id = static_cast<std::int32_t>(open.size());
    open.push_back(o);
    last_on_port[t.src.value()] = id;
    last_on_port[t.dst.value()] = id;
  }
  std::vector<CircuitInterval> out;
  out.reserve(open.size());
  for (const OpenInterval& o : open) out.push_back(o.interval);
  // Stable: equal keys (only in invalid schedules) keep processing order.
  std::stable_sort(out.begin(), out.end(), [](const CircuitInterval& x, const CircuitInterval& y) {
    return std::tie(x.up_ps, x.a, x.b) < std::tie(y.up_ps, y.a, y.b);
  });
  return out;
}

}  // namespace

std::vector<SwitchTimeline> build_timelines(const core::Workload& w, const core::System& system,
                                            std::span<const TaskAssignment> tasks) {
  std::vector<std::vector<Send>> per_switch(system.switches);
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const TaskAssignment& a = tasks[i];
    const auto v = w.find(a.task_id);
    if (!v) {
      throw core::InputError("", assignment_field(i, "id"), std::to_string(a.task_id),
                             "no such task in the workload");
    }
    if (core::is_electrical(a.sw)) continue;  // the scale-up and packet fabrics have no circuits
    if (!a.sw.valid() || a.sw.value() >= system.switches) {
      std::string problem = "switch out of range (the system has ";
      problem.append(std::to_string(system.switches)).append(" switches)");
      throw core::InputError("", assignment_field(i, "switch"), std::to_string(a.sw.value()),
                             problem);
    }
    per_switch[a.sw.value()].push_back(Send{a.start_ps, v->value()});
  }
  std::vector<SwitchTimeline> out(system.switches);
  for (std::size_t s = 0; s < per_switch.size(); ++s) {
    std::vector<Send>& sends = per_switch[s];
    std::sort(sends.begin(), sends.end(), [](const Send& x, const Send& y) {
      return std::tie(x.start, x.task) < std::tie(y.start, y.task);
    });
    out[s].circuits = group_sends(w, system, sends);
  }
  return out;
}

std::vector<TimelineState> timeline_states(const SwitchTimeline& timeline) {
  // Events (time, kind, interval): at one time all additions are applied
  // before all removals, so zero-length phases (tau == 0, or an interval with
  // up == down) leave no trace.
  enum Kind : std::uint8_t { kSetupStarts, kCircuitUp, kSetupEnds, kCircuitDown };
  struct Event {
    core::TimePs at;
    Kind kind;
    std::size_t interval;
  };
  const auto& intervals = timeline.circuits;
  std::vector<Event> events;
  events.reserve(4 * intervals.size());
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const CircuitInterval& c = intervals[i];
    events.push_back({c.setup_ps, kSetupStarts, i});
    events.push_back({c.up_ps, kCircuitUp, i});
    events.push_back({c.up_ps, kSetupEnds, i});
    events.push_back({c.down_ps, kCircuitDown, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
    return std::tie(x.at, x.kind, x.interval) < std::tie(y.at, y.kind, y.interval);
  });

  std::multiset<Circuit> up;
  std::multiset<Circuit> reconfiguring;
  const auto remove_one = [](std::multiset<Circuit>& set, const Circuit& c) {
    const auto it = set.find(c);
    if (it != set.end()) set.erase(it);  // absent only in an invalid timeline
  };
  const auto snapshot = [](const std::multiset<Circuit>& set) {
    std::vector<Circuit> v(set.begin(), set.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };

  std::vector<TimelineState> states;
  std::size_t i = 0;
  while (i < events.size()) {
    const core::TimePs at = events[i].at;
    for (; i < events.size() && events[i].at == at; ++i) {
      const CircuitInterval& c = intervals[events[i].interval];
      const Circuit circuit{c.a, c.b};
      switch (events[i].kind) {
        case kSetupStarts:
          reconfiguring.insert(circuit);
          break;
        case kCircuitUp:
          up.insert(circuit);
          break;
        case kSetupEnds:
          remove_one(reconfiguring, circuit);
          break;
        case kCircuitDown:
          remove_one(up, circuit);
          break;
      }
    }
    TimelineState state{at, snapshot(up), snapshot(reconfiguring)};
    // Before the first event the switch is empty: an empty state at the
    // start is no change either.
    const bool unchanged = states.empty() ? state.up.empty() && state.reconfiguring.empty()
                                          : states.back().up == state.up &&
                                                states.back().reconfiguring == state.reconfiguring;
    if (unchanged) continue;
    states.push_back(std::move(state));
  }
  return states;
}

}  // namespace flux::schedule
