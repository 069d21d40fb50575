// flux.workload/v1 reader and writer, and the JSON writer underneath.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/fold.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/workload/builder.hpp"
#include "json_test_util.hpp"

namespace flux::formats {
namespace {

namespace fs = std::filesystem;
using core::Rank;
using core::TaskIndex;

// A small workload with every optional field: labels, releases, tails, and
// sub-microsecond compute on the edges.
core::Workload sample() {
  workload::WorkloadBuilder b("sample \"quoted\" \xC3\xA9", 4);
  const std::uint32_t fwd = b.intern_label("fwd/ar");
  const std::uint32_t bwd = b.intern_label("bwd\ttab");
  const TaskIndex t0 = b.add_send(Rank(0), Rank(1), 100, fwd);
  const TaskIndex t1 = b.add_send(Rank(1), Rank(2), 1'000'000'007ULL, fwd);
  const TaskIndex t2 = b.add_send(Rank(2), Rank(3), 1);
  const TaskIndex t3 = b.add_send(Rank(3), Rank(0), 0x7fff'ffff'ffff'ffffULL, bwd);
  b.raise_release(t0, 1'500'000);            // 1.5 us
  b.raise_tail(t3, 2 * core::kPsPerMs + 1);  // 2 ms + 1 ps
  b.raise_release(t2, 123'456'789'012'345);  // 123.456789012345 s
  b.add_dep(t0, t1, 0);
  b.add_dep(t1, t3, 7);
  b.add_dep(t0, t2, 333'333'333);
  b.add_dep(t2, t3, 1);
  return std::move(b).build();
}

// Non-dense ids: the file names tasks by id, the reader maps them to indices.
core::Workload sparse_ids() {
  core::WorkloadData d;
  d.name = "sparse";
  d.accelerators = 3;
  const std::uint64_t ids[] = {42, 7, 1'000'000'000'000ULL};
  for (std::uint32_t i = 0; i < 3; ++i) {
    core::Task t;
    t.id = ids[i];
    t.src = Rank(i);
    t.dst = Rank((i + 1) % 3);
    t.bytes = 10 + i;
    d.tasks.push_back(t);
  }
  d.deps = {{TaskIndex(2), TaskIndex(0), 5}, {TaskIndex(1), TaskIndex(0), 0}};
  return core::Workload(std::move(d));
}

void expect_same(const core::Workload& a, const core::Workload& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_EQ(a.accelerators(), b.accelerators());
  ASSERT_EQ(a.num_tasks(), b.num_tasks());
  for (std::uint32_t i = 0; i < a.num_tasks(); ++i) {
    const core::Task& x = a.task(TaskIndex(i));
    const core::Task& y = b.task(TaskIndex(i));
    EXPECT_EQ(x.id, y.id) << i;
    EXPECT_EQ(x.src, y.src) << i;
    EXPECT_EQ(x.dst, y.dst) << i;
    EXPECT_EQ(x.bytes, y.bytes) << i;
    EXPECT_EQ(x.release_ps, y.release_ps) << i;
    EXPECT_EQ(x.tail_ps, y.tail_ps) << i;
    EXPECT_EQ(a.label(TaskIndex(i)), b.label(TaskIndex(i))) << i;
  }
  ASSERT_EQ(a.num_deps(), b.num_deps());
  for (std::size_t j = 0; j < a.num_deps(); ++j) {
    EXPECT_EQ(a.deps()[j].from, b.deps()[j].from) << j;
    EXPECT_EQ(a.deps()[j].to, b.deps()[j].to) << j;
    EXPECT_EQ(a.deps()[j].compute_ps, b.deps()[j].compute_ps) << j;
  }
}

std::string to_text(const core::Workload& w) {
  std::ostringstream out;
  write_workload(out, w);
  return out.str();
}

// A temporary directory, removed with everything in it.
using flux::test_util::slurp;

class TempDir : public flux::test_util::TempDir {
 public:
  TempDir() : flux::test_util::TempDir("flux_wjson") {}
};

void expect_error(const std::string& body, const std::string& field, const std::string& value,
                  const std::string& problem_part = "") {
  flux::test_util::expect_parse_error(
      [](const std::string& b, const std::string& s) { parse_workload(b, s); }, "w.json", body,
      field, value, problem_part);
}

// A valid document around the given tasks and deps arrays.
std::string doc(const std::string& tasks, const std::string& deps = "[]") {
  return R"({"format": "flux.workload/v1", "name": "t", "accelerators": 4, "tasks": )" + tasks +
         R"(, "deps": )" + deps + "}";
}
const std::string kTwoTasks =
    R"([{"id": 1, "src": 0, "dst": 1, "bytes": 10}, {"id": 2, "src": 1, "dst": 2, "bytes": 20}])";

using flux::test_util::doc_examples;

// ---------------------------------------------------------------- writer

TEST(JsonWriter, PrettyPutsArrayElementsOnLines) {
  std::ostringstream out;
  io::JsonWriter j(out);
  j.begin_object();
  j.member("a", 1);
  j.key("list").begin_array();
  j.begin_object().member("x", true).key("y").null().end_object();
  j.begin_object().member("x", false).key("e").begin_array().end_array().end_object();
  j.end_array();
  j.key("empty").begin_object().end_object();
  j.end_object();
  j.finish();
  EXPECT_EQ(out.str(),
            "{\n  \"a\": 1,\n  \"list\": [\n    {\"x\": true, \"y\": null},\n"
            "    {\"x\": false, \"e\": []}\n  ],\n  \"empty\": {}\n}\n");
}

TEST(JsonWriter, CompactHasNoWhitespace) {
  std::ostringstream out;
  io::JsonWriter j(out, io::JsonWriter::Style::kCompact);
  j.begin_array().value(-3).value(std::uint64_t{18446744073709551615ULL}).value("s");
  j.begin_object().member("k", 0.5).end_object().end_array();
  j.finish();
  EXPECT_EQ(out.str(), R"([-3,18446744073709551615,"s",{"k":0.5}])");
}

TEST(JsonWriter, EscapesStrings) {
  std::ostringstream out;
  io::JsonWriter j(out, io::JsonWriter::Style::kCompact);
  j.value("q\"b\\n\n\t\x01\x1f \xE2\x82\xAC");
  j.finish();
  EXPECT_EQ(out.str(), "\"q\\\"b\\\\n\\n\\t\\u0001\\u001f \xE2\x82\xAC\"");
}

TEST(JsonWriter, RejectsInvalidUtf8) {
  std::ostringstream out;
  io::JsonWriter j(out, io::JsonWriter::Style::kCompact);
  EXPECT_THROW(j.value("bad \xC3"), core::InputError);
  EXPECT_FALSE(io::is_valid_utf8("\xED\xA0\x80"));  // a surrogate
  EXPECT_FALSE(io::is_valid_utf8("\xC0\x80"));      // overlong
  EXPECT_TRUE(io::is_valid_utf8("\xF0\x9F\x98\x80"));
}

TEST(JsonWriter, DoublesShortestAndFiniteOnly) {
  std::ostringstream out;
  io::JsonWriter j(out, io::JsonWriter::Style::kCompact);
  j.begin_array().value(0.1).value(1e-5).value(800.0).value(1.0 / 3.0);
  EXPECT_THROW(j.value(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(j.value(std::numeric_limits<double>::infinity()), std::invalid_argument);
  j.end_array();
  j.finish();
  EXPECT_EQ(out.str(), "[0.1,1e-05,800,0.3333333333333333]");
}

TEST(JsonWriter, RejectsMisuse) {
  std::ostringstream out;
  io::JsonWriter j(out);
  EXPECT_THROW(j.key("k"), std::logic_error);
  j.begin_object();
  EXPECT_THROW(j.value(1), std::logic_error);
  EXPECT_THROW(j.end_array(), std::logic_error);
  EXPECT_THROW(j.finish(), std::logic_error);
}

// ------------------------------------------------------------ round trip

TEST(WorkloadJson, DocumentedExampleParses) {
  const auto examples = doc_examples("flux.workload/v1");
  ASSERT_EQ(examples.size(), 1u);
  const core::Workload w = parse_workload(examples[0], "docs/formats.md");
  EXPECT_EQ(w.num_tasks(), 4u);
  EXPECT_EQ(w.num_deps(), 2u);
  EXPECT_EQ(w.task(TaskIndex(0)).release_ps, 120 * core::kPsPerUs);
  EXPECT_EQ(w.label(TaskIndex(3)), "ar/ag");
  // The documented layout is the writer's.
  EXPECT_EQ(to_text(w), examples[0]);
}

TEST(WorkloadJson, RoundTripIsExact) {
  const core::Workload w = sample();
  const core::Workload back = parse_workload(to_text(w), "mem");
  expect_same(w, back);
  EXPECT_EQ(to_text(back), to_text(w));
}

TEST(WorkloadJson, RoundTripSparseIds) {
  const core::Workload w = sparse_ids();
  const std::string text = to_text(w);
  EXPECT_NE(text.find(R"({"from": 1000000000000, "to": 42, "compute_s": 5e-12})"),
            std::string::npos)
      << text;
  expect_same(w, parse_workload(text, "mem"));
}

TEST(WorkloadJson, ScaleupSizeHintRoundTripsAndIsChecked) {
  core::WorkloadData d = sample().data();
  d.scaleup_size = 2;
  d.scaleup_gbps = 3600;
  const core::Workload w(std::move(d));
  const std::string text = to_text(w);
  EXPECT_NE(text.find("\"scaleup_size\": 2,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"scaleup_gbps\": 3600,"), std::string::npos) << text;
  EXPECT_EQ(parse_workload(text, "mem").scaleup_size(), 2u);
  EXPECT_EQ(parse_workload(text, "mem").scaleup_gbps(), 3600);
  EXPECT_EQ(to_text(sample()).find("scaleup_size"), std::string::npos);  // not said: not written
  EXPECT_EQ(core::unfold(w).scaleup_size(), 2u);
  const std::string head = R"({"format": "flux.workload/v1", "name": "t", "accelerators": 4, )";
  expect_error(head + R"("scaleup_size": 0, "tasks": [], "deps": []})", "scaleup_size", "0",
               "at least 1");
  expect_error(head + R"("scaleup_size": 3, "tasks": [], "deps": []})", "scaleup_size", "3",
               "must divide the 4 accelerators");
  expect_error(head + R"("scaleup_gbps": 0, "tasks": [], "deps": []})", "scaleup_gbps", "0",
               "must be in (0, 1e9] Gb/s");
}

TEST(WorkloadJson, RoundTripThroughFile) {
  TempDir dir;
  const fs::path file = dir.path() / "w.json";
  const core::Workload w = sample();
  save_workload(file, w);
  expect_same(w, read_workload(file));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"w.json"});
}

TEST(WorkloadJson, RandomTimesRoundTripToThePicosecond) {
  std::mt19937_64 rng(7);
  workload::WorkloadBuilder b("times", 2);
  for (int i = 0; i < 2000; ++i) {
    const TaskIndex v = b.add_send(Rank(0), Rank(1), 1);
    // Up to 1000 s, with every picosecond digit random.
    b.raise_release(v, static_cast<core::TimePs>(rng() % (1000 * core::kPsPerS)));
    b.raise_tail(v, static_cast<core::TimePs>(rng() % core::kPsPerS));
    if (i > 0)
      b.add_dep(TaskIndex(static_cast<std::uint32_t>(i - 1)), v,
                static_cast<core::TimePs>(rng() % 1'000'000));
  }
  const core::Workload w = std::move(b).build();
  expect_same(w, parse_workload(to_text(w), "mem"));
}

TEST(WorkloadJson, SubPicosecondTimesRoundToNearest) {
  const core::Workload w = parse_workload(
      doc(R"([{"id": 0, "src": 0, "dst": 1, "bytes": 1, "release_s": 1.4e-12, "tail_s": 2.6e-12},
              {"id": 1, "src": 1, "dst": 0, "bytes": 1, "release_s": 0.0000010000004}])",
          R"([{"from": 0, "to": 1, "compute_s": 3.49e-12}])"),
      "mem");
  EXPECT_EQ(w.task(TaskIndex(0)).release_ps, 1);
  EXPECT_EQ(w.task(TaskIndex(0)).tail_ps, 3);
  EXPECT_EQ(w.task(TaskIndex(1)).release_ps, 1'000'000);
  EXPECT_EQ(w.deps()[0].compute_ps, 3);
}

TEST(WorkloadJson, WriterOmitsDefaultsAndPutsOneTaskPerLine) {
  workload::WorkloadBuilder b("plain", 2);
  b.add_send(Rank(0), Rank(1), 5);
  b.add_send(Rank(1), Rank(0), 6);
  b.add_dep(TaskIndex(0), TaskIndex(1), 0);
  const std::string text = to_text(std::move(b).build());
  EXPECT_EQ(text,
            "{\n"
            "  \"format\": \"flux.workload/v1\",\n"
            "  \"name\": \"plain\",\n"
            "  \"accelerators\": 2,\n"
            "  \"tasks\": [\n"
            "    {\"id\": 0, \"src\": 0, \"dst\": 1, \"bytes\": 5},\n"
            "    {\"id\": 1, \"src\": 1, \"dst\": 0, \"bytes\": 6}\n"
            "  ],\n"
            "  \"deps\": [\n"
            "    {\"from\": 0, \"to\": 1, \"compute_s\": 0}\n"
            "  ]\n"
            "}\n");
}

TEST(WorkloadJson, KeyOrderDoesNotMatter) {
  // Deps before tasks, format last: deps are resolved after the tasks.
  const core::Workload w = parse_workload(
      R"({"deps": [{"compute_s": 1e-6, "to": 2, "from": 1}], "accelerators": 4,
          "tasks": )" +
          kTwoTasks + R"(, "name": "t", "format": "flux.workload/v1"})",
      "mem");
  ASSERT_EQ(w.num_deps(), 1u);
  EXPECT_EQ(w.deps()[0].from, TaskIndex(0));
  EXPECT_EQ(w.deps()[0].to, TaskIndex(1));
  EXPECT_EQ(w.deps()[0].compute_ps, 1'000'000);
}

// ---------------------------------------------------------------- errors

TEST(WorkloadJsonError, MalformedJson) {
  try {
    parse_workload("{\"format\": \"flux.workload/v1\",\n \"tasks\": [", "w.json");
    FAIL();
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("w.json: tasks[0]"), std::string::npos) << what;
    EXPECT_NE(what.find("malformed JSON at byte 43"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << what;
  }
}

TEST(WorkloadJsonError, WrongFormatVersion) {
  expect_error(R"({"format": "flux.workload/v3", "name": "t"})", "format", "\"flux.workload/v3\"",
               "unsupported version");
}

TEST(WorkloadJsonError, OtherFormat) {
  expect_error(R"({"format": "flux.schedule/v1"})", "format", "\"flux.schedule/v1\"",
               "not a flux.workload/v2 file");
  expect_error(R"({"format": 1})", "format", "1", "must be the string");
}

TEST(WorkloadJsonError, MissingFormat) {
  expect_error(R"({"name": "t", "accelerators": 2, "tasks": [], "deps": []})", "format", "",
               "missing");
  expect_error("[1, 2]", "format", "", "missing");
}

TEST(WorkloadJsonError, FormatIsReportedBeforeOtherErrors) {
  // A newer version may have new keys; the version is the error to report.
  expect_error(R"({"tasks": [{"id": 0, "priority": 3}], "format": "flux.workload/v9"})", "format",
               "\"flux.workload/v9\"");
}

TEST(WorkloadJsonError, MissingRequiredKey) {
  expect_error(
      doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 10}, {"id": 2, "src": 0, "dst": 1}])"),
      "tasks[1].bytes", "", "missing");
  expect_error(R"({"format": "flux.workload/v1", "name": "t", "accelerators": 2, "tasks": []})",
               "deps", "", "missing");
  expect_error(doc(kTwoTasks, R"([{"from": 1, "to": 2}])"), "deps[0].compute_s", "", "missing");
}

