// flux::sweep: the filter language (values, precedence, errors) and sweep
// files (the product, filters, checks, TOML = JSON); the presets of flux
// evaluate as the shipped sweep files compiled in.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "error_of.hpp"
#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/runtime/uncertain.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sweep/expr.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/runner.hpp"
#include "flux/sweep/spec.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/routing.hpp"

namespace flux::sweep {
namespace {

bool holds(const std::string& text, const std::map<std::string, std::int64_t>& vars = {}) {
  const Expr e = Expr::parse(text, "filter");
  return e.holds([&](std::string_view name) -> std::optional<ExprValue> {
    if (name == "scheduler") return ExprValue{true, 0, "flux"};
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return ExprValue{false, it->second, {}};
  });
}

using test::error_of;

TEST(SweepExpr, ArithmeticAndPrecedence) {
  EXPECT_TRUE(holds("tp * pp * dp == 1024", {{"tp", 8}, {"pp", 4}, {"dp", 32}}));
  EXPECT_FALSE(holds("tp * pp * dp == 1024", {{"tp", 8}, {"pp", 4}, {"dp", 16}}));
  EXPECT_TRUE(holds("1 + 2 * 3 == 7"));
  EXPECT_TRUE(holds("(1 + 2) * 3 == 9"));
  EXPECT_TRUE(holds("7 / 2 == 3 && -7 / 2 == -3 && -7 % 3 == -1"));
  EXPECT_TRUE(holds("10 - 2 - 3 == 5"));                      // left associative
  EXPECT_TRUE(holds("(1 < 2) == 1"));                         // comparisons give 0 or 1
  EXPECT_THROW((void)holds("1 < 2 == 1"), core::InputError);  // and do not chain
  EXPECT_TRUE(holds("0 || 1 && 1"));
  EXPECT_FALSE(holds("(0 || 1) && 0"));
  EXPECT_TRUE(holds("!0 && !(1 > 2) && 3 >= 3 && 2 <= 3 && 4 != 5"));
  EXPECT_TRUE(holds("scheduler == \"flux\" && scheduler != 'bvn'"));
  EXPECT_FALSE(holds("0 && 1 / 0"));  // short-circuit: never divides
  EXPECT_TRUE(holds("1 || 1 / 0"));
}

TEST(SweepExpr, Errors) {
  EXPECT_EQ(error_of([] { (void)Expr::parse("tp * * 2", "filter"); }),
            "filter = tp * * 2: expected a value at \"* 2\" (character 6)");
  EXPECT_EQ(error_of([] { (void)Expr::parse("(tp", "f"); }),
            "f = (tp: expected ) at \"(end)\" (character 4)");
  EXPECT_EQ(error_of([] { (void)Expr::parse("tp 2", "f"); }),
            "f = tp 2: expected an operator or the end at \"2\" (character 4)");
  EXPECT_EQ(error_of([] { (void)Expr::parse("99999999999999999999 > 1", "f"); }),
            "f = 99999999999999999999 > 1: integer out of range at \"99999999999999999999\" "
            "(character 1)");
  EXPECT_EQ(error_of([] { (void)Expr::parse("\"abc", "f"); }),
            "f = \"abc: unterminated string at \"\"abc\" (character 1)");
  EXPECT_EQ(error_of([] { (void)holds("1 / (2 - 2)"); }), "filter = 1 / (2 - 2): division by zero");
  EXPECT_EQ(error_of([] { (void)holds("4611686018427387904 * 2 > 0"); }),
            "filter = 4611686018427387904 * 2 > 0: integer overflow in *");
  EXPECT_EQ(error_of([] { (void)holds("scheduler < 3"); }),
            "filter = scheduler < 3: operator < between a string and an integer");
  EXPECT_EQ(error_of([] { (void)holds("nope == 1"); }), "filter = nope == 1: unknown axis nope");
}

constexpr const char* kToml = R"(
name = "t"
filter = ["tp * dp == 8", "scheduler != \"bvn\" || tau > 10000000"]
[axes]
layers = 2
tp = [2, 4, 8]
dp = [1, 2, 4]
tau = ["10us", "1ms"]
scheduler = ["ideal", "bvn"]
)";

TEST(SweepSpec, ProductFilteredInAxisOrder) {
  const SweepSpec s = SweepSpec::parse(kToml, "t.toml", false);
  ASSERT_EQ(s.axes.size(), 5u);
  EXPECT_EQ(s.axes[0].name, "layers");
  EXPECT_EQ(s.axes[4].name, "scheduler");
  const std::vector<Point> p = s.points();
  // tp * dp == 8: (2,4), (4,2), (8,1); x 2 delays x 2 schedulers, less bvn at 10us.
  std::vector<std::string> keys;
  for (const Point& pt : p) keys.push_back(pt.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"2,2,4,10us,ideal", "2,2,4,1ms,ideal", "2,2,4,1ms,bvn",
                                      "2,4,2,10us,ideal", "2,4,2,1ms,ideal", "2,4,2,1ms,bvn",
                                      "2,8,1,10us,ideal", "2,8,1,1ms,ideal", "2,8,1,1ms,bvn"}));
  const eval::EvalPoint& c = p[2].config;
  EXPECT_EQ(c.job.training.tp, 2u);
  EXPECT_EQ(c.job.training.dp, 4u);
  EXPECT_EQ(c.job.training.model.layers, 2u);
  EXPECT_EQ(c.tau_ps, core::kPsPerMs);
  EXPECT_EQ(c.scheduler, "bvn");
  EXPECT_TRUE(p[2].invalid.empty());
  EXPECT_GT(p[2].memory_bytes, kPointMemoryBaseBytes);
}

TEST(SweepSpec, JsonEqualsToml) {
  const SweepSpec t = SweepSpec::parse(kToml, "t.toml", false);
  const SweepSpec j = SweepSpec::parse(
      R"({"name": "t", "filter": ["tp * dp == 8", "scheduler != \"bvn\" || tau > 10000000"],
          "axes": {"scheduler": ["ideal", "bvn"], "tau": ["10us", "1ms"], "dp": [1, 2, 4],
                   "tp": [2, 4, 8], "layers": 2}})",
      "t.json", true);
  EXPECT_EQ(csv_header(t), csv_header(j));
  std::vector<std::string> a, b;
  for (const Point& p : t.points()) a.push_back(p.key());
  for (const Point& p : j.points()) b.push_back(p.key());
  EXPECT_EQ(a, b);
}

TEST(SweepSpec, InvalidCombinationIsAPointNotAnError) {
  const SweepSpec s = SweepSpec::parse(
      "[axes]\nlayers = 2\ntp = [3, 4]\ndp = 2\nscheduler = \"ideal\"\n", "s", false);
  const std::vector<Point> p = s.points();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NE(p[0].invalid.find("tp = 3"), std::string::npos) << p[0].invalid;
  EXPECT_TRUE(p[1].invalid.empty());
  EXPECT_EQ(run_point(p[0]).status, PointStatus::kInvalid);
}

