#pragma once
// Internal: the simulator's state and event loop (docs/model.md, "Simulator").
//
// Units. Time is integer ps. Data is counted in link-picoseconds ("units"):
// the work one link does in one ps. A send of b bytes is W = p(b) units, its
// transmission time on one link (10 units per byte at 800 Gb/s); a rate is an
// integer number of links. A transfer of x units at r links takes ceil(x / r)
// ps, so everything stays integer and the replay of a task-level schedule is
// exact to the ps.
//
// State. Each send has I(t) = min(W, t - issue) units ingested by its source
// NIC (ingestion at link rate from the issue), D units departed from it and
// `delivered` units at its destination. Directed pairs (src, dst) are
// *flows*; a flow knows which switches currently have the circuit
// {src, dst} up, its active direct sends in issue order, and, with VLB, the
// relayed chunks stored at src for dst and the first-hop offers it carries.
// Rates are piecewise constant between events; every rate change happens in
// Engine::reallocate(), which first advances everything the flow touches to
// the current time.
//
// NIC memory. Memory is held per packet: a packet occupies NIC memory from
// its first byte in until its last byte out. Per NIC, value(t) = sum of
// (ingested - departed) of its sends plus the relayed chunks it stores; it is
// piecewise linear with slope sum(ingest rates) - sum(departure rates) +
// sum(relay inflow), so its maximum is reached at a rate change, where it is
// checked. A send that transmits while its bytes still arrive also holds the
// packet on the wire: + min(MTU, its remaining units) (exact for streaming
// at link rate, where exactly one packet is in memory; an upper bound within
// one packet otherwise). Draining a buffer that no longer fills only frees
// memory, so it adds no packet term.
//
// Scale-up sends (both ends in one scale-up domain) never touch a flow, a
// circuit or a NIC: each is one whole interval [issue, issue + p_e) on its
// source's electrical egress and its destination's electrical ingress, with
// p_e its transmission time at the scale-up rate (Engine::work_ is p_e in
// ps, not link units). A send released by its host waits in its domain's
// queue, ordered by (release time, task index); at the end of every instant
// (once every event at that time is processed) each domain starts, in that
// order, every queued send whose two ports are free. Released: when ready,
// or for task-level schedules at max(ready, t_v). All-connected (ideal):
// no port contention, a send starts when ready.
#include <cassert>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "event_queue.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"
#include "source.hpp"