TEST(WorkloadJsonError, WrongType) {
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": "10"}])"), "tasks[0].bytes", "\"10\"",
               "must be a non-negative integer");
  expect_error(doc(R"({"id": 1})"), "tasks", "{...}", "must be an array");
  expect_error(R"({"format": "flux.workload/v1", "name": null})", "name", "null",
               "must be a string");
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 1, "release_s": true}])"),
               "tasks[0].release_s", "true", "must be a number of seconds");
}

TEST(WorkloadJsonError, NegativeInteger) {
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": -4}])"), "tasks[0].bytes", "-4",
               "must not be negative");
}

TEST(WorkloadJsonError, NonIntegerInteger) {
  expect_error(doc(R"([{"id": 1.5, "src": 0, "dst": 1, "bytes": 4}])"), "tasks[0].id", "1.5",
               "must be an integer");
  expect_error(doc(R"([{"id": 1, "src": 1e0, "dst": 1, "bytes": 4}])"), "tasks[0].src", "1e0",
               "must be an integer");
}

TEST(WorkloadJsonError, IntegerTooLarge) {
  expect_error(doc(R"([{"id": 9223372036854775808, "src": 0, "dst": 1, "bytes": 4}])"),
               "tasks[0].id", "9223372036854775808", "too large");
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 123456789012345678901234}])"),
               "tasks[0].bytes", "123456789012345678901234", "too large");
  expect_error(doc(R"([{"id": 1, "src": 4294967295, "dst": 1, "bytes": 4}])"), "tasks[0].src",
               "4294967295", "out of range");
}

