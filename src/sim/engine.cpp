// The simulator's event loop, send life cycle and circuit events (the model
// is at the top of engine.hpp and in docs/model.md, "Simulator").
//
// Events at one time are processed in the order circuit down, circuit up,
// flow wake, send wake, ready; then by id. Every handler first advances the
// state it touches to the event's time, so this order only fixes which
// deterministic sequence of equal-time changes is taken, not the result of a
// valid schedule.
#include "engine.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <sstream>
#include <utility>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"

namespace flux::sim::detail {
namespace {

// What a simulation that runs past core::kMaxTimePs reports.
constexpr std::string_view kSimTime = "simulated time";

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(a) << 32) | b;
}

}  // namespace

Engine::Engine(const SendSource& source, const schedule::Schedule& s, const SimOptions& options)
    : src_(source),
      material_(source.material()),
      s_(s),
      options_(options),
      task_level_(!s.tasks.empty()),
      all_connected_(s.circuit_model == schedule::CircuitModel::kAllConnected),
      vlb_(s.routing == schedule::Routing::kVlb),
      mtu_units_(s.system.transmission_ps(options.mtu_bytes)) {
  const std::size_t n = source.num_tasks();
  // Range-checked; a lazy source's times are computed at each send's issue.
  if (material_ != nullptr) {
    work_ = core::transmission_times(*material_, s.system);
  } else {
    source.check_transmission_times(s.system);
  }
  ready_.resize(n);
  if (options.keep_records) records_.assign(n, SendRecord{0, -1, -1});
  info_.resize(n);
  flags_.assign(n, 0);
  nics_.resize(source.accelerators());
  auto make_flow = [&](std::uint32_t a, std::uint32_t b) {
    auto [it, added] = flow_index_.try_emplace(pair_key(a, b), flows_.size());
    if (added) {
      Flow f;
      f.src = a;
      f.dst = b;
      flows_.push_back(std::move(f));
    }
    return it->second;
  };
  for (std::size_t v = 0; v < n; ++v) {
    const core::Task t = source.task(static_cast<std::uint32_t>(v));
    SendInfo& st = info_[v];
    ready_[v] = t.release_ps;
    st.pending = source.in_degree(static_cast<std::uint32_t>(v));
    const core::Fabric f = s.system.fabric(t.src, t.dst);
    if (f != core::Fabric::kOcs) flags_[v] |= kElectrical;
    if (f == core::Fabric::kPacket) flags_[v] |= kOnPacket;
    // All-connected (ideal): no circuits, so no flows (a send's source NIC
    // is its LiveSend::src).
    if (f == core::Fabric::kOcs && !all_connected_) {
      st.flow = make_flow(t.src.value(), t.dst.value());
    }
  }
  if (s.system.has_scaleup() || s.system.has_packet()) {
    scaleup_size_ = s.system.scaleup_size;
    egress_busy_.assign(2 * std::size_t{source.accelerators()}, 0);
    ingress_busy_.assign(2 * std::size_t{source.accelerators()}, 0);
    packet_queue_ = source.accelerators() / scaleup_size_;
    scaleup_queue_.resize(packet_queue_ + 1);
    scaleup_dirty_mark_.assign(scaleup_queue_.size(), 0);
  }
  const std::size_t traffic_flows = flows_.size();
  std::vector<std::uint8_t> covered(traffic_flows, 0);
  cursors_.resize(s.timelines.size());
  for (std::size_t sw = 0; sw < s.timelines.size(); ++sw) {
    const auto& circuits = s.timelines[sw].circuits;
    auto& order = cursors_[sw].order;
    order.resize(circuits.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
      return circuits[x].up_ps < circuits[y].up_ps;
    });
    for (const auto& c : circuits) {
      const std::uint32_t a = c.a.value(), b = c.b.value();
      if (vlb_) {
        make_flow(a, b);
        make_flow(b, a);
      }
      for (std::uint64_t key : {pair_key(a, b), pair_key(b, a)}) {
        auto it = flow_index_.find(key);
        if (it != flow_index_.end() && it->second < traffic_flows) covered[it->second] = 1;
      }
    }
  }
  if (!all_connected_) {
    for (std::size_t v = 0; v < n; ++v) {
      if (electrical(static_cast<std::uint32_t>(v)) || covered[info_[v].flow]) continue;
      const core::Task t = source.task(static_cast<std::uint32_t>(v));
      std::ostringstream m;
      m << "schedule '" << s.scheduler << "' never connects accelerators " << t.src.value()
        << " and " << t.dst.value() << ": send id " << t.id << " cannot be delivered";
      throw core::Error(m.str());
    }
  }
  if (task_level_) {
    assignment_.assign(n, kNone);
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      const auto v = source.find(s.tasks[i].task_id);
      if (!v) {
        throw core::InputError("", "tasks.id", std::to_string(s.tasks[i].task_id),
                               "the schedule names a task the workload lacks");
      }
      assignment_[v->value()] = static_cast<std::uint32_t>(i);
    }
  }
  for (std::size_t sw = 0; sw < s.timelines.size(); ++sw) {
    for (const auto& c : s.timelines[sw].circuits) {
      cursors_[sw].flows.emplace_back(flow_of(c.a.value(), c.b.value()),
                                      flow_of(c.b.value(), c.a.value()));
    }
  }
  const std::uint32_t nacc = source.accelerators();
  if (vlb_ && nacc <= kDenseFlows) {
    dense_flows_.assign(static_cast<std::size_t>(nacc) * nacc, kNone);
    for (const auto& [key, f] : flow_index_) {
      dense_flows_[(key >> 32) * nacc + (key & 0xffffffffu)] = f;
    }
  }
  touched_mark_.assign(flows_.size(), 0);
  if (!vlb_ && !all_connected_) build_calendars();
}

