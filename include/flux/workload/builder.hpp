#pragma once
// Incremental construction of a Workload by generators and importers. Tasks
// get ids equal to their index (0, 1, 2, ...); labels are interned.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flux/core/workload.hpp"

namespace flux::workload {

class WorkloadBuilder {
 public:
  WorkloadBuilder(std::string name, std::uint32_t accelerators);

  /// Adds a send; its id is its index. Returns the index.
  core::TaskIndex add_send(core::Rank src, core::Rank dst, std::uint64_t bytes,
                           std::uint32_t label = core::kNoLabel);
  /// Adds the edge from -> to with `compute_ps` of compute between them.
  void add_dep(core::TaskIndex from, core::TaskIndex to, core::TimePs compute_ps = 0);
  /// Raises the task's release (earliest start) to at least `ps`.
  void raise_release(core::TaskIndex v, core::TimePs ps);
  /// Raises the task's tail (compute after it) to at least `ps`.
  void raise_tail(core::TaskIndex v, core::TimePs ps);
  /// Records a choice group over sends already added (core::ChoiceGroup);
  /// validated by build().
  void add_choice(core::ChoiceGroup group) { data_.choices.push_back(std::move(group)); }
  /// Index of `label` in the label table, adding it if new.
  std::uint32_t intern_label(std::string_view label);

  void reserve(std::size_t tasks, std::size_t deps);
  /// Marks the workload as folded (core::Fold); validated by build().
  void set_fold(core::Fold fold) { data_.fold = fold; }
  /// The scale-up domain size the job is laid out for (core::WorkloadData).
  void set_scaleup_size(std::uint32_t k) { data_.scaleup_size = k; }
  [[nodiscard]] std::uint32_t scaleup_size() const { return data_.scaleup_size; }
  /// Its scale-up bandwidth per accelerator and direction, Gb/s.
  void set_scaleup_gbps(double gbps) { data_.scaleup_gbps = gbps; }
  [[nodiscard]] double scaleup_gbps() const { return data_.scaleup_gbps; }
  [[nodiscard]] const std::string& name() const { return data_.name; }
  /// The labels interned so far, by index.
  [[nodiscard]] const std::vector<std::string>& labels() const { return data_.labels; }
  [[nodiscard]] std::size_t num_tasks() const { return data_.tasks.size(); }
  [[nodiscard]] std::size_t num_deps() const { return data_.deps.size(); }
  [[nodiscard]] const core::Task& task(core::TaskIndex v) const { return data_.tasks[v.value()]; }
  /// The deps added so far, in the order they were added.
  [[nodiscard]] std::span<const core::Dep> deps() const { return data_.deps; }
  [[nodiscard]] std::uint32_t accelerators() const { return data_.accelerators; }

  /// Validates and returns the workload; the builder is left empty.
  core::Workload build() &&;

 private:
  core::WorkloadData data_;
  std::unordered_map<std::string, std::uint32_t> label_index_;
};

}  // namespace flux::workload
