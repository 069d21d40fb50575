#pragma once
// The physical wiring of the optical fabric (docs/model.md, "Wiring"): which
// accelerators each optical circuit switch has a port for. The paper's model
// (kFull) puts every accelerator on every switch, each switch an n-port
// crossbar. Real OCS have 136 (Google's Palomar) to a few hundred ports
// (Lumentum R300: 300), so clusters wire them as rails: in scale-up domains
// of k accelerators, the accelerator with local index r links only to rail
// r's switches, one port per domain; the domains are grouped into pods of at
// most R (the radix), and each (plane, rail, pod) is a switch of its own. A
// circuit can join two accelerators only on a switch both attach to
// (joining()); what no switch joins needs a route (forwarding over the
// scale-up fabric, a relay, or a packet fabric).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flux/core/ids.hpp"

namespace flux::core {

/// The most ports one switch may have: a bound for allocation, far above
/// any OCS built (136 to about 1,000).
inline constexpr std::uint32_t kMaxOcsRadix = 1u << 20;

enum class WiringKind : std::uint8_t {
  kFull,      ///< every accelerator on every switch (the paper's model)
  kRails,     ///< rails of radix-limited switches, pods of domains
  kExplicit,  ///< any wiring, switch by switch (flux.wiring/v1)
};
std::string_view to_string(WiringKind kind);

class Wiring {
 public:
  /// `planes` switches, every accelerator on each: an n-port crossbar each.
  /// Throws InputError unless 1 <= planes <= kMaxSwitches and n >= 1.
  static Wiring full(std::uint32_t accelerators, std::uint32_t planes);

  /// Rails of switches with `radix` ports: domains of `domain_size`
  /// consecutive accelerators (which must tile them), the one with local
  /// index r on rail r's switches, domains d grouped into pods d / radix.
  /// Switch (plane p, rail r, pod q) is number (q * domain_size + r) * planes
  /// + p: the switches of group (q, r), one per plane.
  /// Throws InputError naming ocs_radix, scaleup_size or switches.
  static Wiring rails(std::uint32_t accelerators, std::uint32_t domain_size, std::uint32_t planes,
                      std::uint32_t radix);

  /// Any wiring: `ports[k]` the accelerators switch k has a port for, at most
  /// `radix` each. Throws InputError naming the entry (switches[k].ports[i])
  /// for an accelerator out of range or on one switch twice, a switch with
  /// more ports than the radix, or no switch at all.
  static Wiring from_ports(std::uint32_t accelerators, std::uint32_t radix,
                           std::vector<std::vector<Rank>> ports);

  [[nodiscard]] WiringKind kind() const { return kind_; }
  [[nodiscard]] std::uint32_t accelerators() const { return accelerators_; }
  [[nodiscard]] std::uint32_t switches() const { return switches_; }
  /// Ports per switch: n for kFull, the given radix otherwise.
  [[nodiscard]] std::uint32_t radix() const { return radix_; }
  /// Links per accelerator in a grouped wiring (its switches, one per plane);
  /// kRails: domain size (rails) and pods, 1 otherwise.
  [[nodiscard]] std::uint32_t planes() const { return planes_; }
  [[nodiscard]] std::uint32_t domain_size() const { return domain_size_; }
  [[nodiscard]] std::uint32_t pods() const { return pods_; }

  /// Whether switch `k` has a port for `r` (both in range; else false).
  [[nodiscard]] bool attached(SwitchId k, Rank r) const;
  /// The switches `r` links to, ascending.
  [[nodiscard]] std::vector<SwitchId> switches_of(Rank r) const;
  /// The accelerators switch `k` has a port for, ascending.
  [[nodiscard]] std::vector<Rank> ports(SwitchId k) const;
  /// The switches both `a` and `b` link to, ascending: where a circuit can
  /// join them (empty: no circuit can; a == b: switches_of(a)).
  [[nodiscard]] std::vector<SwitchId> joining(Rank a, Rank b) const;
  /// Ports in use over all switches (the optics to buy).
  [[nodiscard]] std::uint64_t ports_used() const;

  /// Whether the wiring is grouped (above): always for kFull and kRails; for
  /// kExplicit when every accelerator is on the same number of switches and
  /// any two that share a switch share all of theirs.
  [[nodiscard]] bool grouped() const { return grouping_problem_.empty(); }
  /// Why a kExplicit wiring is not grouped, naming the accelerators and
  /// switches ("" when grouped).
  [[nodiscard]] const std::string& grouping_problem() const { return grouping_problem_; }
  /// Grouped wirings: the number of groups, the group of `r` (numbered by
  /// their lowest accelerator) and its switch on `plane` (< planes()).
  [[nodiscard]] std::uint32_t groups() const { return groups_; }
  [[nodiscard]] std::uint32_t group_of(Rank r) const;
  [[nodiscard]] SwitchId switch_of(std::uint32_t group, std::uint32_t plane) const;

  /// The group of `r` under rails of `domain_size` and `radix` (pod q, rail
  /// l: q * domain_size + l), for any number of accelerators.
  static std::uint32_t rails_group(Rank r, std::uint32_t domain_size, std::uint32_t radix) {
    const std::uint32_t domain = r.value() / domain_size;
    return domain / radix * domain_size + r.value() % domain_size;
  }

 private:
  // kRails: an accelerator's rail (local index) and pod; a switch's.
  [[nodiscard]] std::uint32_t rail_of(Rank r) const { return r.value() % domain_size_; }
  [[nodiscard]] std::uint32_t pod_of(Rank r) const { return r.value() / domain_size_ / radix_; }
  [[nodiscard]] std::uint32_t rail_of_switch(SwitchId k) const {
    return (k.value() / planes_) % domain_size_;
  }
  [[nodiscard]] std::uint32_t pod_of_switch(SwitchId k) const {
    return k.value() / planes_ / domain_size_;
  }
  // kExplicit: finds the groups, or says why there are none.
  void find_groups();

  WiringKind kind_ = WiringKind::kFull;
  std::uint32_t accelerators_ = 0;
  std::uint32_t switches_ = 0;
  std::uint32_t radix_ = 0;
  std::uint32_t planes_ = 0;
  std::uint32_t domain_size_ = 0;
  std::uint32_t pods_ = 0;
  std::uint32_t groups_ = 0;
  std::string grouping_problem_;
  // kExplicit: the ports by switch (compressed rows, ascending within a
  // row) and by accelerator (pairs sorted), both as large as the ports.
  std::vector<std::uint64_t> port_begin_;  ///< per switch, into port_rank_
  std::vector<Rank> port_rank_;
  std::vector<std::pair<Rank, SwitchId>> links_;
  // kExplicit, grouped: per accelerator its group; per group its switches.
  std::vector<std::uint32_t> group_of_;
  std::vector<SwitchId> group_switch_;
};

}  // namespace flux::core
