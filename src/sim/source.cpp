// The engine's sources (source.hpp): a Workload's arrays, or a
// LazyWorkload's collectives expanded send by send as the engine asks.
#include "source.hpp"

#include <string>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"

namespace flux::sim::detail {

void MaterialSource::check_transmission_times(const core::System& system) const {
  (void)core::transmission_times(w_, system);
}

LazySource::LazySource(const core::LazyWorkload& w, bool times_checked)
    : w_(w), times_checked_(times_checked) {
  instance_of_.reserve(w.num_tasks());
  for (std::uint32_t i = 0; i < w.num_instances(); ++i) {
    instance_of_.insert(instance_of_.end(), w.instance_shape(i).sends.size(), i);
  }
  const std::size_t members = w.num_members();
  std::vector<std::uint64_t> gate(members, 0);
  out_offsets_.assign(members + 1, 0);
  for (const core::LazyWorkload::GroupEdge& e : w.edges()) {
    gate[e.to] += w.terminal_count(e.from);
    ++out_offsets_[e.from + 1];
  }
  gate_.resize(members);
  for (std::size_t m = 0; m < members; ++m) {
    if (gate[m] > 0xfffffff0u) {
      throw core::InputError("", "deps", std::to_string(gate[m]),
                             "a send waits for more than 2^32 parents");
    }
    gate_[m] = static_cast<std::uint32_t>(gate[m]);
  }
  for (std::size_t m = 0; m < members; ++m) out_offsets_[m + 1] += out_offsets_[m];
  out_.resize(w.num_edges());
  std::vector<std::uint32_t> at(out_offsets_.begin(), out_offsets_.end() - 1);
  for (const core::LazyWorkload::GroupEdge& e : w.edges()) out_[at[e.from]++] = e;
}

core::Task LazySource::task(std::uint32_t v) const {
  const std::uint32_t i = instance_of_[v];
  return w_.task_of(i, v - w_.instance(i).first_task);
}

std::uint32_t LazySource::in_degree(std::uint32_t v) const {
  const core::LazyWorkload::Instance& in = w_.instance(instance_of_[v]);
  const core::CollectiveShape& s = w_.shape(in.shape);
  const std::uint32_t k = v - in.first_task;
  const std::uint32_t owner = s.owner[k];
  return s.parents[k] +
         (owner == core::CollectiveShape::kNoMember ? 0 : gate_[in.first_member + owner]);
}

void LazySource::children(std::uint32_t v, ChildFn on_child, void* ctx) const {
  const core::LazyWorkload::Instance& in = w_.instance(instance_of_[v]);
  const core::CollectiveShape& s = w_.shape(in.shape);
  const std::uint32_t k = v - in.first_task;
  for (const std::uint32_t c : s.succs_of(k)) on_child(ctx, in.first_task + c, 0);
  auto out_of = [&](std::uint32_t g) {
    for (std::uint32_t j = out_offsets_[g]; j < out_offsets_[g + 1]; ++j) {
      const core::LazyWorkload::GroupEdge& e = out_[j];
      const core::LazyWorkload::Instance& to = w_.instance(w_.instance_of(e.to));
      for (const std::uint32_t u : w_.shape(to.shape).initial_of(e.to - to.first_member)) {
        on_child(ctx, to.first_task + u, e.compute_ps);
      }
    }
  };
  if ((s.terminal[k] & core::CollectiveShape::kTerminalFrom) != 0) {
    out_of(in.first_member + s.sends[k].from);
  }
  if ((s.terminal[k] & core::CollectiveShape::kTerminalTo) != 0) {
    out_of(in.first_member + s.sends[k].to);
  }
}

void LazySource::check_transmission_times(const core::System& system) const {
  if (!times_checked_) core::check_transmission_times(w_, system);
}

}  // namespace flux::sim::detail
