#pragma once
// The system of the paper's section 3: n accelerators, each with one link to
// each of s identical optical circuit switches. A switch holds circuits that
// share no endpoint; changing a circuit costs the reconfiguration delay tau.
//
// Scale-up domains (docs/model.md, "Scale-up domains"): consecutive
// accelerators in groups of k (rank r is in domain r / k) also share a
// non-blocking electrical fabric (NVLink) of B_e per accelerator and
// direction. A send inside a domain uses that fabric and no circuit: it takes
// bytes / B_e, no tau, and an accelerator sends at most one electrical
// transfer at a time and receives at most one at a time (its egress and its
// ingress are two independent ports, always connected). A send between
// domains needs a circuit on an OCS, as in the paper. k = 1 is the paper's
// model: every send crosses the optical fabric.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/wiring.hpp"

namespace flux::core {

/// The most switches a system may have. Every switch gets a timeline (and
/// the schedulers per-switch state), so the limit keeps that allocation
/// sane; schedule files are held to the same limit.
inline constexpr std::uint32_t kMaxSwitches = 1u << 20;

/// The fabric a send travels on.
enum class Fabric : std::uint8_t {
  kOcs,      ///< a circuit on one of the s optical switches
  kScaleUp,  ///< the electrical fabric of its scale-up domain (no circuit, no tau)
  kPacket,   ///< the packet-switched scale-out fabric (no circuit, no tau)
};
std::string_view to_string(Fabric f);

/// In a send's switch field (schedule::TaskAssignment::sw): the send uses
/// the scale-up fabric, not an OCS. Above every valid switch number.
inline constexpr SwitchId kScaleUpSwitch{kMaxSwitches};
/// In a send's switch field: the send uses the packet fabric.
inline constexpr SwitchId kPacketSwitch{kMaxSwitches + 1};
/// The pseudo-switch of a send on `f` (kOcs has none: kMaxSwitches + 2).
constexpr SwitchId electrical_switch(Fabric f) {
  return f == Fabric::kScaleUp  ? kScaleUpSwitch
         : f == Fabric::kPacket ? kPacketSwitch
                                : SwitchId{kMaxSwitches + 2};
}
/// Whether a send's switch field names the scale-up or packet fabric.
constexpr bool is_electrical(SwitchId s) {
  return s == kScaleUpSwitch || s == kPacketSwitch;
}

/// Per-direction NVLink bandwidth of one GPU, in Gb/s (docs/model.md,
/// "Scale-up domains", gives the datasheets): NVLink 3 (A100 SXM4) 300 GB/s,
/// NVLink 4 (H100 SXM5) 450 GB/s per direction.
inline constexpr double kNvlink3Gbps = 2400.0;

/// What one circuit carries at a time (docs/model.md, "Duplex").
enum class Duplex : std::uint8_t {
  /// The paper's model: sends sharing a port on one switch take turns, so
  /// a -> b and b -> a never overlap, and reversing a circuit costs tau.
  kHalf,
  /// A circuit {a, b} carries a -> b and b -> a at once, each at the link
  /// rate (an OCS port is a fibre pair): only the reversed pair may overlap.
  kFull,
};
std::string_view to_string(Duplex d);
/// "half" or "full"; throws InputError (field "duplex") otherwise.
Duplex duplex_from_string(std::string_view s);
inline constexpr double kNvlink4Gbps = 3600.0;

/// Where a send goes that no circuit joins (docs/model.md, "Routes"): the
/// option --route. A policy that names one route falls back to the packet
/// fabric where its route does not exist (core/routes.hpp).
enum class RoutePolicy : std::uint8_t {
  kForward,    ///< over the scale-up fabric to the right rail, then a circuit
  kPacket,     ///< over the packet fabric (needs --packet-gbps)
  kForwardRx,  ///< a circuit to the receiver's domain-mate, then the scale-up fabric
  kAuto,       ///< the scheduler chooses per send among the routes that exist
};
std::string_view to_string(RoutePolicy r);
/// "forward", "forward-rx", "packet" or "auto"; throws InputError (field
/// "route") otherwise.
RoutePolicy route_from_string(std::string_view s);

/// How the optical switches are wired (docs/model.md, "Wiring"): the
/// option --wiring, "full", "rails" or "file:PATH".
struct WiringSpec {
  WiringKind kind = WiringKind::kFull;
  std::string file;  ///< kExplicit: the flux.wiring/v1 file as given
  bool operator==(const WiringSpec&) const = default;
};
/// "full", "rails" or "file:PATH" (PATH not empty); throws InputError
/// (field "wiring") otherwise.
WiringSpec wiring_from_string(std::string_view s);
std::string to_string(const WiringSpec& w);

struct System {
  /// Number of identical OCS (s); every accelerator has one link to each.
  std::uint32_t switches = 2;
  /// Rate of one link, in Gb/s (10^9 bit/s). 800 Gb/s moves a byte in 10 ps.
  double link_gbps = 800.0;
  /// Reconfiguration delay tau, in picoseconds.
  TimePs reconfig_delay_ps = 10 * kPsPerUs;
  /// Accelerators per scale-up domain (k): ranks r and q share one iff
  /// r / k == q / k. 1: no scale-up fabric (the paper's model).
  std::uint32_t scaleup_size = 1;
  /// Electrical bandwidth of one accelerator per direction, in Gb/s
  /// (unused when scaleup_size is 1).
  double scaleup_gbps = kNvlink3Gbps;
  /// Half duplex (the paper's model) or full duplex circuits.
  Duplex duplex = Duplex::kHalf;
  /// The wiring (docs/model.md, "Wiring"). Under any wiring `switches` is
  /// the links per accelerator, the planes: a schedule's switch numbers are
  /// planes, each plane's physical switches (ocs_of) holding the circuits of
  /// their group.
  WiringSpec wiring{};
  /// Ports per OCS; 0: as many as needed (the paper's crossbar). Rails need
  /// it; a full wiring refuses more accelerators than ports.
  std::uint32_t ocs_radix = 0;
  /// kExplicit: the wiring file's content, read by the front end
  /// (formats::read_wiring); null otherwise.
  std::shared_ptr<const Wiring> wiring_ports{};
  /// The packet-switched scale-out fabric beside the OCS (docs/model.md,
  /// "Routes"): each accelerator's NIC rate per direction, in Gb/s; 0: none.
  /// A send on it holds its source's packet egress and its destination's
  /// packet ingress for packet_latency + bytes / rate, no circuit, no tau.
  double packet_gbps = 0;
  /// Latency of one packet transfer (NIC to NIC), in picoseconds.
  TimePs packet_latency_ps = 0;
  /// Oversubscription of the packet fabric between pods (1: non-blocking):
  /// a send between pods gets packet_gbps / this.
  double packet_oversubscription = 1;
  /// Where a send goes that a circuit cannot join: forwarded by a domain-mate
  /// of its source or of its destination, or on the packet fabric, or the
  /// scheduler's choice (core/routes.hpp); one a circuit joins always takes a
  /// circuit.
  RoutePolicy route = RoutePolicy::kForward;

