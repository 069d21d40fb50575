// libFuzzer target: the schedule JSON reader (flux.schedule/v1) and the
// independent validator behind it. Every input must either be read or be
// rejected with core::InputError; a schedule that was read must be written
// and read back to the same file, and the validator must judge it against a
// fixed workload (four sends on three accelerators) with a verdict, never a
// crash: accepted, or schedule::ScheduleError.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string_view>

#include "flux/core/error.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/builder.hpp"

namespace {

const flux::core::Workload& workload() {
  static const flux::core::Workload w = [] {
    using flux::core::Rank;
    flux::workload::WorkloadBuilder b("fuzz", 3);
    const auto a = b.add_send(Rank(0), Rank(1), 1000);
    const auto c = b.add_send(Rank(1), Rank(2), 2000);
    b.add_send(Rank(2), Rank(0), 500);
    const auto d = b.add_send(Rank(0), Rank(1), 1000);
    b.add_dep(a, c, 1'000'000);
    b.add_dep(c, d, 0);
    return std::move(b).build();
  }();
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<flux::schedule::Schedule> s;
  try {
    s.emplace(flux::formats::parse_schedule(text, "fuzz.json"));
  } catch (const flux::core::InputError&) {
    return 0;
  }
  std::ostringstream first, second;
  flux::formats::write_schedule(first, *s);
  flux::formats::write_schedule(second, flux::formats::parse_schedule(first.str(), "again.json"));
  if (first.str() != second.str()) std::abort();
  try {
    flux::schedule::check_schedule(workload(), *s);
  } catch (const flux::schedule::ScheduleError&) {
  } catch (const flux::core::InputError&) {
  }
  return 0;
}
