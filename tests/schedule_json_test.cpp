// flux.schedule/v1 and v2 reader and writer, and the SolveStatus names.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/schedule/schedule.hpp"
#include "json_test_util.hpp"

namespace flux::formats {
namespace {

namespace fs = std::filesystem;
using core::Rank;
using core::SwitchId;
using schedule::CircuitInterval;
using schedule::CircuitModel;
using schedule::Routing;
using schedule::Schedule;
using schedule::SolveStatus;

Schedule sample() {
  Schedule s;
  s.scheduler = "flux-milp";
  s.workload = "llama3-8b \"tp2\"";
  s.system.switches = 3;
  s.system.link_gbps = 812.5;
  s.system.reconfig_delay_ps = 10 * core::kPsPerUs + 1;
  s.makespan_ps = 123'456'789'012;
  s.status = SolveStatus::kOptimal;
  s.lower_bound_ps = 123'000'000'001;
  s.gap = 0.0037070844;
  s.solve_time_s = 12.75;
  s.tasks = {{0, SwitchId(2), 0}, {17, SwitchId(0), 5'000'000'003}, {5, SwitchId(1), 7}};
  s.timelines.resize(3);
  s.timelines[0].circuits = {CircuitInterval{Rank(0), Rank(1), 0, 0, 1'000'000},
                             CircuitInterval{Rank(2), Rank(5), 100, 10'000'100, 20'000'000}};
  s.timelines[2].circuits = {CircuitInterval{Rank(1), Rank(3), 3, 3, 3}};
  return s;
}

void expect_same(const Schedule& a, const Schedule& b) {
  EXPECT_EQ(a.scheduler, b.scheduler);
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.system.switches, b.system.switches);
  EXPECT_EQ(a.system.link_gbps, b.system.link_gbps);
  EXPECT_EQ(a.system.reconfig_delay_ps, b.system.reconfig_delay_ps);
  EXPECT_EQ(a.makespan_ps, b.makespan_ps);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.lower_bound_ps, b.lower_bound_ps);
  EXPECT_EQ(a.gap, b.gap);
  EXPECT_EQ(a.solve_time_s, b.solve_time_s);
  EXPECT_EQ(a.circuit_model, b.circuit_model);
  EXPECT_EQ(a.routing, b.routing);
  EXPECT_EQ(a.period_ps, b.period_ps);
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    EXPECT_EQ(a.tasks[i].task_id, b.tasks[i].task_id) << i;
    EXPECT_EQ(a.tasks[i].sw, b.tasks[i].sw) << i;
    EXPECT_EQ(a.tasks[i].start_ps, b.tasks[i].start_ps) << i;
  }
  ASSERT_EQ(a.timelines.size(), b.timelines.size());
  for (std::size_t k = 0; k < a.timelines.size(); ++k) {
    const auto& x = a.timelines[k].circuits;
    const auto& y = b.timelines[k].circuits;
    ASSERT_EQ(x.size(), y.size()) << k;
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].a, y[i].a);
      EXPECT_EQ(x[i].b, y[i].b);
      EXPECT_EQ(x[i].setup_ps, y[i].setup_ps);
      EXPECT_EQ(x[i].up_ps, y[i].up_ps);
      EXPECT_EQ(x[i].down_ps, y[i].down_ps);
    }
  }
}

std::string to_text(const Schedule& s) {
  std::ostringstream out;
  write_schedule(out, s);
  return out.str();
}

using flux::test_util::slurp;

class TempDir : public flux::test_util::TempDir {
 public:
  TempDir() : flux::test_util::TempDir("flux_sjson") {}
};

void expect_error(const std::string& body, const std::string& field, const std::string& value,
                  const std::string& problem_part = "") {
  flux::test_util::expect_parse_error(
      [](const std::string& b, const std::string& s) { parse_schedule(b, s); }, "s.json", body,
      field, value, problem_part);
}

