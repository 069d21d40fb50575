// flux.schedule/v2 (and v1): streaming reader (schema-driven SAX, no DOM) and
// writer.
#include "flux/formats/schedule_json.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/io/json_reader.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/io/save.hpp"

namespace flux::formats {
namespace {

using io::Field;
using io::Kind;
using io::Node;
using schedule::CircuitInterval;

constexpr std::uint64_t kMaxId32 = 0xffff'fffeULL;  // strong ids reserve 2^32-1

enum NodeId : int {
  kRoot,
  kFormat,
  kScheduler,
  kWorkload,
  kSystem,
  kSwitches,
  kLinkGbps,
  kReconfig,
  kScaleupSize,
  kScaleupGbps,
  kDuplex,
  kWiring,
  kOcsRadix,
  kWiringSwitches,
  kWiringSwitch,
  kWiringPort,
  kPacketGbps,
  kPacketLatency,
  kPacketOversubscription,
  kRoute,
  kMakespan,
  kStatus,
  kLowerBound,
  kGap,
  kSolveTime,
  kCircuitModel,
  kRouting,
  kPeriod,
  kTasks,
  kTask,
  kTaskId,
  kTaskSwitch,
  kTaskFabric,
  kStart,
  kCircuits,
  kCircuit,
  kCircuitSwitch,
  kIntervals,
  kInterval,
  kA,
  kB,
  kSetup,
  kUp,
  kDown,
  kChoice,
  kChoiceName,
  kRoutes,
  kRouteName,
  kNumNodes
};

constexpr std::array<Field, 16> kRootFields = {{{"format", kFormat, true},
                                                {"scheduler", kScheduler, true},
                                                {"workload", kWorkload, true},
                                                {"system", kSystem, true},
                                                {"makespan_s", kMakespan, true},
                                                {"status", kStatus, true},
                                                {"lower_bound_s", kLowerBound, false},
                                                {"gap", kGap, false},
                                                {"solve_time_s", kSolveTime, false},
                                                {"circuit_model", kCircuitModel, false},
                                                {"routing", kRouting, false},
                                                {"period_s", kPeriod, false},
                                                {"choice", kChoice, false, 3},
                                                {"routes", kRoutes, false, 3},
                                                {"tasks", kTasks, true},
                                                {"circuits", kCircuits, true}}};
// Versions (io::Field::since): 0 = flux.schedule/v1, 1 = v2 (scale-up),
// 2 = v3 (wiring), 3 = v4 (choice).
constexpr std::uint8_t kV2 = 1;
constexpr std::uint8_t kV3 = 2;
constexpr std::array<Field, 13> kSystemFields = {
    {{"switches", kSwitches, true},
     {"link_gbps", kLinkGbps, true},
     {"reconfig_delay_s", kReconfig, true},
     {"scaleup_size", kScaleupSize, false, kV2},
     {"scaleup_gbps", kScaleupGbps, false, kV2},
     {"duplex", kDuplex, false, kV2},
     {"wiring", kWiring, false, kV3},
     {"ocs_radix", kOcsRadix, false, kV3},
     {"wiring_switches", kWiringSwitches, false, kV3},
     {"packet_gbps", kPacketGbps, false, kV3},
     {"packet_latency_s", kPacketLatency, false, kV3},
     {"packet_oversubscription", kPacketOversubscription, false, kV3},
     {"route", kRoute, false, kV3}}};
// "switch" is required unless "fabric" is "scaleup" (checked at the task's end).
constexpr std::array<Field, 4> kTaskFields = {{{"id", kTaskId, true},
                                               {"switch", kTaskSwitch, false},
                                               {"fabric", kTaskFabric, false, kV2},
                                               {"start_s", kStart, true}}};
constexpr std::array<Field, 2> kCircuitFields = {
    {{"switch", kCircuitSwitch, true}, {"intervals", kIntervals, true}}};
constexpr std::array<Field, 5> kIntervalFields = {{{"a", kA, true},
                                                   {"b", kB, true},
                                                   {"setup_s", kSetup, true},
                                                   {"up_s", kUp, true},
                                                   {"down_s", kDown, true}}};

constexpr std::array<Node, kNumNodes> kNodes = {{
    {Kind::kObject, kRootFields},       // kRoot
    {Kind::kString},                    // kFormat
    {Kind::kString},                    // kScheduler
    {Kind::kString},                    // kWorkload
    {Kind::kObject, kSystemFields},     // kSystem
    {Kind::kUint},                      // kSwitches
    {Kind::kNumber},                    // kLinkGbps
    {Kind::kTime},                      // kReconfig
    {Kind::kUint},                      // kScaleupSize
    {Kind::kNumber},                    // kScaleupGbps
    {Kind::kString},                    // kDuplex
    {Kind::kString},                    // kWiring
    {Kind::kUint},                      // kOcsRadix
    {Kind::kArray, {}, kWiringSwitch},  // kWiringSwitches
    {Kind::kArray, {}, kWiringPort},    // kWiringSwitch
    {Kind::kUint},                      // kWiringPort
    {Kind::kNumber},                    // kPacketGbps
    {Kind::kTime},                      // kPacketLatency
    {Kind::kNumber},                    // kPacketOversubscription
    {Kind::kString},                    // kRoute
    {Kind::kTime},                      // kMakespan
    {Kind::kString},                    // kStatus
    {Kind::kTime},                      // kLowerBound
    {Kind::kNumber},                    // kGap
    {Kind::kNonNegative},               // kSolveTime
    {Kind::kString},                    // kCircuitModel
    {Kind::kString},                    // kRouting
    {Kind::kTime},                      // kPeriod: > 0, checked by the handler
    {Kind::kArray, {}, kTask},          // kTasks
    {Kind::kObject, kTaskFields},       // kTask
    {Kind::kUint},                      // kTaskId
    {Kind::kUint},                      // kTaskSwitch
    {Kind::kString},                    // kTaskFabric
    {Kind::kTime},                      // kStart
    {Kind::kArray, {}, kCircuit},       // kCircuits
    {Kind::kObject, kCircuitFields},    // kCircuit
    {Kind::kUint},                      // kCircuitSwitch
    {Kind::kArray, {}, kInterval},      // kIntervals
    {Kind::kObject, kIntervalFields},   // kInterval
    {Kind::kUint},                      // kA
    {Kind::kUint},                      // kB
    {Kind::kSignedTime},                // kSetup: up - tau, before 0 for a preset circuit
    {Kind::kTime},                      // kUp
    {Kind::kTime},                      // kDown
    {Kind::kArray, {}, kChoiceName},    // kChoice
    {Kind::kString},                    // kChoiceName
    {Kind::kArray, {}, kRouteName},     // kRoutes
    {Kind::kString},                    // kRouteName
}};

constexpr std::array<std::string_view, 3> kOlderFormats = {kScheduleFormatV1, kScheduleFormatV2,
                                                           kScheduleFormatV3};
constexpr io::Schema kSchema{kNodes, kScheduleFormat, kOlderFormats};

std::string seconds_text(core::TimePs ps) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, core::ps_to_seconds(ps));
  return std::string(buf, r.ptr);
}

