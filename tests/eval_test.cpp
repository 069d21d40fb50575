// The evaluation: the presets (the shipped sweep files), a reduced sweep's
// invariants, the CSV round trip and its errors, resuming (kept rows, configuration checks), the
// summary and the gnuplot script.
#include "flux/eval/evaluate.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "flux/core/error.hpp"
#include "flux/sweep/presets.hpp"

namespace flux::eval {
namespace {

using core::kPsPerMs;
using core::kPsPerUs;

EvalConfig small() {
  EvalConfig c = sweep::evaluation_preset("paper-fig2");
  c.layers = {1};
  c.taus_ps = {kPsPerUs, kPsPerMs};
  c.sched.time_limit_s = 30;
  return c;
}

// Equal on the point and its metrics (wall times aside).
void expect_same_row(const EvalRow& a, const EvalRow& b) {
  EXPECT_EQ(a.job, b.job);
  EXPECT_EQ(a.tau_ps, b.tau_ps);
  EXPECT_EQ(a.scheduler, b.scheduler);
  EXPECT_EQ(a.iteration_time_s, b.iteration_time_s);
  EXPECT_EQ(a.schedule_makespan_s, b.schedule_makespan_s);
  EXPECT_EQ(a.gap, b.gap);
  EXPECT_EQ(a.circuit_utilization, b.circuit_utilization);
  EXPECT_EQ(a.peak_nic_bytes, b.peak_nic_bytes);
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.cluster_ranks, b.cluster_ranks);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("flux_eval_test_" + name);
}

TEST(Eval, PresetIsThePapersSetup) {
  const EvalConfig c = sweep::evaluation_preset("paper-fig2");
  EXPECT_EQ(c.layers, (std::vector<std::uint32_t>{8, 16}));
  EXPECT_EQ(c.taus_ps.size(), 7u);
  EXPECT_EQ(c.taus_ps.front(), kPsPerUs);
  EXPECT_EQ(c.taus_ps.back(), kPsPerMs);
  EXPECT_EQ(c.schedulers,
            (std::vector<std::string>{"flux-milp", "rotornet", "rotornet-vlb", "bvn", "ideal"}));
  EXPECT_EQ(c.training.tp * c.training.dp, 8u);
  EXPECT_EQ(c.system.switches, 2u);
  EXPECT_EQ(c.system.link_gbps, 800);
  EXPECT_EQ(c.training.gpu.name, "a100");
  EXPECT_EQ(c.system.scaleup_size, 1u);  // the paper's model: no scale-up fabric
  EXPECT_EQ(c.file_stem, "fig2");
  EXPECT_EQ(c.preset, "paper-fig2");
  EXPECT_THROW(sweep::evaluation_preset("fig3"), core::InputError);
}

TEST(Eval, RealJobsPresetIsTheNamedJobsFolded) {
  const EvalConfig c = sweep::evaluation_preset("real-jobs");
  EXPECT_TRUE(c.layers.empty());
  ASSERT_EQ(c.named_jobs.size(), 2u);
  EXPECT_EQ(c.named_jobs[0].name, "llama3-405b-16k");
  EXPECT_EQ(c.named_jobs[0].training.ranks(), 16384u);
  EXPECT_EQ(c.named_jobs[0].training.generated_ranks(), 512u);  // 4 of 128 DP replicas
  EXPECT_EQ(c.named_jobs[0].scaleup_size, 8u);
  EXPECT_EQ(c.named_jobs[0].scaleup_gbps, core::kNvlink4Gbps);
  EXPECT_EQ(c.named_jobs[1].name, "llama3-70b-1k");
  EXPECT_EQ(c.named_jobs[1].training.ranks(), 1024u);
  EXPECT_EQ(c.taus_ps, (std::vector<core::TimePs>{10 * kPsPerUs, kPsPerMs}));
  EXPECT_EQ(c.schedulers.front(), "flux");
  EXPECT_EQ(c.file_stem, "jobs");
  EXPECT_NO_THROW(c.validate());
  EvalConfig both = c;
  both.layers = {8};
  EXPECT_THROW(both.validate(), core::InputError);
}

TEST(Eval, ConfigErrors) {
  EvalConfig c = small();
  c.schedulers = {"flux-milp", "magic"};
  EXPECT_THROW(c.validate(), core::InputError);
  c = small();
  c.schedulers = {"bvn", "bvn"};
  EXPECT_THROW(c.validate(), core::InputError);
  c = small();
  c.layers = {0};
  EXPECT_THROW(c.validate(), core::InputError);
  c = small();
  c.system.switches = 0;
  EXPECT_THROW(c.validate(), core::InputError);
}

// The reduced sweep of the issue: every row present and finite, every
// scheduler at least as slow as ideal, flux-milp's simulated iteration time
// equal to its schedule's makespan, flux-milp no slower than any baseline.
TEST(Eval, ReducedSweepInvariants) {
  const EvalConfig c = small();
  std::vector<EvalRow> rows;
  std::size_t calls = 0;
  run_evaluation(c, rows, [&](std::size_t done, std::size_t total, const EvalRow&, bool resumed) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, 10u);
    EXPECT_FALSE(resumed);
  });
  ASSERT_EQ(rows.size(), 10u);
  std::map<std::pair<core::TimePs, std::string>, const EvalRow*> at;
  for (const EvalRow& r : rows) at[{r.tau_ps, r.scheduler}] = &r;
  ASSERT_EQ(at.size(), 10u);
  for (core::TimePs tau : c.taus_ps) {
    const EvalRow& ideal = *at.at({tau, "ideal"});
    const EvalRow& flux = *at.at({tau, "flux-milp"});
    ASSERT_TRUE(flux.schedule_makespan_s.has_value());
    EXPECT_EQ(flux.iteration_time_s, *flux.schedule_makespan_s);
    EXPECT_EQ(flux.status, "optimal");
    for (const std::string& s : c.schedulers) {
      const EvalRow& r = *at.at({tau, s});
      SCOPED_TRACE(s);
      EXPECT_TRUE(std::isfinite(r.iteration_time_s));
      EXPECT_GT(r.iteration_time_s, 0);
      EXPECT_GE(r.iteration_time_s, ideal.iteration_time_s);
      if (s != "ideal") {
        EXPECT_GE(r.iteration_time_s, flux.iteration_time_s);
      }
      EXPECT_GT(r.peak_nic_bytes, 0u);
      EXPECT_EQ(r.sends, 208u);
    }
    // The paper's memory claim: more than three orders of magnitude.
    for (const char* s : {"rotornet", "rotornet-vlb", "bvn"}) {
      EXPECT_GT(at.at({tau, s})->peak_nic_bytes, 1000 * flux.peak_nic_bytes) << s;
    }
  }
  // Rows are sorted by (layers, tau, scheduler order).
  EXPECT_EQ(rows.front().scheduler, "flux-milp");
  EXPECT_EQ(rows.front().tau_ps, kPsPerUs);
  EXPECT_EQ(rows.back().scheduler, "ideal");

  // CSV round trip, exact.
  const auto file = temp_file("roundtrip.csv");
  write_csv(file, rows);
  const std::vector<EvalRow> back = read_csv(file);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) expect_same_row(back[i], rows[i]);

  // Resuming: kept rows are not recomputed; missing ones are.
  std::vector<EvalRow> partial(back.begin(), back.begin() + 7);
  std::size_t resumed = 0, computed = 0;
  run_evaluation(c, partial, [&](std::size_t, std::size_t, const EvalRow&, bool r) {
    (r ? resumed : computed)++;
  });
  EXPECT_EQ(resumed, 7u);
  EXPECT_EQ(computed, 3u);
  ASSERT_EQ(partial.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(partial[i].scheduler, rows[i].scheduler);
    EXPECT_EQ(partial[i].iteration_time_s, rows[i].iteration_time_s);
  }

  // The same three points one by one, as flux evaluate runs them through
  // the sweep runner: pending_points, run_evaluation of each, the row read
  // back from its CSV line, add_row: the same rows in the same order.
  std::vector<EvalRow> one_by_one(back.begin(), back.begin() + 7);
  const std::vector<EvalConfig> pending = pending_points(c, one_by_one);
  ASSERT_EQ(pending.size(), 3u);
  for (const EvalConfig& one : pending) {
    EXPECT_EQ(one.jobs().size() * one.taus_ps.size() * one.schedulers.size(), 1u);
    std::vector<EvalRow> single;
    run_evaluation(one, single, {});
    ASSERT_EQ(single.size(), 1u);
    add_row(c, one_by_one, parse_csv_row(csv_row(single.front())));
  }
  EXPECT_TRUE(pending_points(c, one_by_one).empty());
  ASSERT_EQ(one_by_one.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) expect_same_row(one_by_one[i], rows[i]);
  EXPECT_THROW(parse_csv_row("1,2,3"), core::InputError);

  // Resuming under another configuration is refused.
  EvalConfig other = c;
  other.system.switches = 3;
  std::vector<EvalRow> copy = rows;
  try {
    run_evaluation(other, copy, {});
    FAIL() << "resumed rows measured with 2 switches in a 3-switch sweep";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "switches");
    EXPECT_NE(std::string(e.what()).find("--fresh"), std::string::npos) << e.what();
  }

  const std::string table = summary_table(c, rows);
  EXPECT_NE(table.find("iteration time (ms)"), std::string::npos) << table;
  EXPECT_NE(table.find("opt"), std::string::npos) << table;
  EXPECT_NE(table.find("peak NIC memory"), std::string::npos) << table;
  const std::string gp = gnuplot_script(c, rows, "a.png", "a.svg");
  EXPECT_NE(gp.find("$J0_rotornet_vlb << EOD"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set output 'a.svg'"), std::string::npos) << gp;
  std::filesystem::remove(file);
}

void write_text(const std::filesystem::path& f, const std::string& text) {
  std::ofstream(f) << text;
}

TEST(Eval, CsvErrors) {
  const auto file = temp_file("bad.csv");
  write_text(file, "a,b,c\n");
  EXPECT_THROW(read_csv(file), core::InputError);

  EvalRow r;
  r.job = "L1";
  r.layers = 1;
  r.scheduler = "bvn";
  r.status = "feasible";
  r.model = "8b";
  r.gpu = "a100";
  write_csv(file, {r});
  std::string text;
  {
    std::ifstream in(file);
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  ASSERT_EQ(read_csv(file).size(), 1u);
  // A malformed number names the line and the column.
  std::string bad = text;
  bad.replace(bad.find("\n1,") + 1, 1, "x");
  write_text(file, bad);
  try {
    read_csv(file);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "line 2, layers");
    EXPECT_EQ(e.value(), "x");
  }
  // A missing column.
  write_text(file, text.substr(0, text.rfind(',')) + "\n");
  EXPECT_THROW(read_csv(file), core::InputError);
  EXPECT_THROW(read_csv(temp_file("missing.csv")), core::InputError);
  std::filesystem::remove(file);
}

// A CSV written before sweeps had jobs (no job, scaleup_size, cluster_ranks
// columns) still reads: its rows are layer-sweep points on the paper's model.
TEST(Eval, CsvWithoutJobColumnsReads) {
  const auto file = temp_file("old.csv");
  write_text(file,
             "layers,tau_s,scheduler,iteration_time_s,schedule_makespan_s,peak_nic_bytes,"
             "reconfigurations,circuits_set_up,status,gap,lower_bound_s,solve_time_s,"
             "circuit_utilization,wait_mean_s,bytes_relayed,sends,sim_events,model,gpu,tp,dp,"
             "switches,link_gbps,time_limit_s\n"
             "8,1e-06,bvn,0.5,,4096,12,12,feasible,,,0.01,0.5,0.001,0,100,400,8b,a100,4,2,2,800,"
             "60\n");
  const std::vector<EvalRow> rows = read_csv(file);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].job, "L8");
  EXPECT_EQ(rows[0].scaleup_size, 1u);
  EXPECT_EQ(rows[0].cluster_ranks, 8u);
  EXPECT_EQ(rows[0].iteration_time_s, 0.5);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace flux::eval
