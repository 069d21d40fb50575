#pragma once
// The system of the paper's section 3: n accelerators, each with one link to
// each of s identical optical circuit switches. A switch holds circuits that
// share no endpoint; changing a circuit costs the reconfiguration delay tau.
#include <cstdint>
#include <tuple>

#include "flux/core/option.hpp"
#include "flux/core/time.hpp"

namespace flux::core {

/// The most switches a system may have. Every switch gets a timeline (and
/// the schedulers per-switch state), so the limit keeps that allocation
/// sane; schedule files are held to the same limit.
inline constexpr std::uint32_t kMaxSwitches = 1u << 20;

struct System {
  /// Number of identical OCS (s); every accelerator has one link to each.
  std::uint32_t switches = 2;
  /// Rate of one link, in Gb/s (10^9 bit/s). 800 Gb/s moves a byte in 10 ps.
  double link_gbps = 800.0;
  /// Reconfiguration delay tau, in picoseconds.
  TimePs reconfig_delay_ps = 10 * kPsPerUs;

  /// Throws InputError naming the field when a value is outside its bounds
  /// in kSystemOptions.
  void validate() const;

  /// Link rate in bit/s, rounded to an integer.
  [[nodiscard]] std::uint64_t link_bps() const;

  /// Transmission time p = bytes / link rate, in picoseconds, rounded up
  /// (exact for 800 Gb/s: 10 ps per byte). Throws InputError naming "bytes"
  /// when p is beyond kMaxTimePs.
  [[nodiscard]] TimePs transmission_ps(std::uint64_t bytes) const;
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
};

}  // namespace flux::core