std::uint32_t id32(const io::Leaf& v, const io::Cursor& at) {
  if (v.u > kMaxId32) {
    throw core::InputError("", at.path(), std::string(v.text), "out of range (at most 2^32-2)");
  }
  return static_cast<std::uint32_t>(v.u);
}

// A name read through `from_string` (which throws core::InputError on an
// unknown one), errors re-attributed to the field's path and quoted value.
template <class F>
auto enum_value(F from_string, const io::Leaf& v, const io::Cursor& at) {
  try {
    return from_string(v.text);
  } catch (const core::InputError& e) {
    throw core::InputError("", at.path(), io::quoted(v.text), e.problem());
  }
}

// One "circuits" entry as read, placed into the timelines at the end.
struct CircuitEntry {
  std::uint32_t sw = 0;
  std::vector<CircuitInterval> intervals;
};

class ScheduleHandler final : public io::Handler {
 public:
  void begin(int node, const io::Cursor& /*at*/) override {
    if (node == kTask) {
      task_ = schedule::TaskAssignment{};
      task_has_switch_ = false;
      task_fabric_ = core::Fabric::kOcs;
    }
    if (node == kCircuit) circuit_ = CircuitEntry{};
    if (node == kWiringSwitch) wiring_ports_.emplace_back();
    if (node == kInterval) interval_ = CircuitInterval{};
  }