  /// Throws InputError naming the field when a value is outside its bounds
  /// in kSystemOptions.
  void validate() const;
  /// validate(), that the domains tile `accelerators` ranks (InputError
  /// naming scaleup_size unless scaleup_size divides it) and that the
  /// wiring can be built for them: rails need ocs_radix, a full crossbar
  /// one port per accelerator, a wiring file as many accelerators, grouped
  /// (Wiring::grouped), one switch per plane. Errors name the field.
  void validate_for(std::uint64_t accelerators) const;

  /// The wiring's group of `r` (Wiring::group_of): accelerators a circuit
  /// can join are those of one group. 0 for every one under kFull.
  [[nodiscard]] std::uint32_t ocs_group(Rank r) const {
    switch (wiring.kind) {
      case WiringKind::kFull:
        return 0;
      case WiringKind::kRails:
        return Wiring::rails_group(r, scaleup_size, ocs_radix);
      case WiringKind::kExplicit:
        return wiring_ports->group_of(r);
    }
    return 0;
  }
  /// Whether a circuit can join `a` and `b`: some switch has both.
  [[nodiscard]] bool joined(Rank a, Rank b) const { return ocs_group(a) == ocs_group(b); }
  /// The physical switch of plane `plane` that holds `r`'s circuits.
  [[nodiscard]] SwitchId ocs_of(std::uint32_t plane, Rank r) const;
  /// The accelerators of each group, ascending (validate_for first); one
  /// group of all under kFull.
  [[nodiscard]] std::vector<std::vector<Rank>> ocs_groups(std::uint32_t accelerators) const;
  /// What the wiring builds for `accelerators`, for reports: "rails, 16 OCS
  /// of 8 ports (2 planes x 8 groups), 64 ports used"; "" under kFull.
  [[nodiscard]] std::string wiring_text(std::uint64_t accelerators) const;
  /// The physical wiring for `accelerators` (validate_for first).
  [[nodiscard]] Wiring wiring_for(std::uint32_t accelerators) const;

