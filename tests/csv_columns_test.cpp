// Every CSV flux writes names each column once: the evaluation's row
// formats (fig2.csv / jobs.csv / moe.csv, robustness.csv), the presets'
// CSVs and a sweep's CSV, whatever its axes (an axis named like a metric
// takes the metric's place or renames it <name>_measured).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sweep/presets.hpp"
#include "flux/sweep/results.hpp"
#include "flux/sweep/spec.hpp"

namespace flux {
namespace {

// The first column name the header holds twice ("" when none).
std::string repeated(const std::string& header) {
  std::set<std::string> seen;
  for (const std::string& c : eval::csv_fields(header)) {
    if (!seen.insert(c).second) return c;
  }
  return "";
}

TEST(CsvColumns, EvaluationFormatsNameEachColumnOnce) {
  EXPECT_EQ(repeated(eval::csv_header()), "") << eval::csv_header();
  EXPECT_EQ(repeated(eval::robust_csv_header()), "") << eval::robust_csv_header();
}

TEST(CsvColumns, SweepCsvsNameEachColumnOnce) {
  for (const sweep::PresetFile& f : sweep::preset_files()) {
    const sweep::SweepSpec spec = sweep::preset_spec(std::string(f.name));
    const std::string header = sweep::csv_header(spec);
    EXPECT_EQ(repeated(header), "") << f.name << ": " << header;
  }
  // Every axis at once (a robustness sweep: trials is one), and every axis
  // but the robustness ones (a sweep of eval::csv_header()'s metrics).
  for (const bool robust : {true, false}) {
    sweep::SweepSpec spec;
    spec.name = "all";
    for (const sweep::AxisInfo& info : sweep::axis_table()) {
      if (robust || !info.robust) spec.axes.push_back({std::string(info.name), {"1"}});
    }
    ASSERT_EQ(spec.robust(), robust);
    const std::string header = sweep::csv_header(spec);
    EXPECT_EQ(repeated(header), "") << header;
  }
}

}  // namespace
}  // namespace flux
