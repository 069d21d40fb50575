// flux evaluate's presets as shipped sweep files (src/sweep/presets.cpp):
// the files compiled in, the command line's axis overrides, each preset's
// points, and a preset CSV's row order and resume.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "error_of.hpp"
#include "flux/core/error.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/spec.hpp"
#include "flux/workload/llama.hpp"

namespace flux::sweep {
namespace {

using test::error_of;

// The presets compiled into flux are the files in sweeps/, byte for byte.
TEST(SweepPresets, CompiledInAreTheShippedFiles) {
  std::vector<std::string> names;
  for (const PresetFile& f : preset_files()) {
    names.emplace_back(f.name);
    std::ifstream in(std::string(FLUX_SOURCE_DIR) + "/" + std::string(f.path));
    ASSERT_TRUE(in) << f.path;
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), f.text) << f.path;
    EXPECT_EQ(preset_spec(std::string(f.name)).name, f.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"fabrics", "moe", "moe-online", "paper-fig2",
                                             "real-jobs", "robustness"}));
  EXPECT_EQ(error_of([] { (void)preset_spec("fig3"); }),
            "preset = fig3: unknown preset (known: fabrics, moe, moe-online, paper-fig2, "
            "real-jobs, robustness)");
  EXPECT_EQ(preset_spec("paper-fig2").points().size(), 70u);  // 2 layers x 7 delays x 5
  // moe-online: 2 jobs x 3 routings x 4 delays x 4 schedulers, each online
  // within 100 us on 10 later iterations.
  const std::vector<Point> online = preset_spec("moe-online").points();
  ASSERT_EQ(online.size(), 96u);
  for (const Point& p : online) {
    ASSERT_TRUE(p.config.online.has_value());
    EXPECT_EQ(p.config.online->budget_ps, 100 * core::kPsPerUs);
    EXPECT_EQ(p.config.routing_iterations, 10u);
    EXPECT_EQ(p.config.plan_routing.kind, eval::PlanRouting::Kind::kExpected);
  }
}

