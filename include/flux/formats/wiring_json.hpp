#pragma once
// flux.wiring/v1 (docs/formats.md): any wiring of the optical fabric, switch
// by switch: the accelerators each switch has a port for.
//
//   {"format": "flux.wiring/v1", "accelerators": 8, "radix": 4,
//    "switches": [{"ports": [0, 2, 4, 6]}, {"ports": [1, 3, 5, 7]}]}
//
// Switch k is the k-th entry. Checked as core::Wiring::from_ports checks it,
// errors naming the entry (switches[1].ports[3]) and the file.
#include <filesystem>
#include <ostream>
#include <string_view>

#include "flux/core/wiring.hpp"

namespace flux::formats {

inline constexpr std::string_view kWiringFormat = "flux.wiring/v1";

/// Reads a wiring file (plain or gzip); throws core::InputError naming the
/// file and the entry.
core::Wiring read_wiring(const std::filesystem::path& file);
/// Reads a wiring from text; `source` names it in errors.
core::Wiring parse_wiring(std::string_view text, std::string_view source);
/// Writes any wiring (rails and full ones switch by switch, as files hold
/// them); reading it back gives the same switches and ports.
void write_wiring(std::ostream& out, const core::Wiring& w);

}  // namespace flux::formats
