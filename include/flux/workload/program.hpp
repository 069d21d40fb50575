#pragma once
// The program behind a generated workload: the sequence of compute steps and
// collective launches and joins that the ranks run, as the generator lowered
// it into the DAG (llama.cpp, docs/model.md "From a program to a DAG").
// Without pipeline parallelism every rank runs every step (SPMD); with it, a
// compute step names the ranks (one pipeline stage) that run it, and point-
// to-point sends between stages are launched by their sender and joined by
// their receiver at a later step. Exporters write it out step by step
// (chakra/export.hpp), so that a reader that lowers a program the same way
// gets the generator's DAG back.
#include <cstdint>
#include <string>
#include <vector>

#include "flux/core/time.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::workload {

/// One collective on one group, as emitted into the workload.
struct ProgramCollective {
  /// Kind, group, bytes, label (index into the labels) and the algorithm
  /// run (workload::applied_algorithm; kAuto: every alternative of a choice
  /// group, whose sends are these tasks), with the domain size it used.
  CollectiveSpec spec;
  std::uint32_t first_task = 0;  ///< its sends are the tasks [first_task, first_task + num_tasks)
  std::uint32_t num_tasks = 0;
  CollectiveTasks tasks;  ///< initial and terminal tasks per member
  /// Per member: its frontier was replaced by its terminal tasks when it
  /// joined (tasks.replaces_frontier(pos) for one algorithm; for kAuto, only
  /// where every alternative's would be). Empty: tasks.replaces_frontier.
  std::vector<bool> replaces{};
  [[nodiscard]] bool replaced(std::size_t pos) const {
    return replaces.empty() ? tasks.replaces_frontier(pos) : replaces[pos];
  }
};

/// When the members of a launched collective start waiting for it (their
/// terminal tasks join the rank's frontier).
enum class Await : std::uint8_t {
  kNow,        ///< at once: the rank's next compute waits for its part (blocking)
  kAtEnd,      ///< only a compute step with `after_outstanding` (or the end) waits
  kLater,      ///< every member from a later kJoin step naming the collective
  kSenderNow,  ///< point to point: the sender (group[0]) now, the receiver from a kJoin
};

/// One step of the program.
struct ProgramOp {
  enum class Type : std::uint8_t { kCompute, kLaunch, kJoin };
  Type type = Type::kCompute;
  /// kCompute: its time, ps.
  core::TimePs compute_ps = 0;
  /// kCompute: the ranks that run it; empty: every rank.
  std::vector<std::uint32_t> ranks;
  /// kCompute: also waits for the kAtEnd collectives its ranks launched
  /// before (the optimizer step waiting for the gradient reductions).
  bool after_outstanding = false;
  /// kLaunch: collectives launched here, on disjoint groups (indices into
  /// Program::collectives), each member's frontier connected to its initial
  /// sends. kJoin: collectives launched earlier with kLater or kSenderNow
  /// whose members that have not joined yet join now, adding their terminal
  /// tasks to the frontier (never replacing it: compute may have run since
  /// the launch).
  std::vector<std::uint32_t> collectives;
  /// kLaunch: when the members wait for them. With kNow a member whose
  /// terminal tasks follow its initial sends (CollectiveTasks::
  /// replaces_frontier) has its frontier replaced by them.
  Await await = Await::kNow;
};

struct Program {
  std::uint32_t ranks = 0;
  std::vector<ProgramCollective> collectives;
  std::vector<ProgramOp> ops;
  /// What a trace of the job says besides its steps (as the workload has
  /// them): its name, labels (ProgramCollective::spec.label indexes them),
  /// scale-up domain size and bandwidth (Gb/s, 0: none), and how many sends
  /// its collectives decompose into.
  std::string name;
  std::vector<std::string> labels;
  std::uint32_t scaleup_size = 0;
  double scaleup_gbps = 0;
  std::uint64_t num_tasks = 0;
  /// Written without its sends (generate_llama_program): each collective's
  /// `tasks` is empty (a member's initial and terminal lists hold nothing)
  /// and its sends are made again when needed (workload::lower_collective
  /// on `spec`, which is the collective as lowered).
  bool without_sends = false;
};

}  // namespace flux::workload