std::uint32_t Engine::sw_of(std::uint32_t v) const {
  return s_.tasks[assignment_[v]].sw.value();
}

TimePs Engine::start_of(std::uint32_t v) const {
  return s_.tasks[assignment_[v]].start_ps;
}

LiveSend& Engine::make_live(std::uint32_t v, TimePs t) {
  const std::uint32_t slot = live_.acquire();
  info_[v].live = slot;
  if (!records_.empty()) records_[v].issue_ps = t;
  LiveSend& s = live_[slot];
  s.send = v;
  const core::Task task = material_ ? material_->task(core::TaskIndex(v)) : src_.task(v);
  // (checked in the constructor)
  s.work = material_ ? work_[v] : s_.system.transmission_ps(task.bytes, task.src, task.dst);
  s.src = task.src.value();
  s.dst = task.dst.value();
  s.bytes = task.bytes;
  s.tail = task.tail_ps;
  s.sw = task_level_ ? sw_of(v) : kNone;
  s.departed = 0;
  s.delivered = 0;
  s.t_upd = 0;
  s.issue = t;
  s.packet = 0;
  s.flow = info_[v].flow;
  s.version = 0;
  s.rate = 0;
  s.ingesting = false;
  s.finished = false;
  s.offers.clear();
  return s;
}

void Engine::release_done() {
  for (const std::uint32_t v : done_) {
    const std::uint32_t slot = info_[v].live;
    if (slot == kNone || !live_[slot].finished || !live_[slot].offers.empty()) continue;
    info_[v].live = kNone;
    live_.release(slot);
  }
  done_.clear();
}

std::uint32_t Engine::flow_of(std::uint32_t a, std::uint32_t b) const {
  if (!dense_flows_.empty())
    return dense_flows_[static_cast<std::size_t>(a) * src_.accelerators() + b];
  auto it = flow_index_.find(pair_key(a, b));
  return it == flow_index_.end() ? kNone : it->second;
}

TimePs Engine::shifted(TimePs t, std::uint32_t cycle) const {
  if (!s_.period_ps || cycle == 0) return t;
  TimePs shift = 0;
  if (__builtin_mul_overflow(static_cast<TimePs>(cycle), *s_.period_ps, &shift) ||
      shift > core::kMaxTimePs) {
    core::throw_sum_range(kSimTime, t, core::kMaxTimePs);
  }
  return core::add_time(t, shift, kSimTime);
}