// A preset with axis overrides (flux evaluate's options), its points in the
// CSV's order; a sweep CSV names each column once.
TEST(SweepPresets, AxisOverridesAndUniqueColumns) {
  SweepSpec s = SweepSpec::parse(
      "name = \"mine\"\n[axes]\nmodel = \"8b\"\nlayers = [2, 1]\ntp = 2\ndp = 2\n"
      "switches = 3\ntau = [\"1ms\", \"10us\"]\nscheduler = [\"ideal\", \"bvn\"]\n",
      "s.toml", false);
  s.set_axis("gpu", {"h100"});  // a new axis, in the table's order
  ASSERT_EQ(s.axes.size(), 8u);
  EXPECT_EQ(s.axes[4].name, "gpu");
  s.set_axis("layers", {"2", "1"});
  std::vector<Point> points = s.points();
  ASSERT_EQ(points.size(), 8u);
  preset_order(s, points);  // job, tau ascending, scheduler
  EXPECT_EQ(points[1].config.job.name, "L2");
  EXPECT_EQ(points[1].config.tau_ps, 10 * core::kPsPerUs);
  EXPECT_EQ(points[1].config.scheduler, "bvn");
  EXPECT_EQ(points[1].config.job.training.gpu.name, "h100");
  EXPECT_EQ(points[4].config.job.name, "L1");
  EXPECT_EQ(error_of([&] { s.set_axis("tau", {"1us", "1000ns"}); }), "tau = 1 us: listed twice");
  EXPECT_EQ(error_of([&] { s.set_axis("layers", {"x"}); }), "layers = x: must be an integer");
  EXPECT_EQ(error_of([&] { s.set_axis("nope", {"1"}); }), "nope: not a sweep axis");

  const std::vector<std::string> header = eval::csv_fields(csv_header(s));
  std::set<std::string> unique(header.begin(), header.end());
  EXPECT_EQ(unique.size(), header.size()) << csv_header(s);
  EXPECT_EQ(std::count(header.begin(), header.end(), "switches"), 1);
  EXPECT_EQ(std::count(header.begin(), header.end(), "gpu_measured"), 1);
  Outcome ok;
  ok.metrics = eval::csv_row(eval::measure(points[1].config));
  const std::vector<std::string> row = eval::csv_fields(csv_row(s, points[1], ok));
  ASSERT_EQ(row.size(), header.size());
  EXPECT_EQ(row[static_cast<std::size_t>(std::find(header.begin(), header.end(), "gpu_measured") -
                                         header.begin())],
            "h100");
  EXPECT_EQ(eval::csv_fields(csv_row(s, points[1], Outcome{})).size(), header.size());
  // A CSV of the version before: every metric again after the axes.
  const ResultFile::Upgrade up = csv_upgrade(s);
  ASSERT_FALSE(up.headers.empty());
  EXPECT_EQ(up.headers[0], legacy_csv_header(s));
  const std::string legacy = points[1].key() + ",ok,,0," + ok.metrics;
  EXPECT_EQ(up.row(0, legacy), csv_row(s, points[1], ok));
  // The versions before the uncertain runs' NIC columns (eval format 6: 3
  // fewer), before the online columns (format 5: 7 fewer again), before the
  // collective columns (format 4: 2 fewer again), before the fabric columns
  // (format 3: 6 fewer again) and before the wiring columns (format 2: 3
  // fewer again), with and without metric_columns(): the same row with
  // those columns empty.
  ASSERT_EQ(up.headers.size(), 11u);
  const std::vector<std::string> now = eval::csv_fields(csv_row(s, points[1], ok));
  const std::vector<std::string> metrics = eval::csv_fields(ok.metrics);
  for (const std::size_t fewer : {3u, 10u, 12u, 18u, 21u}) {
    SCOPED_TRACE(fewer);
    std::string old_new;  // this version's row without its last columns
    for (std::size_t i = 0; i + fewer < now.size(); ++i) old_new += (i == 0 ? "" : ",") + now[i];
    const std::string old_row = old_new + std::string(fewer, ',');
    std::string old_legacy = points[1].key() + ",ok,,0";
    for (std::size_t i = 0; i + fewer < metrics.size(); ++i) old_legacy += "," + metrics[i];
    const std::size_t version = fewer == 3    ? 1
                                : fewer == 10 ? 3
                                : fewer == 12 ? 5
                                : fewer == 18 ? 7
                                              : 9;
    EXPECT_EQ(up.row(version, old_legacy), old_row);
    EXPECT_EQ(up.row(version + 1, old_new), old_row);
  }
}

// The robustness preset's file: its filters leave the 216 points of the study.
TEST(SweepPresets, RobustnessPreset) {
  const SweepSpec s = preset_spec("robustness");
  EXPECT_TRUE(s.robust());
  const std::vector<Point> points = s.points();
  EXPECT_EQ(points.size(), 216u);
  for (const Point& p : points) EXPECT_TRUE(p.invalid.empty()) << p.key() << ": " << p.invalid;
}

// The MoE preset: each job with each routing is a job of the evaluation.
TEST(SweepPresets, MoePreset) {
  const std::vector<Point> points = preset_spec("moe").points();
  std::vector<std::string> jobs;
  for (const Point& p : points) {
    if (std::find(jobs.begin(), jobs.end(), p.config.job.name) == jobs.end()) {
      jobs.push_back(p.config.job.name);
    }
  }
  EXPECT_EQ(jobs,
            (std::vector<std::string>{"mixtral-8x7b-ep8-uniform", "mixtral-8x7b-ep8-zipf:1.2",
                                      "deepseek-v3-256-uniform", "deepseek-v3-256-zipf:1.2"}));
  ASSERT_EQ(points.size(), 4u * 4u * 5u);
  const eval::EvalPoint& c = points.back().config;
  EXPECT_EQ(c.routing_iterations, 2u);
  EXPECT_EQ(c.job.training.moe.ep, 16u);
  EXPECT_EQ(c.job.scaleup_size, 8u);
  EXPECT_EQ(points.front().config.job.scaleup_size, 1u);
  EXPECT_EQ(c.system.duplex, core::Duplex::kFull);
  EXPECT_EQ(c.channels, 2u);
}