  void end(int node, const io::Cursor& at) override {
    switch (node) {
      case kSystem:
        build_wiring(at.path());
        validate_system();
        break;
      case kTask:
        end_task(at.path());
        break;
      case kInterval:
        check_interval(at.path());
        break;
      case kCircuit: {
        if (!circuits_.empty() && circuit_.sw <= circuits_.back().sw) {
          throw core::InputError("", at.path() + ".switch", std::to_string(circuit_.sw),
                                 "circuits entries must list switches in increasing order "
                                 "(previous: " +
                                     std::to_string(circuits_.back().sw) + ")");
        }
        circuits_.push_back(std::move(circuit_));
        break;
      }
      default:
        break;
    }
  }

  void leaf(int node, const io::Leaf& v, const io::Cursor& at) override {
    switch (node) {
      case kScheduler:
        s_.scheduler = v.text;
        break;
      case kWorkload:
        s_.workload = v.text;
        break;
      case kSwitches:
        if (v.u > core::kMaxSwitches) {
          throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^20");
        }
        s_.system.switches = static_cast<std::uint32_t>(v.u);
        break;
      case kLinkGbps:
        s_.system.link_gbps = v.d;
        break;
      case kReconfig:
        s_.system.reconfig_delay_ps = v.ps;
        break;
      case kMakespan:
        s_.makespan_ps = v.ps;
        break;
      case kStatus:
        s_.status = enum_value(schedule::solve_status_from_string, v, at);
        break;
      case kLowerBound:
        s_.lower_bound_ps = v.ps;
        break;
      case kGap:
        s_.gap = v.d;
        break;
      case kSolveTime:
        s_.solve_time_s = v.d;
        break;
      case kCircuitModel:
        s_.circuit_model = enum_value(schedule::circuit_model_from_string, v, at);
        break;
      case kRouting:
        s_.routing = enum_value(schedule::routing_from_string, v, at);
        break;
      case kPeriod:
        if (v.ps <= 0) {
          throw core::InputError("", at.path(), std::string(v.text),
                                 "must be positive (at least 1 ps)");
        }
        s_.period_ps = v.ps;
        break;
      case kTaskId:
        task_.task_id = v.u;
        break;
      case kTaskSwitch:
        // Above every switch count (2^20): out of range whatever the
        // system, and never mistaken for the scale-up fabric's number.
        if (v.u >= core::kMaxSwitches) {
          throw core::InputError("", at.path(), std::string(v.text),
                                 "out of range: a system has at most 2^20 switches");
        }
        task_.sw = core::SwitchId(static_cast<std::uint32_t>(v.u));
        task_has_switch_ = true;
        break;
      case kTaskFabric:
        task_fabric_ = fabric_from_string(v, at);
        break;
      case kScaleupSize:
        if (v.u > std::numeric_limits<std::uint32_t>::max()) {
          throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^20");
        }
        s_.system.scaleup_size = static_cast<std::uint32_t>(v.u);
        break;
      case kScaleupGbps:
        s_.system.scaleup_gbps = v.d;
        break;
      case kDuplex:
        if (v.text == "half") {
          s_.system.duplex = core::Duplex::kHalf;
        } else if (v.text == "full") {
          s_.system.duplex = core::Duplex::kFull;
        } else {
          throw core::InputError("", at.path(), io::quoted(v.text),
                                 "unknown duplex (one of: half, full)");
        }
        break;
      case kWiring:
        s_.system.wiring = enum_value(core::wiring_from_string, v, at);
        break;
      case kOcsRadix:
        if (v.u > core::kMaxOcsRadix) {
          throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^20");
        }
        s_.system.ocs_radix = static_cast<std::uint32_t>(v.u);
        break;
      case kWiringPort:
        wiring_ports_.back().emplace_back(id32(v, at));
        break;
      case kPacketGbps:
        s_.system.packet_gbps = v.d;
        break;
      case kPacketLatency:
        s_.system.packet_latency_ps = v.ps;
        break;
      case kPacketOversubscription:
        s_.system.packet_oversubscription = v.d;
        break;
      case kRoute:
        s_.system.route = enum_value(core::route_from_string, v, at);
        break;
      case kChoiceName:
        s_.choice.emplace_back(v.text);
        break;
      case kRouteName:
        s_.routes.emplace_back(v.text);
        break;
      case kStart:
        task_.start_ps = v.ps;
        break;
      case kCircuitSwitch:
        circuit_.sw = id32(v, at);
        break;
      case kA:
        interval_.a = core::Rank(id32(v, at));
        break;
      case kB:
        interval_.b = core::Rank(id32(v, at));
        break;
      case kSetup:
        interval_.setup_ps = v.ps;
        break;
      case kUp:
        interval_.up_ps = v.ps;
        break;
      case kDown:
        interval_.down_ps = v.ps;
        break;
      default:
        break;
    }
  }

