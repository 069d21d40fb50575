// A program lowered into a DAG step by step (lowering.hpp has the rules).
#include "lowering.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "flux/core/error.hpp"
#include "flux/workload/shape.hpp"

namespace flux::workload::detail {
namespace {
// What a compute time beyond core::kMaxTimePs is reported as.
constexpr std::string_view kComputeField = "compute of one iteration";
}  // namespace

void Frontier::connect(WorkloadBuilder& b, const std::vector<core::TaskIndex>& initial) {
  for (core::TaskIndex v : initial) {
    for (FrontierEntry& e : entries_) {
      e.consumed = true;
      if (e.task.valid()) {
        b.add_dep(e.task, v, e.wait);
      } else {
        b.raise_release(v, e.wait);
      }
    }
  }
}

void Frontier::join(const std::vector<core::TaskIndex>& terminal, bool replace) {
  if (replace) {
    entries_.clear();
    tasks_.clear();
  }
  for (core::TaskIndex t : terminal) {
    const bool listed = t.valid()
                            ? !tasks_.insert(t.value()).second
                            : std::any_of(entries_.begin(), entries_.end(),
                                          [](const FrontierEntry& e) { return !e.task.valid(); });
    if (!listed) entries_.push_back(FrontierEntry{t, 0});
  }
}

void Frontier::join_later(const std::vector<core::TaskIndex>& terminal) {
  if (terminal.empty()) return;
  std::erase_if(entries_, [](const FrontierEntry& e) { return !e.task.valid() && e.wait == 0; });
  join(terminal, false);
}

Lowering::Lowering(std::string name, std::uint32_t ranks, Program* program, bool emit_sends)
    : program_(program),
      emit_sends_(emit_sends),
      b_(std::move(name), ranks),
      frontier_(ranks),
      outstanding_(ranks),
      total_(ranks, 0) {
  if (!emit_sends_ && program_ == nullptr) {
    throw std::logic_error("Lowering: without sends, the program is all there is");
  }
  if (program_ != nullptr) {
    *program_ = Program{};
    program_->ranks = ranks;
    program_->without_sends = !emit_sends_;
  }
}

void Lowering::compute(std::span<const std::uint32_t> ranks, core::TimePs d,
                       bool after_outstanding) {
  for (const std::uint32_t r : ranks) {
    // Every wait a frontier accumulates is part of this total: checking it
    // keeps them all within core::kMaxTimePs.
    total_[r] = core::add_time(total_[r], d, kComputeField);
    if (!emit_sends_) continue;
    if (after_outstanding) {
      frontier_[r].join(outstanding_[r], false);
      outstanding_[r].clear();
    }
    frontier_[r].compute(d, d != 0 || after_outstanding);
  }
  if (program_ == nullptr || (d == 0 && !after_outstanding)) return;
  std::vector<std::uint32_t> listed;
  if (ranks.size() != program_->ranks) listed.assign(ranks.begin(), ranks.end());
  std::vector<ProgramOp>& ops = program_->ops;
  if (!after_outstanding && !ops.empty() && ops.back().type == ProgramOp::Type::kCompute &&
      !ops.back().after_outstanding && ops.back().ranks == listed) {
    ops.back().compute_ps += d;
    return;
  }
  ProgramOp& op = ops.emplace_back();
  op.compute_ps = d;
  op.ranks = std::move(listed);
  op.after_outstanding = after_outstanding;
}

void Lowering::begin_launch(Await await) {
  await_ = await;
  if (program_ == nullptr) return;
  ProgramOp& op = program_->ops.emplace_back();
  op.type = ProgramOp::Type::kLaunch;
  op.await = await;
}

CollectiveTasks Lowering::emit(const CollectiveSpec& spec, std::vector<bool>& replaces,
                               CollectiveSpec& lowered) {
  // The job's scale-up domains, for the hierarchical algorithm.
  CollectiveSpec one = spec;
  if (one.domain_size == 0) one.domain_size = b_.scaleup_size();
  return lower_collective(b_, one, replaces, lowered);
}

std::uint32_t Lowering::count(const CollectiveSpec& spec, std::vector<bool>& replaces,
                              CollectiveSpec& lowered) {
  lowered = spec;
  if (lowered.domain_size == 0) lowered.domain_size = b_.scaleup_size();
  if (lowered.algorithm == Algorithm::kAuto) {
    const std::vector<Algorithm> algorithms = alternatives_of(lowered);
    if (algorithms.size() != 1) {
      throw core::InputError("", "collective", "auto",
                             "a job written without its sends runs one algorithm per "
                             "collective (a choice among several needs them): generate it "
                             "with a fixed --collective");
    }
    lowered.algorithm = algorithms.front();
  }
  lowered.algorithm = applied_algorithm(lowered);
  std::vector<std::uint64_t> key = shape_key(lowered);
  auto it = counted_.find(key);
  if (it == counted_.end()) {
    // lower_collective as emit() runs it, on a builder of its own.
    WorkloadBuilder scratch(b_.name(), b_.accelerators());
    CollectiveSpec again;
    std::vector<bool> r;
    (void)lower_collective(scratch, lowered, r, again);
    it = counted_
             .emplace(std::move(key),
                      std::pair(static_cast<std::uint32_t>(scratch.num_tasks()), std::move(r)))
             .first;
  }
  replaces = it->second.second;
  return it->second.first;
}

std::uint32_t Lowering::launch(const CollectiveSpec& spec) {
  if (!emit_sends_) {
    std::vector<bool> replaces;
    CollectiveSpec lowered;
    const std::uint32_t n = count(spec, replaces, lowered);
    if (sends_ + n > 0xffffffffu) {
      throw core::InputError("", "sends", std::to_string(sends_ + n),
                             "more than 2^32 - 1 sends in one iteration");
    }
    const std::uint32_t handle = launched_++;
    const std::size_t p = spec.group.size();
    if (await_ == Await::kLater || await_ == Await::kSenderNow) {
      Deferred& d = deferred_[handle];
      d.group.group = spec.group;
      d.sender_joined = await_ == Await::kSenderNow;
    }
    program_->ops.back().collectives.push_back(handle);
    CollectiveTasks none;
    none.initial.resize(p);
    none.terminal.resize(p);
    program_->collectives.push_back({std::move(lowered), static_cast<std::uint32_t>(sends_), n,
                                     std::move(none), std::move(replaces)});
    sends_ += n;
    return handle;
  }
  const auto first = static_cast<std::uint32_t>(b_.num_tasks());
  std::vector<bool> replaces;
  CollectiveSpec lowered;
  CollectiveTasks ct = emit(spec, replaces, lowered);
  const std::uint32_t handle = launched_++;
  for (std::size_t pos = 0; pos < spec.group.size(); ++pos) {
    const std::uint32_t r = spec.group[pos].value();
    frontier_[r].connect(b_, ct.initial[pos]);
    switch (await_) {
      case Await::kNow:
        frontier_[r].join(ct.terminal[pos], replaces[pos]);
        break;
      case Await::kAtEnd:
        outstanding_[r].insert(outstanding_[r].end(), ct.terminal[pos].begin(),
                               ct.terminal[pos].end());
        break;
      case Await::kSenderNow:
        if (pos == 0) frontier_[r].join(ct.terminal[pos], replaces[pos]);
        break;
      case Await::kLater:
        break;
    }
  }
  if (await_ == Await::kLater || await_ == Await::kSenderNow) {
    Deferred& d = deferred_[handle];
    d.group.group = spec.group;
    d.tasks = ct;
    d.sender_joined = await_ == Await::kSenderNow;
  }
  if (program_ != nullptr) {
    program_->ops.back().collectives.push_back(handle);
    program_->collectives.push_back({std::move(lowered), first,
                                     static_cast<std::uint32_t>(b_.num_tasks()) - first,
                                     std::move(ct), std::move(replaces)});
  }
  return handle;
}

void Lowering::begin_join() {
  if (program_ == nullptr) return;
  program_->ops.emplace_back().type = ProgramOp::Type::kJoin;
}

void Lowering::join(std::uint32_t handle) {
  auto it = deferred_.find(handle);
  if (it == deferred_.end()) return;  // joined already
  const Deferred& d = it->second;
  for (std::size_t pos = d.sender_joined ? 1 : 0; emit_sends_ && pos < d.group.group.size();
       ++pos) {
    frontier_[d.group.group[pos].value()].join_later(d.tasks.terminal[pos]);
  }
  deferred_.erase(it);
  if (program_ != nullptr) program_->ops.back().collectives.push_back(handle);
}

void Lowering::finish_program() {
  if (program_ == nullptr) return;
  program_->name = b_.name();
  program_->labels = b_.labels();
  program_->scaleup_size = b_.scaleup_size();
  program_->scaleup_gbps = b_.scaleup_gbps();
  program_->num_tasks = emit_sends_ ? b_.num_tasks() : sends_;
}

core::Workload Lowering::finish() {
  if (!emit_sends_) throw std::logic_error("Lowering: finish() without sends");
  finish_program();
  for (std::size_t r = 0; r < frontier_.size(); ++r) {
    for (const FrontierEntry& e : frontier_[r].entries()) {
      if (e.task.valid() && !e.consumed) b_.raise_tail(e.task, e.wait);
    }
  }
  return std::move(b_).build();
}

}  // namespace flux::workload::detail

