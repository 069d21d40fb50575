// Per-flow circuit calendars (direct routing). Instead of replaying every
// circuit of every switch, each (flow, switch) keeps the sorted intervals of
// its circuit on that switch and gets events only while the flow has
// traffic: a flow without sends costs nothing, however often its circuit
// comes and goes (RotorNet on 1,024 GPUs brings up 1,024 circuits per slot,
// of which a handful carry data). Results are identical to replaying every
// circuit: a flow's allocation depends only on its own circuits.
//
// A calendar starts when its flow gets a send (ensure_calendar: the current
// interval, if up now, is joined at once; else its next up is scheduled) and
// stops at the first up or down event that finds the flow without traffic.
// While stopped it has no pending event, so restarting is a binary search.
#include <algorithm>

#include "engine.hpp"

namespace flux::sim::detail {

void Engine::build_calendars() {
  switches_ = static_cast<std::uint32_t>(s_.timelines.size());
  const std::size_t slots = flows_.size() * switches_;
  std::vector<std::uint32_t> count(slots + 1, 0);
  for (std::uint32_t sw = 0; sw < switches_; ++sw) {
    for (const auto& [f1, f2] : cursors_[sw].flows) {
      if (f1 != kNone) ++count[f1 * switches_ + sw];
      if (f2 != kNone) ++count[f2 * switches_ + sw];
    }
  }
  cal_offsets_.assign(slots + 1, 0);
  for (std::size_t i = 0; i < slots; ++i) cal_offsets_[i + 1] = cal_offsets_[i] + count[i];
  cal_entries_.resize(cal_offsets_[slots]);
  std::vector<std::uint32_t> fill(cal_offsets_.begin(), cal_offsets_.end() - 1);
  for (std::uint32_t sw = 0; sw < switches_; ++sw) {
    const auto& circuits = s_.timelines[sw].circuits;
    for (std::size_t i = 0; i < circuits.size(); ++i) {
      const auto [f1, f2] = cursors_[sw].flows[i];
      for (std::uint32_t f : {f1, f2}) {
        if (f == kNone) continue;
        cal_entries_[fill[f * switches_ + sw]++] = {circuits[i].up_ps, circuits[i].down_ps};
      }
    }
  }
  for (std::size_t i = 0; i < slots; ++i) {
    std::sort(cal_entries_.begin() + cal_offsets_[i], cal_entries_.begin() + cal_offsets_[i + 1],
              [](const CalendarEntry& a, const CalendarEntry& b) { return a.up < b.up; });
  }
  cal_state_.assign(slots, CalendarState{});
  calendars_ = true;
}

bool Engine::wants_circuits(std::uint32_t f) const {
  return !flows_[f].sends.empty() || !flows_[f].waiting.empty();
}

// Schedules the event of calendar `slot` for its entry `next` of `cycle`:
// its down if that interval is up at t (and joins it), else its up.
void Engine::schedule_link(std::uint32_t slot, TimePs t) {
  CalendarState& c = cal_state_[slot];
  const std::uint32_t begin = cal_offsets_[slot], size = cal_offsets_[slot + 1] - begin;
  if (c.next >= size) {
    if (!s_.period_ps || size == 0) {
      c.running = false;  // no circuit any more
      return;
    }
    c.next = 0;
    ++c.cycle;
  }
  const CalendarEntry& e = cal_entries_[begin + c.next];
  c.running = true;
  const TimePs up = shifted(e.up, c.cycle);
  if (up <= t) {
    on_link_up(slot, c.next, c.cycle, t);
  } else {
    push(up, EventKind::kLinkUp, slot, c.next, c.cycle);
  }
}

void Engine::ensure_calendar(std::uint32_t f, TimePs t) {
  for (std::uint32_t sw = 0; sw < switches_; ++sw) {
    const std::uint32_t slot = f * switches_ + sw;
    CalendarState& c = cal_state_[slot];
    if (c.running) continue;
    const std::uint32_t begin = cal_offsets_[slot], end = cal_offsets_[slot + 1];
    if (begin == end) continue;
    // The first interval whose down is after t (downs are sorted too: the
    // intervals of one circuit on one switch are disjoint).
    TimePs rel = t;
    c.cycle = 0;
    if (s_.period_ps && t > 0) {
      c.cycle = static_cast<std::uint32_t>(t / *s_.period_ps);
      rel = t - static_cast<TimePs>(c.cycle) * *s_.period_ps;
    }
    auto it = std::upper_bound(cal_entries_.begin() + begin, cal_entries_.begin() + end, rel,
                               [](TimePs x, const CalendarEntry& e) { return x < e.down; });
    c.next = static_cast<std::uint32_t>(it - (cal_entries_.begin() + begin));
    schedule_link(slot, t);
  }
}

void Engine::on_link_up(std::uint32_t slot, std::uint32_t entry, std::uint32_t cycle, TimePs t) {
  const std::uint32_t f = slot / switches_, sw = slot % switches_;
  CalendarState& c = cal_state_[slot];
  if (!wants_circuits(f)) {
    c.running = false;
    return;
  }
  advance_flow(f, t);
  Flow& fl = flows_[f];
  fl.up.insert(std::upper_bound(fl.up.begin(), fl.up.end(), sw), sw);
  push(shifted(cal_entries_[cal_offsets_[slot] + entry].down, cycle), EventKind::kLinkDown, slot,
       entry, cycle);
  if (task_level_ && !fl.waiting.empty()) {
    std::vector<std::uint32_t> still;
    for (std::uint32_t v : fl.waiting) {
      if (sw_of(v) == sw) {
        issue(v, t);
      } else {
        still.push_back(v);
      }
    }
    flows_[f].waiting.swap(still);
  }
  touch(f);
}

void Engine::on_link_down(std::uint32_t slot, std::uint32_t entry, std::uint32_t cycle, TimePs t) {
  const std::uint32_t f = slot / switches_, sw = slot % switches_;
  advance_flow(f, t);
  Flow& fl = flows_[f];
  auto it = std::lower_bound(fl.up.begin(), fl.up.end(), sw);
  if (it != fl.up.end() && *it == sw) fl.up.erase(it);
  touch(f);
  CalendarState& c = cal_state_[slot];
  c.next = entry + 1;
  c.cycle = cycle;
  if (wants_circuits(f)) {
    schedule_link(slot, t);
  } else {
    c.running = false;
  }
}

}  // namespace flux::sim::detail
