#include "flux/core/system.hpp"

#include <algorithm>
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
  return f == Fabric::kScaleUp ? "scaleup" : f == Fabric::kPacket ? "packet" : "ocs";
}

std::string_view to_string(RoutePolicy r) {
  switch (r) {
    case RoutePolicy::kForward:
      return "forward";
    case RoutePolicy::kPacket:
      return "packet";
    case RoutePolicy::kForwardRx:
      return "forward-rx";
    case RoutePolicy::kAuto:
      return "auto";
  }
  return "forward";
}

RoutePolicy route_from_string(std::string_view s) {
  for (const RoutePolicy r :
       {RoutePolicy::kForward, RoutePolicy::kForwardRx, RoutePolicy::kPacket, RoutePolicy::kAuto}) {
    if (s == to_string(r)) return r;
  }
  throw InputError("", "route", std::string(s), "must be forward, forward-rx, packet or auto");
}

std::string_view to_string(Duplex d) {
  return d == Duplex::kFull ? "full" : "half";
}

Duplex duplex_from_string(std::string_view s) {
  if (s == "half") return Duplex::kHalf;
  if (s == "full") return Duplex::kFull;
  throw InputError("", "duplex", std::string(s), "must be half or full");
}

WiringSpec wiring_from_string(std::string_view s) {
  if (s == "full") return {};
  if (s == "rails") return {WiringKind::kRails, ""};
  if (s.starts_with("file:") && s.size() > 5) {
    return {WiringKind::kExplicit, std::string(s.substr(5))};
  }
  throw InputError("", "wiring", std::string(s), "must be full, rails or file:PATH");
}

std::string to_string(const WiringSpec& w) {
  if (w.kind == WiringKind::kExplicit) return "file:" + w.file;
  return std::string(to_string(w.kind));
}

void System::validate() const {
  check_options(kSystemOptions, *this);
  check_rate(link_gbps, "link_gbps");
  check_rate(scaleup_gbps, "scaleup_gbps");
  if (packet_gbps != 0) check_rate(packet_gbps, "packet_gbps");
  if (route == RoutePolicy::kPacket && packet_gbps == 0) {
    throw InputError("", "route", "packet", "needs a packet fabric (--packet-gbps)");
  }
  if (ocs_radix == 1) {
    throw InputError("", "ocs_radix", "1", "a switch needs at least 2 ports (0: no limit)");
  }
  if (wiring.kind == WiringKind::kExplicit && !wiring_ports) {
    throw InputError("", "wiring", to_string(wiring), "the wiring file has not been read");
  }
}

void System::validate_for(std::uint64_t accelerators) const {
  validate();
  if (accelerators % scaleup_size != 0) {
    throw InputError("", "scaleup_size", std::to_string(scaleup_size),
                     "must divide the " + std::to_string(accelerators) +
                         " accelerators into whole scale-up domains");
  }
  if (accelerators > 0xffffffffu) {
    throw InputError("", "accelerators", std::to_string(accelerators), "more than 2^32 - 1");
  }
  const auto n = static_cast<std::uint32_t>(accelerators);
  switch (wiring.kind) {
    case WiringKind::kFull:
      if (ocs_radix != 0 && accelerators > ocs_radix) {
        throw InputError("", "ocs_radix", std::to_string(ocs_radix),
                         "a full wiring needs a port per accelerator on every switch (" +
                             std::to_string(accelerators) + "): use --wiring rails");
      }
      return;
    case WiringKind::kRails:
      if (ocs_radix == 0) {
        throw InputError("", "ocs_radix", "0", "rails need the switches' radix (--ocs-radix)");
      }
      (void)Wiring::rails(n, scaleup_size, switches, ocs_radix);  // the counts fit
      return;
    case WiringKind::kExplicit: {
      const Wiring& w = *wiring_ports;
      const std::string file = to_string(wiring);
      if (w.accelerators() != accelerators) {
        throw InputError("", "wiring", file,
                         "wires " + std::to_string(w.accelerators()) +
                             " accelerators, the job has " + std::to_string(accelerators));
      }
      if (!w.grouped()) {
        throw InputError("", "wiring", file,
                         w.grouping_problem() +
                             ": Flux schedules wirings whose switches join groups of accelerators "
                             "alike on every plane (docs/model.md, \"Wiring\")");
      }
      if (w.planes() != switches) {
        throw InputError("", "switches", std::to_string(switches),
                         "the wiring file links every accelerator to " +
                             std::to_string(w.planes()) + " switches (one per plane)");
      }
      if (ocs_radix != 0 && w.radix() > ocs_radix) {
        throw InputError("", "ocs_radix", std::to_string(ocs_radix),
                         "below the wiring file's radix, " + std::to_string(w.radix()));
      }
      return;
    }
  }
}