// The fabrics preset: each job on the crossbar and on rails of three radixes
// with and without a packet fabric, its own settings (as real-jobs and moe
// run it); the CSV's rows in the order job, fabric, tau, scheduler, a row's
// identity its fabric too (a row of another fabric resumes no point).
TEST(SweepPresets, FabricsPreset) {
  SweepSpec spec = preset_spec("fabrics");
  std::vector<Point> points = spec.points();
  ASSERT_EQ(points.size(), 3u * 7u * 2u * 5u);
  preset_order(spec, points);
  std::vector<std::string> order;  // job and fabric, as the rows first have them
  for (const Point& p : points) {
    const eval::EvalPoint& c = p.config;
    const core::System& s = c.system;
    std::string fabric = core::to_string(s.wiring) + " " + std::to_string(s.ocs_radix) + " " +
                         std::to_string(static_cast<int>(s.packet_gbps)) + " " +
                         std::string(core::to_string(s.route));
    const std::string at = c.job.name + ": " + fabric;
    if (order.empty() || order.back() != at) order.push_back(at);
    const bool moe = c.job.training.moe.enabled();
    EXPECT_EQ(c.channels, moe ? 2u : 1u) << at;
    EXPECT_EQ(s.duplex, moe ? core::Duplex::kFull : core::Duplex::kHalf) << at;
    EXPECT_EQ(c.sched.time_limit_s, moe ? 10.0 : 60.0) << at;
    EXPECT_EQ(c.job.training.generated_dp(), moe ? c.job.training.dp : 4u) << at;
  }
  const std::vector<std::string> fabrics = {
      "full 0 0 forward",     "rails 576 0 forward", "rails 576 400 packet", "rails 320 0 forward",
      "rails 320 400 packet", "rails 136 0 forward", "rails 136 400 packet"};
  std::vector<std::string> want;
  for (const char* job : {"llama3-405b-16k", "llama3-70b-1k", "deepseek-v3-256-uniform"}) {
    for (const std::string& f : fabrics) want.push_back(std::string(job) + ": " + f);
  }
  EXPECT_EQ(order, want);

  // A CSV of the crossbar's rows resumes the crossbar's points alone.
  const auto dir = std::filesystem::temp_directory_path() / "flux_sweep_fabrics_preset";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<Point> two = {points[0], points[10]};  // 405B, flux, 10 us: full, rails 576
  ASSERT_EQ(two[0].config.scheduler, "flux");
  ASSERT_EQ(two[1].config.scheduler, "flux");
  ASSERT_EQ(two[1].config.system.ocs_radix, 576u);
  eval::EvalRow row;
  row.job = two[0].config.job.name;
  row.layers = two[0].config.job.training.model.layers;
  row.tau_ps = two[0].config.tau_ps;
  row.scheduler = "flux";
  row.model = "405b";
  row.gpu = "h100";
  row.tp = 8;
  row.dp = 128;
  row.switches = 2;
  row.link_gbps = 800;
  row.time_limit_s = 60;
  row.scaleup_size = 8;
  row.status = "feasible";
  {
    PresetCsv csv(dir / "fabrics.csv", two, true);
    csv.add(0, eval::csv_row(row));
  }
  const PresetCsv again(dir / "fabrics.csv", two, false);
  EXPECT_EQ(again.resumed(), 1u);
  EXPECT_EQ(again.pending(), std::vector<std::size_t>{1});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace flux::sweep
