#include "cli_common.hpp"

#include <cstdio>

#include "flux/core/error.hpp"

namespace flux::cli {

void SystemOptions::add_to(CLI::App& app, bool with_switches_and_tau) {
  if (with_switches_and_tau) {
    app.add_option("--switches", switches, "number of optical circuit switches (s)")
        ->capture_default_str();
    app.add_option("--tau", tau, "reconfiguration delay with a unit, e.g. 10us, 1ms")
        ->capture_default_str();
  }
  app.add_option("--link-gbps", link_gbps, "rate of one link in Gb/s")->capture_default_str();
}

core::System SystemOptions::to_system() const {
  core::System s;
  s.switches = switches;
  s.link_gbps = link_gbps;
  s.reconfig_delay_ps = core::parse_duration(tau, "--tau");
  try {
    s.validate();
  } catch (const core::InputError& e) {
    throw as_option_error(e);
  }
  return s;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", b, units[u]);
  return buf;
}

core::InputError as_option_error(const core::InputError& e) {
  std::string field = e.field();
  for (char& ch : field) ch = ch == '_' ? '-' : ch;
  return core::InputError(e.source(), "--" + field, e.value(), e.problem());
}

}  // namespace flux::cli