// A number axis takes its bounds from its option's table entry (issue 30):
// a value the option refuses (--capacity-factor 1e7, --link-gbps 1e12) is
// refused when the file is read, one line naming the file, the axis and the
// bound, as an integer axis's is; set_axis (flux evaluate's overrides) too.
TEST(SweepSpec, NumberAxesTakeTheOptionBounds) {
  const auto err = [](const std::string& text) {
    return error_of([&] { (void)SweepSpec::parse(text, "s.toml", false); });
  };
  const std::string head = "[axes]\nscheduler = \"ideal\"\n";
  EXPECT_EQ(err(head + "capacity_factor = [1.5, 1e7]"),
            "s.toml: line 3, axes.capacity_factor[1] = 10000000.0: must be a number between 0 "
            "and 1e6");
  EXPECT_EQ(err(head + "link_gbps = 1e12"),
            "s.toml: line 3, axes.link_gbps = 1000000000000.0: must be a number in (0, 1e9]");
  EXPECT_EQ(err(head + "scaleup_gbps = 0"),
            "s.toml: line 3, axes.scaleup_gbps = 0: must be a number in (0, 1e9]");
  EXPECT_EQ(err(head + "packet_gbps = 2e9"),
            "s.toml: line 3, axes.packet_gbps = 2000000000.0: must be a number between 0 and 1e9");
  EXPECT_EQ(err(head + "packet_oversubscription = 0.5"),
            "s.toml: line 3, axes.packet_oversubscription = 0.5: must be a number between 1 and "
            "1e6");
  // The bounds themselves are accepted.
  EXPECT_EQ(err(head + "capacity_factor = [0, 1e6]\nlink_gbps = 1e9\npacket_oversubscription = 1"),
            "no error");
  SweepSpec s = SweepSpec::parse(head, "s.toml", false);
  EXPECT_EQ(error_of([&] { s.set_axis("capacity_factor", {"1e7"}); }),
            "capacity_factor = 1e7: must be a number between 0 and 1e6");
  // Every number axis with an option entry has that entry's bounds.
  const std::vector<AxisInfo> table = axis_table();
  const auto same = [&](const auto& option, std::string_view axis) {
    const auto info =
        std::find_if(table.begin(), table.end(), [&](const AxisInfo& a) { return a.name == axis; });
    ASSERT_NE(info, table.end()) << axis;
    EXPECT_EQ(info->real_min, option.min) << axis;
    EXPECT_EQ(info->real_max, option.max) << axis;
    EXPECT_EQ(info->real_min_open, option.min_open) << axis;
    EXPECT_EQ(info->real_max_open, option.max_open) << axis;
    EXPECT_EQ(info->range_text(), option.range_text()) << axis;
  };
  core::for_each_option(core::kSystemOptions, [&](const auto& option) {
    if constexpr (requires { option.min; }) {
      if constexpr (std::is_same_v<typename std::decay_t<decltype(option)>::Value, double>) {
        same(option, option.field);
      }
    }
  });
  same(std::get<1>(workload::kRoutingOptions), "capacity_factor");
  same(sim::kStragglerFactorOption, "straggler_factor");
}

// The straggler factor has one bound (sim::kStragglerFactorOption): a sweep
// file's straggler_factor = 2000 is refused when read with the bound that
// --straggler-factors and --straggler say, (0, 1000].
TEST(SweepSpec, StragglerFactorBoundIsTheOptions) {
  EXPECT_EQ(sim::kStragglerFactorOption.range_text(), "in (0, 1000]");
  EXPECT_EQ(error_of([] {
              (void)SweepSpec::parse("[axes]\nscheduler = \"ideal\"\nstraggler_factor = 2000\n",
                                     "s.toml", false);
            }),
            "s.toml: line 3, axes.straggler_factor = 2000: must be a factor in (0, 1000] (1.5 is "
            "x1.5)");
  EXPECT_EQ(error_of([] { (void)sim::parse_straggler("3:2000"); }),
            "straggler = 3:2000: the factor must be in (0, 1000]");
}

TEST(SweepSpec, Errors) {
  const auto err = [](const std::string& text) {
    return error_of([&] { (void)SweepSpec::parse(text, "s.toml", false).points(); });
  };
  const std::string head = "[axes]\nscheduler = \"ideal\"\n";
  EXPECT_EQ(err(head + "gpu = [\"a100\", 3]"), "s.toml: line 3, axes.gpu[1] = 3: must be a string");
  EXPECT_EQ(err(head + "link_gbps = [0]"),
            "s.toml: line 3, axes.link_gbps[0] = 0: must be a number in (0, 1e9]");
  EXPECT_EQ(err(head + "jitter = [\"x\"]").substr(0, 34), "s.toml: line 3, axes.jitter[0] = x");
  EXPECT_EQ(err(head + "scheduler2 = 1").substr(0, 45),
            "s.toml: line 3, axes.scheduler2 = 1: unknown ");
  EXPECT_EQ(err("name = \"a/b\"\n" + head),
            "s.toml: line 1, name = a/b: must be a plain name (no spaces, commas, quotes, "
            "slashes or control characters)");
  EXPECT_EQ(err("filter = \"tp == 1\"\n" + head + "tp = [2]"),
            "s.toml: filter = tp == 1: the filters leave no point of 1");
  EXPECT_EQ(err(head + "[[plot]]\nx = \"tp\"\ny = \"iteration_time_s\""),
            "s.toml: line 4, plot[0].x = tp: not an axis of this sweep");
  EXPECT_EQ(err(head + "tau = [\"1us\"]\n[[plot]]\nx = \"tau\"\ny = \"status\""),
            "s.toml: line 6, plot[0].y = status: not a numeric metric column");
  // A plot's panels: each axis once, omit and unit tied to its y, a unit of
  // the column's kind, a filter over its axes.
  const std::string plot = head + "tau = [\"1us\", \"1ms\"]\n[[plot]]\nx = \"tau\"\n";
  EXPECT_EQ(err(plot + "y = \"gap\"\nrows = \"tau\""),
            "s.toml: line 7, plot[0].rows = tau: already an axis of this plot (x, rows, series)");
  EXPECT_EQ(err(plot + "y = \"gap\"\nseries = \"scheduler\"\nomit = {sends = [\"ideal\"]}"),
            "s.toml: line 8, plot[0].omit.sends = sends: not a y of this plot");
  EXPECT_EQ(err(plot + "y = \"gap\"\nomit = {gap = [\"ideal\"]}"),
            "s.toml: line 7, plot[0].omit = gap: needs a series axis (series = ...)");
  EXPECT_EQ(
      err(plot + "y = \"peak_nic_bytes\"\nunit = {peak_nic_bytes = \"ms\"}"),
      "s.toml: line 7, plot[0].unit.peak_nic_bytes = ms: not a unit of this column (bytes, KiB, "
      "MiB, GiB)");
  EXPECT_EQ(err(plot + "y = \"gap\"\nwhere = \"tp == 1\""),
            "s.toml: line 7, plot[0].where = tp == 1: unknown axis tp (a filter names axes of the "
            "sweep)");
  EXPECT_EQ(err(plot + "y = \"gap\"\nsvg = 1").substr(0, 46),
            "s.toml: line 7, plot[0].svg = 1: must be true ");
  // Integer bounds per axis, the option's (--trials, --fold-dp, --tp).
  EXPECT_EQ(err(head + "trials = 1000001"),
            "s.toml: line 3, axes.trials = 1000001: must be an integer from 1 to 1000000");
  EXPECT_EQ(err(head + "fold_dp = -1"),
            "s.toml: line 3, axes.fold_dp = -1: must be an integer from 0 to 1048576");
  EXPECT_EQ(err(head + "tp = 0"),
            "s.toml: line 3, axes.tp = 0: must be an integer from 1 to 1048576");
}