// A valid document with `extra` root members and the given circuits.
std::string doc(
    const std::string& circuits, const std::string& tasks = "[]",
    const std::string& system = R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 1e-5})",
    const std::string& status = "feasible") {
  return R"({"format": "flux.schedule/v1", "scheduler": "x", "workload": "w", "system": )" +
         system + R"(, "makespan_s": 0.001, "status": ")" + status + R"(", "tasks": )" + tasks +
         R"(, "circuits": )" + circuits + "}";
}
// doc("[]") with `members` added to the root object.
std::string doc_with(const std::string& members) {
  std::string d = doc("[]");
  d.insert(d.size() - 1, ", " + members);
  return d;
}
std::string interval(int a, int b, const char* setup = "0", const char* up = "1e-5",
                     const char* down = "2e-5") {
  return R"({"a": )" + std::to_string(a) + R"(, "b": )" + std::to_string(b) + R"(, "setup_s": )" +
         setup + R"(, "up_s": )" + up + R"(, "down_s": )" + down + "}";
}
std::string circuits0(const std::string& intervals) {
  return R"([{"switch": 0, "intervals": [)" + intervals + "]}]";
}

using flux::test_util::doc_examples;

// ---------------------------------------------------------------- status

TEST(SolveStatus, NamesRoundTrip) {
  for (SolveStatus s : {SolveStatus::kOptimal, SolveStatus::kFeasible, SolveStatus::kInfeasible,
                        SolveStatus::kNoSolution, SolveStatus::kError}) {
    EXPECT_EQ(schedule::solve_status_from_string(schedule::to_string(s)), s);
  }
  EXPECT_EQ(schedule::to_string(SolveStatus::kNoSolution), "no_solution");
}

TEST(SolveStatus, UnknownNameListsValidOnes) {
  try {
    schedule::solve_status_from_string("done");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.value(), "done");
    EXPECT_NE(std::string(e.what()).find("optimal, feasible, infeasible, no_solution, error"),
              std::string::npos)
        << e.what();
  }
}

TEST(CircuitModelAndRouting, NamesRoundTrip) {
  for (CircuitModel m : {CircuitModel::kTimeline, CircuitModel::kAllConnected}) {
    EXPECT_EQ(schedule::circuit_model_from_string(schedule::to_string(m)), m);
  }
  for (Routing r : {Routing::kDirect, Routing::kVlb}) {
    EXPECT_EQ(schedule::routing_from_string(schedule::to_string(r)), r);
  }
  EXPECT_EQ(schedule::to_string(CircuitModel::kAllConnected), "all_connected");
  EXPECT_EQ(schedule::to_string(Routing::kVlb), "vlb");
}

// `from_string(name)` throws an InputError naming `field` and `name` and
// listing the valid names.
template <class F>
void expect_unknown_name(F from_string, const std::string& name, const std::string& field,
                         const std::string& valid) {
  try {
    (void)from_string(name);
    FAIL() << "no error for " << name;
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_EQ(e.value(), name);
    EXPECT_NE(std::string(e.what()).find("(one of: " + valid + ")"), std::string::npos) << e.what();
  }
}

TEST(CircuitModelAndRouting, UnknownNameListsValidOnes) {
  expect_unknown_name(schedule::circuit_model_from_string, "mesh", "circuit_model",
                      "timeline, all_connected");
  expect_unknown_name(schedule::routing_from_string, "Direct", "routing", "direct, vlb");
}

// ------------------------------------------------------------ round trip

