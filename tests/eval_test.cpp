// One point measured: the presets' points (the shipped sweep files), a
// reduced study's invariants, the CSV round trip and its errors, the resume
// check, the summary.
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

// Points of a preset with axis overrides, as flux evaluate makes them.
std::vector<EvalPoint> points_of(sweep::SweepSpec spec) {
  std::vector<EvalPoint> out;
  for (const sweep::Point& p : spec.points()) out.push_back(p.config);
  return out;
}

std::vector<EvalPoint> small() {
  sweep::SweepSpec s = sweep::preset_spec("paper-fig2");
  s.set_axis("layers", {"1"});
  s.set_axis("tau", {"1us", "1ms"});
  s.set_axis("time_limit", {"30s"});
  return points_of(s);
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
  EXPECT_EQ(a.fabric, b.fabric);
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("flux_eval_test_" + name);
}

TEST(Eval, PresetIsThePapersSetup) {
  const std::vector<EvalPoint> c = points_of(sweep::preset_spec("paper-fig2"));
  ASSERT_EQ(c.size(), 2u * 7u * 5u);
  EXPECT_EQ(c.front().job.name, "L8");
  EXPECT_EQ(c.back().job.name, "L16");
  EXPECT_EQ(c.front().tau_ps, kPsPerUs);
  EXPECT_EQ(c.back().tau_ps, kPsPerMs);
  EXPECT_EQ(c[0].scheduler, "flux-milp");
  EXPECT_EQ(c[4].scheduler, "ideal");
  EXPECT_EQ(c[0].job.training.tp * c[0].job.training.dp, 8u);
  EXPECT_EQ(c[0].system.switches, 2u);
  EXPECT_EQ(c[0].system.link_gbps, 800);
  EXPECT_EQ(c[0].job.training.gpu.name, "a100");
  EXPECT_EQ(c[0].job.scaleup_size, 1u);  // the paper's model: no scale-up fabric
  EXPECT_EQ(sweep::preset_stem("paper-fig2"), "fig2");
  EXPECT_THROW(sweep::preset_spec("fig3"), core::InputError);
}

TEST(Eval, RealJobsPresetIsTheNamedJobsFolded) {
  const std::vector<EvalPoint> c = points_of(sweep::preset_spec("real-jobs"));
  ASSERT_EQ(c.size(), 2u * 2u * 5u);
  const EvalJob& big = c.front().job;
  EXPECT_EQ(big.name, "llama3-405b-16k");
  EXPECT_EQ(big.training.ranks(), 16384u);
  EXPECT_EQ(big.training.generated_ranks(), 512u);  // 4 of 128 DP replicas
  EXPECT_EQ(big.scaleup_size, 8u);
  EXPECT_EQ(big.scaleup_gbps, core::kNvlink4Gbps);
  EXPECT_EQ(c.back().job.name, "llama3-70b-1k");
  EXPECT_EQ(c.back().job.training.ranks(), 1024u);
  EXPECT_EQ(c.front().tau_ps, 10 * kPsPerUs);
  EXPECT_EQ(c.front().scheduler, "flux");
  EXPECT_EQ(sweep::preset_stem("real-jobs"), "jobs");
  for (const EvalPoint& p : c) EXPECT_NO_THROW(p.validate());
}

TEST(Eval, PointErrors) {
  EvalPoint c = small().front();
  c.scheduler = "magic";
  EXPECT_THROW(c.validate(), core::InputError);
  c = small().front();
  c.job.training.model.layers = 0;
  EXPECT_THROW(c.validate(), core::InputError);
  c = small().front();
  c.system.switches = 0;
  EXPECT_THROW(c.validate(), core::InputError);
  sweep::SweepSpec s = sweep::preset_spec("paper-fig2");
  EXPECT_THROW(s.set_axis("scheduler", {"bvn", "bvn"}), core::InputError);
  EXPECT_THROW(s.set_axis("tau", {"1us", "1000ns"}), core::InputError);
  EXPECT_THROW(s.set_axis("layers", {"0"}), core::InputError);
}