  /// The fabric a send from `src` to `dst` of a routed workload
  /// (core::Routed) uses: kScaleUp iff both are in one domain (and
  /// scaleup_size > 1); else kOcs when a circuit can join them; else kPacket
  /// when there is a packet fabric (routing replaced every send it forwards
  /// by hops a circuit or the scale-up fabric carries); else kOcs (a send
  /// without a route, which core::Routed refuses).
  [[nodiscard]] Fabric fabric(Rank src, Rank dst) const {
    if (scaleup_size > 1 && src.value() / scaleup_size == dst.value() / scaleup_size) {
      return Fabric::kScaleUp;
    }
    if (wiring.kind == WiringKind::kFull || packet_gbps <= 0 || joined(src, dst)) {
      return Fabric::kOcs;
    }
    return Fabric::kPacket;
  }
  [[nodiscard]] bool has_scaleup() const { return scaleup_size > 1; }
  /// Whether sends may use the packet fabric.
  [[nodiscard]] bool has_packet() const { return packet_gbps > 0; }
  /// Whether an accelerator of src's scale-up domain shares a switch with
  /// `dst` (so it can forward src's sends to dst; core/routes.hpp).
  [[nodiscard]] bool forwardable(Rank src, Rank dst) const;
  /// The pod of `r` for the packet fabric's oversubscription: rails: its
  /// domain / ocs_radix; a wiring file: its group; full: 0.
  [[nodiscard]] std::uint32_t pod_of(Rank r) const;

  /// Whether two sends src_u -> dst_u and src_v -> dst_v on one switch that
  /// share an accelerator must take turns (constraints (4), (5)): always in
  /// half duplex; in full duplex unless one is the other reversed, which the
  /// same circuit carries at the same time. Taking turns costs R_{u,v}: 0 for
  /// the same directed pair, else tau.
  [[nodiscard]] bool take_turns(Rank src_u, Rank dst_u, Rank src_v, Rank dst_v) const {
    return duplex == Duplex::kHalf || src_u != dst_v || dst_u != src_v;
  }

  /// Link rate in bit/s, rounded to an integer.
  [[nodiscard]] std::uint64_t link_bps() const;

