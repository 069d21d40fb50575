#pragma once
// The circuit timeline an OCS executes, derived from a task-level schedule
// (docs/model.md, "Circuit timeline").
//
// Model (the paper's section 3): a send v on switch s occupies the circuit
// {src_v, dst_v} of s during [t_v, t_v + p_v). Two sends on the same switch
// that share a port need R_{u,v} between the end of the earlier and the start
// of the later: R = 0 when they carry the same *directed* pair
// ((src_u, dst_u) == (src_v, dst_v)), else tau (even for the reversed pair).
//
// Format (schedule.hpp): per switch, a list of CircuitInterval {a < b,
// setup_ps, up_ps, down_ps}. Both ports a and b are taken over
// [setup_ps, down_ps): reconfiguring over [setup_ps, up_ps) (length tau),
// carrying data over [up_ps, down_ps).
//
// Grouping: per switch, sends are processed by start time (ties by task
// index). A send joins the open interval of its circuit iff that interval
// carries the same directed pair and no other send on either of its two ports
// (on this switch) started in between, i.e. the latest send on both ports
// belongs to that interval. Otherwise a new interval opens with
// up_ps = t_v, setup_ps = t_v - tau, down_ps = t_v + p_v; a joining send
// extends down_ps to the end of the interval's last send.
//
// Full duplex (System::duplex == kFull): a send and its reverse do not
// conflict, so one interval carries both directions: a send joins the open
// interval of its circuit {src_v, dst_v} iff the latest send on both ports
// belongs to it, whichever direction that interval's sends go. down_ps is
// the latest end of the interval's sends (an earlier send may end later: a
// long a -> b overlapped by a short b -> a). The intervals sharing a port
// still never overlap: on a port the sends of one interval are consecutive
// by start (once another interval takes a port, this one is never joined
// again). The next interval J on port a of I's circuit {a, b} opens after
// a send of another circuit on a or on b (else the send would have joined
// I), and in a valid full-duplex schedule such a send starts >= tau after
// every earlier send on that port has ended, I's included (validator.cpp,
// "Full duplex"): J's setup is at or after I's down.
//
// setup_ps may be negative: a circuit first used at t_v < tau is configured
// before the iteration starts (time 0), which the paper allows (no constraint
// precedes a switch's first send). Every interval has up_ps - setup_ps == tau.
//
// For a valid task schedule the intervals sharing a port never overlap over
// [setup_ps, down_ps) (proof in docs/model.md), so the result passes the
// validator's timeline checks.
#include <span>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::schedule {

/// Per-switch circuit timelines (one per switch of `system`), each sorted by
/// (up_ps, a, b). Sends on the scale-up fabric (core::kScaleUpSwitch) need no
/// circuit and are skipped. Throws core::InputError on an assignment naming a task id
/// the workload lacks or a switch >= system.switches. Does not check the
/// schedule otherwise (the validator does): an invalid schedule yields
/// overlapping intervals, never undefined behaviour.
std::vector<SwitchTimeline> build_timelines(const core::Workload& w, const core::System& system,
                                            std::span<const TaskAssignment> tasks);

/// An unordered circuit {a, b}, a < b.
struct Circuit {
  core::Rank a;
  core::Rank b;
  auto operator<=>(const Circuit&) const = default;
};

/// The state of one switch from `at_ps` until the next state's `at_ps` (the
/// paper's view: a sequence of circuit states and transition times).
struct TimelineState {
  core::TimePs at_ps = 0;
  std::vector<Circuit> up;             ///< circuits carrying data, sorted
  std::vector<Circuit> reconfiguring;  ///< circuits being set up, sorted
};

/// The states of one switch at every time something changes (a setup, up or
/// down time), in time order; consecutive equal states are merged. The last
/// state is empty (everything down). An empty timeline gives no states.
/// Meant for a valid timeline (setup <= up <= down); an invalid one gives a
/// best-effort sequence.
std::vector<TimelineState> timeline_states(const SwitchTimeline& timeline);

}  // namespace flux::schedule
