// The evaluation's row formats as column tables (csv_fields.hpp):
// results/fig2.csv, jobs.csv and moe.csv (EvalRow; the metric columns of a
// sweep's CSV) and results/robustness.csv (RobustRow). One header line, one
// row per point. A file of an earlier version (fewer columns) still reads.
#include <algorithm>
#include <string_view>

#include "csv_fields.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"

namespace flux::eval {
namespace {

using detail::Column;
using detail::CsvFormat;
using detail::field;
using detail::name_field;
using detail::RowReader;
using detail::seconds_field;

// EvalRow's versions: 0 before the sweep had jobs (rows of the paper's
// layer sweep), 1 before MoE, 2 before wirings, 3 before a row named its
// fabric, 4 before collective choice, 5 before online MoE scheduling, 6 before
// the uncertain runs' NIC memory, 7 now.
constexpr Column<EvalRow> kEvalColumns[] = {
    field<&EvalRow::layers>("layers"),
    seconds_field<&EvalRow::tau_ps>("tau_s"),
    name_field<&EvalRow::scheduler>("scheduler"),
    field<&EvalRow::iteration_time_s>("iteration_time_s"),
    field<&EvalRow::schedule_makespan_s>("schedule_makespan_s"),
    field<&EvalRow::peak_nic_bytes>("peak_nic_bytes"),
    field<&EvalRow::reconfigurations>("reconfigurations"),
    field<&EvalRow::circuits_set_up>("circuits_set_up"),
    field<&EvalRow::status>("status"),
    field<&EvalRow::gap>("gap"),
    field<&EvalRow::lower_bound_s>("lower_bound_s"),
    field<&EvalRow::solve_time_s>("solve_time_s"),
    field<&EvalRow::circuit_utilization>("circuit_utilization"),
    field<&EvalRow::wait_mean_s>("wait_mean_s"),
    field<&EvalRow::bytes_relayed>("bytes_relayed"),
    field<&EvalRow::sends>("sends"),
    field<&EvalRow::sim_events>("sim_events"),
    field<&EvalRow::model>("model"),
    field<&EvalRow::gpu>("gpu"),
    field<&EvalRow::tp>("tp"),
    field<&EvalRow::dp>("dp"),
    field<&EvalRow::switches>("switches"),
    field<&EvalRow::link_gbps>("link_gbps"),
    field<&EvalRow::time_limit_s>("time_limit_s"),
    name_field<&EvalRow::job>("job", 1),
    {"scaleup_size", [](const EvalRow& r) { return std::to_string(r.scaleup_size); },
     [](const RowReader& in, std::size_t col, EvalRow& r) {
       r.scaleup_size = in.integer<std::uint32_t>(col);
       if (r.scaleup_size == 0) in.fail(col, "must be at least 1");
     },
     1},
    field<&EvalRow::cluster_ranks>("cluster_ranks", 1),
    field<&EvalRow::routing>("routing", 2),
    field<&EvalRow::uncertain_runs>("uncertain_runs", 2),
    field<&EvalRow::planned_p50_s>("planned_p50_s", 2),
    field<&EvalRow::planned_max_s>("planned_max_s", 2),
    field<&EvalRow::replanned_p50_s>("replanned_p50_s", 2),
    field<&EvalRow::replanned_max_s>("replanned_max_s", 2),
    field<&EvalRow::replan_wall_max_s>("replan_wall_max_s", 2),
    field<&EvalRow::forwarded_bytes>("forwarded_bytes", 3),
    field<&EvalRow::packet_bytes>("packet_bytes", 3),
    field<&EvalRow::ocs_switches>("ocs_switches", 3),
    field<&EvalRow::fabric, &RowFabric::wiring>("wiring", 4, true),
    field<&EvalRow::fabric, &RowFabric::ocs_radix>("ocs_radix", 4),
    field<&EvalRow::fabric, &RowFabric::packet_gbps>("packet_gbps", 4),
    {"packet_latency_s",
     [](const EvalRow& r) { return detail::num(core::ps_to_seconds(r.fabric.packet_latency_ps)); },
     [](const RowReader& in, std::size_t col, EvalRow& r) {
       r.fabric.packet_latency_ps = in.seconds_ps(col, "not a valid delay");
     },
     4},
    field<&EvalRow::fabric, &RowFabric::packet_oversubscription>("packet_oversubscription", 4),
    field<&EvalRow::fabric, &RowFabric::route>("route", 4, true),
    name_field<&EvalRow::collective>("collective", 5),
    field<&EvalRow::choice>("choice", 5),
    field<&EvalRow::online_p50_s>("online_p50_s", 6),
    field<&EvalRow::online_p95_s>("online_p95_s", 6),
    field<&EvalRow::online_max_s>("online_max_s", 6),
    field<&EvalRow::decisions>("decisions", 6),
    field<&EvalRow::decision_p50_s>("decision_p50_s", 6),
    field<&EvalRow::decision_p99_s>("decision_p99_s", 6),
    field<&EvalRow::decision_max_s>("decision_max_s", 6),
    field<&EvalRow::planned_nic_max_bytes>("planned_nic_max_bytes", 7),
    field<&EvalRow::replanned_nic_max_bytes>("replanned_nic_max_bytes", 7),
    field<&EvalRow::online_nic_max_bytes>("online_nic_max_bytes", 7),
};
static_assert(detail::names_unique<EvalRow>(kEvalColumns));

constexpr CsvFormat<EvalRow> kEvalFormat{
    kEvalColumns, 7, [](const RowReader&, EvalRow& r, unsigned version) {
      if (version == 0) {  // a row of the layer sweep: its job and cluster
        r.job = layer_job_name(r.layers);
        r.cluster_ranks = static_cast<std::uint64_t>(r.tp) * r.dp;
      }
    }};

// The failure columns: set on a failure row, empty on any other; the
// failure of a failure row (nullptr on another).
RobustFailure* failure_of(const RowReader& in, std::size_t col, RobustRow& r) {
  const bool failed = r.perturbation == PerturbationKind::kFailure;
  if (in.text(col).empty() == failed) {
    in.fail(col, failed ? "empty on a failure row" : "set on a row without a failure");
  }
  if (failed && !r.failure) r.failure.emplace();
  return failed ? &*r.failure : nullptr;
}
template <auto Member>
constexpr Column<RobustRow> failure_field(std::string_view name) {
  return {name,
          [](const RobustRow& r) {
            return r.failure ? detail::text_of(*r.failure.*Member) : std::string();
          },
          [](const RowReader& in, std::size_t col, RobustRow& r) {
            if (RobustFailure* f = failure_of(in, col, r)) in.get(col, f->*Member);
          },
          1};
}

// RobustRow's versions: 0 before the failure points, 1 now (the failure
// columns). The four wall-time columns come last: everything before them is
// the same, bit for bit, for the same configuration and seed.
constexpr std::size_t kPerturbationColumn = 6;
constexpr Column<RobustRow> kRobustColumns[] = {
    name_field<&RobustRow::job>("job"),
    field<&RobustRow::layers>("layers"),
    name_field<&RobustRow::gpu>("gpu"),
    seconds_field<&RobustRow::tau_ps>("tau_s"),
    name_field<&RobustRow::scheduler>("scheduler"),
    field<&RobustRow::plan_jitter>("plan_jitter"),
    {"perturbation", [](const RobustRow& r) { return std::string(to_string(r.perturbation)); },
     [](const RowReader& in, std::size_t col, RobustRow& r) {
       try {
         r.perturbation = perturbation_kind_from_string(in.text(col));
       } catch (const core::InputError& e) {
         in.fail(col, e.problem());
       }
     }},
    field<&RobustRow::jitter>("jitter"),
    field<&RobustRow::straggler_rank>("straggler_rank"),
    field<&RobustRow::straggler_factor>("straggler_factor"),
    field<&RobustRow::trials>("trials"),
    field<&RobustRow::seed>("seed"),
    name_field<&RobustRow::execution>("execution"),
    field<&RobustRow::iteration_time_s, &sim::Percentiles<double>::p50>("iteration_p50_s"),
    field<&RobustRow::iteration_time_s, &sim::Percentiles<double>::p95>("iteration_p95_s"),
    field<&RobustRow::iteration_time_s, &sim::Percentiles<double>::p99>("iteration_p99_s"),
    field<&RobustRow::iteration_time_s, &sim::Percentiles<double>::max>("iteration_max_s"),
    field<&RobustRow::peak_nic_bytes, &sim::Percentiles<std::int64_t>::p50>("peak_nic_p50_bytes"),
    field<&RobustRow::peak_nic_bytes, &sim::Percentiles<std::int64_t>::p95>("peak_nic_p95_bytes"),
    field<&RobustRow::peak_nic_bytes, &sim::Percentiles<std::int64_t>::p99>("peak_nic_p99_bytes"),
    field<&RobustRow::peak_nic_bytes, &sim::Percentiles<std::int64_t>::max>("peak_nic_max_bytes"),
    field<&RobustRow::all_delivered>("all_delivered"),
    field<&RobustRow::planned_makespan_s>("planned_makespan_s"),
    name_field<&RobustRow::model>("model"),
    field<&RobustRow::tp>("tp"),
    field<&RobustRow::dp>("dp"),
    field<&RobustRow::switches>("switches"),
    field<&RobustRow::link_gbps>("link_gbps"),
    field<&RobustRow::time_limit_s>("time_limit_s"),
    failure_field<&RobustFailure::switch_index>("fail_switch"),
    {"fail_time_s",
     [](const RobustRow& r) {
       return r.failure ? detail::num(core::ps_to_seconds(r.failure->time_ps)) : std::string();
     },
     [](const RowReader& in, std::size_t col, RobustRow& r) {
       if (RobustFailure* f = failure_of(in, col, r))
         f->time_ps = in.seconds_ps(col, "not a valid time");
     },
     1},
    failure_field<&RobustFailure::replan_time_limit_s>("replan_time_limit_s"),
    failure_field<&RobustFailure::replan_moves>("replan_moves"),
    failure_field<&RobustFailure::replanned_sends_p50>("replanned_sends_p50"),
    failure_field<&RobustFailure::replanned_sends_max>("replanned_sends_max"),
    field<&RobustRow::solve_time_s>("solve_time_s"),
    field<&RobustRow::sim_time_s>("sim_time_s"),
    failure_field<&RobustFailure::replan_wall_p50_s>("replan_wall_p50_s"),
    failure_field<&RobustFailure::replan_wall_max_s>("replan_wall_max_s"),
};
static_assert(detail::names_unique<RobustRow>(kRobustColumns));
static_assert(kRobustColumns[kPerturbationColumn].name == "perturbation");

constexpr CsvFormat<RobustRow> kRobustFormat{
    kRobustColumns, 1, [](const RowReader& in, RobustRow& r, unsigned) {
      if (r.perturbation == PerturbationKind::kFailure && !r.failure) {
        in.fail(kPerturbationColumn,
                "a failure row needs the failure columns (a CSV from before them)");
      }
    }};

}  // namespace

std::vector<EvalRow> read_csv(const std::filesystem::path& file) {
  return kEvalFormat.read(file);
}
void write_csv(const std::filesystem::path& file, const std::vector<EvalRow>& rows) {
  kEvalFormat.write(file, rows);
}
std::string csv_header() {
  return kEvalFormat.header();
}
unsigned csv_version() {
  return kEvalFormat.version;
}
std::string csv_header_of_version(unsigned version) {
  return detail::header(detail::column_names(std::span<const Column<EvalRow>>(kEvalColumns),
                                             std::min(version, kEvalFormat.version)));
}
std::string csv_row(const EvalRow& r) {
  return kEvalFormat.row(r);
}
EvalRow parse_csv_row(const std::string& line) {
  return kEvalFormat.parse(line);
}
std::vector<std::string> csv_fields(const std::string& line) {
  return detail::split(line);
}

std::vector<RobustRow> read_robust_csv(const std::filesystem::path& file) {
  return kRobustFormat.read(file);
}
void write_robust_csv(const std::filesystem::path& file, const std::vector<RobustRow>& rows) {
  kRobustFormat.write(file, rows);
}
std::string robust_csv_header() {
  return kRobustFormat.header();
}
std::string robust_csv_row(const RobustRow& r) {
  return kRobustFormat.row(r);
}
RobustRow parse_robust_csv_row(const std::string& line) {
  return kRobustFormat.parse(line);
}

}  // namespace flux::eval