  /// Transmission time p = bytes / link rate, in picoseconds, rounded up
  /// (exact for 800 Gb/s: 10 ps per byte). Throws InputError naming "bytes"
  /// when p is beyond kMaxTimePs.
  [[nodiscard]] TimePs transmission_ps(std::uint64_t bytes) const;
  /// Transmission time of a send from `src` to `dst` on fabric(src, dst):
  /// bytes / link rate on an OCS, bytes / scale-up rate on the scale-up
  /// fabric, packet_latency + bytes / packet rate (divided by the
  /// oversubscription between pods) on the packet fabric; in ps, rounded up.
  /// Throws as above.
  [[nodiscard]] TimePs transmission_ps(std::uint64_t bytes, Rank src, Rank dst) const;
};

/// The options of a System: names, flags, help and bounds (core/option.hpp).
inline constexpr auto kSystemOptions = std::tuple{
    NumberOption<System, std::uint32_t>{"switches", "--switches",
                                        "number of optical circuit switches (s)", &System::switches,
                                        1, kMaxSwitches},
    NumberOption<System, double>{"link_gbps", "--link-gbps", "rate of one link in Gb/s",
                                 &System::link_gbps, 0.0, 1e9, true},
    NumberOption<System, TimePs>{
        "reconfig_delay", "--tau", "reconfiguration delay tau, with a unit (10us, 1ms)",
        &System::reconfig_delay_ps, 0, kMaxTimePs, false, false, OptionUnit::kPicoseconds},
    NumberOption<System, std::uint32_t>{
        "scaleup_size", "--scaleup-size",
        "accelerators per scale-up (NVLink) domain, consecutive ranks; sends inside a domain use "
        "the electrical fabric (1: none, the paper's model)",
        &System::scaleup_size, 1, 1u << 20},
    NumberOption<System, double>{"scaleup_gbps", "--scaleup-gbps",
                                 "scale-up bandwidth per accelerator and direction in Gb/s "
                                 "(NVLink 3 / A100: 2400, NVLink 4 / H100: 3600)",
                                 &System::scaleup_gbps, 0.0, 1e9, true},
    ChoiceOption<System, Duplex>{
        "duplex", "--duplex",
        "circuits: half (the paper's model: a->b and b->a take turns, reversing costs tau) or "
        "full (a circuit carries both directions at once)",
        &System::duplex, &duplex_from_string, &to_string},
    ChoiceOption<System, WiringSpec, std::string (*)(const WiringSpec&)>{
        "wiring", "--wiring",
        "how the OCS are wired: full (every accelerator on every switch, the paper's model), "
        "rails (the accelerator with local index r of each scale-up domain on rail r's switches, "
        "domains in pods of --ocs-radix) or file:W.json (flux.wiring/v1)",
        &System::wiring, &wiring_from_string, &to_string},
    NumberOption<System, std::uint32_t>{
        "ocs_radix", "--ocs-radix",
        "ports per OCS (Palomar: 136, Lumentum R300: 300); 0: as many as the wiring needs",
        &System::ocs_radix, 0, kMaxOcsRadix},
    NumberOption<System, double>{
        "packet_gbps", "--packet-gbps",
        "packet-switched scale-out fabric beside the OCS: each accelerator's NIC rate per "
        "direction in Gb/s, for sends no circuit joins (0: none)",
        &System::packet_gbps, 0.0, 1e9},
    NumberOption<System, TimePs>{"packet_latency", "--packet-latency",
                                 "latency of one transfer on the packet fabric, with a unit (2us)",
                                 &System::packet_latency_ps, 0, kPsPerS, false, false,
                                 OptionUnit::kPicoseconds},
    NumberOption<System, double>{
        "packet_oversubscription", "--packet-oversubscription",
        "oversubscription of the packet fabric between pods (1: non-blocking; 4: a send between "
        "pods gets a quarter of the NIC rate)",
        &System::packet_oversubscription, 1.0, 1e6},
    ChoiceOption<System, RoutePolicy>{
        "route", "--route",
        "a send no circuit joins: forward (over the scale-up fabric to the source's domain-mate "
        "on the right rail, then a circuit), forward-rx (a circuit to the destination's "
        "domain-mate, then the scale-up fabric), packet (the packet fabric) or auto (the "
        "scheduler chooses per send); forward and forward-rx take the packet fabric where they "
        "cannot reach",
        &System::route, &route_from_string, &to_string},
};

}  // namespace flux::core
