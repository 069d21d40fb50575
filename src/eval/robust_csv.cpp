// The robustness sweep's CSV (results/robustness.csv): one header line, one
// row per point, comma-separated, no quoting, numbers in the shortest form
// that reads back exactly. The two wall-time columns come last: everything
// before them is the same, bit for bit, for the same configuration and seed.
#include <sstream>
#include <string_view>

#include "csv_fields.hpp"
#include "flux/core/error.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/io/save.hpp"

namespace flux::eval {
namespace {

using detail::name;
using detail::num;
using detail::opt;

constexpr std::string_view kColumns[] = {"job",
                                         "layers",
                                         "gpu",
                                         "tau_s",
                                         "scheduler",
                                         "plan_jitter",
                                         "perturbation",
                                         "jitter",
                                         "straggler_rank",
                                         "straggler_factor",
                                         "trials",
                                         "seed",
                                         "execution",
                                         "iteration_p50_s",
                                         "iteration_p95_s",
                                         "iteration_p99_s",
                                         "iteration_max_s",
                                         "peak_nic_p50_bytes",
                                         "peak_nic_p95_bytes",
                                         "peak_nic_p99_bytes",
                                         "peak_nic_max_bytes",
                                         "all_delivered",
                                         "planned_makespan_s",
                                         "model",
                                         "tp",
                                         "dp",
                                         "switches",
                                         "link_gbps",
                                         "time_limit_s",
                                         "solve_time_s",
                                         "sim_time_s"};
constexpr std::size_t kNumColumns = std::size(kColumns);

}  // namespace

std::vector<RobustRow> read_robust_csv(const std::filesystem::path& file) {
  std::vector<RobustRow> rows;
  const std::size_t counts[] = {kNumColumns};
  detail::read_rows(file, kColumns, counts, [&](const detail::RowReader& r, std::size_t) {
    RobustRow row;
    std::size_t c = 0;
    auto text = [&] {
      const std::string& s = r.text(c);
      if (s.empty()) r.fail(c, "empty");
      ++c;
      return s;
    };
    auto real = [&] { return r.real(c++); };
    auto bytes = [&] { return static_cast<std::int64_t>(r.integer<std::uint64_t>(c++)); };
    row.job = text();
    row.layers = r.integer<std::uint32_t>(c++);
    row.gpu = text();
    const double tau = r.real(c);
    if (tau < 0 || !core::representable_seconds(tau)) r.fail(c, "not a valid delay");
    row.tau_ps = core::seconds_to_ps(tau);
    ++c;
    row.scheduler = text();
    row.plan_jitter = real();
    try {
      row.perturbation = perturbation_kind_from_string(r.text(c));
    } catch (const core::InputError& e) {
      r.fail(c, e.problem());
    }
    ++c;
    row.jitter = real();
    row.straggler_rank = r.integer<std::uint32_t>(c++);
    row.straggler_factor = real();
    row.trials = r.integer<std::uint32_t>(c++);
    row.seed = r.integer<std::uint64_t>(c++);
    row.execution = text();
    row.iteration_time_s = {real(), real(), real(), real()};
    row.peak_nic_bytes = {bytes(), bytes(), bytes(), bytes()};
    const std::string& delivered = r.text(c);
    if (delivered != "true" && delivered != "false") r.fail(c, "expected true or false");
    row.all_delivered = delivered == "true";
    ++c;
    row.planned_makespan_s = r.optional_real(c++);
    row.model = text();
    row.tp = r.integer<std::uint32_t>(c++);
    row.dp = r.integer<std::uint32_t>(c++);
    row.switches = r.integer<std::uint32_t>(c++);
    row.link_gbps = real();
    row.time_limit_s = real();
    row.solve_time_s = real();
    row.sim_time_s = real();
    rows.push_back(std::move(row));
  });
  return rows;
}

void write_robust_csv(const std::filesystem::path& file, const std::vector<RobustRow>& rows) {
  std::ostringstream out;
  out << detail::header(kColumns, kNumColumns) << '\n';
  for (const RobustRow& r : rows) {
    const auto& t = r.iteration_time_s;
    const auto& m = r.peak_nic_bytes;
    out << name(r.job, "job") << ',' << r.layers << ',' << name(r.gpu, "gpu") << ','
        << num(core::ps_to_seconds(r.tau_ps)) << ',' << name(r.scheduler, "scheduler") << ','
        << num(r.plan_jitter) << ',' << to_string(r.perturbation) << ',' << num(r.jitter) << ','
        << r.straggler_rank << ',' << num(r.straggler_factor) << ',' << r.trials << ',' << r.seed
        << ',' << name(r.execution, "execution") << ',' << num(t.p50) << ',' << num(t.p95) << ','
        << num(t.p99) << ',' << num(t.max) << ',' << m.p50 << ',' << m.p95 << ',' << m.p99 << ','
        << m.max << ',' << (r.all_delivered ? "true" : "false") << ',' << opt(r.planned_makespan_s)
        << ',' << name(r.model, "model") << ',' << r.tp << ',' << r.dp << ',' << r.switches << ','
        << num(r.link_gbps) << ',' << num(r.time_limit_s) << ',' << num(r.solve_time_s) << ','
        << num(r.sim_time_s) << '\n';
  }
  const std::string text = out.str();
  io::save_file(file, [&](std::ostream& o) { o << text; });
}

}  // namespace flux::eval
