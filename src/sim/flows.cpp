// Data movement and rate allocation (the model is at the top of engine.hpp).
//
// Allocation on a flow a -> b, whose circuit is up on the switches `up`
// (one link each), in priority order:
//   1. VLB: relayed chunks stored at a for b at the start of the slot take
//      every link (they are fully in memory);
//   2. direct sends in issue order. Task-level schedules: a send uses only
//      the link of its assigned switch. Otherwise a send with data waiting in
//      the NIC takes every remaining link; a send whose NIC buffer is empty
//      streams at its ingestion rate: one link;
//   3. VLB: first-hop offers (RotorLB's spare capacity) take what is left.
// All-connected (ideal): every direct send streams on its own link.
#include <algorithm>
#include <cassert>

#include "engine.hpp"

namespace flux::sim::detail {
namespace {

TimePs ceil_div(Units x, std::int64_t r) {
  return (x + r - 1) / r;
}

}  // namespace

Units Engine::ingested(const LiveSend& s, TimePs t) {
  return std::min<Units>(s.work, t - s.issue);
}

int Engine::out_rate(const LiveSend& s) const {
  int r = s.rate;
  for (std::uint32_t o : s.offers) r += offers_[o].rate;
  return r;
}

void Engine::nic_at(std::uint32_t x, TimePs t) {
  Nic& n = nics_[x];
  n.value += n.slope * (t - n.t);
  n.t = t;
}

void Engine::nic_add(std::uint32_t x, TimePs t, Units delta) {
  nic_at(x, t);
  Nic& n = nics_[x];
  n.value += delta;
  n.peak = std::max(n.peak, n.value + n.packets);
}

void Engine::nic_rate(std::uint32_t x, TimePs t, std::int64_t delta_slope, Units delta_packets) {
  nic_at(x, t);
  Nic& n = nics_[x];
  n.peak = std::max(n.peak, n.value + n.packets);
  n.slope += delta_slope;
  n.packets += delta_packets;
  n.peak = std::max(n.peak, n.value + n.packets);
}

void Engine::advance_send(LiveSend& s, TimePs t) {
  if (s.finished || t <= s.t_upd) return;
  const std::uint32_t v = s.send;
  const TimePs dt = t - s.t_upd;
  const Units want = static_cast<Units>(out_rate(s)) * dt;
  const Units moved = std::min(want, ingested(s, t) - s.departed);
  const std::uint32_t src = s.src;
  nic_add(src, t, want - moved);  // the slope assumed `want` left
  s.departed += moved;
  busy_units_ += moved;
  const Units direct = std::min(static_cast<Units>(s.rate) * dt, moved);
  s.delivered += direct;
  Units left = moved - direct;
  for (std::uint32_t oi : s.offers) {
    Offer& o = offers_[oi];
    const Units planned = static_cast<Units>(o.rate) * dt;
    const Units x = std::min({planned, o.remaining, left});
    left -= x;
    o.remaining -= x;
    nic_add(flows_[o.flow].dst, t, x - planned);  // the slope assumed `planned` arrived
    if (x > 0) {
      hop1_units_ += x;
      Flow& relay = flows_[o.relay];
      relay.stored += x;
      relay.promised -= x;
      if (!relay.relay_pending.empty() && relay.relay_pending.back().send == v) {
        relay.relay_pending.back().units += x;
      } else {
        relay.relay_pending.push_back(Chunk{v, x});
      }
    }
  }
  s.t_upd = t;
}

void Engine::advance_relay(std::uint32_t f, TimePs t) {
  Flow& fl = flows_[f];
  const TimePs dt = t - fl.relay_upd;
  fl.relay_upd = t;
  if (fl.relay_rate == 0 || dt <= 0) return;
  Units budget = static_cast<Units>(fl.relay_rate) * dt;
  const Units planned = budget;
  Units consumed = 0;
  const TimePs from = t - dt;
  while (budget > 0 && !fl.relay.empty()) {
    Chunk& c = fl.relay.front();
    const Units take = std::min(c.units, budget);
    c.units -= take;
    budget -= take;
    consumed += take;
    const std::uint32_t v = c.send;
    LiveSend& s = live(v);
    s.delivered += take;
    if (c.units == 0) fl.relay.pop_front();
    if (s.delivered == s.work && !s.finished) {
      const TimePs tf = from + ceil_div(consumed, fl.relay_rate);
      assert(tf <= t);
      finish(v, tf);
    }
  }
  fl.stored -= consumed;
  hop2_units_ += consumed;
  busy_units_ += consumed;
  nic_add(fl.src, t, planned - consumed);
}

void Engine::advance_flow(std::uint32_t f, TimePs t) {
  advance_relay(f, t);
  // A send that moves nothing needs no update until its rate changes
  // (set_send_rate advances it first).
  for (std::uint32_t v : flows_[f].sends) {
    if (finished(v)) continue;
    LiveSend& s = live(v);
    if (out_rate(s) > 0) advance_send(s, t);
  }
  for (std::uint32_t o : flows_[f].offers) advance_send(live(offers_[o].send), t);
}

void Engine::set_send_rate(LiveSend& s, int rate, TimePs t) {
  if (rate == s.rate) return;
  advance_send(s, t);
  nic_rate(s.src, t, s.rate - rate, 0);
  s.rate = rate;
  update_packet(s, t);
  if (!s.finished) schedule_send_wake(s, t);
}

void Engine::update_packet(LiveSend& s, TimePs t) {
  // Ingestion ends at issue + W (its wake may come later at the same time).
  const bool ingesting = s.ingesting && t < s.issue + s.work;
  const Units packet = s.rate > 0 && ingesting ? std::min(mtu_units_, s.work - s.departed) : 0;
  if (packet == s.packet) return;
  nic_rate(s.src, t, 0, packet - s.packet);
  s.packet = packet;
}

void Engine::set_offer_rate(std::uint32_t oi, int rate, TimePs t) {
  Offer& o = offers_[oi];
  if (rate == o.rate) return;
  LiveSend& s = live(o.send);
  advance_send(s, t);
  nic_rate(s.src, t, o.rate - rate, 0);
  nic_rate(flows_[o.flow].dst, t, rate - o.rate, 0);
  o.rate = rate;
  schedule_send_wake(s, t);
}

void Engine::set_relay_rate(std::uint32_t f, int rate, TimePs t) {
  Flow& fl = flows_[f];
  if (rate == fl.relay_rate) return;
  nic_rate(fl.src, t, fl.relay_rate - rate, 0);
  fl.relay_rate = rate;
}

void Engine::reallocate(std::uint32_t f, TimePs t) {
  advance_flow(f, t);
  Flow& fl = flows_[f];
  // Sends that delivered everything finish now; the rest keep their order.
  std::size_t keep = 0;
  for (std::uint32_t v : fl.sends) {
    if (finished(v)) continue;
    LiveSend& s = live(v);
    if (s.delivered == s.work) finish(v, t);
    if (!s.finished && s.departed < s.work) {
      fl.sends[keep++] = v;
    } else if (!s.finished) {
      set_send_rate(s, 0, t);  // all bytes left; relayed ones still travel
    }
  }
  fl.sends.resize(keep);

  const bool unlimited = all_connected_;
  int free = static_cast<int>(fl.up.size());
  std::vector<std::uint32_t>& free_links = scratch_links_;
  if (task_level_) free_links.assign(fl.up.begin(), fl.up.end());

  set_relay_rate(f, fl.relay.empty() ? 0 : free, t);
  if (!fl.relay.empty()) free = 0;

  for (std::uint32_t v : fl.sends) {
    LiveSend& s = live(v);
    int r = 0;
    if (unlimited) {
      r = 1;
    } else if (task_level_) {
      auto it = std::find(free_links.begin(), free_links.end(), s.sw);
      if (it != free_links.end()) {
        free_links.erase(it);
        r = 1;
      }
    } else if (ingested(s, t) > s.departed) {
      r = free;
      free = 0;
    } else if (s.ingesting && t < s.issue + s.work) {
      r = std::min(1, free);
      free -= r;
    }
    set_send_rate(s, r, t);
  }

  keep = 0;
  for (std::uint32_t oi : fl.offers) {
    Offer& o = offers_[oi];
    LiveSend& s = live(o.send);  // an offer keeps its send's slot
    const bool can = o.remaining > 0 && !s.finished && ingested(s, t) > s.departed;
    set_offer_rate(oi, can ? free : 0, t);
    if (can) free = 0;
    if (o.remaining > 0 && !s.finished && s.departed < s.work) {
      fl.offers[keep++] = oi;
    } else {
      std::erase(s.offers, oi);
      if (s.finished) done_.push_back(o.send);
      flows_[o.relay].promised -= o.remaining;
      o.live = false;
      free_offers_.push_back(oi);
    }
  }
  fl.offers.resize(keep);

  ++fl.version;
  TimePs next = -1;
  if (fl.relay_rate > 0) {
    next = core::add_time(t, ceil_div(fl.relay.front().units, fl.relay_rate), "simulated time");
  }
  for (std::uint32_t oi : fl.offers) {
    const Offer& o = offers_[oi];
    if (o.rate == 0) continue;
    const TimePs done = core::add_time(t, ceil_div(o.remaining, o.rate), "simulated time");
    if (next < 0 || done < next) next = done;
  }
  if (next >= 0) push(next, EventKind::kFlowWake, f, fl.version);
}

void Engine::make_offers(std::uint32_t f, Units slot_units, TimePs t) {
  const std::uint32_t a = flows_[f].src, b = flows_[f].dst;
  if (flows_[f].up.empty()) return;
  auto& active = nics_[a].active;
  std::size_t keep = 0;
  for (std::uint32_t v : active) {
    if (finished(v)) continue;
    active[keep++] = v;
  }
  active.resize(keep);
  for (std::uint32_t v : active) {
    const std::uint32_t sf = info_[v].flow;  // (not live(v).flow: most sends stop here)
    const std::uint32_t c = flows_[sf].dst;
    // A relay forwards over a circuit only: never to a peer of its domain.
    if (c == b || !flows_[sf].up.empty() ||
        s_.system.fabric(core::Rank(b), core::Rank(c)) == core::Fabric::kScaleUp) {
      continue;
    }
    LiveSend& s = live(v);
    advance_send(s, t);
    Units spare = ingested(s, t) - s.departed;
    for (std::uint32_t oi : s.offers) spare -= offers_[oi].remaining;
    if (spare <= 0) continue;
    const std::uint32_t rf = flow_of(b, c);
    if (rf == kNone) continue;
    Flow& relay = flows_[rf];
    const Units accept = slot_units - relay.stored - relay.promised;
    if (accept <= 0) continue;
    const Units x = std::min(spare, accept);
    std::uint32_t oi;
    if (free_offers_.empty()) {
      oi = static_cast<std::uint32_t>(offers_.size());
      offers_.emplace_back();
    } else {
      oi = free_offers_.back();
      free_offers_.pop_back();
    }
    offers_[oi] = Offer{v, f, rf, x, 0, true};
    relay.promised += x;
    s.offers.push_back(oi);
    flows_[f].offers.push_back(oi);
  }
  touch(f);
  reallocate_touched(t);
}

void Engine::drop_offers(std::uint32_t f, TimePs t) {
  Flow& fl = flows_[f];
  for (std::uint32_t oi : fl.offers) {
    Offer& o = offers_[oi];
    LiveSend& s = live(o.send);
    advance_send(s, t);
    set_offer_rate(oi, 0, t);
    std::erase(s.offers, oi);
    if (s.finished) done_.push_back(o.send);
    flows_[o.relay].promised -= o.remaining;
    o.live = false;
    free_offers_.push_back(oi);
    schedule_send_wake(s, t);
  }
  fl.offers.clear();
}

}  // namespace flux::sim::detail
