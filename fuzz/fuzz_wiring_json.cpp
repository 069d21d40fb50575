// libFuzzer target: the wiring reader (flux.wiring/v1) and core::Wiring's
// queries. Every input must either be read or be rejected with
// core::InputError; a wiring that was read must be written and read back to
// the same text, hold at most its radix on every switch, and answer
// switches_of, attached and joining consistently with its ports.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "flux/formats/wiring_json.hpp"
#include "round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using flux::core::Rank;
  using flux::core::SwitchId;
  const auto w = flux::fuzz::read_and_round_trip(
      std::string_view(reinterpret_cast<const char*>(data), size),
      [](std::string_view text, std::string_view source) {
        return flux::formats::parse_wiring(text, source);
      },
      [](std::ostream& out, const flux::core::Wiring& x) { flux::formats::write_wiring(out, x); });
  if (!w) return 0;
  std::uint64_t ports = 0;
  for (std::uint32_t k = 0; k < w->switches(); ++k) {
    const std::vector<Rank> on = w->ports(SwitchId{k});
    if (on.size() > w->radix() || !std::is_sorted(on.begin(), on.end())) std::abort();
    for (Rank r : on) {
      if (!w->attached(SwitchId{k}, r)) std::abort();
    }
    ports += on.size();
  }
  if (ports != w->ports_used()) std::abort();
  // A few pairs: joining(a, b) is exactly the switches both attach to.
  const std::uint32_t n = std::min<std::uint32_t>(w->accelerators(), 16);
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      const std::vector<SwitchId> both = w->joining(Rank{a}, Rank{b});
      std::size_t count = 0;
      for (std::uint32_t k = 0; k < w->switches() && k < 4096; ++k) {
        const bool joins = w->attached(SwitchId{k}, Rank{a}) && w->attached(SwitchId{k}, Rank{b});
        if (joins != std::binary_search(both.begin(), both.end(), SwitchId{k})) std::abort();
        count += joins ? 1 : 0;
      }
      if (w->switches() <= 4096 && count != both.size()) std::abort();
    }
  }
  return 0;
}