  // After the document: switch numbers against system.switches, which may
  // come anywhere in the file.
  schedule::Schedule finish() {
    const std::uint32_t n = s_.system.switches;
    const std::string range = "out of range: the system has " + std::to_string(n) +
                              " switches (0.." + std::to_string(n - 1) + ")";
    for (std::size_t i = 0; i < s_.tasks.size(); ++i) {
      if (!core::is_electrical(s_.tasks[i].sw) && s_.tasks[i].sw.value() >= n) {
        throw core::InputError("", "tasks[" + std::to_string(i) + "].switch",
                               std::to_string(s_.tasks[i].sw.value()), range);
      }
    }
    s_.timelines.assign(n, schedule::SwitchTimeline{});
    for (std::size_t k = 0; k < circuits_.size(); ++k) {
      if (circuits_[k].sw >= n) {
        throw core::InputError("", "circuits[" + std::to_string(k) + "].switch",
                               std::to_string(circuits_[k].sw), range);
      }
      s_.timelines[circuits_[k].sw].circuits = std::move(circuits_[k].intervals);
    }
    circuits_ = {};
    return std::move(s_);
  }

 private:
  void validate_system() {
    try {
      s_.system.validate();
    } catch (const core::InputError& e) {
      std::string field = e.field();
      if (field == "reconfig_delay") field = "reconfig_delay_s";
      throw core::InputError("", "system." + field, e.value(), e.problem());
    }
  }

  // A wiring file's switches travel in the schedule ("wiring_switches"):
  // rebuilt here, for as many accelerators as they list.
  void build_wiring(const std::string& path) {
    const bool file = s_.system.wiring.kind == core::WiringKind::kExplicit;
    if (file != !wiring_ports_.empty()) {
      throw core::InputError("", path + (file ? ".wiring_switches" : ".wiring"), "",
                             "a wiring file's switches come with \"wiring\": \"file:...\", and "
                             "only then");
    }
    if (!file) return;
    std::uint32_t n = 0;
    std::uint32_t radix = std::max<std::uint32_t>(s_.system.ocs_radix, 2);
    for (const auto& ports : wiring_ports_) {
      for (core::Rank r : ports) n = std::max(n, r.value() + 1);
      radix = std::max(radix, static_cast<std::uint32_t>(ports.size()));
    }
    try {
      s_.system.wiring_ports = std::make_shared<const core::Wiring>(
          core::Wiring::from_ports(n, radix, std::move(wiring_ports_)));
    } catch (const core::InputError& e) {
      throw core::InputError("", path + ".wiring_" + e.field(), e.value(), e.problem());
    }
    wiring_ports_ = {};
  }

  static core::Fabric fabric_from_string(const io::Leaf& v, const io::Cursor& at) {
    if (v.text == "ocs") return core::Fabric::kOcs;
    if (v.text == "scaleup") return core::Fabric::kScaleUp;
    if (v.text == "packet") return core::Fabric::kPacket;
    throw core::InputError("", at.path(), io::quoted(v.text),
                           "unknown fabric (one of: ocs, scaleup, packet)");
  }

  // A send on an OCS names its switch; one on the scale-up or packet
  // fabric has none (core::kScaleUpSwitch, kPacketSwitch in memory).
  void end_task(const std::string& path) {
    if (task_fabric_ != core::Fabric::kOcs) {
      if (task_has_switch_) {
        throw core::InputError(
            "", path + ".switch", std::to_string(task_.sw.value()),
            std::string(task_fabric_ == core::Fabric::kScaleUp ? "a send on the scale-up"
                                                               : "a send on the packet") +
                " fabric (\"fabric\": \"" + std::string(core::to_string(task_fabric_)) +
                "\") has no switch");
      }
      task_.sw = core::electrical_switch(task_fabric_);
    } else if (!task_has_switch_) {
      throw core::InputError("", path + ".switch", "",
                             "missing (a required key unless \"fabric\" is \"scaleup\" or "
                             "\"packet\")");
    }
    s_.tasks.push_back(task_);
  }