// Every recursive reader of a sweep file has a bound (issue 28, N3): the
// filter's nesting (parentheses, unary operators) and length, the JSON's
// and TOML's nesting, the file's size; a chain of binary operators is flat,
// so a long sum is fine. Each refusal is one short line; none overflows the
// stack (these inputs crashed before).
TEST(SweepExpr, DepthAndLengthAreBounded) {
  const auto nested = [](std::size_t n) { return std::string(n, '(') + "1" + std::string(n, ')'); };
  EXPECT_TRUE(holds(nested(kMaxFilterDepth)));
  const std::string deep = error_of([&] { (void)Expr::parse(nested(kMaxFilterDepth + 1), "f"); });
  EXPECT_NE(deep.find("nested deeper than 256 levels"), std::string::npos) << deep;
  for (const std::string& text :
       {nested(20000), std::string(30000, '-') + "1", std::string(30000, '!') + "0",
        "-(" + std::string(5000, '-') + "(1))"}) {
    const std::string e = error_of([&] { (void)Expr::parse(text, "f"); });
    EXPECT_NE(e.find("nested deeper than 256 levels"), std::string::npos) << e.substr(0, 200);
    EXPECT_LT(e.size(), 300u);
  }
  EXPECT_TRUE(holds(std::string(kMaxFilterDepth, '-') + "1 != 0"));
  // Flat chains of any length the limit allows: one node, folded in a loop.
  std::string sum = "tp";
  for (int i = 0; i < 13000; ++i) sum += " + tp";
  EXPECT_TRUE(holds(sum + " == 13001", {{"tp", 1}}));
  std::string all = "1";
  for (int i = 0; i < 12000; ++i) all += " && 1";
  EXPECT_TRUE(holds(all));
  EXPECT_EQ(error_of([&] {
              (void)holds(sum + " * 0 - 1 / 0 > 0", {{"tp", 1}});
            }).substr(0, 40),
            "filter = tp + tp + tp + tp + tp + tp + t");
  std::string longer = "1";
  while (longer.size() <= kMaxFilterLength) longer += " + 1";
  const std::string e = error_of([&] { (void)Expr::parse(longer, "f"); });
  EXPECT_NE(e.find("longer than 65536 characters, the limit of a filter"), std::string::npos);
  EXPECT_LT(e.size(), 300u);
  // A control character in a filter is escaped in the message: one line.
  EXPECT_EQ(error_of([] { (void)Expr::parse("1 +\n", "f"); }),
            "f = 1 +\\n: expected a value at \"(end)\" (character 5)");
}

