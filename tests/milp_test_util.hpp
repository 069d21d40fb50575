#pragma once
// What the MILP tests share: an exported model file solved by CBC afresh.
#include <coin/CbcModel.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <optional>
#include <string>

namespace flux::sched::testing {

/// Reads an exported ".lp" or ".mps" model and solves it with CBC from
/// scratch: its optimum in model units (us); nullopt when the file does not
/// read or CBC proves no optimum.
inline std::optional<double> solve_model_file(const std::string& path) {
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  const int rc =
      path.ends_with(".lp") ? solver.readLp(path.c_str()) : solver.readMps(path.c_str(), "mps");
  if (rc != 0) return std::nullopt;
  CbcModel model(solver);
  model.setLogLevel(0);
  model.branchAndBound();
  if (!model.isProvenOptimal()) return std::nullopt;
  return model.getObjValue();
}

}  // namespace flux::sched::testing
