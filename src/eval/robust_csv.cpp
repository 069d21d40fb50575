// The robustness sweep's CSV (results/robustness.csv): one header line, one
// row per point, comma-separated, no quoting, numbers in the shortest form
// that reads back exactly. The four wall-time columns come last: everything
// before them is the same, bit for bit, for the same configuration and seed.
// The failure columns are empty but on failure rows. A CSV written before
// the failure points (kOldColumns: no failure columns) is read too.
#include <array>
#include <fstream>
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
                                         "fail_switch",
                                         "fail_time_s",
                                         "replan_time_limit_s",
                                         "replan_moves",
                                         "replanned_sends_p50",
                                         "replanned_sends_max",
                                         "solve_time_s",
                                         "sim_time_s",
                                         "replan_wall_p50_s",
                                         "replan_wall_max_s"};
constexpr std::size_t kNumColumns = std::size(kColumns);
constexpr std::size_t kFirstFailureColumn = 29;  // fail_switch
static_assert(kColumns[kFirstFailureColumn] == "fail_switch");
// Before the failure points: kColumns without the failure columns.
constexpr std::size_t kNumOldColumns = kNumColumns - 8;
constexpr auto kOldColumns = [] {
  std::array<std::string_view, kNumOldColumns> a{};
  std::size_t k = 0;
  for (std::size_t i = 0; i < kNumColumns; ++i) {
    if ((i < kFirstFailureColumn || i >= kFirstFailureColumn + 6) && i < kNumColumns - 2) {
      a[k++] = kColumns[i];
    }
  }
  return a;
}();

bool has_old_header(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  return std::getline(in, line) && line == detail::header(kOldColumns, kNumOldColumns);
}

// One row; `old`: a CSV from before the failure columns.
RobustRow row_of(const detail::RowReader& r, bool old) {
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
  // The failure columns: all set on a failure row, all empty otherwise.
  const bool failed = row.perturbation == PerturbationKind::kFailure;
  auto present = [&](std::size_t col) {
    if (r.text(col).empty() == failed) {
      r.fail(col, failed ? "empty on a failure row" : "set on a row without a failure");
    }
    return failed;
  };
  RobustFailure f;
  if (!old && present(c)) {
    f.switch_index = r.integer<std::uint32_t>(c);
    const std::size_t t = c + 1;
    const double at = r.real(t);
    if (at < 0 || !core::representable_seconds(at)) r.fail(t, "not a valid time");
    f.time_ps = core::seconds_to_ps(at);
    for (std::size_t k = 2; k < 6; ++k) (void)present(c + k);
    f.replan_time_limit_s = r.real(c + 2);
    f.replan_moves = r.integer<std::uint64_t>(c + 3);
    f.replanned_sends_p50 = r.integer<std::uint64_t>(c + 4);
    f.replanned_sends_max = r.integer<std::uint64_t>(c + 5);
  } else if (!old) {
    for (std::size_t k = 0; k < 6; ++k) (void)present(c + k);
  } else if (failed) {
    r.fail(6, "a failure row needs the failure columns (a CSV from before them)");
  }
  if (!old) c += 6;
  row.solve_time_s = real();
  row.sim_time_s = real();
  if (!old) {
    if (present(c) && present(c + 1)) {
      f.replan_wall_p50_s = r.real(c);
      f.replan_wall_max_s = r.real(c + 1);
    }
    if (failed) row.failure = f;
  }
  return row;
}

}  // namespace

std::vector<RobustRow> read_robust_csv(const std::filesystem::path& file) {
  std::vector<RobustRow> rows;
  const bool old = has_old_header(file);
  const std::span<const std::string_view> columns =
      old ? std::span<const std::string_view>(kOldColumns)
          : std::span<const std::string_view>(kColumns);
  const std::size_t counts[] = {columns.size()};
  detail::read_rows(file, columns, counts, [&](const detail::RowReader& r, std::size_t) {
    rows.push_back(row_of(r, old));
  });
  return rows;
}

RobustRow parse_robust_csv_row(const std::string& line) {
  std::vector<std::string> fields = detail::split(line);
  if (fields.size() != kNumColumns) {
    throw core::InputError("", "row", line.substr(0, 60),
                           "expected " + std::to_string(kNumColumns) + " columns");
  }
  return row_of(detail::RowReader("", 1, kColumns, std::move(fields)), false);
}

std::string robust_csv_header() {
  return detail::header(kColumns, kNumColumns);
}

std::string robust_csv_row(const RobustRow& r) {
  std::ostringstream out;
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
      << num(r.link_gbps) << ',' << num(r.time_limit_s) << ',';
  const std::optional<RobustFailure>& f = r.failure;
  if (f) {
    out << f->switch_index << ',' << num(core::ps_to_seconds(f->time_ps)) << ','
        << num(f->replan_time_limit_s) << ',' << f->replan_moves << ',' << f->replanned_sends_p50
        << ',' << f->replanned_sends_max << ',';
  } else {
    out << ",,,,,,";
  }
  out << num(r.solve_time_s) << ',' << num(r.sim_time_s) << ',';
  if (f) {
    out << num(f->replan_wall_p50_s) << ',' << num(f->replan_wall_max_s);
  } else {
    out << ',';
  }
  return out.str();
}

void write_robust_csv(const std::filesystem::path& file, const std::vector<RobustRow>& rows) {
  std::ostringstream out;
  out << robust_csv_header() << '\n';
  for (const RobustRow& r : rows) out << robust_csv_row(r) << '\n';
  const std::string text = out.str();
  io::save_file(file, [&](std::ostream& o) { o << text; });
}

}  // namespace flux::eval