TEST(SweepSpec, NestingSizeAndDuplicateKeysAreRefused) {
  const auto err = [](const std::string& text, bool json) {
    return error_of([&] { (void)SweepSpec::parse(text, json ? "s.json" : "s.toml", json); });
  };
  const std::string axes = R"("axes": {"layers": 1, "scheduler": "ideal"})";
  const auto deep = [](std::size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  for (const std::string& text :
       {"{\"x\": " + deep(70000) + ", " + axes + "}",
        R"({"axes": {"scheduler": "ideal", "layers": )" + deep(100000) + "}}",
        "{" + axes + R"(, "filter": )" + deep(257) + "}", std::string(1000000, '[')}) {
    const std::string e = err(text, true);
    EXPECT_NE(e.find("nested deeper than 256 levels, the limit of a sweep file"), std::string::npos)
        << e.substr(0, 300);
    EXPECT_LT(e.size(), 300u);
  }
  // Found by fuzz_sweep_spec: nlohmann reports a number too large as
  // out_of_range, not as a parse error.
  EXPECT_EQ(err(R"({"axes": {"capacity_factor": 1e400, "scheduler": "ideal"}})", true),
            "s.json: not valid JSON: a number too large for a double");
  EXPECT_EQ(err(R"({"axes": {"layers": 1, "layers": 2, "scheduler": "ideal"}})", true),
            "s.json: axes.layers: duplicate key");
  EXPECT_EQ(err("{" + axes + R"(, "name": "a", "name": "b"})", true),
            "s.json: name: duplicate key");
  EXPECT_EQ(
      err(R"({"plot": [{"x": "layers"}, {"x": "layers", "x": "layers"}], )" + axes + "}", true),
      "s.json: plot[1].x: duplicate key");
  EXPECT_EQ(err(R"({"a\nb": 1, "a\nb": 2})", true), "s.json: a\\nb: duplicate key");
  EXPECT_EQ(err(R"({"axes": {"a\u0000": 1}})", true).substr(0, 45),
            "s.json: axes.a\\x00 = 1: unknown axis (known: ");
  // Nesting within the bound is the reader's business (here: a wrong type).
  EXPECT_NE(err("{" + axes + R"(, "filter": )" + deep(200) + "}", true).find("a filter is a"),
            std::string::npos);
  // TOML: toml++'s own bound, one line.
  const std::string toml = err("a = " + std::string(10000, '[') + "\n", false);
  EXPECT_EQ(toml.find('\n'), std::string::npos);
  EXPECT_NE(toml.find("s.toml: line 1: not valid TOML: "), std::string::npos) << toml;
  EXPECT_NE(toml.find("256"), std::string::npos) << toml;
  // Over the size limit: refused before it is parsed, text and files alike.
  const std::string big = "description = \"" + std::string(kMaxSweepFileBytes, 'x') + "\"\n";
  EXPECT_EQ(err(big, false), "s.toml: larger than 1 MiB, the limit of a sweep file");
  EXPECT_EQ(error_of([] { (void)SweepSpec::read("/dev/zero"); }),
            "/dev/zero: larger than 1 MiB, the limit of a sweep file");
  EXPECT_EQ(error_of([] { (void)SweepSpec::read("/"); }), "/: is a directory, not a file");
}

// Names become file names (the CSV, the lock): a NUL would cut them, a
// newline would break the one-line error. Every string value is refused
// with a control character, and shown escaped.
TEST(SweepSpec, ControlCharactersAreRefused) {
  const auto err = [](const std::string& text, bool json) {
    return error_of([&] { (void)SweepSpec::parse(text, json ? "s.json" : "s.toml", json); });
  };
  EXPECT_EQ(err(R"({"name": "a\u0000b", "axes": {"scheduler": "ideal"}})", true),
            "s.json: name = a\\x00b: must be a plain name (no spaces, commas, quotes, slashes or "
            "control characters)");
  EXPECT_EQ(err("name = \"a\\nb\"\n[axes]\nscheduler = \"ideal\"\n", false),
            "s.toml: line 1, name = a\\nb: must be a plain name (no spaces, commas, quotes, "
            "slashes or control characters)");
  EXPECT_EQ(err("[axes]\nscheduler = \"ideal\"\nrouting = \"file:r.json\\u0000x\"\n", false),
            "s.toml: line 3, axes.routing = file:r.json\\x00x: a control character (a newline, a "
            "NUL, ...)");
  EXPECT_EQ(err("[axes]\nscheduler = [\"ideal\", \"bvn\\r\"]\n", false),
            "s.toml: line 2, axes.scheduler[1] = bvn\\r: a control character (a newline, a "
            "NUL, ...)");
  EXPECT_EQ(
      err("[axes]\nscheduler = \"ideal\"\n[[plot]]\nx = \"scheduler\"\ny = \"gap\\t\"\n", false)
          .substr(0, 40),
      "s.toml: line 5, plot[0].y = gap\\t: must ");
}

// The product is counted from the lists' lengths before any point is built
// (issue 28, N5), and the points the filters keep before any is set up.
TEST(SweepSpec, ProductIsBoundedBeforeItIsBuilt) {
  const auto list = [](int n) {
    std::string s = "[";
    for (int i = 1; i <= n; ++i) s += (i > 1 ? ", " : "") + std::to_string(i);
    return s + "]";
  };
  const std::string huge = "[axes]\nlayers = " + list(100) + "\ntp = " + list(100) +
                           "\ndp = " + list(100) + "\nseq = " + list(100) +
                           "\nscheduler = [\"ideal\", \"bvn\"]\n";
  EXPECT_EQ(error_of([&] { (void)SweepSpec::parse(huge, "s.toml", false).points(); }),
            "s.toml: axes = 100 x 100 x 100 x 100 x 2: 200000000 combinations of the axes' "
            "values, over the limit of 10000000 a sweep enumerates: split it into several sweep "
            "files");
  const std::string many =
      "[axes]\nlayers = " + list(1001) + "\ntp = " + list(1000) + "\nscheduler = \"ideal\"\n";
  EXPECT_EQ(error_of([&] { (void)SweepSpec::parse(many, "s.toml", false).points(); }),
            "s.toml: axes = 1001 x 1000 x 1: 1001000 points (about 2.39 GiB to hold), over the "
            "limit of 1000000 points a sweep holds: narrow it with a filter or split it into "
            "several sweep files");
  // A filter that keeps few of many combinations is fine.
  const std::vector<Point> few =
      SweepSpec::parse("filter = \"layers == tp\"\n" + many, "s.toml", false).points();
  EXPECT_EQ(few.size(), 1000u);
}

// A CSV being resumed holds rows of this sweep's points only, each with a
// known status (issue 28, N6): another row is refused and the file left as
// it was.
class SweepCsv : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/flux-sweep-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    spec_ = SweepSpec::parse(
        "[axes]\nlayers = 1\ntp = 2\ndp = 2\ntau = [\"10us\", \"1ms\"]\nscheduler = \"ideal\"\n",
        "s.toml", false);
    points_ = spec_.points();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string slurp(const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void put(const std::filesystem::path& f, const std::string& text) {
    std::ofstream(f, std::ios::binary) << text;
  }
  std::string row(std::size_t i, const std::string& status = "ok") const {
    Outcome o;
    o.status = *status_of(status);
    return csv_row(spec_, points_[i], o);
  }

  std::filesystem::path dir_;
  SweepSpec spec_;
  std::vector<Point> points_;
};

TEST_F(SweepCsv, RowsOfOtherPointsAndUnknownStatusesAreRefused) {
  const std::filesystem::path csv = dir_ / "s.csv";
  const std::string header = csv_header(spec_);
  {
    ResultFile f(csv, header, points_, false);
    f.append(points_[0].key(), row(0));
  }
  const std::string good = slurp(csv);
  EXPECT_EQ(good, header + "\n" + row(0) + "\n");
  {
    const ResultFile f(csv, header, points_, false);  // resumes
    EXPECT_EQ(f.finished().at(points_[0].key()), "ok");
  }
  // A row of a point that is not in the sweep (tau 77us: hand-edited, or
  // the axis's values changed), and a status nobody writes; each with a
  // torn last row, which must stay too.
  std::string stale = row(1);
  stale.replace(stale.find("1ms"), 3, "77us");
  std::string bogus = row(1);
  bogus.replace(bogus.find(",ok,"), 4, ",bogus,");
  const std::string torn = "1,2,2,10us,id";
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {good + stale + "\n" + torn,
            "line 3 = 1,2,2,77us,ideal: not a point of this sweep (its axes' values or filters "
            "have changed?): use another output directory (-o), start over (--fresh) or remove "
            "the row"},
           {good + bogus + "\n" + torn,
            "line 3, point_status = bogus: unknown status (known: ok, error, invalid, timeout, "
            "memory, crashed): use another output directory (-o), start over (--fresh) or "
            "remove the row"}}) {
    put(csv, text);
    EXPECT_EQ(error_of([&] { ResultFile f(csv, header, points_, false); }),
              csv.string() + ": " + expected);
    EXPECT_EQ(slurp(csv), text);
  }
  // --fresh starts over, whatever the file held.
  { const ResultFile f(csv, header, points_, true); }
  EXPECT_EQ(slurp(csv), header + "\n");
}

// The CSV is the sweep's own file: a symlink is not followed (nor its
// target touched), and a file that is not regular is refused.
TEST_F(SweepCsv, SymlinksAndSpecialFilesAreRefused) {
  const std::filesystem::path csv = dir_ / "s.csv";
  put(dir_ / "victim.txt", "precious\n");
  std::filesystem::create_symlink("victim.txt", csv);
  EXPECT_EQ(error_of([&] { ResultFile f(csv, csv_header(spec_), points_, true); }),
            csv.string() +
                ": is a symlink: the sweep's CSV must be a file of its own (remove the link or use "
                "another output directory, -o)");
  EXPECT_EQ(slurp(dir_ / "victim.txt"), "precious\n");
  std::filesystem::remove(csv);
  std::filesystem::create_symlink("missing.txt", csv);  // dangling: not created through
  EXPECT_NE(error_of([&] { ResultFile f(csv, csv_header(spec_), points_, false); }), "no error");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "missing.txt"));
  std::filesystem::remove(csv);
  ASSERT_EQ(::mkfifo(csv.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { ResultFile f(csv, csv_header(spec_), points_, false); }),
            csv.string() + ": is not a regular file");
}