TEST(WorkloadJsonError, UnknownKey) {
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "colour": "red"}])"),
               "tasks[0].colour", "", "unknown key");
  expect_error(
      R"({"format": "flux.workload/v1", "version": 2})", "version", "",
      "allows here: format, name, accelerators, fold, scaleup_size, scaleup_gbps, tasks, deps");
}

TEST(WorkloadJsonError, DuplicateKey) {
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "src": 2}])"), "tasks[0].src", "",
               "duplicate key");
}

TEST(WorkloadJsonError, DepNamesUnknownTask) {
  const std::string deps =
      R"([{"from": 1, "to": 2, "compute_s": 0}, {"from": 2, "to": 9, "compute_s": 0}])";
  expect_error(doc(kTwoTasks, deps), "deps[1].to", "9", "no task has this id");
  // Same when the deps come first and are resolved at the end.
  expect_error(R"({"deps": )" + deps +
                   R"(, "format": "flux.workload/v1", "name": "t", "accelerators": 4, "tasks": )" +
                   kTwoTasks + "}",
               "deps[1].to", "9", "no task has this id");
}

TEST(WorkloadJsonError, NegativeTime) {
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "release_s": -1e-6}])"),
               "tasks[0].release_s", "-1e-6", "between 0 and 9.2e6 s");
  expect_error(doc(kTwoTasks, R"([{"from": 1, "to": 2, "compute_s": -0.5}])"), "deps[0].compute_s",
               "-0.5", "between 0 and 9.2e6 s");
}

