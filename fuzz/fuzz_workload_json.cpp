// libFuzzer target: the workload JSON reader (flux.workload/v1). Every input
// must either be read or be rejected with core::InputError; a workload that
// was read must be written, and read back to the same file.
#include <cstdint>
#include <string_view>

#include "flux/formats/workload_json.hpp"
#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flux::fuzz::read_and_round_trip(
      std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view text, std::string_view source) {
        return flux::formats::parse_workload(text, source);
      },
      [](std::ostream& out, const flux::core::Workload& w) {
        flux::formats::write_workload(out, w);
      });
  return 0;
}