  void check_interval(const std::string& path) {
    const CircuitInterval& c = interval_;
    if (c.a == c.b) {
      throw core::InputError("", path + ".b", std::to_string(c.b.value()),
                             "equals a: a circuit joins two different accelerators");
    }
    if (c.b < c.a) {
      throw core::InputError("", path + ".a", std::to_string(c.a.value()),
                             "must be less than b (" + std::to_string(c.b.value()) +
                                 "): a circuit is written as the pair a < b");
    }
    if (c.setup_ps > c.up_ps) {
      throw core::InputError("", path + ".setup_s", seconds_text(c.setup_ps),
                             "after up_s (" + seconds_text(c.up_ps) + ")");
    }
    if (c.up_ps > c.down_ps) {
      throw core::InputError("", path + ".down_s", seconds_text(c.down_ps),
                             "before up_s (" + seconds_text(c.up_ps) + ")");
    }
    circuit_.intervals.push_back(c);
  }

  schedule::Schedule s_;
  schedule::TaskAssignment task_;
  bool task_has_switch_ = false;
  core::Fabric task_fabric_ = core::Fabric::kOcs;
  CircuitEntry circuit_;
  CircuitInterval interval_;
  std::vector<CircuitEntry> circuits_;
  std::vector<std::vector<core::Rank>> wiring_ports_;
};

schedule::Schedule build(ScheduleHandler& handler, const std::string& source) {
  try {
    return handler.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(source);
  }
}

}  // namespace

schedule::Schedule read_schedule(const std::filesystem::path& file) {
  ScheduleHandler handler;
  io::read_json_file(file, kSchema, handler);
  return build(handler, file.string());
}

schedule::Schedule parse_schedule(std::string_view text, std::string_view source) {
  ScheduleHandler handler;
  io::read_json(text, source, kSchema, handler);
  return build(handler, std::string(source));
}