TEST(ScheduleJson, DocumentedExamplesParse) {
  const auto examples = doc_examples("flux.schedule/v1");
  ASSERT_EQ(examples.size(), 2u);
  const Schedule s = parse_schedule(examples[0], "docs/formats.md");
  EXPECT_EQ(s.status, SolveStatus::kOptimal);
  ASSERT_EQ(s.timelines.size(), 2u);
  ASSERT_EQ(s.timelines[0].circuits.size(), 1u);
  EXPECT_EQ(s.timelines[0].circuits[0].setup_ps, -10 * core::kPsPerUs);
  EXPECT_EQ(s.circuit_model, CircuitModel::kTimeline);
  EXPECT_EQ(s.routing, Routing::kDirect);
  EXPECT_FALSE(s.period_ps.has_value());
  // The documented layout is the writer's.
  EXPECT_EQ(to_text(s), examples[0]);

  // The periodic RotorNet-like example: 4 ranks, one switch, 3 slots of 100 us.
  const Schedule rotor = parse_schedule(examples[1], "docs/formats.md");
  EXPECT_EQ(rotor.circuit_model, CircuitModel::kTimeline);
  EXPECT_EQ(rotor.routing, Routing::kVlb);
  EXPECT_EQ(rotor.period_ps, 300 * core::kPsPerUs);
  EXPECT_TRUE(rotor.tasks.empty());
  ASSERT_EQ(rotor.timelines.size(), 1u);
  ASSERT_EQ(rotor.timelines[0].circuits.size(), 6u);
  EXPECT_EQ(rotor.timelines[0].circuits[2].up_ps, 110 * core::kPsPerUs);
  EXPECT_EQ(rotor.timelines[0].circuits.back().down_ps, 300 * core::kPsPerUs);
  EXPECT_EQ(to_text(rotor), examples[1]);
}

TEST(ScheduleJson, RoundTripIsExact) {
  const Schedule s = sample();
  const Schedule back = parse_schedule(to_text(s), "mem");
  expect_same(s, back);
  EXPECT_EQ(to_text(back), to_text(s));
}

// ------------------------------------------------------ v2: scale-up domains

Schedule scaleup_sample() {
  Schedule s = sample();
  s.system.scaleup_size = 4;
  s.system.scaleup_gbps = 3600;
  s.tasks.push_back({9, core::kScaleUpSwitch, 42});
  return s;
}

