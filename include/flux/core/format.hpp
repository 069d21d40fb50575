#pragma once
// Human-readable quantities for terminals and reports (files keep exact
// numbers). Durations: core::format_duration in time.hpp.
#include <string>

namespace flux::core {

/// Bytes with a binary unit and `decimals` digits after the point ("16.00 MiB";
/// whole bytes without decimals: "512 B").
std::string format_bytes(double bytes, int decimals = 2);

}  // namespace flux::core
