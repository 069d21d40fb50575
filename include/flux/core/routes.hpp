#pragma once
// Routes for what no circuit joins (docs/model.md, "Wiring", Routes). Under
// a wiring other than full, a send a -> b between scale-up domains whose
// endpoints share no switch (rails: another rail) takes one of these
// routes, store and forward:
//
//   forward:    a -> a' over the scale-up fabric, a' = the accelerator of
//               a's domain that shares a switch with b (rails: a's
//               domain-mate on b's rail), then a' -> b over a circuit;
//   forward-rx: a -> b' over a circuit, b' = the accelerator of b's domain
//               that shares a switch with a, then b' -> b over the scale-up
//               fabric;
//   packet:     a -> b on the packet fabric (System::packet_gbps), one send.
//
// A forwarded send is replaced by its two hops: the first keeps the send's
// id, release, label and in-edges, the second gets a new id (above every id
// of the workload, in send order), the same bytes and label, the send's tail
// and out-edges; an edge hop 1 -> hop 2 with no compute. System::route
// says which route: forward or forward-rx where it exists, else the packet
// fabric; packet; or auto, where every send with more than one route is a
// choice group of them (route_choices) and the scheduler picks one per send
// (Schedule::routes names them, in send order).
//
// Every entry point that meets a workload with a system (run_scheduler,
// the validator, the simulator, the study engine, Python) schedules,
// checks and runs the routed workload, so schedules name hops and all of
// them agree; the routing is a function of the workload, the system and,
// under --route auto, the schedule's routes.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// A route of a send no circuit joins (above).
enum class Route : std::uint8_t { kForward, kForwardRx, kPacket };
/// "forward", "forward-rx", "packet": the names of a route choice group's
/// alternatives.
std::string_view to_string(Route r);

/// What the wiring does with a workload's sends: those forwarded over a
/// scale-up peer (each once over the scale-up fabric, once over a circuit;
/// `received_sends` of them at the receiver's side) and those on the packet
/// fabric, and their bytes; under --route auto counted without the routes,
/// the sends with a choice of route (`choice_sends`) are in neither.
struct RouteCounts {
  std::uint64_t forwarded_sends = 0;
  std::uint64_t forwarded_bytes = 0;
  std::uint64_t received_sends = 0;
  std::uint64_t packet_sends = 0;
  std::uint64_t packet_bytes = 0;
  std::uint64_t choice_sends = 0;
};

/// A workload as the wiring carries it: `w` itself when nothing needs a
/// route, else the routed copy it owns. A workload with choice groups is
/// first resolved (choice.hpp) with `choice`, the chosen alternatives' names
/// (schedule::Schedule::choice): throws InputError (field "choice") when
/// such a workload comes without a choice, or with one that does not fit
/// it. A workload without groups (resolved already) ignores `choice`. Under
/// --route auto, `routes` names the route of each send that has a choice
/// (schedule::Schedule::routes): throws InputError (field "routes") when
/// they do not fit. Throws InputError naming the send that has no route.
class Routed {
 public:
  Routed(const Workload& w, const System& system, std::span<const std::string> choice = {},
         std::span<const std::string> routes = {});

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

/// `w` as Routed makes it with the first alternative of each choice group
/// and, under --route auto, the first route of each send with several
/// (their count in `route_choices`, if given): what `flux info` and
/// Python's Workload.summary describe before any schedule chose.
Routed first_routed(const Workload& w, const System& system,
                    std::uint64_t* route_choices = nullptr);

/// The counts of Routed without routing (`routes` as Routed takes them, or
/// none: then the sends with a choice count in choice_sends; throws as
/// Routed does).
RouteCounts route_counts(const Workload& w, const System& system,
                         std::span<const std::string> routes = {});

/// Under --route auto: `w` (resolved: no choice groups) with each send that
/// has more than one route kept as a choice group of them (alternatives
/// named by to_string(Route), in the order forward, forward-rx, packet; the
/// group's label the send's), and each send with one route replaced by it;
/// what a scheduler chooses on (sched::run_scheduler). Ids: the first
/// alternative's first send keeps the send's id, every other send of the
/// group gets a new one, in send order. nullopt when no send has a choice
/// (another policy, or one route each). Throws as Routed.
std::optional<Workload> route_choices(const Workload& w, const System& system);

/// The system a resolved route_choices workload runs on: the same with a
/// policy that routes nothing more (its sends no circuit joins are the
/// packet alternatives).
System chosen_routes(System system);

/// The accelerator that forwards a send from `src` to `dst` (both in
/// different domains, no switch joining them): the lowest-numbered one of
/// src's domain that shares a switch with dst, if any. The receiver's side
/// (forward-rx) is forwarder(dst, src).
std::optional<Rank> forwarder(Rank src, Rank dst, const System& system);

/// Throws the InputError of send `t` (tasks[index]) that has no route:
/// "tasks[2] = send 2: no route from rank 0 (rail 0, pod 0) to rank 5 (rail
/// 1, pod 1): no switch joins them under --wiring rails, nor one of the
/// source's scale-up domain (pods of 2 domains)".
[[noreturn]] void throw_no_route(std::size_t index, const Task& t, const System& system);

}  // namespace flux::core
