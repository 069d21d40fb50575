// The LP relaxation of the MILP (milp_model.hpp) as a lower bound for the
// flux scheduler (docs/model.md, "Lower bounds"): the model is built with the
// incumbent's horizon (C <= H and per-pair big-M from it; every schedule no
// worse than the incumbent satisfies them, so the LP optimum stays a lower
// bound on the optimum) and without the combinatorial bound row, so the value
// is the LP's own. Clp's dual simplex, with a time limit.
#include <coin/ClpSimplex.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cmath>

#include "model.hpp"
#include "osi_load.hpp"
#include "solver.hpp"

namespace flux::sched {

std::optional<core::TimePs> lp_relaxation_bound(const core::Workload& w, const core::System& system,
                                                std::span<const core::TimePs> p,
                                                const core::IdealTiming& timing,
                                                core::TimePs horizon_ps, double time_limit_s) {
  if (time_limit_s <= 0 || w.num_tasks() == 0) return std::nullopt;
  MilpOptions options;
  options.bound_rows = false;
  options.warm_start = false;
  MilpInputs in;
  in.p = p;
  in.timing = &timing;
  in.horizon_ps = horizon_ps;
  const MilpModel model = build_milp(w, system, in, options);
  OsiClpSolverInterface solver;
  load_into_osi(model, solver);
  solver.messageHandler()->setLogLevel(0);
  solver.getModelPtr()->setMaximumWallSeconds(time_limit_s);
  solver.initialSolve();
  if (!solver.isProvenOptimal()) return std::nullopt;
  // Model units are microseconds; round down with a margin for the solver's
  // tolerances (a bound must never exceed the optimum).
  const double ps = solver.getObjValue() * kPsPerModelUnit;
  const double safe = std::floor(ps - 1e-6 * std::abs(ps) - 1);
  return safe > 0 ? static_cast<core::TimePs>(safe) : core::TimePs{0};
}

}  // namespace flux::sched