void write_schedule(std::ostream& out, const schedule::Schedule& s) {
  io::check_utf8(s.scheduler, "scheduler");
  io::check_utf8(s.workload, "workload");
  for (const std::string& c : s.choice) io::check_utf8(c, "choice");
  for (const std::string& r : s.routes) io::check_utf8(r, "routes");
  if (s.timelines.size() > s.system.switches) {
    throw std::invalid_argument("write_schedule: " + std::to_string(s.timelines.size()) +
                                " timelines for " + std::to_string(s.system.switches) +
                                " switches");
  }
  if (s.period_ps && *s.period_ps <= 0) {
    throw std::invalid_argument("write_schedule: period " + std::to_string(*s.period_ps) +
                                " ps is not positive");
  }
  io::JsonWriter j(out, io::JsonWriter::Style::kPretty);
  j.begin_object();
  // v1 while nothing needs v2: those files stay as they were, byte for
  // byte, and older readers still read them. A scale-up send in a system
  // without domains (invalid, but the validator's to say) needs v2 too.
  // v3 only for a wiring other than full (or a radix given).
  const bool v3 = s.system.wiring.kind != core::WiringKind::kFull || s.system.ocs_radix != 0 ||
                  s.system.has_packet();
  const bool v2 =
      v3 || s.system.has_scaleup() || s.system.duplex != core::Duplex::kHalf ||
      std::any_of(s.tasks.begin(), s.tasks.end(),
                  [](const schedule::TaskAssignment& t) { return core::is_electrical(t.sw); });
  // v4 only for a schedule of a workload with choice groups or a choice of
  // routes.
  j.member("format", !s.choice.empty() || !s.routes.empty() ? kScheduleFormat
                     : v3                                   ? kScheduleFormatV3
                     : v2                                   ? kScheduleFormatV2
                                                            : kScheduleFormatV1);
  j.member("scheduler", s.scheduler);
  j.member("workload", s.workload);
  j.key("system").begin_object();
  j.member("switches", s.system.switches);
  j.member("link_gbps", s.system.link_gbps);
  j.member("reconfig_delay_s", core::ps_to_seconds(s.system.reconfig_delay_ps));
  if (v2) {
    j.member("scaleup_size", s.system.scaleup_size);
    j.member("scaleup_gbps", s.system.scaleup_gbps);
    // Written only when full: half-duplex files stay as they were.
    if (s.system.duplex != core::Duplex::kHalf)
      j.member("duplex", core::to_string(s.system.duplex));
  }
  if (v3) {
    j.member("wiring", core::to_string(s.system.wiring));
    j.member("ocs_radix", s.system.ocs_radix);
    if (s.system.wiring_ports) {
      const core::Wiring& w = *s.system.wiring_ports;
      j.key("wiring_switches").begin_array();
      for (std::uint32_t k = 0; k < w.switches(); ++k) {
        j.begin_inline_array();
        for (core::Rank r : w.ports(core::SwitchId{k})) j.value(r.value());
        j.end_array();
      }
      j.end_array();
    }
    // Written only with a packet fabric or a route other than forward:
    // other v3 files stay as they were.
    if (s.system.has_packet()) {
      j.member("packet_gbps", s.system.packet_gbps);
      j.member("packet_latency_s", core::ps_to_seconds(s.system.packet_latency_ps));
      j.member("packet_oversubscription", s.system.packet_oversubscription);
    }
    if (s.system.has_packet() || s.system.route != core::RoutePolicy::kForward) {
      j.member("route", core::to_string(s.system.route));
    }
  }
  j.end_object();
  j.member("makespan_s", core::ps_to_seconds(s.makespan_ps));
  j.member("status", schedule::to_string(s.status));
  if (s.lower_bound_ps) j.member("lower_bound_s", core::ps_to_seconds(*s.lower_bound_ps));
  if (s.gap) j.member("gap", *s.gap);
  if (s.solve_time_s) j.member("solve_time_s", *s.solve_time_s);
  if (s.circuit_model != schedule::CircuitModel::kTimeline) {
    j.member("circuit_model", schedule::to_string(s.circuit_model));
  }
  if (s.routing != schedule::Routing::kDirect) j.member("routing", schedule::to_string(s.routing));
  if (s.period_ps) j.member("period_s", core::ps_to_seconds(*s.period_ps));
  if (!s.choice.empty()) {
    j.key("choice").begin_inline_array();
    for (const std::string& c : s.choice) j.value(c);
    j.end_array();
  }
  if (!s.routes.empty()) {
    j.key("routes").begin_inline_array();
    for (const std::string& r : s.routes) j.value(r);
    j.end_array();
  }
  j.key("tasks").begin_array();
  for (const schedule::TaskAssignment& t : s.tasks) {
    j.begin_object();
    j.member("id", t.task_id);
    if (t.sw == core::kScaleUpSwitch) {
      j.member("fabric", core::to_string(core::Fabric::kScaleUp));
    } else if (t.sw == core::kPacketSwitch) {
      j.member("fabric", core::to_string(core::Fabric::kPacket));
    } else {
      j.member("switch", t.sw.value());
    }
    j.member("start_s", core::ps_to_seconds(t.start_ps));
    j.end_object();
  }
  j.end_array();
  j.key("circuits").begin_array();
  for (std::uint32_t k = 0; k < s.system.switches; ++k) {
    j.begin_object();
    j.member("switch", k);
    j.key("intervals").begin_array();
    if (k < s.timelines.size()) {
      for (const CircuitInterval& c : s.timelines[k].circuits) {
        j.begin_object();
        j.member("a", c.a.value());
        j.member("b", c.b.value());
        j.member("setup_s", core::ps_to_seconds(c.setup_ps));
        j.member("up_s", core::ps_to_seconds(c.up_ps));
        j.member("down_s", core::ps_to_seconds(c.down_ps));
        j.end_object();
      }
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.finish();
}

void save_schedule(const std::filesystem::path& file, const schedule::Schedule& s) {
  try {
    io::save_atomically(file, [&](std::ostream& out) { write_schedule(out, s); });
  } catch (const core::InputError& e) {
    throw e.with_source(file.string());
  }
}

}  // namespace flux::formats