namespace flux::sim::detail {

using core::TimePs;
using Units = std::int64_t;

inline constexpr std::uint32_t kNone = 0xffffffffu;
inline constexpr std::uint32_t kDenseFlows = 2048;  // VLB looks flows up in an n x n table

// Per send, for the whole run (12 B; with its flags, its ready time and, of
// a materialised workload, its work, 29 B a send (21 B of a lazy one, whose
// work is computed at its issue), +4 B of assignment_ under a task-level
// plan, +24 B of SendRecord when the records are kept): what it waits for
// and where it goes. Its ready time holds max(release, parent finish +
// compute) so far until it is ready (the time its ready event comes at: its
// last parent's finish pushes it there).
struct SendInfo {
  std::uint32_t pending = 0;   // parents not finished
  std::uint32_t flow = kNone;  // its direct flow
  std::uint32_t live = kNone;  // its slot in Engine::live_ while it moves data, else kNone
};
// Engine::flags_, per send:
inline constexpr std::uint8_t kElectrical = 1;  // on the scale-up or packet fabric (no flow)
inline constexpr std::uint8_t kOnPacket = 2;    // on the packet fabric
inline constexpr std::uint8_t kReadied = 4;     // its ready event has come
inline constexpr std::uint8_t kFinished = 8;    // it has finished (records or not)

// What a send needs from its issue until it has finished and no VLB offer
// draws on it: a slot of a pool (Engine::live_), reused by later sends, so
// the memory is that of the sends in flight, not of every send.
struct LiveSend {
  Units work = 0;              // W (a copy of Engine::work_)
  Units departed = 0;          // D, valid at t_upd
  Units delivered = 0;         // at the destination
  TimePs t_upd = 0;            // departed/offers valid at this time
  TimePs issue = 0;            // (a copy of its record's issue_ps)
  Units packet = 0;            // packet term added to the source NIC
  std::uint32_t send = kNone;  // its task index
  std::uint32_t src = 0;       // its endpoints, bytes and tail (SendSource::task at issue)
  std::uint32_t dst = 0;
  std::uint64_t bytes = 0;
  TimePs tail = 0;
  std::uint32_t flow = kNone;  // (a copy of SendInfo::flow)
  std::uint32_t sw = kNone;    // task-level schedules: its switch (a copy of the plan's)
  std::uint32_t version = 0;   // of its wake event
  int rate = 0;                // direct departure rate, links
  bool ingesting = false;
  bool finished = false;              // (SendInfo's kFinished, set with it in finish())
  std::vector<std::uint32_t> offers;  // VLB: live offers drawing on this send
};

// The LiveSend slots: references stay valid while the pool grows (blocks of
// 1,024 slots), and a freed slot is reused by a later send.
class LivePool {
 public:
  LiveSend& operator[](std::uint32_t i) { return blocks_[i >> kShift][i & kMask]; }
  // A free slot (its contents are a former send's).
  std::uint32_t acquire() {
    if (!free_.empty()) {
      const std::uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    if ((size_ & kMask) == 0) blocks_.push_back(std::make_unique<LiveSend[]>(kMask + 1));
    return size_++;
  }
  void release(std::uint32_t i) {
#ifndef NDEBUG
    // Debug builds: a freed slot reads as nonsense, so that a stale read of
    // it (which would otherwise see its former send's values) shows.
    LiveSend& s = (*this)[i];
    s.send = kNone;
    s.work = s.departed = s.delivered = -1;
    s.version = 0xdeadbeefu;
#endif
    free_.push_back(i);
  }

 private:
  static constexpr unsigned kShift = 10;
  static constexpr std::uint32_t kMask = (1u << kShift) - 1;
  std::vector<std::unique_ptr<LiveSend[]>> blocks_;
  std::vector<std::uint32_t> free_;
  std::uint32_t size_ = 0;
};

struct Chunk {
  std::uint32_t send;
  Units units;
};

// A FIFO of chunks that allocates nothing until used: std::deque allocates
// on construction, and VLB keeps a flow for each of the n^2 pairs (at 1,024
// GPUs two deques per flow held 1.2 GB).
class ChunkQueue {
 public:
  [[nodiscard]] bool empty() const { return head_ == items_.size(); }
  Chunk& front() { return items_[head_]; }
  void push_back(const Chunk& c) { items_.push_back(c); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  std::vector<Chunk> items_;
  std::size_t head_ = 0;
};

// VLB first hop: up to `remaining` units of `send`'s buffered data move over
// flow `flow` (a -> b) into b's relay store for the send's destination.
struct Offer {
  std::uint32_t send = kNone;
  std::uint32_t flow = kNone;
  std::uint32_t relay = kNone;  // flow b -> dst holding the relayed bytes
  Units remaining = 0;
  int rate = 0;
  bool live = false;
};

struct Flow {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::vector<std::uint32_t> up;       // switches with the circuit up, sorted
  std::vector<std::uint32_t> sends;    // active direct sends, issue order
  std::vector<std::uint32_t> waiting;  // task-level: issued, circuit not up yet
  ChunkQueue relay;                    // VLB: stored at src for dst, sendable now
  std::vector<Chunk> relay_pending;    // VLB: arrived during the current slot
  int relay_rate = 0;
  TimePs relay_upd = 0;
  std::vector<std::uint32_t> offers;  // VLB: live offers on this flow
  Units stored = 0;                   // VLB: relay + relay_pending units
  Units promised = 0;                 // VLB: live offers' remaining units headed here
  std::uint32_t version = 0;          // of its wake event
};

struct Nic {
  Units value = 0;  // at time t
  TimePs t = 0;
  std::int64_t slope = 0;  // units per ps
  Units packets = 0;       // packets on the wire
  Units peak = 0;
  std::vector<std::uint32_t> active;  // VLB: issued, unfinished sends from here
};

// kCircuit*: a whole switch's circuits at one time (VLB, which looks at every
// link of a NIC); kLink*: one flow's circuit on one switch (direct routing,
// per-flow calendars: only flows with traffic get events).
enum class EventKind : std::uint8_t {
  kCircuitDown,
  kLinkDown,
  kCircuitUp,
  kLinkUp,
  kFlowWake,
  kSendWake,
  kReady
};

// One interval of a flow's circuit on one switch (per-flow calendars),
// within the period for periodic schedules.
struct CalendarEntry {
  TimePs up = 0;
  TimePs down = 0;
};

// Where a (flow, switch) calendar stands: its next or current entry.
struct CalendarState {
  std::uint32_t next = 0;
  std::uint32_t cycle = 0;
  bool running = false;  // an up or down event of it is pending
};

// Ordered by (t, kind, id, aux): one comparison of t and one of `key`, which
// packs kind (3 bits), id (32 bits) and aux (29 bits: a wake's version, a
// circuit's interval index).
struct Event {
  TimePs t;
  std::uint64_t key;
  std::uint32_t cycle;
  static constexpr std::uint32_t kAuxMask = (1u << 29) - 1;
  Event(TimePs time, EventKind kind, std::uint32_t id, std::uint32_t aux, std::uint32_t c)
      : t(time),
        key((static_cast<std::uint64_t>(kind) << 61) | (static_cast<std::uint64_t>(id) << 29) |
            (aux & kAuxMask)),
        cycle(c) {}
  [[nodiscard]] EventKind kind() const { return static_cast<EventKind>(key >> 61); }
  [[nodiscard]] std::uint32_t id() const { return static_cast<std::uint32_t>(key >> 29); }
  [[nodiscard]] std::uint32_t aux() const { return static_cast<std::uint32_t>(key) & kAuxMask; }
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : key > o.key; }
};

class Engine {
 public:
  Engine(const SendSource& source, const schedule::Schedule& s, const SimOptions& options);
  /// Runs the iteration to its end; fills metrics (not the circuit
  /// statistics, see circuit_stats()) and the send records.
  void run();

