#pragma once
// The program behind a generated workload: the sequence of compute and
// collectives that every rank runs (SPMD), as the generator lowered it into
// the DAG (llama.cpp, docs/model.md "From a program to a DAG"). Exporters
// write it out operation by operation (chakra/export.hpp), so that a reader
// that lowers a program the same way gets the generator's DAG back.
#include <cstdint>
#include <vector>

#include "flux/core/time.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::workload {

/// One collective on one group, as emitted into the workload.
struct ProgramCollective {
  CollectiveSpec spec;           ///< kind, algorithm, group, bytes, label (index into the labels)
  std::uint32_t first_task = 0;  ///< its sends are the tasks [first_task, first_task + num_tasks)
  std::uint32_t num_tasks = 0;
  CollectiveTasks tasks;  ///< initial and terminal tasks per member
};

/// One step of every rank's program.
struct ProgramOp {
  /// Compute on every rank, ps (when `collectives` is empty).
  core::TimePs compute_ps = 0;
  /// Collectives launched at this point, on disjoint groups (indices into
  /// Program::collectives); a rank takes part in at most one of them.
  std::vector<std::uint32_t> collectives;
  /// True: each member's compute then waits for its part (its terminal
  /// tasks); false: only the final compute waits for it.
  bool blocking = true;
};

struct Program {
  std::uint32_t ranks = 0;
  std::vector<ProgramCollective> collectives;
  std::vector<ProgramOp> ops;
  /// Compute after everything, non-blocking collectives included (the
  /// optimizer step), ps.
  core::TimePs final_compute_ps = 0;
};

}  // namespace flux::workload
