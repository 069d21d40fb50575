#pragma once
// The system of the paper's section 3: n accelerators, each with one link to
// each of s identical optical circuit switches. A switch holds circuits that
// share no endpoint; changing a circuit costs the reconfiguration delay tau.
#include <cstdint>

#include "flux/core/time.hpp"

namespace flux::core {

struct System {
  /// Most switches a system may have. Every switch gets a timeline (and the
  /// schedulers per-switch state), so the limit keeps that allocation sane;
  /// schedule files are held to the same limit.
  static constexpr std::uint32_t kMaxSwitches = 1u << 20;

  /// Number of identical OCS (s); every accelerator has one link to each.
  std::uint32_t switches = 2;
  /// Rate of one link, in Gb/s (10^9 bit/s). 800 Gb/s moves a byte in 10 ps.
  double link_gbps = 800.0;
  /// Reconfiguration delay tau, in picoseconds.
  TimePs reconfig_delay_ps = 10 * kPsPerUs;

  /// Throws InputError naming the field: zero or more than kMaxSwitches
  /// switches, a non-positive or non-finite rate, tau outside [0, kMaxTimePs].
  void validate() const;

  /// Link rate in bit/s, rounded to an integer.
  [[nodiscard]] std::uint64_t link_bps() const;

  /// Transmission time p = bytes / link rate, in picoseconds, rounded up
  /// (exact for 800 Gb/s: 10 ps per byte). Throws InputError naming "bytes"
  /// when p is beyond kMaxTimePs.
  [[nodiscard]] TimePs transmission_ps(std::uint64_t bytes) const;
};

}  // namespace flux::core
