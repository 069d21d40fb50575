#pragma once
// The greedy list scheduler: a quick feasible schedule, the MILP's warm
// start. Repeatedly takes the ready send (all parents placed) that can start
// earliest on some switch (ties: the longer remaining critical path, then the
// topological position) and appends it to that switch's two port sequences.
// Its start on switch s is
//   max( ready_v, free_s(src) + R(last_s(src), v), free_s(dst) + R(last_s(dst), v) )
// where free_s(x) is the end of the last send on port x of switch s and R is
// 0 when that send used the same (src, dst) circuit, else tau. Among the
// switches giving the earliest start it prefers one whose ports already hold
// v's circuit, then the lowest index. Reconfiguration thus happens while a
// port is idle (behind compute) whenever the DAG leaves room. A send inside a
// scale-up domain has no switch to choose: it goes to core::kScaleUpSwitch at
//   max( ready_v, free_e(src), free_i(dst) )
// (the ends of the last sends on src's scale-up egress and dst's ingress;
// no tau); a send on the packet fabric likewise to core::kPacketSwitch, on
// src's packet egress and dst's packet ingress (placement.hpp). In full
// duplex (System::duplex == kFull) a port holds epochs (runs of sends with
// one circuit partner, either direction; placement.hpp): a send x -> y on
// switch s whose port x is in an epoch with partner y may start at x at
// max(epoch_start_s(x), tx_end_s(x)), the epoch's earliest start (the
// previous epoch's latest end + tau) and the end of its last send out of x,
// overlapping the sends y -> x; otherwise it opens an epoch at
// latest_end_s(x) + tau (no tau on a port never used), and likewise at y
// with the receive side (rx_end); it reuses the circuit when it stays in the
// epochs of both ports. Starts are the earliest its switch choice and port
// order allow (already left-shifted).
#include <span>

#include "flux/core/dag.hpp"
#include "flux/sched/placement.hpp"

namespace flux::sched {

/// Variants of the rule (the `flux` scheduler tries several).
struct ListOptions {
  /// A switch whose ports already hold v's circuit wins when its start is at
  /// most this much later than the earliest (0: only on ties). Keeping a
  /// circuit can save a reconfiguration later.
  core::TimePs reuse_slack_ps = 0;
  /// Non-zero: ties in priority are broken by a hash of (seed, send) instead
  /// of the topological position (deterministic for a given seed).
  std::uint64_t seed = 0;
};

Placement list_schedule(const core::Workload& w, const core::System& system,
                        std::span<const core::TimePs> p, const core::IdealTiming& timing,
                        const ListOptions& options = {});

}  // namespace flux::sched
