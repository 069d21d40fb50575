// The evaluation's CSV (results/fig2.csv, results/jobs.csv): one header line, one row per
// point, comma-separated, no quoting (every field is a number or a name
// without commas), empty fields for values a scheduler does not have.
// Numbers are written in the shortest form that reads back exactly.
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

#include "csv_fields.hpp"
#include "flux/core/error.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/io/save.hpp"

namespace flux::eval {
namespace {

constexpr std::string_view kColumns[] = {"layers",
                                         "tau_s",
                                         "scheduler",
                                         "iteration_time_s",
                                         "schedule_makespan_s",
                                         "peak_nic_bytes",
                                         "reconfigurations",
                                         "circuits_set_up",
                                         "status",
                                         "gap",
                                         "lower_bound_s",
                                         "solve_time_s",
                                         "circuit_utilization",
                                         "wait_mean_s",
                                         "bytes_relayed",
                                         "sends",
                                         "sim_events",
                                         "model",
                                         "gpu",
                                         "tp",
                                         "dp",
                                         "switches",
                                         "link_gbps",
                                         "time_limit_s",
                                         "job",
                                         "scaleup_size",
                                         "cluster_ranks",
                                         "routing",
                                         "uncertain_runs",
                                         "planned_p50_s",
                                         "planned_max_s",
                                         "replanned_p50_s",
                                         "replanned_max_s",
                                         "replan_wall_max_s"};
constexpr std::size_t kNumColumns = std::size(kColumns);
// Files written before MoE end at cluster_ranks, those before the sweep had
// jobs at time_limit_s.
constexpr std::size_t kDenseColumns = kNumColumns - 7;
constexpr std::size_t kOldColumns = kDenseColumns - 3;

using detail::name;
using detail::num;
using detail::opt;

EvalRow row_of(const detail::RowReader& r, std::size_t columns) {
  EvalRow row;
  row.layers = r.integer<std::uint32_t>(0);
  const double tau = r.real(1);
  if (tau < 0 || !core::representable_seconds(tau)) r.fail(1, "not a valid delay");
  row.tau_ps = core::seconds_to_ps(tau);
  row.scheduler = r.text(2);
  row.iteration_time_s = r.real(3);
  row.schedule_makespan_s = r.optional_real(4);
  row.peak_nic_bytes = r.integer<std::uint64_t>(5);
  row.reconfigurations = r.integer<std::uint64_t>(6);
  row.circuits_set_up = r.integer<std::uint64_t>(7);
  row.status = r.text(8);
  row.gap = r.optional_real(9);
  row.lower_bound_s = r.optional_real(10);
  row.solve_time_s = r.real(11);
  row.circuit_utilization = r.optional_real(12);
  row.wait_mean_s = r.real(13);
  row.bytes_relayed = r.integer<std::uint64_t>(14);
  row.sends = r.integer<std::uint64_t>(15);
  row.sim_events = r.integer<std::uint64_t>(16);
  row.model = r.text(17);
  row.gpu = r.text(18);
  row.tp = r.integer<std::uint32_t>(19);
  row.dp = r.integer<std::uint32_t>(20);
  row.switches = r.integer<std::uint32_t>(21);
  row.link_gbps = r.real(22);
  row.time_limit_s = r.real(23);
  if (columns >= kDenseColumns) {
    row.job = r.text(24);
    row.scaleup_size = r.integer<std::uint32_t>(25);
    row.cluster_ranks = r.integer<std::uint64_t>(26);
    if (row.job.empty()) r.fail(24, "empty");
    if (row.scaleup_size == 0) r.fail(25, "must be at least 1");
  } else {
    row.job = layer_job_name(row.layers);
    row.cluster_ranks = static_cast<std::uint64_t>(row.tp) * row.dp;
  }
  if (columns == kNumColumns) {
    row.routing = r.text(27);
    row.uncertain_runs = r.integer<std::uint32_t>(28);
    row.planned_p50_s = r.optional_real(29);
    row.planned_max_s = r.optional_real(30);
    row.replanned_p50_s = r.optional_real(31);
    row.replanned_max_s = r.optional_real(32);
    row.replan_wall_max_s = r.optional_real(33);
  }
  if (row.scheduler.empty()) r.fail(2, "empty");
  return row;
}

}  // namespace

std::vector<EvalRow> read_csv(const std::filesystem::path& file) {
  std::vector<EvalRow> rows;
  const std::size_t counts[] = {kNumColumns, kDenseColumns, kOldColumns};
  detail::read_rows(file, kColumns, counts, [&](const detail::RowReader& r, std::size_t columns) {
    rows.push_back(row_of(r, columns));
  });
  return rows;
}

EvalRow parse_csv_row(const std::string& line) {
  std::vector<std::string> fields = detail::split(line);
  if (fields.size() != kNumColumns) {
    throw core::InputError("", "row", line.substr(0, 60),
                           "expected " + std::to_string(kNumColumns) + " columns");
  }
  return row_of(detail::RowReader("", 1, kColumns, std::move(fields)), kNumColumns);
}

std::string csv_header() {
  return detail::header(kColumns, kNumColumns);
}

std::vector<std::string> csv_fields(const std::string& line) {
  return detail::split(line);
}

std::string csv_row(const EvalRow& r) {
  std::ostringstream out;
  out << r.layers << ',' << num(core::ps_to_seconds(r.tau_ps)) << ','
      << name(r.scheduler, "scheduler") << ',' << num(r.iteration_time_s) << ','
      << opt(r.schedule_makespan_s) << ',' << num(r.peak_nic_bytes) << ','
      << num(r.reconfigurations) << ',' << num(r.circuits_set_up) << ',' << name(r.status, "status")
      << ',' << opt(r.gap) << ',' << opt(r.lower_bound_s) << ',' << num(r.solve_time_s) << ','
      << opt(r.circuit_utilization) << ',' << num(r.wait_mean_s) << ',' << num(r.bytes_relayed)
      << ',' << num(r.sends) << ',' << num(r.sim_events) << ',' << name(r.model, "model") << ','
      << name(r.gpu, "gpu") << ',' << r.tp << ',' << r.dp << ',' << r.switches << ','
      << num(r.link_gbps) << ',' << num(r.time_limit_s) << ',' << name(r.job, "job") << ','
      << r.scaleup_size << ',' << r.cluster_ranks << ',' << name(r.routing, "routing") << ','
      << r.uncertain_runs << ',' << opt(r.planned_p50_s) << ',' << opt(r.planned_max_s) << ','
      << opt(r.replanned_p50_s) << ',' << opt(r.replanned_max_s) << ',' << opt(r.replan_wall_max_s);
  return out.str();
}

void write_csv(const std::filesystem::path& file, const std::vector<EvalRow>& rows) {
  std::ostringstream out;
  out << csv_header() << '\n';
  for (const EvalRow& r : rows) out << csv_row(r) << '\n';
  const std::string text = out.str();
  io::save_file(file, [&](std::ostream& o) { o << text; });
}

}  // namespace flux::eval