// A failed append (a full disk; here the file size limit, RLIMIT_FSIZE,
// which fails the write the same way part of the way through) leaves the
// file at its last whole row (issue 28, N15).
TEST_F(SweepCsv, AFailedAppendLeavesWholeRows) {
  const std::filesystem::path csv = dir_ / "s.csv";
  ResultFile f(csv, csv_header(spec_), points_, false);
  f.append(points_[0].key(), row(0));
  const std::string before = slurp(csv);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit cap = old;
  cap.rlim_cur = before.size() + 10;  // the next row fits only in part
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &cap), 0);
  const std::string e = error_of([&] { f.append(points_[1].key(), row(1)); });
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(e, csv.string() + ": cannot append a row: File too large");
  EXPECT_EQ(slurp(csv), before);
  f.append(points_[1].key(), row(1));  // and it goes on from there
  EXPECT_EQ(slurp(csv), before + row(1) + "\n");
}

// A relative file: routing path is the sweep file's directory's (the
// working directory's for text without a file).
TEST(SweepSpec, RelativeRoutingFilesAreTheSweepFilesDirectorys) {
  const std::string text =
      "[axes]\nmodel = \"mixtral-8x7b\"\nlayers = 1\ndp = 4\nep = 4\nseq = 16\n"
      "routing = [\"file:r.json\", \"file:/abs/r.json\"]\nscheduler = \"ideal\"\n";
  const std::vector<Point> from_file = SweepSpec::parse(text, "d/s.toml", false, "/x/d").points();
  ASSERT_EQ(from_file.size(), 2u);
  EXPECT_EQ(from_file[0].values[from_file[0].values.size() - 2], "file:r.json");  // as written
  EXPECT_EQ(from_file[0].config.job.training.moe.routing.file, "/x/d/r.json");
  EXPECT_EQ(from_file[1].config.job.training.moe.routing.file, "/abs/r.json");
  const std::vector<Point> from_text = SweepSpec::parse(text, "<dict>", false).points();
  EXPECT_EQ(from_text[0].config.job.training.moe.routing.file, "r.json");
}

// A trials axis makes every point a robustness point: the row is
// eval::run_robust_point's for that one job, delay, scheduler and jitter.
TEST(SweepSpec, TrialsGivePercentileRows) {
  const SweepSpec s = SweepSpec::parse(
      "[axes]\nmodel = \"8b\"\nlayers = 1\ntp = 4\ndp = 2\ntau = \"10us\"\n"
      "jitter = [0, 0.05]\nseed = 7\ntrials = 3\nscheduler = \"ideal\"\n"
      "[[plot]]\nx = \"jitter\"\ny = \"iteration_p95_s\"\n",
      "s.toml", false);
  ASSERT_TRUE(s.robust());
  EXPECT_NE(csv_header(s).find(",point_status,point_error,wall_s,job,gpu,tau_s,"),
            std::string::npos)
      << csv_header(s);
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 2u);
  ASSERT_TRUE(points[1].robust.has_value());
  const Outcome out = run_point(points[1]);
  ASSERT_EQ(out.status, PointStatus::kOk) << out.error;

  // The same point measured in this process.
  eval::RobustPoint c;
  c.job.name = "L1-a100";
  c.job.training.model = workload::ModelConfig::llama3("8b");
  c.job.training.model.layers = 1;
  c.job.training.tp = 4;
  c.job.training.dp = 2;
  c.job.training.gpu = workload::GpuSpec::preset("a100");
  c.tau_ps = 10 * core::kPsPerUs;
  c.system.reconfig_delay_ps = c.tau_ps;
  c.scheduler = "ideal";
  c.perturbation = {eval::PerturbationKind::kJitter, 0.05, 1, 3};
  c.seed = 7;
  std::vector<eval::RobustRow> rows = {eval::run_robust_point(c)};
  // Everything but the four wall times (the last columns).
  const auto head = [](const std::string& row) {
    std::vector<std::string> f = eval::csv_fields(row);
    f.resize(f.size() - 4);
    return f;
  };
  EXPECT_EQ(head(out.metrics), head(eval::robust_csv_row(rows.front())));
  EXPECT_EQ(rows.front().trials, 3u);
  EXPECT_EQ(rows.front().perturbation, eval::PerturbationKind::kJitter);
  EXPECT_LE(rows.front().iteration_time_s.p50, rows.front().iteration_time_s.p95);

  EXPECT_EQ(error_of([] {
              (void)SweepSpec::parse(
                  "[axes]\ntrials = 2\nscheduler = \"ideal\"\ntau = [\"1us\"]\n"
                  "[[plot]]\nx = \"tau\"\ny = \"iteration_time_s\"\n",
                  "s.toml", false);
            }),
            "s.toml: line 7, plot[0].y = iteration_time_s: not a numeric metric column of a sweep "
            "with trials (iteration_p50_s, ...)");
}

TEST(SweepRunner, OutcomeRoundTripAndOrder) {
  Outcome o;
  o.status = PointStatus::kTimeout;
  o.error = "killed\nafter 1 s";
  o.metrics = "1,2,3";
  const Outcome back = decode(encode(o));
  EXPECT_EQ(back.status, PointStatus::kTimeout);
  EXPECT_EQ(back.error, "killed after 1 s");
  EXPECT_EQ(back.metrics, "1,2,3");
  EXPECT_EQ(decode("5\nx").status, PointStatus::kCrashed);  // cut short

  std::vector<Point> points(4);
  points[0].memory_bytes = 10;
  points[1].memory_bytes = 30;
  points[2].memory_bytes = 10;
  points[3].memory_bytes = 20;
  EXPECT_EQ(largest_first(points, {0, 1, 2, 3}), (std::vector<std::size_t>{1, 3, 0, 2}));
  EXPECT_EQ(refuse(points[1], 25).value().status, PointStatus::kMemory);
  EXPECT_FALSE(refuse(points[1], 30).has_value());
}

