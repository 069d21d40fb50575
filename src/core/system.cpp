#include "flux/core/system.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {
__extension__ typedef unsigned __int128 U128;  // GCC/Clang extension, silences -Wpedantic
}  // namespace

void System::validate() const {
  check_options(kSystemOptions, *this);
  if (link_bps() == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", link_gbps);
    throw InputError("", "link_gbps", buf, "below 1 bit/s");
  }
}

std::uint64_t System::link_bps() const {
  return static_cast<std::uint64_t>(std::llround(link_gbps * 1e9));
}

TimePs System::transmission_ps(std::uint64_t bytes) const {
  // p = ceil(bytes * 8 bit * 1e12 ps/s / rate), exact in 128-bit integers.
  const U128 num = static_cast<U128>(bytes) * 8u * 1'000'000'000'000u;
  const U128 bps = link_bps();
  const U128 p = (num + bps - 1) / bps;
  if (p > static_cast<U128>(kMaxTimePs)) {
    char what[64];
    std::snprintf(what, sizeof what, "transmission at %g Gb/s", link_gbps);
    throw_time_range("bytes", std::to_string(bytes), what,
                     static_cast<double>(num) / static_cast<double>(bps) / 1e12);
  }
  return static_cast<TimePs>(p);
}

}  // namespace flux::core
