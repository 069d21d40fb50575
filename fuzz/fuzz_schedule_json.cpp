// libFuzzer target: the schedule JSON reader (flux.schedule/v1, v2) and the
// independent validator behind it. Every input must either be read or be
// rejected with core::InputError; a schedule that was read must be written
// and read back to the same file, and the validator must judge it against a
// fixed workload (four sends on three accelerators) with a verdict, never a
// crash: accepted, or schedule::ScheduleError.
#include <cstdint>
#include <string_view>

#include "flux/core/error.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/schedule/validator.hpp"
#include "flux/workload/builder.hpp"
#include "round_trip.hpp"

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
  const auto s = flux::fuzz::read_and_round_trip(
      std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view text, std::string_view source) {
        return flux::formats::parse_schedule(text, source);
      },
      [](std::ostream& out, const flux::schedule::Schedule& sched) {
        flux::formats::write_schedule(out, sched);
      });
  if (!s) return 0;
  try {
    flux::schedule::check_schedule(workload(), *s);
  } catch (const flux::schedule::ScheduleError&) {
  } catch (const flux::core::InputError&) {
  }
  return 0;
}