// RunOptions::stop (the Python bindings' Ctrl-C): asked before any point
// starts, it stops the run with nothing started; raised after the first
// point ends, it kills the points still running, reports none of them and
// leaves no child process behind.
TEST(SweepRunner, StopKillsTheRunningPoints) {
  const SweepSpec spec = SweepSpec::parse(
      "name = \"s\"\n[axes]\nlayers = [1, 2]\ntp = 4\ndp = 2\n"
      "tau = [\"10us\", \"1ms\"]\nscheduler = [\"rotornet\", \"ideal\"]\n",
      "s.toml", false);
  const std::vector<Point> points = spec.points();
  ASSERT_EQ(points.size(), 8u);
  const std::vector<std::size_t> all = {0, 1, 2, 3, 4, 5, 6, 7};
  std::size_t done = 0;
  RunOptions o;
  o.jobs = 2;
  o.stop = [] { return true; };
  run_points(points, all, o, [&](std::size_t, const Outcome&, const RunProgress&) { ++done; });
  EXPECT_EQ(done, 0u);

  o.stop = [&] { return done > 0; };
  run_points(points, all, o, [&](std::size_t, const Outcome& out, const RunProgress&) {
    EXPECT_EQ(out.status, PointStatus::kOk);
    ++done;
  });
  EXPECT_GE(done, 1u);
  EXPECT_LE(done, 2u);  // the two running may end in the same poll
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// The robustness axes: a straggler, a switch failure, the re-planning; a
// -robust scheduler; each bad value one error naming the file, the line, the
// key and the value.
TEST(SweepSpec, RobustnessAxes) {
  const std::string axes =
      "[axes]\nmodel = \"8b\"\nlayers = 1\ntp = 4\ndp = 2\ntau = \"10us\"\n"
      "seed = 3\ntrials = 2\n";
  const SweepSpec s = SweepSpec::parse(axes +
                                           "straggler_factor = [1, 1.5]\nstraggler_rank = 5\n"
                                           "fail_at = [0, \"40%\"]\nfail_switch = 0\n"
                                           "replan_time_limit = \"3s\"\nreplan_moves = 50\n"
                                           "scheduler = [\"bvn-robust\", \"ideal\"]\n",
                                       "s.toml", false);
  ASSERT_TRUE(s.robust());
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 8u);  // straggler x fail_at x scheduler
  for (const Point& p : points) EXPECT_TRUE(p.invalid.empty()) << p.invalid;
  // straggler 1.5, failure at 40 %, bvn-robust (the last axis varies fastest).
  const eval::RobustPoint& r = *points[6].robust;
  EXPECT_EQ(r.scheduler, "bvn-robust");
  EXPECT_EQ(r.perturbation.kind, eval::PerturbationKind::kFailure);
  EXPECT_EQ(r.perturbation.straggler_factor, 1.5);
  EXPECT_EQ(r.perturbation.trials, 1u);  // no jitter: one trial
  EXPECT_EQ(r.straggler_rank, 5u);
  EXPECT_EQ(r.fail_fraction, 0.4);
  EXPECT_EQ(r.fail_switch, 0u);
  EXPECT_EQ(r.replan_time_limit_s, 3);
  EXPECT_EQ(r.replan_moves, 50u);
  EXPECT_EQ(r.seed, 3u);
  EXPECT_EQ(r.job.name, "L1-a100");
  EXPECT_EQ(points[0].robust->perturbation.kind, eval::PerturbationKind::kNone);
  EXPECT_EQ(points[4].robust->perturbation.kind, eval::PerturbationKind::kStraggler);
  // A straggler point's row: rank 5 at 1.5x slows the ideal network down.
  const Outcome none = run_point(points[1]);
  const Outcome slow = run_point(points[5]);
  ASSERT_EQ(none.status, PointStatus::kOk) << none.error;
  ASSERT_EQ(slow.status, PointStatus::kOk) << slow.error;
  const eval::RobustRow a = eval::parse_robust_csv_row(none.metrics);
  const eval::RobustRow b = eval::parse_robust_csv_row(slow.metrics);
  EXPECT_EQ(b.perturbation, eval::PerturbationKind::kStraggler);
  EXPECT_EQ(b.straggler_rank, 5u);
  EXPECT_GT(b.iteration_time_s.p50, a.iteration_time_s.p50);
  // Filters see a factor x100.
  const SweepSpec f =
      SweepSpec::parse("filter = \"straggler_factor == 150\"\n" + axes +
                           "straggler_factor = [1, 1.1, 1.5]\nscheduler = \"ideal\"\n",
                       "s.toml", false);
  ASSERT_EQ(f.points().size(), 1u);
  EXPECT_EQ(f.points()[0].robust->perturbation.straggler_factor, 1.5);

  const auto err = [&](const std::string& more) {
    return error_of([&] { (void)SweepSpec::parse(axes + more, "s.toml", false); });
  };
  EXPECT_EQ(err("straggler_factor = [1, 0]\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.straggler_factor[1] = 0: must be a factor in (0, 1000] (1.5 is "
            "x1.5)");
  EXPECT_EQ(err("straggler_factor = 2000\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.straggler_factor = 2000: must be a factor in (0, 1000] (1.5 is "
            "x1.5)");
  EXPECT_EQ(err("fail_at = [0, \"150%\"]\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.fail_at[1] = 150%: must be from 0% (no failure) to 100%");
  EXPECT_EQ(err("straggler_rank = -1\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.straggler_rank = -1: must be an integer from 0 to 1073741824");
  EXPECT_EQ(err("replan_moves = 0\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.replan_moves = 0: must be an integer from 1 to "
            "9223372036854775807");
  EXPECT_EQ(err("replan_time_limit = \"2000000s\"\nscheduler = \"ideal\"\n"),
            "s.toml: line 9, axes.replan_time_limit = 2000000s: must be between 0 and 1e6 s");
  EXPECT_EQ(error_of([] {
              (void)SweepSpec::parse("[axes]\nscheduler = [\"ideal\", \"flux-robust\"]\n", "s.toml",
                                     false);
            }),
            "s.toml: line 2, axes.scheduler[1] = flux-robust: a -robust scheduler plans for the "
            "point's jitter: it needs a robustness sweep (a trials axis)");
  EXPECT_NE(err("scheduler = \"nope-robust\"\n").find("axes.scheduler = nope-robust: unknown"),
            std::string::npos);
  // A combination that does not validate is a failed point, not a file error.
  const SweepSpec bad = SweepSpec::parse(
      axes + "fail_at = 0.5\nfail_switch = 2\nscheduler = \"ideal\"\n", "s.toml", false);
  EXPECT_EQ(bad.points()[0].invalid,
            "fail_switch = 2: no such switch: the system has 2 (numbered from 0)");
}

// MoE axes: a model, EP and routing per point; routing_iterations runs each
// plan on later iterations of its routing beside a re-plan of each
// (docs/model.md, "Uncertain routing"). Under uniform routing every
// iteration is the same, so planned = re-planned = the point's own time.
TEST(SweepSpec, MoeAxesAndUncertainRouting) {
  const std::string axes =
      "[axes]\nmodel = \"mixtral-8x7b\"\nlayers = 2\ndp = 4\nep = 4\nseq = 1024\n"
      "micro_batches = 1\n";
  const SweepSpec s = SweepSpec::parse(axes +
                                           "routing = [\"uniform\", \"zipf:1.2\"]\n"
                                           "routing_iterations = 2\ntau = \"10us\"\n"
                                           "scheduler = \"greedy\"\n",
                                       "s.toml", false);
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 2u);
  std::vector<eval::EvalRow> rows;
  for (const Point& p : points) {
    const Outcome out = run_point(p);
    ASSERT_EQ(out.status, PointStatus::kOk) << out.error;
    rows.push_back(eval::parse_csv_row(out.metrics));
  }
  const eval::EvalRow& u = rows[0];
  EXPECT_EQ(u.routing, "uniform");
  EXPECT_EQ(u.model, "mixtral-8x7b");
  EXPECT_EQ(u.uncertain_runs, 2u);
  EXPECT_EQ(u.planned_p50_s, u.iteration_time_s);
  EXPECT_EQ(u.planned_max_s, u.iteration_time_s);
  EXPECT_EQ(u.replanned_max_s, u.iteration_time_s);
  ASSERT_TRUE(u.replan_wall_max_s.has_value());
  const eval::EvalRow& z = rows[1];
  EXPECT_EQ(z.routing, "zipf:1.2");
  EXPECT_EQ(z.sends, u.sends);  // the same DAG under every routing
  ASSERT_TRUE(z.planned_p50_s && z.planned_max_s && z.replanned_p50_s && z.replanned_max_s);
  EXPECT_LE(*z.planned_p50_s, *z.planned_max_s);
  EXPECT_LE(*z.replanned_p50_s, *z.replanned_max_s);
  EXPECT_NE(*z.planned_max_s, z.iteration_time_s);    // other iterations, other sizes
  EXPECT_GT(z.iteration_time_s, u.iteration_time_s);  // skew makes stragglers

  const auto err = [&](const std::string& more) {
    return error_of([&] {
      (void)SweepSpec::parse(axes + more + "scheduler = \"greedy\"\n", "s.toml", false).points();
    });
  };
  EXPECT_EQ(err("routing = \"bogus\"\n").substr(0, 40), "s.toml: line 8, axes.routing = bogus: un");
  EXPECT_EQ(err("routing_iterations = 65\n"),
            "s.toml: line 8, axes.routing_iterations = 65: must be an integer from 0 to 64");
  EXPECT_EQ(err("capacity_factor = -1.0\n"),
            "s.toml: line 8, axes.capacity_factor = -1.0: must be a number between 0 and 1e6");
  // 0 is no dropping, as without the axis.
  EXPECT_EQ(SweepSpec::parse(axes + "capacity_factor = [0, 1.25]\nscheduler = \"greedy\"\n",
                             "s.toml", false)
                .points()
                .front()
                .config.job.training.moe.routing.capacity_factor,
            0.0);
}

// decision_reserve: measured points keep it back from their budget,
// modelled ones run to completion without it; a reserve at or above the
// budget is a failed point, naming both.
TEST(SweepSpec, DecisionReserveAxis) {
  const SweepSpec s = SweepSpec::parse(
      "[axes]\nmodel = \"mixtral-8x7b\"\nlayers = 2\ndp = 4\nep = 4\nseq = 1024\n"
      "routing = \"zipf:1.2\"\nrouting_iterations = 2\ntau = \"10us\"\n"
      "scheduler = \"greedy\"\ndecision_budget = [\"100us\", \"20us\"]\n"
      "decision_latency = [\"modelled\", \"measured\"]\ndecision_reserve = \"30us\"\n",
      "s.toml", false);
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 4u);
  // Out of the option's range: refused with the file.
  const auto err = [](const std::string& reserve) {
    return error_of([&] {
      (void)SweepSpec::parse(
          "[axes]\nscheduler = \"greedy\"\ndecision_reserve = \"" + reserve + "\"\n", "s.toml",
          false);
    });
  };
  EXPECT_EQ(err("20s"), "s.toml: line 3, axes.decision_reserve = 20s: must be between 0 and 10 s");
  EXPECT_EQ(err("-1us").substr(0, 55), "s.toml: line 3, axes.decision_reserve = -1us: must be b");
  for (const Point& p : points) {
    ASSERT_TRUE(p.config.online.has_value());
    const runtime::OnlineOptions& o = *p.config.online;
    if (o.latency == runtime::DecisionLatency::kModelled) {
      EXPECT_EQ(o.reserve_ps, 0);
      EXPECT_EQ(p.invalid, "");
    } else {
      EXPECT_EQ(o.reserve_ps, 30 * core::kPsPerUs);
      EXPECT_EQ(p.invalid, o.budget_ps == 20 * core::kPsPerUs
                               ? "decision_reserve = 30 us: must be below the decision budget "
                                 "(20 us)"
                               : "");
    }
  }
}

// plan_routing = "expected": under zipf routing the plan run on the later
// iterations is made for the expected (uniform) routing; the re-plans are
// the same as with "draw". Checked against runtime::run_uncertain called
// directly on the uniform workload and iterations 1 and 2 of the zipf one.
TEST(SweepSpec, PlanForTheExpectedRouting) {
  const std::string axes =
      "[axes]\nmodel = \"mixtral-8x7b\"\nlayers = 2\ndp = 4\nep = 4\nseq = 1024\n"
      "micro_batches = 1\n";
  const SweepSpec s = SweepSpec::parse(axes +
                                           "routing = \"zipf:1.2\"\nrouting_iterations = 2\n"
                                           "plan_routing = [\"draw\", \"expected\"]\n"
                                           "tau = \"10us\"\nscheduler = \"greedy\"\n",
                                       "s.toml", false);
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].config.plan_routing.kind, eval::PlanRouting::Kind::kExpected);
  EXPECT_EQ(points[1].config.routing_replan_limit_s, 0.0);  // the point's time_limit
  EXPECT_EQ(SweepSpec::parse(axes + "routing_replan_limit = \"50ms\"\nscheduler = \"flux\"\n",
                             "s.toml", false)
                .points()
                .front()
                .config.routing_replan_limit_s,
            0.05);
  std::vector<eval::EvalRow> rows;
  for (const Point& p : points) {
    const Outcome out = run_point(p);
    ASSERT_EQ(out.status, PointStatus::kOk) << out.error;
    rows.push_back(eval::parse_csv_row(out.metrics));
  }
  const eval::EvalRow& draw = rows[0];
  const eval::EvalRow& expected = rows[1];
  EXPECT_EQ(expected.iteration_time_s, draw.iteration_time_s);  // the point's own plan
  EXPECT_EQ(expected.replanned_p50_s, draw.replanned_p50_s);
  EXPECT_EQ(expected.replanned_max_s, draw.replanned_max_s);
  ASSERT_TRUE(expected.planned_p50_s && expected.planned_max_s);

  const eval::EvalPoint& c = points[1].config;
  workload::TrainingConfig t = c.job.training;
  std::vector<core::Workload> actual;
  for (std::uint64_t i : {1, 2}) {
    t.moe.routing.iteration = i;
    actual.push_back(workload::generate_llama(t));
  }
  t.moe.routing = workload::RoutingSpec::parse("uniform");
  const core::Workload uniform = workload::generate_llama(t);
  const core::System sys = c.point_system();
  const runtime::UncertainResult u =
      runtime::run_uncertain(uniform, actual, sys, "greedy", c.sched, c.sim);
  EXPECT_EQ(*expected.planned_p50_s, core::ps_to_seconds(u.planned_iteration_ps.p50));
  EXPECT_EQ(*expected.planned_max_s, core::ps_to_seconds(u.planned_iteration_ps.max));
  EXPECT_NE(*expected.planned_max_s, *draw.planned_max_s);  // another plan

  EXPECT_EQ(error_of([&] {
              (void)SweepSpec::parse(axes + "plan_routing = \"mean\"\nscheduler = \"greedy\"\n",
                                     "s.toml", false)
                  .points();
            }),
            "s.toml: line 8, axes.plan_routing = mean: must be draw, expected, last or ewma:A");
}

// plan_routing = "last" / "ewma:A": before each later iteration a plan for
// the predictor's forecast from the iterations before it. Under a drifting
// routing, "last" plans iteration i + 1 for iteration i's routing: checked
// against runtime::run_uncertain_each given those workloads directly.
TEST(SweepSpec, PlanBeforeEachIterationForAPrediction) {
  const std::string axes =
      "[axes]\nmodel = \"mixtral-8x7b\"\nlayers = 2\ndp = 4\nep = 4\nseq = 1024\n"
      "micro_batches = 1\nrouting = \"zipf-drift:1.2:0.2\"\nrouting_iterations = 3\n";
  const SweepSpec s =
      SweepSpec::parse(axes +
                           "plan_routing = [\"draw\", \"last\", \"ewma:0.5\"]\ntau = \"10us\"\n"
                           "scheduler = \"greedy\"\n",
                       "s.toml", false);
  const std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1].config.plan_routing.kind, eval::PlanRouting::Kind::kPredicted);
  EXPECT_EQ(points[2].config.plan_routing.predictor.alpha, 0.5);
  std::vector<eval::EvalRow> rows;
  for (const Point& p : points) {
    const Outcome out = run_point(p);
    ASSERT_EQ(out.status, PointStatus::kOk) << out.error;
    rows.push_back(eval::parse_csv_row(out.metrics));
  }
  for (const eval::EvalRow& r : rows) {
    EXPECT_EQ(r.iteration_time_s, rows[0].iteration_time_s);  // the point's own plan
    EXPECT_EQ(r.replanned_max_s, rows[0].replanned_max_s);    // the oracle
    ASSERT_TRUE(r.planned_max_s.has_value());
  }
  const eval::EvalPoint& c = points[1].config;
  workload::TrainingConfig t = c.job.training;
  const auto at = [&](std::uint64_t i) {
    workload::TrainingConfig u = t;
    u.moe.routing.iteration = i;
    return std::make_shared<const core::Workload>(workload::generate_llama(u));
  };
  const core::System sys = c.point_system();
  const runtime::UncertainResult u = runtime::run_uncertain_each(
      3,
      [&](std::uint32_t i) {
        const auto planned = at(i);
        return runtime::IterationPlan{planned,
                                      std::make_shared<const schedule::Schedule>(
                                          sched::run_scheduler("greedy", *planned, sys, c.sched)),
                                      0};
      },
      [&](std::uint32_t i) { return at(i + 1); }, sys, "greedy", c.sched, c.sim);
  EXPECT_EQ(*rows[1].planned_p50_s, core::ps_to_seconds(u.planned_iteration_ps.p50));
  EXPECT_EQ(*rows[1].planned_max_s, core::ps_to_seconds(u.planned_iteration_ps.max));
  EXPECT_EQ(*rows[1].replanned_max_s, core::ps_to_seconds(u.replanned_iteration_ps.max));
  // Iteration 1 runs iteration 0's plan either way; from iteration 2 on,
  // planning for the last routing pays under this drift.
  EXPECT_EQ(*rows[1].planned_max_s, *rows[0].planned_max_s);
  EXPECT_LT(*rows[1].planned_p50_s, *rows[0].planned_p50_s);
  EXPECT_NE(*rows[2].planned_max_s, *rows[1].planned_max_s);  // an average, not the last
}

}  // namespace
}  // namespace flux::sweep