void Engine::push(TimePs t, EventKind kind, std::uint32_t id, std::uint32_t aux,
                  std::uint32_t cycle) {
  assert(t >= now_);
  queue_.push(Event(t, kind, id, aux, cycle));
}

void Engine::touch(std::uint32_t f) {
  if (touched_mark_[f]) return;
  touched_mark_[f] = 1;
  touched_.push_back(f);
}

void Engine::reallocate_touched(TimePs t) {
  // Reallocation may touch more flows (a finish issues nothing at once, but
  // dropping offers does): loop until none is left.
  for (std::size_t i = 0; i < touched_.size(); ++i) {
    const std::uint32_t f = touched_[i];
    touched_mark_[f] = 0;
    reallocate(f, t);
  }
  touched_.clear();
}

void Engine::run() {
  const std::size_t n = info_.size();
  now_ = std::numeric_limits<TimePs>::min();
  for (std::size_t v = 0; v < n; ++v) {
    if (info_[v].pending == 0) {
      queue_.push(Event(ready_[v], EventKind::kReady, static_cast<std::uint32_t>(v), 0, 0));
    }
  }
  if (!all_connected_) {
    if (!calendars_) {
      for (std::uint32_t sw = 0; sw < cursors_.size(); ++sw) push_next_up(sw);
    }
  }
  while (finished_ < n) {
    // The instant is over when the next event is later (checked here, since
    // stale events end their iteration early): the scale-up queues start
    // what their free ports allow, which may add events at this instant.
    if (!scaleup_dirty_.empty() && (queue_.empty() || queue_.top().t > now_)) {
      start_queued_scaleup(now_);
    }
    if (queue_.empty()) stuck(now_);
    const Event e = queue_.top();
    queue_.pop();
    if (options_.cut_ps && !cut_taken_ && e.t > *options_.cut_ps) take_cut(*options_.cut_ps);
    if (e.t > options_.max_time_ps) {
      std::ostringstream m;
      // The simulation goes on (the next event is known): the limit stopped it.
      m << "the iteration has not finished within the simulated-time limit max_time (--max-time "
        << core::format_duration(options_.max_time_ps) << "): " << (n - finished_) << " of " << n
        << " sends unfinished, the next event at " << core::format_duration(e.t)
        << "; raise the limit";
      throw core::Error(m.str());
    }
    now_ = e.t;
    const std::uint32_t id = e.id();
    switch (e.kind()) {
      case EventKind::kSendWake:
        if (finished(id) || e.aux() != (live(id).version & Event::kAuxMask)) continue;
        if (electrical(id)) {
          finish_scaleup(id, e.t);
        } else {
          on_send_wake(id, e.t);
        }
        break;
      case EventKind::kFlowWake:
        if (e.aux() != (flows_[id].version & Event::kAuxMask)) continue;
        touch(id);
        break;
      case EventKind::kReady:
        on_ready(id, e.t);
        break;
      case EventKind::kCircuitUp:
        on_circuit_up(id, e.t);
        break;
      case EventKind::kCircuitDown:
        on_circuit_down(id, e.aux(), e.t);
        break;
      case EventKind::kLinkUp:
        on_link_up(id, e.aux(), e.cycle, e.t);
        break;
      case EventKind::kLinkDown:
        on_link_down(id, e.aux(), e.cycle, e.t);
        break;
    }
    ++events_;
    reallocate_touched(e.t);
    release_done();
    if (events_ % kStopCheckEvents == 0 && options_.stop != nullptr &&
        options_.stop->load(std::memory_order_relaxed)) {
      throw core::Stopped();
    }
  }
  if (options_.cut_ps && !cut_taken_) take_cut(now_);
}

void Engine::take_cut(TimePs cut) {
  cut_taken_ = true;
  cut_events_ = events_;
  cut_peaks_.reserve(nics_.size());
  for (const Nic& n : nics_) {
    cut_peaks_.push_back(std::max(n.peak, n.value + n.slope * (cut - n.t) + n.packets));
  }
}

