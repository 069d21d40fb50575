#include "flux/workload/builder.hpp"

#include <algorithm>
#include <cassert>

namespace flux::workload {

WorkloadBuilder::WorkloadBuilder(std::string name, std::uint32_t accelerators) {
  data_.name = std::move(name);
  data_.accelerators = accelerators;
}

core::TaskIndex WorkloadBuilder::add_send(core::Rank src, core::Rank dst, std::uint64_t bytes,
                                          std::uint32_t label) {
  const auto index = static_cast<std::uint32_t>(data_.tasks.size());
  core::Task t;
  t.id = index;
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  t.label = label;
  data_.tasks.push_back(t);
  return core::TaskIndex(index);
}

void WorkloadBuilder::add_dep(core::TaskIndex from, core::TaskIndex to, core::TimePs compute_ps) {
  data_.deps.push_back(core::Dep{from, to, compute_ps});
}

void WorkloadBuilder::raise_release(core::TaskIndex v, core::TimePs ps) {
  core::TimePs& r = data_.tasks[v.value()].release_ps;
  r = std::max(r, ps);
}

void WorkloadBuilder::raise_tail(core::TaskIndex v, core::TimePs ps) {
  core::TimePs& t = data_.tasks[v.value()].tail_ps;
  t = std::max(t, ps);
}

std::uint32_t WorkloadBuilder::intern_label(std::string_view label) {
  auto [it, inserted] =
      label_index_.try_emplace(std::string(label), static_cast<std::uint32_t>(data_.labels.size()));
  if (inserted) data_.labels.emplace_back(label);
  return it->second;
}

void WorkloadBuilder::reserve(std::size_t tasks, std::size_t deps) {
  data_.tasks.reserve(tasks);
  data_.deps.reserve(deps);
}

core::Workload WorkloadBuilder::build() && {
  label_index_.clear();
  return core::Workload(std::move(data_));
}

}  // namespace flux::workload
