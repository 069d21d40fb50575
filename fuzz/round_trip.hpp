#pragma once
// The property the JSON fuzz targets share: an input is either read or
// rejected with core::InputError; what was read is written, read back and
// written again to the same text (abort otherwise, which libFuzzer reports).
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>

#include "flux/core/error.hpp"

namespace flux::fuzz {

/// `parse(text, source)` and `write(stream, value)`: the reader and writer
/// of one format. Returns the value read, or nothing when it was rejected.
template <class Parse, class Write>
auto read_and_round_trip(std::string_view text, Parse parse, Write write)
    -> std::optional<decltype(parse(text, text))> {
  std::optional<decltype(parse(text, text))> value;
  try {
    value.emplace(parse(text, "fuzz.json"));
  } catch (const core::InputError&) {
    return std::nullopt;
  }
  std::ostringstream first, second;
  write(first, *value);
  write(second, parse(first.str(), "again.json"));
  if (first.str() != second.str()) std::abort();
  return value;
}

}  // namespace flux::fuzz