namespace flux::sweep {
namespace {

// One plot writer: a [[plot]] of several metrics, rows and series is a
// multiplot with a panel per (row, metric), omitted series left out.
TEST(SweepPlot, Panels) {
  const SweepSpec spec = SweepSpec::parse(
      "name = \"p\"\n[axes]\nmodel = \"8b\"\nlayers = [1, 2]\ntp = 4\ndp = 2\n"
      "tau = [\"1us\", \"1ms\"]\nscheduler = [\"bvn\", \"ideal\"]\n[[plot]]\nname = \"f\"\n"
      "x = \"tau\"\ny = [\"iteration_time_s\", \"peak_nic_bytes\"]\nrows = \"layers\"\n"
      "series = \"scheduler\"\nomit = {peak_nic_bytes = [\"ideal\"]}\n"
      "unit = {tau = \"us\", iteration_time_s = \"ms\"}\nsvg = true\n",
      "p.toml", false);
  const std::vector<Point> points = spec.points();
  std::map<std::string, std::string> rows;
  const std::vector<std::string> header = eval::csv_fields(csv_header(spec));
  for (const Point& p : points) {
    // A row of the CSV: the point's values, ok, then 0.5 s and 4096 bytes.
    std::vector<std::string> f(header.size());
    for (std::size_t i = 0; i < p.values.size(); ++i) f[i] = p.values[i];
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "point_status") f[i] = "ok";
      if (header[i] == "iteration_time_s") f[i] = "0.5";
      if (header[i] == "peak_nic_bytes") f[i] = "4096";
    }
    std::string row;
    for (std::size_t i = 0; i < f.size(); ++i) row += (i ? "," : "") + f[i];
    rows[p.key()] = row;
  }
  EXPECT_EQ(plot_stem(spec, spec.plots[0]), "f");
  const std::string g = gnuplot_script(spec, spec.plots[0], points, rows, "f.png", "f.svg");
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = g.find(what); at != std::string::npos; at = g.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("set multiplot layout 2,2 title 'model 8b, tp 4, dp 2'\n"), 2U);
  EXPECT_EQ(count("set title '1 layers'\n"), 4U);  // 2 panels, 2 outputs
  EXPECT_EQ(count("set ylabel 'iteration time (ms)'\n"), 4U);
  EXPECT_EQ(count("set xlabel 'reconfiguration delay (us)'\n"), 2U);
  EXPECT_EQ(count("title 'ideal'"), 4U);  // the time panels only
  EXPECT_EQ(count("title 'bvn'"), 8U);
  EXPECT_EQ(count("$r0_s1 << EOD\n1 500 4096\n1000 500 4096\nEOD\n"), 1U);
  EXPECT_EQ(count("set output 'f.svg'"), 1U);
  EXPECT_EQ(count("{"), 0U);
}

}  // namespace
}  // namespace flux::sweep