TEST(ScheduleJsonV2, ScaleUpRoundTripIsExact) {
  const Schedule s = scaleup_sample();
  const std::string text = to_text(s);
  EXPECT_NE(text.find(R"("format": "flux.schedule/v2")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("reconfig_delay_s": 1.0000001e-05, "scaleup_size": 4, )"
                      R"("scaleup_gbps": 3600})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"({"id": 9, "fabric": "scaleup", "start_s": 4.2e-11})"), std::string::npos)
      << text;
  const Schedule back = parse_schedule(text, "mem");
  expect_same(s, back);
  EXPECT_EQ(back.system.scaleup_size, 4u);
  EXPECT_EQ(back.system.scaleup_gbps, 3600);
  EXPECT_EQ(back.tasks.back().sw, core::kScaleUpSwitch);
  EXPECT_EQ(to_text(back), text);
}

// The documented v2 example reads, is the writer's layout, and has its
// scale-up sends on the fabric.
TEST(ScheduleJsonV2, DocumentedExampleParses) {
  const auto examples = doc_examples("flux.schedule/v2");
  ASSERT_EQ(examples.size(), 1u);
  const Schedule s = parse_schedule(examples[0], "docs/formats.md");
  EXPECT_EQ(s.system.scaleup_size, 2u);
  EXPECT_EQ(s.system.scaleup_gbps, 1600);
  ASSERT_EQ(s.tasks.size(), 4u);
  EXPECT_EQ(s.tasks[0].sw, core::kScaleUpSwitch);
  EXPECT_EQ(s.tasks[1].sw, SwitchId(0));
  EXPECT_EQ(s.tasks[2].start_ps, 500);
  EXPECT_EQ(to_text(s), examples[0]);
}

// Without domains the writer writes v1, the text it wrote before v2 existed;
// a scale-up send without domains (the validator rejects it) still
// round-trips, as v2.
TEST(ScheduleJsonV2, NoDomainsWritesV1) {
  const std::string text = to_text(sample());
  EXPECT_NE(text.find(R"("format": "flux.schedule/v1")"), std::string::npos) << text;
  EXPECT_EQ(text.find("scaleup"), std::string::npos) << text;
  Schedule odd = sample();
  odd.tasks[0].sw = core::kScaleUpSwitch;
  const std::string odd_text = to_text(odd);
  EXPECT_NE(odd_text.find(R"("format": "flux.schedule/v2")"), std::string::npos) << odd_text;
  EXPECT_NE(odd_text.find(R"("scaleup_size": 1, )"), std::string::npos) << odd_text;
  expect_same(odd, parse_schedule(odd_text, "mem"));
}

// A v1 file (the layout of every schedule written before v2) reads as a
// system without domains.
TEST(ScheduleJsonV2, V1FileStillReads) {
  const Schedule s =
      parse_schedule(doc("[]", R"([{"id": 1, "switch": 1, "start_s": 2e-6}])",
                         R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 1e-5})"),
                     "v1.json");
  EXPECT_EQ(s.system.scaleup_size, 1u);
  EXPECT_FALSE(s.system.has_scaleup());
  ASSERT_EQ(s.tasks.size(), 1u);
  EXPECT_EQ(s.tasks[0].sw, SwitchId(1));
}

// v2 keys are optional: scaleup_size 1 and scaleup_gbps 2400 when absent;
// "fabric": "ocs" is a switch's send, like no fabric key; keys in any order.
TEST(ScheduleJsonV2, DefaultsAndExplicitOcs) {
  std::string text = doc("[]", R"([{"start_s": 0, "fabric": "ocs", "switch": 1, "id": 3}])");
  text.replace(text.find("flux.schedule/v1"), 16, "flux.schedule/v2");
  const Schedule s = parse_schedule(text, "mem");
  EXPECT_EQ(s.system.scaleup_size, 1u);
  EXPECT_EQ(s.system.scaleup_gbps, core::kNvlink3Gbps);
  EXPECT_EQ(s.tasks[0].sw, SwitchId(1));
}

std::string v2_doc(const std::string& tasks,
                   const std::string& system = R"({"switches": 2, "link_gbps": 800, )"
                                               R"("reconfig_delay_s": 1e-5, "scaleup_size": 2})") {
  std::string d = doc("[]", tasks, system);
  d.replace(d.find("flux.schedule/v1"), 16, "flux.schedule/v2");
  return d;
}

TEST(ScheduleJsonV2Error, BadFabric) {
  expect_error(v2_doc(R"([{"id": 1, "fabric": "nvlink", "start_s": 0}])"), "tasks[0].fabric",
               "\"nvlink\"", "unknown fabric (one of: ocs, scaleup, packet)");
  expect_error(v2_doc(R"([{"id": 1, "fabric": 1, "start_s": 0}])"), "tasks[0].fabric", "1",
               "must be a string");
  expect_error(v2_doc(R"([{"id": 1, "fabric": "scaleup", "switch": 0, "start_s": 0}])"),
               "tasks[0].switch", "0", "on the scale-up fabric");
  expect_error(v2_doc(R"([{"id": 1, "fabric": "ocs", "start_s": 0}])"), "tasks[0].switch", "",
               "missing");
  expect_error(v2_doc(R"([{"id": 1, "start_s": 0}])"), "tasks[0].switch", "", "missing");
  // The scale-up fabric's number in memory is no switch a file may name.
  expect_error(v2_doc(R"([{"id": 1, "switch": 1048576, "start_s": 0}])"), "tasks[0].switch",
               "1048576", "at most 2^20 switches");
}

TEST(ScheduleJsonV2Error, BadScaleUpSystem) {
  expect_error(v2_doc("[]", R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 0, )"
                            R"("scaleup_size": 0})"),
               "system.scaleup_size", "0", "between 1 and");
  expect_error(v2_doc("[]", R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 0, )"
                            R"("scaleup_gbps": -1})"),
               "system.scaleup_gbps", "-1");
}