void Engine::on_ready(std::uint32_t v, TimePs t) {
  const SendInfo& s = info_[v];
  std::uint8_t& flags = flags_[v];
  // ready_[v] already holds t: its ready event came at it.
  assert((flags & kReadied) || ready_[v] == t);
  if (!(flags & kReadied) && !records_.empty()) records_[v].ready_ps = t;
  flags |= kReadied;
  if (task_level_ && t < start_of(v)) {  // the host holds the data until the scheduled start
    push(start_of(v), EventKind::kReady, v);
    return;
  }
  if (flags & kElectrical) {
    release_scaleup(v, t);
    return;
  }
  if (!task_level_) {
    issue(v, t);
    return;
  }
  // Issued now if its circuit is up on its switch, else when it comes up.
  Flow& f = flows_[s.flow];
  f.waiting.push_back(v);
  if (calendars_) ensure_calendar(s.flow, t);  // may issue it at once
  if (info_[v].live == kNone && std::binary_search(f.up.begin(), f.up.end(), sw_of(v))) {
    std::erase(f.waiting, v);
    issue(v, t);
  }
}

void Engine::issue(std::uint32_t v, TimePs t) {
  LiveSend& s = make_live(v, t);
  s.t_upd = t;
  s.ingesting = true;
  const std::uint32_t src = s.src;
  nic_rate(src, t, +1, 0);
  if (all_connected_) {  // its own link at once: it streams from its issue
    set_send_rate(s, 1, t);
    return;
  }
  flows_[s.flow].sends.push_back(v);
  if (calendars_) ensure_calendar(s.flow, t);
  if (vlb_) nics_[src].active.push_back(v);
  touch(s.flow);
  schedule_send_wake(s, t);
}

void Engine::schedule_send_wake(LiveSend& s, TimePs t) {
  ++s.version;
  if (s.finished) return;
  assert(s.t_upd == t);
  TimePs next = std::numeric_limits<TimePs>::max();
  const int r = out_rate(s);
  const Units buffered = ingested(s, t) - s.departed;
  if (s.ingesting) {
    next = core::add_time(s.issue, s.work, kSimTime);
    if (r > 1 && buffered > 0) {
      next = std::min(next, core::add_time(t, (buffered + r - 2) / (r - 1), kSimTime));
    }
  } else if (r > 0) {
    next = core::add_time(t, (s.work - s.departed + r - 1) / r, kSimTime);
  }
  if (next != std::numeric_limits<TimePs>::max()) {
    push(next, EventKind::kSendWake, s.send, s.version);
  }
}

void Engine::on_send_wake(std::uint32_t v, TimePs t) {
  LiveSend& s = live(v);
  advance_send(s, t);
  const std::uint32_t src = s.src;
  if (s.ingesting && t >= s.issue + s.work) {
    s.ingesting = false;
    nic_rate(src, t, -1, 0);
    update_packet(s, t);
  }
  if (s.delivered == s.work) finish(v, t);
  if (all_connected_) return;
  touch(s.flow);
  for (std::uint32_t o : s.offers) touch(offers_[o].flow);
  if (!s.finished) schedule_send_wake(s, t);
}

void Engine::finish(std::uint32_t v, TimePs t) {
  LiveSend& s = live(v);
  assert(!s.finished && s.delivered == s.work);
  set_send_rate(s, 0, t);
  if (s.ingesting) {
    s.ingesting = false;
    nic_rate(s.src, t, -1, 0);
  }
  update_packet(s, t);
  s.finished = true;
  flags_[v] |= kFinished;
  done_.push_back(v);
  if (!records_.empty()) records_[v].finish_ps = t;
  add_send(totals_, s, t);
  if (options_.cut_ps && t <= *options_.cut_ps) add_send(cut_totals_, s, t);
  ++s.version;
  ++finished_;
  if (material_ != nullptr) {  // its arrays, without a call per edge
    for (const core::Dep& d : material_->out_edges(core::TaskIndex(v))) {
      ready_child(d.to.value(), d.compute_ps, t);
    }
    return;
  }
  std::pair<Engine*, TimePs> finished{this, t};  // on_child's context
  src_.children(v, &Engine::on_child, &finished);
}