namespace flux::workload {

CollectiveTasks lower_collective(WorkloadBuilder& b, const CollectiveSpec& spec,
                                 std::vector<bool>& replaces, CollectiveSpec& lowered) {
  const std::size_t p = spec.group.size();
  replaces.assign(p, true);
  CollectiveSpec one = spec;
  if (spec.algorithm != Algorithm::kAuto) {
    // Bruck and hierarchical where they apply, the ring elsewhere (as an
    // all-to-all is direct whatever the algorithm): --collective bruck is
    // Bruck all-to-alls, hierarchical the collectives that span domains.
    one.algorithm = applied_algorithm(one);
    CollectiveTasks ct = emit_collective(b, one);
    for (std::size_t pos = 0; pos < p; ++pos) replaces[pos] = ct.replaces_frontier(pos);
    lowered = std::move(one);
    return ct;
  }
  const std::vector<Algorithm> algorithms = alternatives_of(one);
  if (algorithms.size() == 1) {
    one.algorithm = algorithms.front();
    return lower_collective(b, one, replaces, lowered);
  }
  // Every alternative's sends, each connected like the collective: their
  // initial sends to the frontier, their terminal tasks joined. A member's
  // frontier is replaced only when every alternative would replace it.
  CollectiveTasks all;
  all.initial.resize(p);
  all.terminal.resize(p);
  core::ChoiceGroup group;
  group.label = spec.label;
  for (const Algorithm a : algorithms) {
    one.algorithm = a;
    const auto first = static_cast<std::uint32_t>(b.num_tasks());
    const CollectiveTasks ct = emit_collective(b, one);
    if (first == b.num_tasks()) continue;  // nothing to send (an all-to-all of zeros)
    core::Alternative& alt = group.alternatives.emplace_back();
    alt.name = std::string(to_string(a));
    for (auto v = first; v < b.num_tasks(); ++v) alt.tasks.emplace_back(v);
    for (std::size_t pos = 0; pos < p; ++pos) {
      all.initial[pos].insert(all.initial[pos].end(), ct.initial[pos].begin(),
                              ct.initial[pos].end());
      all.terminal[pos].insert(all.terminal[pos].end(), ct.terminal[pos].begin(),
                               ct.terminal[pos].end());
      replaces[pos] = replaces[pos] && ct.replaces_frontier(pos);
    }
  }
  for (std::size_t pos = 0; pos < p; ++pos)
    replaces[pos] = replaces[pos] && !all.initial[pos].empty();
  // One alternative with sends: its sends are the collective's, no choice.
  lowered = std::move(one);
  lowered.algorithm = group.alternatives.empty() ? algorithms.front()
                      : group.alternatives.size() == 1
                          ? algorithm_from_string(group.alternatives.front().name)
                          : Algorithm::kAuto;
  if (group.alternatives.size() >= 2) b.add_choice(std::move(group));
  return all;
}

}  // namespace flux::workload
