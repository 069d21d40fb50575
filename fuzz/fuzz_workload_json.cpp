// libFuzzer target: the workload JSON reader (flux.workload/v1). Every input
// must either be read or be rejected with core::InputError; a workload that
// was read must be written, and read back to the same file.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>

#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<flux::core::Workload> w;
  try {
    w.emplace(flux::formats::parse_workload(text, "fuzz.json"));
  } catch (const flux::core::InputError&) {
    return 0;
  }
  std::ostringstream first, second;
  flux::formats::write_workload(first, *w);
  flux::formats::write_workload(second, flux::formats::parse_workload(first.str(), "again.json"));
  if (first.str() != second.str()) std::abort();
  return 0;
}