void Engine::on_child(void* ctx, std::uint32_t c, TimePs compute) {
  const auto& f = *static_cast<const std::pair<Engine*, TimePs>*>(ctx);
  f.first->ready_child(c, compute, f.second);
}

void Engine::ready_child(std::uint32_t c, TimePs compute, TimePs t) {
  TimePs& ready_at = ready_[c];
  ready_at = std::max(ready_at, core::add_time(t, compute, kSimTime));
  if (--info_[c].pending == 0) push(std::max(ready_at, t), EventKind::kReady, c);
}

void Engine::add_send(Metrics& m, const LiveSend& s, TimePs finish) const {
  const std::uint32_t v = s.send;
  m.iteration_time_ps = std::max(m.iteration_time_ps, finish + s.tail);
  const TimePs wait = finish - ready_[v] - s.work;  // it sent and delivered every byte
  m.wait_total_ps += wait;
  m.wait_max_ps = std::max(m.wait_max_ps, wait);
  m.bytes_sent += s.bytes;
  m.bytes_delivered += s.bytes;
  if (flags_[v] & kOnPacket) {
    ++m.packet_sends;
    m.packet_bytes += s.bytes;
  } else if (flags_[v] & kElectrical) {
    ++m.scaleup_sends;
    m.scaleup_bytes += s.bytes;
    m.scaleup_wait_total_ps += wait;
    m.scaleup_wait_max_ps = std::max(m.scaleup_wait_max_ps, wait);
  }
}

void Engine::release_scaleup(std::uint32_t v, TimePs t) {
  if (all_connected_) {  // ideal: no port contention
    start_scaleup(v, t);
    return;
  }
  const core::Task task = src_.task(v);
  const std::uint32_t d = queue_of(v, task.src.value());
  auto& q = scaleup_queue_[d];
  const auto [egress, ingress] = electrical_ports(v, task.src.value(), task.dst.value());
  const Queued key{t, v, egress, ingress};
  q.insert(std::upper_bound(q.begin(), q.end(), key), key);
  mark_dirty(d);
}

std::uint32_t Engine::queue_of(std::uint32_t v, std::uint32_t src) const {
  return (flags_[v] & kOnPacket) ? packet_queue_ : src / scaleup_size_;
}

std::pair<std::uint32_t, std::uint32_t> Engine::electrical_ports(std::uint32_t v, std::uint32_t src,
                                                                 std::uint32_t dst) const {
  const std::uint32_t base = (flags_[v] & kOnPacket) ? src_.accelerators() : 0;
  return {base + src, base + dst};
}

void Engine::mark_dirty(std::uint32_t d) {
  if (!scaleup_dirty_mark_[d]) {
    scaleup_dirty_mark_[d] = 1;
    scaleup_dirty_.push_back(d);
  }
}

void Engine::start_scaleup(std::uint32_t v, TimePs t) {
  const LiveSend& s = make_live(v, t);
  if (!all_connected_) {
    const auto [egress, ingress] = electrical_ports(v, s.src, s.dst);
    egress_busy_[egress] = 1;
    ingress_busy_[ingress] = 1;
  }
  push(core::add_time(t, s.work, kSimTime), EventKind::kSendWake, v, s.version);
}

void Engine::start_queued_scaleup(TimePs t) {
  std::sort(scaleup_dirty_.begin(), scaleup_dirty_.end());
  for (const std::uint32_t d : scaleup_dirty_) {
    scaleup_dirty_mark_[d] = 0;
    auto& q = scaleup_queue_[d];
    std::size_t keep = 0;
    for (const Queued& x : q) {
      if (egress_busy_[x.egress] || ingress_busy_[x.ingress]) {
        q[keep++] = x;
      } else {
        start_scaleup(x.v, t);
      }
    }
    q.resize(keep);
  }
  scaleup_dirty_.clear();
}

