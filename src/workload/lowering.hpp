#pragma once
// Internal to flux::workload: a program (program.hpp) lowered into a DAG as
// it is written, step by step, and recorded when asked.
//
// Each rank keeps a *frontier*: a set of (task, wait) entries meaning "the
// rank's compute may proceed once `task` has finished and `wait` more compute
// has elapsed"; an entry with no task stands for the start of the iteration.
// Compute adds to every wait of its ranks; launching a collective connects
// each member's frontier to its initial sends in it (an edge with the wait as
// compute, or a release for the start entry); joining it adds the member's
// terminal tasks with wait 0. A collective joined at its launch (Await::kNow,
// and the sender of kSenderNow) whose terminal tasks descend from the
// member's initial sends replaces the frontier (older entries are dominated);
// one joined later only adds to it. kAtEnd collectives wait in a per-rank
// list until a compute step with after_outstanding joins them. At the end
// every entry's wait becomes its task's tail, unless a send launched since
// the entry last changed already waits for it (as a Chakra reader takes
// tails from the nodes nothing depends on).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "flux/core/workload.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"
#include "flux/workload/program.hpp"

namespace flux::workload::detail {

struct FrontierEntry {
  core::TaskIndex task;  // invalid: start of the iteration
  core::TimePs wait = 0;
  // A send launched since the entry last changed waits for it: the entry
  // gives no tail (what the send waits for implies it).
  bool consumed = false;
};

class Frontier {
 public:
  Frontier() : entries_{FrontierEntry{}} {}
  /// `step`: the compute is a step of the program (a node a reader sees).
  void compute(core::TimePs d, bool step) {
    for (FrontierEntry& e : entries_) {
      e.wait += d;
      e.consumed = e.consumed && !step;
    }
  }
  void connect(WorkloadBuilder& b, const std::vector<core::TaskIndex>& initial);
  void join(const std::vector<core::TaskIndex>& terminal, bool replace);
  /// Adds `terminal` to the entries, joined after compute may have run: a
  /// start entry without wait goes (the tasks end at 0 or later, which
  /// implies it), as a Chakra reader does on a receive.
  void join_later(const std::vector<core::TaskIndex>& terminal);
  [[nodiscard]] const std::vector<FrontierEntry>& entries() const { return entries_; }

 private:
  std::vector<FrontierEntry> entries_;
  // The valid tasks among entries_, so that join() stays linear in what it
  // adds (with many outstanding sends, a scan of entries_ per task made
  // generating large folded jobs quadratic).
  std::unordered_set<std::uint32_t> tasks_;
};

class Lowering {
 public:
  /// `program` (may be null) receives the steps as they are lowered. With
  /// `emit_sends` false only the program is written (it must be given):
  /// no send is made, each collective's sends counted and its `replaces`
  /// found once per shape (shape_key) on a scratch builder, and its `tasks`
  /// left empty (Program::without_sends); finish_program() ends it.
  Lowering(std::string name, std::uint32_t ranks, Program* program, bool emit_sends = true);

  WorkloadBuilder& builder() { return b_; }

  /// `d` ps of compute on `ranks`; with after_outstanding it first waits for
  /// the ranks' kAtEnd collectives. Bounds every rank's total compute.
  void compute(std::span<const std::uint32_t> ranks, core::TimePs d,
               bool after_outstanding = false);

  /// Opens a launch step; launch() then adds collectives to it.
  void begin_launch(Await await);
  /// Emits one collective of the open launch step; returns its handle (its
  /// index in the program) for join().
  std::uint32_t launch(const CollectiveSpec& spec);
  /// Opens a join step; join() then adds collectives to it.
  void begin_join();
  void join(std::uint32_t handle);

  /// Tails from the frontiers; the workload. The lowering is left empty.
  core::Workload finish();
  /// The program's header (name, labels, scale-up, sends); finish() calls it.
  void finish_program();

 private:
  struct Deferred {
    CollectiveSpec group;  // only the group is kept
    CollectiveTasks tasks;
    bool sender_joined = false;
  };

  /// The collective's sends: one algorithm's, or with kAuto every
  /// alternative's and their choice group. `replaces[pos]`: member pos's
  /// frontier is replaced when it joins (CollectiveTasks::replaces_frontier).
  /// `lowered`: the spec as emitted (the algorithm run, kAuto only when a
  /// choice group was made; the domain size).
  CollectiveTasks emit(const CollectiveSpec& spec, std::vector<bool>& replaces,
                       CollectiveSpec& lowered);

  /// Without sends: the collective's sends counted, its `replaces` and
  /// `lowered` found (from a cache by shape_key).
  std::uint32_t count(const CollectiveSpec& spec, std::vector<bool>& replaces,
                      CollectiveSpec& lowered);

  Program* program_;
  bool emit_sends_;
  std::uint64_t sends_ = 0;  // without sends: those counted so far
  // Without sends, per shape key: the sends and which members replace.
  std::map<std::vector<std::uint64_t>, std::pair<std::uint32_t, std::vector<bool>>> counted_;
  WorkloadBuilder b_;
  std::vector<Frontier> frontier_;
  std::vector<std::vector<core::TaskIndex>> outstanding_;
  std::vector<core::TimePs> total_;  // compute per rank so far
  Await await_ = Await::kNow;
  std::uint32_t launched_ = 0;
  std::unordered_map<std::uint32_t, Deferred> deferred_;
};

}  // namespace flux::workload::detail