TEST(WorkloadJsonError, NonFiniteOrHugeTime) {
  // JSON has no NaN or infinity; a literal that overflows a double is the
  // nearest thing, reported by the parser with the field and the token.
  try {
    parse_workload(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "tail_s": 1e400}])"),
                   "w.json");
    FAIL();
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.field(), "tasks[0].tail_s");
    EXPECT_NE(what.find("w.json: tasks[0].tail_s"), std::string::npos) << what;
    EXPECT_NE(what.find("1e400"), std::string::npos) << what;
  }
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "tail_s": NaN}])"),
               "tasks[0].tail_s", "", "malformed JSON");
  // One limit, one message, whichever check sees the value first (the
  // reader for what does not fit a time, the workload for the rest).
  for (const char* v : {"1e7", "9.3e6", "-1", "1e300"}) {
    expect_error(
        doc(std::string(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "tail_s": )") + v + "}])"),
        "tasks[0].tail_s", v, "must be between 0 and 9.2e6 s");
  }
  for (const char* v : {"5e6", "9.2e6"}) {  // within the limit: accepted
    EXPECT_NO_THROW(parse_workload(
        doc(std::string(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4, "release_s": )") + v + "}]"),
        "w.json"))
        << v;
  }
}

TEST(WorkloadJsonError, GraphValidationNamesTheFile) {
  expect_error(
      doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 4}, {"id": 2, "src": 3, "dst": 3, "bytes": 4}])"),
      "tasks[1].dst", "3", "equals src");
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 4, "bytes": 4}])"), "tasks[0].dst", "4",
               "out of range");
  expect_error(doc(R"([{"id": 1, "src": 0, "dst": 1, "bytes": 0}])"), "tasks[0].bytes", "0",
               "at least one byte");
  expect_error(
      doc(R"([{"id": 5, "src": 0, "dst": 1, "bytes": 1}, {"id": 6, "src": 0, "dst": 1, "bytes": 1},
                       {"id": 5, "src": 0, "dst": 1, "bytes": 1}])"),
      "tasks[2].id", "5", "duplicate id");
  expect_error(
      doc(kTwoTasks,
          R"([{"from": 1, "to": 2, "compute_s": 0}, {"from": 2, "to": 1, "compute_s": 0}])"),
      "deps", "2 -> 1 -> 2", "cycle");
  expect_error(
      R"({"format": "flux.workload/v1", "name": "t", "accelerators": 0, "tasks": [], "deps": []})",
      "accelerators", "0", "at least one accelerator");
}