// v1 has no domains: its files may not use v2's keys, wherever "format" is.
TEST(ScheduleJsonV2Error, V1FileWithV2Keys) {
  expect_error(doc("[]", R"([{"id": 1, "fabric": "scaleup", "start_s": 0}])"), "tasks[0].fabric",
               "", "unknown key (flux.schedule/v1 allows here: id, switch, start_s)");
  expect_error(
      doc("[]", "[]",
          R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 0, "scaleup_size": 2})"),
      "system.scaleup_size", "", "flux.schedule/v1 allows here");
  expect_error(R"({"tasks": [{"id": 1, "fabric": "scaleup", "start_s": 0}], "scheduler": 7, )"
               R"("format": "flux.schedule/v1"})",
               "tasks[0].fabric", "", "unknown key (flux.schedule/v1");
}

TEST(ScheduleJson, RoundTripThroughFile) {
  TempDir dir;
  const fs::path file = dir.path() / "s.json";
  save_schedule(file, sample());
  expect_same(sample(), read_schedule(file));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.json"});
}

TEST(ScheduleJson, CircuitModelRoutingAndPeriodRoundTrip) {
  Schedule all = sample();
  all.tasks.clear();
  all.timelines.assign(3, {});
  all.circuit_model = CircuitModel::kAllConnected;
  const std::string all_text = to_text(all);
  EXPECT_NE(all_text.find("  \"circuit_model\": \"all_connected\",\n"), std::string::npos)
      << all_text;
  expect_same(all, parse_schedule(all_text, "mem"));

  Schedule vlb = sample();
  vlb.routing = Routing::kVlb;
  const std::string vlb_text = to_text(vlb);
  EXPECT_NE(vlb_text.find("  \"routing\": \"vlb\",\n"), std::string::npos) << vlb_text;
  expect_same(vlb, parse_schedule(vlb_text, "mem"));

  // A period that is not a round number of seconds comes back to the ps.
  Schedule periodic = sample();
  periodic.period_ps = 1'100'000'007;
  const std::string periodic_text = to_text(periodic);
  EXPECT_NE(periodic_text.find("  \"period_s\": 0.001100000007,\n"), std::string::npos)
      << periodic_text;
  const Schedule back = parse_schedule(periodic_text, "mem");
  EXPECT_EQ(back.period_ps, 1'100'000'007);
  expect_same(periodic, back);

  // All three at once, through a file; the text is stable.
  Schedule every = all;
  every.routing = Routing::kVlb;
  every.period_ps = 1;
  TempDir dir;
  save_schedule(dir.path() / "s.json", every);
  const Schedule read = read_schedule(dir.path() / "s.json");
  expect_same(every, read);
  EXPECT_EQ(to_text(read), to_text(every));

  // The writer refuses what the reader would reject.
  every.period_ps = 0;
  EXPECT_THROW((void)to_text(every), std::invalid_argument);
}

TEST(ScheduleJson, CircuitModelRoutingAndPeriodReadInAnyOrder) {
  const Schedule s = parse_schedule(
      doc_with(R"("period_s": 2e-4, "routing": "direct", "circuit_model": "timeline")"), "mem");
  EXPECT_EQ(s.circuit_model, CircuitModel::kTimeline);
  EXPECT_EQ(s.routing, Routing::kDirect);
  EXPECT_EQ(s.period_ps, 200 * core::kPsPerUs);
  // Defaults are not written: the text is that of a file without the keys.
  const std::string text = to_text(s);
  EXPECT_EQ(text.find("circuit_model"), std::string::npos);
  EXPECT_EQ(text.find("routing"), std::string::npos);
  EXPECT_NE(text.find(R"("period_s": 2e-04,)"), std::string::npos) << text;
}

TEST(ScheduleJson, OptionalFieldsOmitted) {
  Schedule s;
  s.scheduler = "sirius";
  s.workload = "w";
  s.status = SolveStatus::kNoSolution;
  s.timelines.resize(s.system.switches);
  const std::string text = to_text(s);
  EXPECT_EQ(text.find("lower_bound_s"), std::string::npos);
  EXPECT_EQ(text.find("gap"), std::string::npos);
  EXPECT_EQ(text.find("solve_time_s"), std::string::npos);
  EXPECT_EQ(text.find("circuit_model"), std::string::npos);
  EXPECT_EQ(text.find("routing"), std::string::npos);
  EXPECT_EQ(text.find("period_s"), std::string::npos);
  EXPECT_NE(text.find(R"("status": "no_solution")"), std::string::npos);
  const Schedule back = parse_schedule(text, "mem");
  expect_same(s, back);
  EXPECT_FALSE(back.lower_bound_ps.has_value());
  EXPECT_FALSE(back.gap.has_value());
  EXPECT_EQ(back.circuit_model, CircuitModel::kTimeline);
  EXPECT_EQ(back.routing, Routing::kDirect);
  EXPECT_FALSE(back.period_ps.has_value());
}

TEST(ScheduleJson, WriterLayout) {
  Schedule s;
  s.scheduler = "x";
  s.workload = "w";
  s.system.switches = 2;
  s.makespan_ps = 30'000'000;
  s.tasks = {{4, SwitchId(1), 10'000'000}};
  s.timelines.resize(2);
  s.timelines[1].circuits = {CircuitInterval{Rank(0), Rank(1), 0, 10'000'000, 30'000'000}};
  EXPECT_EQ(to_text(s),
            "{\n"
            "  \"format\": \"flux.schedule/v1\",\n"
            "  \"scheduler\": \"x\",\n"
            "  \"workload\": \"w\",\n"
            "  \"system\": {\"switches\": 2, \"link_gbps\": 800, \"reconfig_delay_s\": 1e-05},\n"
            "  \"makespan_s\": 3e-05,\n"
            "  \"status\": \"feasible\",\n"
            "  \"tasks\": [\n"
            "    {\"id\": 4, \"switch\": 1, \"start_s\": 1e-05}\n"
            "  ],\n"
            "  \"circuits\": [\n"
            "    {\"switch\": 0, \"intervals\": []},\n"
            "    {\"switch\": 1, \"intervals\": [\n"
            "      {\"a\": 0, \"b\": 1, \"setup_s\": 0, \"up_s\": 1e-05, \"down_s\": 3e-05}\n"
            "    ]}\n"
            "  ]\n"
            "}\n");
}

TEST(ScheduleJson, UnlistedSwitchesAreEmptyAndIntervalsKeepTheirOrder) {
  const Schedule s =
      parse_schedule(doc(R"([{"intervals": [)" + interval(2, 3, "3e-5", "4e-5", "5e-5") + ", " +
                             interval(0, 1) + R"(], "switch": 1}])",
                         "[]", R"({"switches": 3, "link_gbps": 400, "reconfig_delay_s": 0})"),
                     "mem");
  ASSERT_EQ(s.timelines.size(), 3u);
  EXPECT_TRUE(s.timelines[0].circuits.empty());
  EXPECT_TRUE(s.timelines[2].circuits.empty());
  ASSERT_EQ(s.timelines[1].circuits.size(), 2u);
  // As written: sorting is checked by the validator, not done by the reader.
  EXPECT_EQ(s.timelines[1].circuits[0].a, Rank(2));
  EXPECT_EQ(s.timelines[1].circuits[0].up_ps, 40'000'000);
  EXPECT_EQ(s.timelines[1].circuits[1].a, Rank(0));
  EXPECT_EQ(s.system.reconfig_delay_ps, 0);
}

TEST(ScheduleJson, SetupMayBeNegative) {
  // A circuit used before tau is configured before the iteration starts.
  Schedule s = sample();
  s.timelines[1].circuits = {CircuitInterval{Rank(4), Rank(6), -10 * core::kPsPerUs + 3, 3, 9}};
  expect_same(s, parse_schedule(to_text(s), "mem"));
}

// ---------------------------------------------------------------- errors

TEST(ScheduleJsonError, MalformedJson) {
  expect_error(doc("["), "circuits[0]", "", "malformed JSON at byte");
}

TEST(ScheduleJsonError, WrongFormat) {
  expect_error(R"({"format": "flux.workload/v1", "tasks": []})", "format", "\"flux.workload/v1\"",
               "not a flux.schedule/v4 file");
  expect_error(R"({"format": "flux.schedule/v5"})", "format", "\"flux.schedule/v5\"",
               "unsupported version: this reader knows \"flux.schedule/v1\", "
               "\"flux.schedule/v2\", \"flux.schedule/v3\", \"flux.schedule/v4\"");
  expect_error(R"({"scheduler": "x"})", "format", "", "missing");
}

TEST(ScheduleJsonError, MissingRequiredKey) {
  expect_error(R"({"format": "flux.schedule/v1", "scheduler": "x", "workload": "w",
                   "system": {"switches": 2, "link_gbps": 800, "reconfig_delay_s": 0},
                   "status": "optimal", "tasks": [], "circuits": []})",
               "makespan_s", "", "missing");
  expect_error(doc(circuits0(R"({"a": 0, "b": 1, "setup_s": 0, "up_s": 0})")),
               "circuits[0].intervals[0].down_s", "", "missing");
}

