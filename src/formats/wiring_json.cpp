// flux.wiring/v1 (docs/formats.md): read by the schema-driven streaming
// reader, checked by core::Wiring::from_ports, written by the JSON writer.
#include "flux/formats/wiring_json.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/io/json_reader.hpp"
#include "flux/io/json_writer.hpp"

namespace flux::formats {
namespace {

using io::Field;
using io::Kind;
using io::Node;

enum NodeId : int {
  kRoot,
  kFormat,
  kAccelerators,
  kRadix,
  kSource,
  kSwitches,
  kSwitch,
  kPorts,
  kPort,
  kNumNodes
};

constexpr std::array<Field, 5> kRootFields = {{{"format", kFormat, true},
                                               {"accelerators", kAccelerators, true},
                                               {"radix", kRadix, true},
                                               {"source", kSource, false},
                                               {"switches", kSwitches, true}}};
constexpr std::array<Field, 1> kSwitchFields = {{{"ports", kPorts, true}}};

constexpr std::array<Node, kNumNodes> kNodes = {{
    {Kind::kObject, kRootFields},    // kRoot
    {Kind::kString},                 // kFormat
    {Kind::kUint},                   // kAccelerators
    {Kind::kUint},                   // kRadix
    {Kind::kString},                 // kSource
    {Kind::kArray, {}, kSwitch},     // kSwitches
    {Kind::kObject, kSwitchFields},  // kSwitch
    {Kind::kArray, {}, kPort},       // kPorts
    {Kind::kUint},                   // kPort
}};

constexpr io::Schema kSchema{kNodes, kWiringFormat};

// Collects the document; the checks wait for the end (keys in any order).
class WiringHandler final : public io::Handler {
 public:
  void begin(int node, const io::Cursor& at) override {
    if (node != kSwitch) return;
    if (ports_.size() >= core::kMaxSwitches) {
      throw core::InputError("", at.path(), "", "more switches than a system may have");
    }
    ports_.emplace_back();
  }

  void leaf(int node, const io::Leaf& v, const io::Cursor& at) override {
    const auto u32 = [&](std::uint32_t& out) {
      if (v.u > 0xffff'ffffULL) {
        throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^32-1");
      }
      out = static_cast<std::uint32_t>(v.u);
    };
    switch (node) {
      case kAccelerators:
        u32(accelerators_);
        break;
      case kRadix:
        u32(radix_);
        break;
      case kPort: {
        std::uint32_t r = 0;
        u32(r);
        if (ports_.back().size() >= core::kMaxOcsRadix) {
          throw core::InputError("", at.path(), std::string(v.text),
                                 "more ports than any switch may have");
        }
        ports_.back().emplace_back(r);
        break;
      }
      default:
        break;
    }
  }

  core::Wiring finish() {
    return core::Wiring::from_ports(accelerators_, radix_, std::move(ports_));
  }

 private:
  std::uint32_t accelerators_ = 0;
  std::uint32_t radix_ = 0;
  std::vector<std::vector<core::Rank>> ports_;
};

}  // namespace

core::Wiring read_wiring(const std::filesystem::path& file) {
  WiringHandler handler;
  io::read_json_file(file, kSchema, handler);
  try {
    return handler.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(file.string());
  }
}

core::Wiring parse_wiring(std::string_view text, std::string_view source) {
  WiringHandler handler;
  io::read_json(text, source, kSchema, handler);
  try {
    return handler.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(std::string(source));
  }
}

void write_wiring(std::ostream& out, const core::Wiring& w) {
  io::JsonWriter j(out, io::JsonWriter::Style::kPretty);
  j.begin_object();
  j.member("format", kWiringFormat);
  j.member("accelerators", w.accelerators());
  j.member("radix", w.radix());
  j.member("source", std::string("flux: ") + std::string(core::to_string(w.kind())) + " wiring");
  j.key("switches").begin_array();
  for (std::uint32_t k = 0; k < w.switches(); ++k) {
    j.begin_object();
    j.key("ports").begin_inline_array();
    for (core::Rank r : w.ports(core::SwitchId{k})) j.value(r.value());
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.finish();
}

}  // namespace flux::formats