// The reduced sweep of the issue: every row present and finite, every
// scheduler at least as slow as ideal, flux-milp's simulated iteration time
// equal to its schedule's makespan, flux-milp no slower than any baseline.
TEST(Eval, ReducedSweepInvariants) {
  const std::vector<EvalPoint> c = small();
  ASSERT_EQ(c.size(), 10u);
  std::vector<EvalRow> rows;
  for (const EvalPoint& p : c) rows.push_back(measure(p));
  std::map<std::pair<core::TimePs, std::string>, const EvalRow*> at;
  for (const EvalRow& r : rows) at[{r.tau_ps, r.scheduler}] = &r;
  ASSERT_EQ(at.size(), 10u);
  for (core::TimePs tau : {kPsPerUs, kPsPerMs}) {
    const EvalRow& ideal = *at.at({tau, "ideal"});
    const EvalRow& flux = *at.at({tau, "flux-milp"});
    ASSERT_TRUE(flux.schedule_makespan_s.has_value());
    EXPECT_EQ(flux.iteration_time_s, *flux.schedule_makespan_s);
    EXPECT_EQ(flux.status, "optimal");
    for (const char* s : {"flux-milp", "rotornet", "rotornet-vlb", "bvn", "ideal"}) {
      const EvalRow& r = *at.at({tau, s});
      SCOPED_TRACE(s);
      EXPECT_TRUE(std::isfinite(r.iteration_time_s));
      EXPECT_GT(r.iteration_time_s, 0);
      EXPECT_GE(r.iteration_time_s, ideal.iteration_time_s);
      if (std::string(s) != "ideal") {
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

  // CSV round trip, exact, a file and a row alike.
  const auto file = temp_file("roundtrip.csv");
  write_csv(file, rows);
  const std::vector<EvalRow> back = read_csv(file);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    expect_same_row(back[i], rows[i]);
    expect_same_row(parse_csv_row(csv_row(rows[i])), rows[i]);
    EXPECT_NO_THROW(check_resume(c[i], back[i], i));
  }
  EXPECT_THROW(parse_csv_row("1,2,3"), core::InputError);

  // Resuming under another configuration is refused.
  EvalPoint other = c.front();
  other.system.switches = 3;
  try {
    check_resume(other, rows.front(), 0);
    FAIL() << "resumed a row measured with 2 switches in a 3-switch sweep";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "switches");
    EXPECT_NE(std::string(e.what()).find("--fresh"), std::string::npos) << e.what();
  }

  // ... and under another fabric: each field named (a row says its fabric;
  // these rows, of the paper's setup, the full crossbar without packets).
  EXPECT_EQ(rows.front().fabric, RowFabric{});
  const auto refused_field = [&](const auto& change) {
    EvalPoint p = c.front();
    change(p.system);
    try {
      check_resume(p, rows.front(), 0);
    } catch (const core::InputError& e) {
      return e.field();
    }
    return std::string("(resumed)");
  };
  EXPECT_EQ(refused_field([](core::System& s) {
              s.wiring = core::wiring_from_string("rails");
              s.ocs_radix = 16;
            }),
            "wiring");
  EXPECT_EQ(refused_field([](core::System& s) { s.ocs_radix = 16; }), "ocs_radix");
  EXPECT_EQ(refused_field([](core::System& s) { s.packet_gbps = 400; }), "packet_gbps");
  EXPECT_EQ(refused_field([](core::System& s) { s.packet_latency_ps = kPsPerUs; }),
            "packet_latency");
  EXPECT_EQ(refused_field([](core::System& s) { s.packet_oversubscription = 2; }),
            "packet_oversubscription");
  EXPECT_EQ(refused_field([](core::System& s) { s.route = core::RoutePolicy::kPacket; }), "route");

  const std::string table = summary_table(c, rows);
  EXPECT_NE(table.find("iteration time (ms)"), std::string::npos) << table;
  EXPECT_NE(table.find("opt"), std::string::npos) << table;
  EXPECT_NE(table.find("peak NIC memory"), std::string::npos) << table;
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
