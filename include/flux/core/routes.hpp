#pragma once
// Routes for what no circuit joins (docs/model.md, "Wiring", Routes). Under
// a wiring other than full, a send between scale-up domains whose endpoints
// share no switch (rails: another rail) is forwarded over the scale-up
// fabric: from its source a to a' = the accelerator of a's domain that
// shares a switch with the destination b (rails: a's domain-mate on b's
// rail), then over a circuit from a' to b, store and forward. The routed
// workload replaces the send by its two hops:
//
//   hop 1: a -> a', the send's id, bytes, release, label and in-edges, on
//          the scale-up fabric;
//   hop 2: a' -> b, a new id (above every id of the workload, in send
//          order), the same bytes, label and tail, and the send's
//          out-edges, on a circuit; hop 1 -> hop 2 with no compute.
//
// Every entry point that meets a workload with a system (run_scheduler,
// the validator, the simulator, the study engine, Python) schedules,
// checks and runs the routed workload, so schedules name hops and all of
// them agree; the routing is a function of the workload and the system.
//
// With a packet fabric (System::packet_gbps), a send no circuit joins goes
// over it instead when no domain-mate can forward it or --route packet says
// so (System::fabric): it stays one send, on core::kPacketSwitch.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// What the wiring does with a workload's sends: those forwarded over a
/// scale-up peer (each once over the scale-up fabric, once over a circuit)
/// and those on the packet fabric (System::fabric), and their bytes.
struct RouteCounts {
  std::uint64_t forwarded_sends = 0;
  std::uint64_t forwarded_bytes = 0;
  std::uint64_t packet_sends = 0;
  std::uint64_t packet_bytes = 0;
};

/// A workload as the wiring carries it: `w` itself when nothing needs a
/// route, else the routed copy it owns. A workload with choice groups is
/// first resolved (choice.hpp) with `choice`, the chosen alternatives' names
/// (schedule::Schedule::choice): throws InputError (field "choice") when
/// such a workload comes without a choice, or with one that does not fit
/// it. A workload without groups (resolved already) ignores `choice`.
class Routed {
 public:
  Routed(const Workload& w, const System& system, std::span<const std::string> choice = {});

  [[nodiscard]] const Workload& workload() const { return routed_ ? *routed_ : *original_; }
  [[nodiscard]] const RouteCounts& counts() const { return counts_; }
  [[nodiscard]] std::uint64_t forwarded_sends() const { return counts_.forwarded_sends; }
  [[nodiscard]] std::uint64_t forwarded_bytes() const { return counts_.forwarded_bytes; }
  [[nodiscard]] std::uint64_t packet_sends() const { return counts_.packet_sends; }
  [[nodiscard]] std::uint64_t packet_bytes() const { return counts_.packet_bytes; }

 private:
  const Workload* original_;
  std::unique_ptr<Workload> resolved_;  // on the heap: original_ survives a move
  std::optional<Workload> routed_;
  RouteCounts counts_;
};

/// The counts of Routed without routing (throws as Routed does for a send
/// with no route).
RouteCounts route_counts(const Workload& w, const System& system);

/// The accelerator that forwards a send from `src` to `dst` (both in
/// different domains, no switch joining them): the lowest-numbered one of
/// src's domain that shares a switch with dst, if any.
std::optional<Rank> forwarder(Rank src, Rank dst, const System& system);

/// Throws the InputError of send `t` (tasks[index]) that has no route:
/// "tasks[2] = send 2: no route from rank 0 (rail 0, pod 0) to rank 5 (rail
/// 1, pod 1): no switch joins them under --wiring rails, nor one of the
/// source's scale-up domain (pods of 2 domains)".
[[noreturn]] void throw_no_route(std::size_t index, const Task& t, const System& system);

}  // namespace flux::core
