#pragma once
// Insertion into a running plan (docs/model.md, "Online MoE scheduling"):
// what an online decision does when an all-to-all's sizes are revealed.
// The plan's other sends stay where a forecast of the plan puts them, each
// holding its switch's two ports for [start, end); the revealed sends are
// placed one at a time, each on the switch where it can start earliest,
// into the gaps those holds leave: a gap fits a send of duration p from t
// on port x when every hold h on x either ends R(h, v) before t or starts
// R(v, h) after t + p, R = 0 between sends one circuit carries in turn
// (the same directed pair; in full duplex the same pair either way) and
// tau otherwise; in full duplex a send and its reverse share their circuit
// at the same time. A placed send becomes a hold for the next. The search
// only reads holds near t: per port the forecast's are kept in start order
// with the running maximum of their ends, so a binary search finds the
// first hold that can reach t; the holds a decision places are kept apart,
// in a short list per port, so that placing and taking them back does not
// move the forecast's.
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"

namespace flux::sched {

/// One send's hold on a port of one OCS: [start_ps, end_ps), src -> dst.
struct PortHold {
  core::TimePs start_ps = 0;
  core::TimePs end_ps = 0;
  core::Rank src;
  core::Rank dst;
};

/// Per (switch, port) of `switches` switches (planes) and `ranks`
/// accelerators, the holds in start order: the state an online decision
/// places into.
class PortTimelines {
 public:
  PortTimelines(std::uint32_t switches, std::uint32_t ranks);

  /// Adds a hold of switch `sw` on its two ports (call sort() before use).
  void add(core::SwitchId sw, const PortHold& h);
  /// Puts every port's holds in start order.
  void sort();
  /// Adds a hold keeping the order (after sort()): to a short list per port
  /// beside the forecast's, so that adding and taking back cost the length
  /// of that list, not of the forecast's.
  void insert(core::SwitchId sw, const PortHold& h);
  /// Takes back a hold insert() added.
  void remove(core::SwitchId sw, const PortHold& h);
  /// Takes back every hold insert() added, in the time of the ports they
  /// touched.
  void clear_inserted();
  /// Whether insert() added holds not taken back since.
  [[nodiscard]] bool has_inserted() const;

  /// The earliest start >= `t` at which a send src -> dst of duration `p`
  /// fits on switch `sw` (both ports), given `tau` and the duplex; when it
  /// is at or after `limit`, some time at or after `limit` (the search stops
  /// there).
  [[nodiscard]] core::TimePs earliest(core::SwitchId sw, core::Rank src, core::Rank dst,
                                      core::TimePs p, core::TimePs t, core::TimePs tau,
                                      core::Duplex duplex,
                                      core::TimePs limit = core::kMaxTimePs) const;

  [[nodiscard]] std::uint32_t switches() const { return switches_; }

 private:
  struct Port {
    std::vector<PortHold> holds;        // add(): the forecast's, in start order after sort()
    std::vector<core::TimePs> max_end;  // per hold, the latest end of it and those before
    std::vector<PortHold> added;        // insert(): in start order
  };
  [[nodiscard]] core::TimePs earliest_on(const Port& port, core::Rank src, core::Rank dst,
                                         core::TimePs p, core::TimePs t, core::TimePs tau,
                                         core::Duplex duplex, core::TimePs limit) const;
  std::uint32_t switches_;
  std::uint32_t ranks_;
  std::vector<Port> ports_;           // sw * ranks + rank
  std::vector<std::size_t> touched_;  // ports insert() added to since clear_inserted()
};

/// One send to place.
struct InsertRequest {
  std::uint32_t task = 0;  ///< the caller's index; returned as is
  core::Rank src;
  core::Rank dst;
  core::TimePs p_ps = 0;        ///< its transmission time
  core::SwitchId plan_sw;       ///< the plan's switch for it
  core::TimePs release_ps = 0;  ///< it starts at or after this
  /// It must start before this (its dependants' planned starts: a later
  /// start would reverse the plan's order); kNoBound: none.
  core::TimePs before_ps = 0;
  /// Requests earlier in the list it depends on, with the compute between:
  /// it starts at or after their end plus that (a forwarded send's hops).
  std::vector<std::pair<std::uint32_t, core::TimePs>> after;
};

/// No bound (InsertRequest::before_ps).
inline constexpr core::TimePs kNoBound = core::kMaxTimePs;

/// Where a request went: nullopt when it was not placed (no gap before its
/// bound, or the deadline passed first): the caller keeps the plan's place.
struct Inserted {
  std::uint32_t task = 0;
  std::optional<std::pair<core::SwitchId, core::TimePs>> at;  ///< (switch, start)
};

/// Places the requests in the order given (each after the ones it names in
/// `after`), each at its earliest start on the switch where that is
/// earliest (ties: the lowest switch), inserting it into `timelines`.
/// A request not placed takes back the placements of the requests linked to
/// it by `after`, either way and transitively (it keeps its plan order key,
/// which theirs must stay on the right side of).
/// `plan_switch`: each on its plan_sw only. With a deadline, anytime: a
/// send is placed only while the longest placement so far would end before
/// the deadline; the rest are returned unplaced. Deterministic without a
/// deadline.
std::vector<Inserted> insert_sends(
    PortTimelines& timelines, std::span<const InsertRequest> requests, core::TimePs tau,
    core::Duplex duplex,
    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt,
    bool plan_switch = false);

/// What an online decision chose (decide_insertion).
struct Decided {
  enum class Pick : std::uint8_t {
    kPlan,          ///< the plan's places: every request unplaced
    kPlanSwitch,    ///< inserted in the plan's order, each on its plan switch
    kPlanOrder,     ///< inserted in the plan's order
    kLongestFirst,  ///< inserted longest first
  };
  Pick pick = Pick::kPlan;
  std::vector<Inserted> placed;  ///< per request, in the order given
};
/// "plan", "plan-switch", "plan-order", "longest-first".
std::string_view to_string(Decided::Pick p);

/// Whether a decision over `requests` keeps the plan's circuits: a circuit
/// change (tau) costs at least the weighted median of the requests'
/// transmission times (the time of the send carrying the middle of their
/// sum). True without requests.
bool keeps_circuits(std::span<const InsertRequest> requests, core::TimePs tau);

/// An online decision over requests given in the plan's order (each
/// `after` earlier ones), whose ends where the plan has them are
/// `plan_end_ps`. Candidates: the requests inserted longest first (a hop
/// after the hops before it), in the plan's order on their plan switches,
/// and in that order on any switch; only the second where the decision
/// keeps_circuits (moving a send to another circuit would cost more than
/// the transfer it serves: docs/model.md, "Online MoE scheduling"). Each
/// candidate is scored by its latest end, then the sum of its ends (a
/// request not placed counts at its plan end); the best wins, ties to the
/// plan, then to the plan switches, then to the plan's order. `timelines`
/// (a forecast's holds, none inserted: std::invalid_argument otherwise)
/// are scratch for each candidate and returned as given. With a deadline
/// (anytime, as insert_sends) the candidates are tried, in the order above,
/// while it leaves time, the one it cuts short counting with the sends it
/// placed (the others at their plan ends). Deterministic without a
/// deadline.
Decided decide_insertion(
    PortTimelines& timelines, std::span<const InsertRequest> requests,
    std::span<const core::TimePs> plan_end_ps, core::TimePs tau, core::Duplex duplex,
    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace flux::sched
