#include "flux/core/format.hpp"

#include <cstdio>

namespace flux::core {

std::string format_bytes(double b, int decimals) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) {
    b /= 1024;
    ++u;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", u == 0 ? 0 : decimals, b, units[u]);
  return buf;
}

}  // namespace flux::core