SwitchId System::ocs_of(std::uint32_t plane, Rank r) const {
  switch (wiring.kind) {
    case WiringKind::kFull:
      return SwitchId{plane};
    case WiringKind::kRails:
      return SwitchId{Wiring::rails_group(r, scaleup_size, ocs_radix) * switches + plane};
    case WiringKind::kExplicit:
      return wiring_ports->switch_of(wiring_ports->group_of(r), plane);
  }
  return SwitchId{};
}

std::vector<std::vector<Rank>> System::ocs_groups(std::uint32_t accelerators) const {
  std::vector<std::vector<Rank>> groups;
  for (std::uint32_t r = 0; r < accelerators; ++r) {
    const std::uint32_t g = ocs_group(Rank{r});
    if (g >= groups.size()) groups.resize(g + 1);
    groups[g].emplace_back(r);
  }
  std::erase_if(groups, [](const std::vector<Rank>& g) { return g.empty(); });
  return groups;
}

std::string System::wiring_text(std::uint64_t accelerators) const {
  if (wiring.kind == WiringKind::kFull || accelerators > 0xffffffffu) return "";
  const Wiring w = wiring_for(static_cast<std::uint32_t>(accelerators));
  const std::uint64_t groups = w.switches() / std::max<std::uint32_t>(w.planes(), 1);
  std::string text = to_string(wiring) + ", " + std::to_string(w.switches()) + " OCS of " +
                     std::to_string(w.radix()) + " ports (" + std::to_string(w.planes()) +
                     " planes x " + std::to_string(groups) + " groups), " +
                     std::to_string(w.ports_used()) + " ports used";
  if (has_packet()) {
    using Show = NumberOption<System, double>;
    text += "; packet fabric " + Show::show_number(packet_gbps) + " Gb/s";
    if (packet_latency_ps != 0) text += ", " + format_duration(packet_latency_ps);
    if (packet_oversubscription != 1) {
      text += ", " + Show::show_number(packet_oversubscription) + ":1 between pods";
    }
    text += route == RoutePolicy::kPacket ? ", every route" : "";
  }
  if (route == RoutePolicy::kForwardRx) text += "; forwarded at the receiver";
  if (route == RoutePolicy::kAuto) text += "; routes chosen per send";
  return text;
}

Wiring System::wiring_for(std::uint32_t accelerators) const {
  switch (wiring.kind) {
    case WiringKind::kFull:
      return Wiring::full(accelerators, switches);
    case WiringKind::kRails:
      return Wiring::rails(accelerators, scaleup_size, switches, ocs_radix);
    case WiringKind::kExplicit:
      break;
  }
  return *wiring_ports;
}

bool System::forwardable(Rank src, Rank dst) const {
  if (!has_scaleup()) return false;
  if (wiring.kind == WiringKind::kFull) return true;
  if (wiring.kind == WiringKind::kRails) {  // the domain-mate on dst's rail, if in dst's pod
    return src.value() / scaleup_size / ocs_radix == dst.value() / scaleup_size / ocs_radix;
  }
  const std::uint32_t first = src.value() / scaleup_size * scaleup_size;
  for (std::uint32_t r = first; r < first + scaleup_size; ++r) {
    if (joined(Rank(r), dst)) return true;
  }
  return false;
}

std::uint32_t System::pod_of(Rank r) const {
  switch (wiring.kind) {
    case WiringKind::kFull:
      return 0;
    case WiringKind::kRails:
      return r.value() / scaleup_size / ocs_radix;
    case WiringKind::kExplicit:
      return wiring_ports->group_of(r);
  }
  return 0;
}

std::uint64_t System::link_bps() const {
  return bits_per_s(link_gbps);
}

TimePs System::transmission_ps(std::uint64_t bytes) const {
  return transmission(bytes, link_gbps);
}

TimePs System::transmission_ps(std::uint64_t bytes, Rank src, Rank dst) const {
  switch (fabric(src, dst)) {
    case Fabric::kOcs:
      return transmission(bytes, link_gbps);
    case Fabric::kScaleUp:
      return transmission(bytes, scaleup_gbps);
    case Fabric::kPacket:
      break;
  }
  const double gbps =
      pod_of(src) == pod_of(dst) ? packet_gbps : packet_gbps / packet_oversubscription;
  check_rate(gbps, "packet_gbps");
  return add_time(packet_latency_ps, transmission(bytes, gbps), "bytes");
}

}  // namespace flux::core