TEST(WorkloadJsonError, UnreadableFile) {
  TempDir dir;
  const fs::path missing = dir.path() / "nope.json";
  try {
    read_workload(missing);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string() + ": cannot open"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_workload(dir.path()), core::InputError);
}

TEST(WorkloadJsonError, TruncatedFileNamesTheFile) {
  TempDir dir;
  const fs::path file = dir.path() / "trunc.json";
  const std::string text = to_text(sample());
  std::ofstream(file) << text.substr(0, text.size() / 2);
  try {
    read_workload(file);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.source(), file.string());
    EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ save

TEST(WorkloadJsonSave, MissingDirectoryLeavesNothing) {
  TempDir dir;
  const fs::path file = dir.path() / "missing" / "w.json";
  try {
    save_workload(file, sample());
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(WorkloadJsonSave, FailedWriteKeepsOldFileAndRemovesTemp) {
  TempDir dir;
  const fs::path file = dir.path() / "w.json";
  std::ofstream(file) << "keep";
  // A label that is not UTF-8: the temporary file exists when writing fails.
  workload::WorkloadBuilder b("bad", 2);
  for (int i = 0; i < 100000; ++i) b.add_send(Rank(0), Rank(1), 1);
  b.add_send(Rank(0), Rank(1), 1, b.intern_label("\xFF"));
  const core::Workload w = std::move(b).build();
  try {
    save_workload(file, w);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.source(), file.string());
    EXPECT_EQ(e.field(), "label");
  }
  EXPECT_EQ(slurp(file), "keep");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"w.json"});
}

TEST(WorkloadJsonSave, ReplacesExistingFile) {
  TempDir dir;
  const fs::path file = dir.path() / "w.json";
  std::ofstream(file) << "old";
  save_workload(file, sample());
  expect_same(sample(), read_workload(file));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"w.json"});
}

}  // namespace
}  // namespace flux::formats
