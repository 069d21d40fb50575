#pragma once
// The paper's MILP (section 3), with the extension for release and tail
// times and exactness-preserving reductions. Times in the model are in
// microseconds (ps / 1e6) to keep coefficients well scaled. Internal to
// src/sched (flux-milp, the LP bound, flux's warm start).
//
//   min C
//   C >= t_v + p_v + tail_v                         (1)  only rows not implied by a child
//   sum_s x_{v,s} = 1                               (2)
//   t_v >= t_u + p_u + c_uv                         (3)  (u, v) in E
//   t_v >= t_u + p_u + R_uv - M_uv (2 - x_us - x_vs)
//                                                   (4)  (u, v) in K<, every s
//   t_v >= t_u + p_u + R_uv - M_uv (3 - x_us - x_vs - y_uv)
//   t_u >= t_v + p_v + R_vu - M_vu (2 - x_us - x_vs + y_uv)
//                                                   (5)  {u, v} in K||, every s
//   t_v >= release_v (in fact >= head_v, the ideal earliest start)
//
// K = pairs of OCS sends sharing an endpoint; K< the ordered ones (u an
// ancestor of v), K|| the incomparable ones; R = 0 when both use the same
// (src, dst), else tau. In full duplex (System::duplex, docs/model.md
// "Duplex") K drops every pair of a send and its reverse (src_u = dst_v and
// dst_u = src_v): one circuit carries both at once; nothing else changes.
// With scale-up domains (docs/model.md) a send inside a domain has no x (no
// switch; (2) skips it), and so has a send on the packet fabric; E = pairs
// of sends on one of those two fabrics sharing a source (its egress) or a
// destination (its ingress) get, R = 0:
//   t_v >= t_u + p_u                                (6)  (u, v) in E<
//   t_v >= t_u + p_u - M_uv (1 - y_uv)
//   t_u >= t_v + p_v - M_vu y_uv                    (7)  {u, v} in E||
// Sends on different fabrics (OCS, scale-up, packet) never conflict. Global
// big-M (the paper's, plus the extension's release and tail):
//   M = max release + max tail + |V| tau + sum p + sum c.
// Reductions (each optional, each keeps the optimum; docs/model.md):
//   implied pairs    drop (u, v) in K< when L(u, v) >= R_uv: the DAG already
//                    forces the gap (all R = 0 pairs go);
//   symmetry         the i-th OCS send in topological order may use switches
//                    0..i only;
//   horizon big-M    with an incumbent of makespan H: C <= H, t_v <= H - to_end_v,
//                    and M_uv = ub(t_u) + p_u + R_uv - lb(t_v) per row (rows
//                    with M_uv <= 0 are implied and dropped; a pair whose one
//                    order cannot fit fixes y);
//   bound            C >= a combinatorial lower bound (bounds.hpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/sched/scheduler.hpp"

namespace flux::sched {

inline constexpr double kPsPerModelUnit = 1e6;  // model time unit: 1 us

/// A MILP in row-major sparse form, solver-neutral.
struct MilpModel {
  std::vector<double> col_lb, col_ub, obj;
  std::vector<char> is_integer;
  std::vector<std::string> col_names;
  std::vector<std::int64_t> row_start{0};  // row r: entries [row_start[r], row_start[r+1])
  std::vector<int> row_col;
  std::vector<double> row_val;
  std::vector<double> row_lb, row_ub;

  // Where the decisions live.
  std::vector<int> t_col;  ///< per task
  std::vector<int> x_col;  ///< task * switches + s; -1 for a scale-up send
  int c_col = -1;
  std::uint32_t switches = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> y_pair;  ///< y = 1: first before second
  std::vector<int> y_col;

  // Statistics.
  std::uint64_t conflicting_pairs = 0;
  std::uint64_t reversed_pairs = 0;  ///< full duplex: a send and its reverse, no pair
  std::uint64_t ordered_pairs = 0, ordered_kept = 0;
  std::uint64_t incomparable_pairs = 0, incomparable_kept = 0;
  double big_m = 0;  ///< the global M (model units)

  [[nodiscard]] std::size_t num_cols() const { return col_lb.size(); }
  [[nodiscard]] std::size_t num_rows() const { return row_lb.size(); }
  [[nodiscard]] std::size_t num_integers() const;
  int add_col(double lb, double ub, double cost, bool integer, std::string name);
  /// Adds lb <= sum coef * col <= ub.
  void add_row(std::span<const int> cols, std::span<const double> coefs, double lb, double ub);
};

struct MilpInputs {
  std::span<const core::TimePs> p;
  const core::IdealTiming* timing = nullptr;
  std::optional<core::TimePs> horizon_ps;      ///< an incumbent's makespan
  std::optional<core::TimePs> lower_bound_ps;  ///< a proven lower bound
};

MilpModel build_milp(const core::Workload& w, const core::System& system, const MilpInputs& in,
                     const MilpOptions& options);

/// Upper estimates of a model's size, before it is built: every conflicting
/// pair (OCS sends sharing a port, on every switch; sends on one electrical
/// fabric, scale-up or packet, sharing its egress or ingress, counted on
/// both when they share both;
/// in full duplex without a send and its reverse) kept, as if neither the
/// DAG nor the horizon removed a row. O(tasks log tasks) to compute.
struct MilpSize {
  std::uint64_t pairs = 0;  ///< conflicting pairs, at most
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t nonzeros = 0;
  /// Memory of the model and of CBC's copies of it (its row and column
  /// matrices, presolve), in bytes: about 4x the model's own arrays.
  std::uint64_t bytes = 0;
};
MilpSize estimate_milp_size(const core::Workload& w, const core::System& system);

/// Column values of a placement (t, x, y, C) for a warm start or a check.
std::vector<double> milp_solution_of(const MilpModel& m, const core::Workload& w,
                                     std::span<const core::TimePs> p,
                                     std::span<const core::SwitchId> sw,
                                     std::span<const core::TimePs> start_ps);

}  // namespace flux::sched