void Engine::finish_scaleup(std::uint32_t v, TimePs t) {
  LiveSend& s = live(v);
  s.departed = s.work;
  s.delivered = s.work;
  finish(v, t);
  if (all_connected_) return;
  const auto [egress, ingress] = electrical_ports(v, s.src, s.dst);
  egress_busy_[egress] = 0;
  ingress_busy_[ingress] = 0;
  const std::uint32_t d = queue_of(v, s.src);
  if (!scaleup_queue_[d].empty()) mark_dirty(d);
}

void Engine::push_next_up(std::uint32_t sw) {
  SwitchCursor& c = cursors_[sw];
  if (c.next == c.order.size()) {
    if (!s_.period_ps || c.order.empty()) return;
    c.next = 0;
    ++c.cycle;
  }
  const auto& iv = s_.timelines[sw].circuits[c.order[c.next]];
  push(std::max(shifted(iv.up_ps, c.cycle), now_), EventKind::kCircuitUp, sw);
}

void Engine::on_circuit_up(std::uint32_t sw, TimePs t) {
  SwitchCursor& c = cursors_[sw];
  const auto& circuits = s_.timelines[sw].circuits;
  std::vector<std::pair<std::uint32_t, Units>> new_links;
  while (c.next < c.order.size() && shifted(circuits[c.order[c.next]].up_ps, c.cycle) <= t) {
    const std::uint32_t i = c.order[c.next++];
    const auto& iv = circuits[i];
    for (const std::uint32_t f : {c.flows[i].first, c.flows[i].second}) {
      if (f == kNone) continue;
      advance_flow(f, t);
      Flow& fl = flows_[f];
      fl.up.insert(std::upper_bound(fl.up.begin(), fl.up.end(), sw), sw);
      if (vlb_) {
        // Stored traffic at slot start becomes sendable in this slot.
        for (const Chunk& ch : fl.relay_pending) fl.relay.push_back(ch);
        fl.relay_pending.clear();
        new_links.emplace_back(f, iv.down_ps - iv.up_ps);
      }
      touch(f);  // (task-level schedules use calendars: no waiting sends here)
    }
    push(shifted(iv.down_ps, c.cycle), EventKind::kCircuitDown, sw, i);
  }
  pending_links_.insert(pending_links_.end(), new_links.begin(), new_links.end());
  push_next_up(sw);
  // RotorLB decides its offers once every switch has reconfigured: when the
  // next event is not another circuit coming up now.
  if (vlb_ &&
      (queue_.empty() || queue_.top().t != t || queue_.top().kind() != EventKind::kCircuitUp)) {
    reallocate_touched(t);
    for (auto [f, slot_units] : pending_links_) make_offers(f, slot_units, t);
    pending_links_.clear();
  }
}

void Engine::on_circuit_down(std::uint32_t sw, std::uint32_t interval, TimePs t) {
  const auto& fs = cursors_[sw].flows[interval];
  for (const std::uint32_t f : {fs.first, fs.second}) {
    if (f == kNone) continue;
    advance_flow(f, t);
    Flow& fl = flows_[f];
    auto it = std::lower_bound(fl.up.begin(), fl.up.end(), sw);
    if (it != fl.up.end() && *it == sw) fl.up.erase(it);
    if (vlb_ && fl.up.empty()) drop_offers(f, t);
    touch(f);
  }
}

void Engine::stuck(TimePs t) const {
  for (std::size_t v = 0; v < info_.size(); ++v) {
    if (finished(static_cast<std::uint32_t>(v)) || !(flags_[v] & kReadied)) continue;
    const core::Task task = src_.task(static_cast<std::uint32_t>(v));
    std::ostringstream m;
    m << "send id " << task.id << " (" << task.src.value() << " -> " << task.dst.value() << ", "
      << task.bytes << " bytes) is never delivered: no circuit of schedule '" << s_.scheduler
      << "' serves it after " << core::format_duration(std::max<TimePs>(t, 0));
    throw core::Error(m.str());
  }
  throw core::Error("the simulation stopped with unfinished sends (a bug)");
}

}  // namespace flux::sim::detail