TEST(ScheduleJsonError, UnknownKey) {
  expect_error(doc("[]", R"([{"id": 1, "switch": 0, "start_s": 0, "end_s": 1}])"), "tasks[0].end_s",
               "", "unknown key");
}

TEST(ScheduleJsonError, WrongType) {
  expect_error(doc("[]", R"([{"id": "1", "switch": 0, "start_s": 0}])"), "tasks[0].id", "\"1\"",
               "must be a non-negative integer");
  expect_error(doc(R"({"switch": 0})"), "circuits", "{...}", "must be an array");
}

TEST(ScheduleJsonError, BadStatus) {
  expect_error(
      doc("[]", "[]", R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": 0})", "solved"),
      "status", "\"solved\"", "one of: optimal, feasible");
}

TEST(ScheduleJsonError, BadCircuitModel) {
  expect_error(doc_with(R"("circuit_model": "rotor")"), "circuit_model", "\"rotor\"",
               "unknown circuit model (one of: timeline, all_connected)");
  expect_error(doc_with(R"("circuit_model": "")"), "circuit_model", "\"\"", "one of: timeline");
  expect_error(doc_with(R"("circuit_model": 1)"), "circuit_model", "1", "must be a string");
}

TEST(ScheduleJsonError, BadRouting) {
  expect_error(doc_with(R"("routing": "ecmp")"), "routing", "\"ecmp\"",
               "unknown routing (one of: direct, vlb)");
  expect_error(doc_with(R"("routing": "VLB")"), "routing", "\"VLB\"", "one of: direct, vlb");
}

