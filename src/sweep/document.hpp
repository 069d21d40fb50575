#pragma once
// A sweep file's text as one JSON tree (src/sweep/document.cpp), what
// SweepSpec::parse checks key by key. Internal to src/sweep.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace flux::sweep::detail {

using Json = nlohmann::ordered_json;

/// TOML or JSON `text` as JSON; for TOML, `lines` gets the line of every
/// value by its path ("axes.tp[1]"). Throws core::InputError naming
/// `source`: over kMaxSweepFileBytes, nested deeper than kMaxSweepDepth, a
/// duplicate key, not valid TOML or JSON (one line each).
/// Refuses `text` over kMaxSweepFileBytes (core::InputError naming `source`).
void check_size(std::string_view text, const std::string& source);

Json read_document(std::string_view text, const std::string& source, bool json,
                   std::map<std::string, int>& lines);

}  // namespace flux::sweep::detail