  /// The records (SimOptions::keep_records; else empty), moved out after run().
  std::vector<SendRecord> take_records() { return std::move(records_); }
  /// The metrics of the sends (iteration time, waits, bytes, fabrics),
  /// summed as each finishes; with SimOptions::cut_ps also of those
  /// finished by the cut (cut_totals()). NIC peaks and circuit statistics
  /// are simulate()'s.
  [[nodiscard]] const Metrics& totals() const { return totals_; }
  [[nodiscard]] const Metrics& cut_totals() const { return cut_totals_; }
  [[nodiscard]] const std::vector<Nic>& nics() const { return nics_; }
  [[nodiscard]] std::uint64_t events() const { return events_; }
  [[nodiscard]] Units busy_units() const { return busy_units_; }
  [[nodiscard]] Units relayed_units() const { return hop1_units_; }
  [[nodiscard]] Units second_hop_units() const { return hop2_units_; }
  /// With SimOptions::cut_ps: each NIC's peak over [0, cut] (units), and
  /// the events processed up to the cut.
  [[nodiscard]] const std::vector<Units>& cut_peaks() const { return cut_peaks_; }
  [[nodiscard]] std::uint64_t cut_events() const { return cut_events_; }

 private:
  // engine.cpp: the loop, sends, circuits.
  [[nodiscard]] bool finished(std::uint32_t v) const { return flags_[v] & kFinished; }
  [[nodiscard]] bool electrical(std::uint32_t v) const { return flags_[v] & kElectrical; }
  // Adds send s, finished at `finish`, to `m`.
  void add_send(Metrics& m, const LiveSend& s, TimePs finish) const;
  // The live state of an issued send (one holding a slot).
  LiveSend& live(std::uint32_t v) {
    assert(info_[v].live != kNone && live_[info_[v].live].send == v);
    return live_[info_[v].live];
  }
  // Gives v a slot at its issue at t. A slot is freed at the end of the
  // event in which its send has finished with no offer drawing on it (or
  // its last offer went), so a LiveSend& stays valid through an event.
  LiveSend& make_live(std::uint32_t v, TimePs t);
  void release_done();
  // Task-level schedules: v's switch and start.
  [[nodiscard]] std::uint32_t sw_of(std::uint32_t v) const;
  [[nodiscard]] TimePs start_of(std::uint32_t v) const;
  // t + cycle periods (t itself if not periodic); throws InputError when
  // that is beyond core::kMaxTimePs.
  [[nodiscard]] TimePs shifted(TimePs t, std::uint32_t cycle) const;
  void push(TimePs t, EventKind kind, std::uint32_t id, std::uint32_t aux = 0,
            std::uint32_t cycle = 0);
  void on_ready(std::uint32_t v, TimePs t);
  // SendSource::children's callback in finish(): child c of the send
  // finished at the time in `ctx` (a std::pair<Engine*, TimePs>), `compute`
  // after it.
  static void on_child(void* ctx, std::uint32_t c, TimePs compute);
  // Child c of a send finished at t, `compute` after it: its ready time
  // raised, its Ready event pushed with its last parent.
  void ready_child(std::uint32_t c, TimePs compute, TimePs t);
  void issue(std::uint32_t v, TimePs t);
  void on_send_wake(std::uint32_t v, TimePs t);
  void finish(std::uint32_t v, TimePs t);
  void schedule_send_wake(LiveSend& s, TimePs t);
  void push_next_up(std::uint32_t sw);
  // Scale-up sends (engine.hpp, top): release to the domain queue, start
  // queued sends at the end of an instant, finish.
  void release_scaleup(std::uint32_t v, TimePs t);
  void start_scaleup(std::uint32_t v, TimePs t);
  void start_queued_scaleup(TimePs t);
  void finish_scaleup(std::uint32_t v, TimePs t);
  // Send v's (from src to dst) electrical queue and its (egress, ingress)
  // in egress_busy_ / ingress_busy_ (scale-up or packet ports).
  [[nodiscard]] std::uint32_t queue_of(std::uint32_t v, std::uint32_t src) const;
  [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> electrical_ports(std::uint32_t v,
                                                                         std::uint32_t src,
                                                                         std::uint32_t dst) const;
  void mark_dirty(std::uint32_t d);
  // calendar.cpp: per-flow circuit calendars (direct routing).
  void build_calendars();
  void ensure_calendar(std::uint32_t f, TimePs t);
  void on_link_up(std::uint32_t slot, std::uint32_t entry, std::uint32_t cycle, TimePs t);
  void on_link_down(std::uint32_t slot, std::uint32_t entry, std::uint32_t cycle, TimePs t);
  [[nodiscard]] bool wants_circuits(std::uint32_t f) const;
  void schedule_link(std::uint32_t slot, TimePs t);
  void on_circuit_up(std::uint32_t sw, TimePs t);
  void on_circuit_down(std::uint32_t sw, std::uint32_t interval, TimePs t);
  std::uint32_t flow_of(std::uint32_t a, std::uint32_t b) const;
  [[noreturn]] void stuck(TimePs t) const;
  // Records each NIC's peak over [0, cut]: every event up to the cut is
  // processed and NIC memory is linear since each NIC's last update.
  void take_cut(TimePs cut);

  // flows.cpp: data movement and rates.
  static Units ingested(const LiveSend& s, TimePs t);
  void nic_at(std::uint32_t x, TimePs t);
  void nic_add(std::uint32_t x, TimePs t, Units delta);
  void nic_rate(std::uint32_t x, TimePs t, std::int64_t delta_slope, Units delta_packets);
  void advance_send(LiveSend& s, TimePs t);
  void advance_relay(std::uint32_t f, TimePs t);
  void advance_flow(std::uint32_t f, TimePs t);
  void reallocate(std::uint32_t f, TimePs t);
  void set_send_rate(LiveSend& s, int rate, TimePs t);
  void update_packet(LiveSend& s, TimePs t);
  void set_offer_rate(std::uint32_t o, int rate, TimePs t);
  void set_relay_rate(std::uint32_t f, int rate, TimePs t);
  void make_offers(std::uint32_t f, Units slot_units, TimePs t);
  void drop_offers(std::uint32_t f, TimePs t);
  void deliver(std::uint32_t v, Units units, TimePs t);
  [[nodiscard]] int out_rate(const LiveSend& s) const;

  const SendSource& src_;
  const core::Workload* material_;  // src_.material(): read directly on the hot paths
  const schedule::Schedule& s_;
  SimOptions options_;
  bool task_level_;
  bool all_connected_;
  bool vlb_;
  Units mtu_units_;

  std::vector<TimePs> ready_;        // per send: its ready time (above)
  std::vector<SendRecord> records_;  // per send, when kept (ready_ps, issue_ps, finish_ps)
  std::vector<Units> work_;  // of a materialised workload (SendSource::material()), else empty
  Metrics totals_;
  Metrics cut_totals_;
  std::vector<SendInfo> info_;
  std::vector<std::uint8_t> flags_;  // per send: kElectrical | kOnPacket | kReadied | kFinished
  std::vector<std::uint32_t> assignment_;  // task-level: v's entry of s_.tasks
  LivePool live_;
  std::vector<std::uint32_t> done_;  // finished (or lost an offer) in this event
  std::vector<Flow> flows_;
  std::unordered_map<std::uint64_t, std::uint32_t> flow_index_;
  std::vector<std::uint32_t> dense_flows_;  // VLB, n <= kDenseFlows: flow of (a, b) at a * n + b
  std::vector<Offer> offers_;
  std::vector<std::uint32_t> free_offers_;
  std::vector<Nic> nics_;

  // Scale-up fabric: per rank, egress and ingress busy; per domain, the
  // released sends not yet started, sorted by (release, index); the domains
  // whose queue may start something at the end of the current instant.
  std::uint32_t scaleup_size_ = 1;
  // Per accelerator, its scale-up egress (ingress) at [0, n), its packet
  // egress (ingress) at [n, 2n); the queue of released electrical sends per
  // scale-up domain, the packet fabric's last.
  std::uint32_t packet_queue_ = 0;
  std::vector<std::uint8_t> egress_busy_;
  std::vector<std::uint8_t> ingress_busy_;
  struct Queued {  // a released electrical send and its ports
    TimePs release;
    std::uint32_t v;
    std::uint32_t egress;
    std::uint32_t ingress;
    bool operator<(const Queued& o) const {
      return release != o.release ? release < o.release : v < o.v;
    }
  };
  std::vector<std::vector<Queued>> scaleup_queue_;
  std::vector<std::uint32_t> scaleup_dirty_;
  std::vector<std::uint8_t> scaleup_dirty_mark_;

  struct SwitchCursor {
    std::vector<std::uint32_t> order;                            // interval indices sorted by up
    std::vector<std::pair<std::uint32_t, std::uint32_t>> flows;  // per interval: a->b, b->a
    std::size_t next = 0;
    std::uint32_t cycle = 0;
  };
  std::vector<SwitchCursor> cursors_;  // VLB: whole switches
  bool calendars_ = false;             // direct routing: per-flow calendars
  std::uint32_t switches_ = 0;
  std::vector<CalendarEntry> cal_entries_;
  std::vector<std::uint32_t> cal_offsets_;  // (flow * switches + sw) -> entries
  std::vector<CalendarState> cal_state_;

  RadixEventQueue<Event> queue_;                                // by (t, key): event_queue.hpp
  std::vector<std::pair<std::uint32_t, Units>> pending_links_;  // VLB: (flow, slot units) now up
  std::vector<std::uint32_t> touched_;  // flows to reallocate after an event
  std::vector<std::uint32_t> scratch_links_;
  std::vector<std::uint8_t> touched_mark_;
  std::size_t finished_ = 0;
  std::uint64_t events_ = 0;
  bool cut_taken_ = false;
  std::vector<Units> cut_peaks_;
  std::uint64_t cut_events_ = 0;
  Units busy_units_ = 0;
  Units hop1_units_ = 0;
  Units hop2_units_ = 0;
  TimePs now_ = 0;

  void touch(std::uint32_t f);
  void reallocate_touched(TimePs t);
  friend class EngineAccess;
};

}  // namespace flux::sim::detail