TEST(ScheduleJsonError, BadPeriod) {
  expect_error(doc_with(R"("period_s": 0)"), "period_s", "0", "must be positive");
  // Rounds to 0 ps.
  expect_error(doc_with(R"("period_s": 1e-13)"), "period_s", "1e-13", "at least 1 ps");
  expect_error(doc_with(R"("period_s": -0.001)"), "period_s", "-0.001", "between 0 and 9.2e6 s");
  expect_error(doc_with(R"("period_s": 1e300)"), "period_s", "1e300", "between 0 and 9.2e6 s");
  expect_error(doc_with(R"("period_s": "1ms")"), "period_s", "\"1ms\"",
               "must be a number of seconds");
}

TEST(ScheduleJsonError, BadSystem) {
  expect_error(doc("[]", "[]", R"({"switches": 0, "link_gbps": 800, "reconfig_delay_s": 0})"),
               "system.switches", "0", "must be an integer between 1 and 1048576");
  expect_error(doc("[]", "[]", R"({"switches": 2, "link_gbps": -1, "reconfig_delay_s": 0})"),
               "system.link_gbps", "-1");
  expect_error(doc("[]", "[]", R"({"switches": 2, "link_gbps": 800, "reconfig_delay_s": -1})"),
               "system.reconfig_delay_s", "-1", "between 0 and 9.2e6 s");
}

