#include "flux/core/system.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {
__extension__ typedef unsigned __int128 U128;  // GCC/Clang extension, silences -Wpedantic

std::uint64_t bits_per_s(double gbps) {
  return static_cast<std::uint64_t>(std::llround(gbps * 1e9));
}

void check_rate(double gbps, const char* field) {
  if (bits_per_s(gbps) == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", gbps);
    throw InputError("", field, buf, "below 1 bit/s");
  }
}

// p = ceil(bytes * 8 bit * 1e12 ps/s / rate), exact in 128-bit integers.
TimePs transmission(std::uint64_t bytes, double gbps) {
  const U128 num = static_cast<U128>(bytes) * 8u * 1'000'000'000'000u;
  const U128 bps = bits_per_s(gbps);
  const U128 p = (num + bps - 1) / bps;
  if (p > static_cast<U128>(kMaxTimePs)) {
    char what[64];
    std::snprintf(what, sizeof what, "transmission at %g Gb/s", gbps);
    throw_time_range("bytes", std::to_string(bytes), what,
                     static_cast<double>(num) / static_cast<double>(bps) / 1e12);
  }
  return static_cast<TimePs>(p);
}

}  // namespace

std::string_view to_string(Fabric f) {
  return f == Fabric::kScaleUp ? "scaleup" : "ocs";
}

std::string_view to_string(Duplex d) {
  return d == Duplex::kFull ? "full" : "half";
}

Duplex duplex_from_string(std::string_view s) {
  if (s == "half") return Duplex::kHalf;
  if (s == "full") return Duplex::kFull;
  throw InputError("", "duplex", std::string(s), "must be half or full");
}

void System::validate() const {
  check_options(kSystemOptions, *this);
  check_rate(link_gbps, "link_gbps");
  check_rate(scaleup_gbps, "scaleup_gbps");
}

void System::validate_for(std::uint64_t accelerators) const {
  validate();
  if (accelerators % scaleup_size != 0) {
    throw InputError("", "scaleup_size", std::to_string(scaleup_size),
                     "must divide the " + std::to_string(accelerators) +
                         " accelerators into whole scale-up domains");
  }
}

std::uint64_t System::link_bps() const {
  return bits_per_s(link_gbps);
}

TimePs System::transmission_ps(std::uint64_t bytes) const {
  return transmission(bytes, link_gbps);
}

TimePs System::transmission_ps(std::uint64_t bytes, Fabric fabric) const {
  return transmission(bytes, fabric == Fabric::kScaleUp ? scaleup_gbps : link_gbps);
}

}  // namespace flux::core