TEST(ScheduleJsonError, NegativeTimeOrNumber) {
  expect_error(doc("[]", R"([{"id": 1, "switch": 0, "start_s": -2}])"), "tasks[0].start_s", "-2",
               "between 0 and 9.2e6 s");
  expect_error(doc(circuits0(interval(0, 1, "0", "-1e-6"))), "circuits[0].intervals[0].up_s",
               "-1e-6", "between 0 and 9.2e6 s");
  expect_error(R"({"format": "flux.schedule/v1", "gap": 0.1, "solve_time_s": -3})", "solve_time_s",
               "-3", "must not be negative");
}

TEST(ScheduleJsonError, CircuitEndpointsOrdered) {
  expect_error(doc(circuits0(interval(3, 1))), "circuits[0].intervals[0].a", "3",
               "must be less than b (1)");
  expect_error(doc(circuits0(interval(0, 1) + ", " + interval(2, 2))), "circuits[0].intervals[1].b",
               "2", "equals a");
}

TEST(ScheduleJsonError, CircuitTimesOrdered) {
  expect_error(doc(circuits0(interval(0, 1, "2e-5", "1e-5", "3e-5"))),
               "circuits[0].intervals[0].setup_s", "2e-05", "after up_s (1e-05)");
  expect_error(doc(circuits0(interval(0, 1, "0", "1e-5", "0.5e-5"))),
               "circuits[0].intervals[0].down_s", "5e-06", "before up_s (1e-05)");
}

TEST(ScheduleJsonError, SwitchOutOfRange) {
  expect_error(doc(R"([{"switch": 2, "intervals": []}])"), "circuits[0].switch", "2",
               "the system has 2 switches (0..1)");
  expect_error(
      doc("[]", R"([{"id": 1, "switch": 0, "start_s": 0}, {"id": 2, "switch": 7, "start_s": 0}])"),
      "tasks[1].switch", "7", "out of range");
}

TEST(ScheduleJsonError, CircuitEntriesInIncreasingSwitchOrder) {
  expect_error(doc(R"([{"switch": 1, "intervals": []}, {"switch": 1, "intervals": []}])"),
               "circuits[1].switch", "1", "increasing order");
  expect_error(doc(R"([{"switch": 1, "intervals": []}, {"switch": 0, "intervals": []}])"),
               "circuits[1].switch", "0", "increasing order");
}

// ------------------------------------------------------------------ save

TEST(ScheduleJsonSave, MissingDirectoryLeavesNothing) {
  TempDir dir;
  const fs::path file = dir.path() / "missing" / "s.json";
  try {
    save_schedule(file, sample());
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ScheduleJsonSave, FailedWriteKeepsOldFileAndRemovesTemp) {
  TempDir dir;
  const fs::path file = dir.path() / "s.json";
  std::ofstream(file) << "keep";
  Schedule s = sample();
  s.gap = std::numeric_limits<double>::quiet_NaN();  // fails after the header is written
  EXPECT_THROW(save_schedule(file, s), std::invalid_argument);
  EXPECT_EQ(slurp(file), "keep");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.json"});
}

}  // namespace
}  // namespace flux::formats
