#pragma once
// Internal: what the engine reads of a workload (docs/plan-lazy-
// collectives.md, "Engine interface"): its sends, how many parents each
// waits for, and each send's children with the compute between. A
// core::Workload gives them from its arrays (MaterialSource); a
// core::LazyWorkload from its shapes, instances and group edges, a
// collective's sends produced as the engine reaches them (LazySource), with
// the same numbering, so the engine runs the same events either way.
#include <cstdint>
#include <optional>
#include <vector>

#include "flux/core/lazy_workload.hpp"
#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"

namespace flux::sim::detail {

class SendSource {
 public:
  virtual ~SendSource() = default;
  [[nodiscard]] virtual std::size_t num_tasks() const = 0;
  [[nodiscard]] virtual std::uint32_t accelerators() const = 0;
  /// Send v: id, endpoints, bytes, release, tail, label.
  [[nodiscard]] virtual core::Task task(std::uint32_t v) const = 0;
  /// How many parents v waits for.
  [[nodiscard]] virtual std::uint32_t in_degree(std::uint32_t v) const = 0;
  /// Calls on_child(ctx, child, compute_ps) for every edge out of v.
  using ChildFn = void (*)(void* ctx, std::uint32_t child, core::TimePs compute_ps);
  virtual void children(std::uint32_t v, ChildFn on_child, void* ctx) const = 0;
  /// Checks every send's transmission time on `system` as
  /// core::transmission_times does (the engine computes a send's time at
  /// its issue, or reads a materialised workload's all at once).
  virtual void check_transmission_times(const core::System& system) const = 0;
  /// The send with this id (task-level schedules).
  [[nodiscard]] virtual std::optional<core::TaskIndex> find(std::uint64_t id) const = 0;
  /// The workload when it is materialised (the engine then reads its
  /// arrays directly on its hot paths, without a call per edge); else null.
  [[nodiscard]] virtual const core::Workload* material() const { return nullptr; }
};

class MaterialSource final : public SendSource {
 public:
  explicit MaterialSource(const core::Workload& w) : w_(w) {}
  [[nodiscard]] std::size_t num_tasks() const override { return w_.num_tasks(); }
  [[nodiscard]] std::uint32_t accelerators() const override { return w_.accelerators(); }
  [[nodiscard]] core::Task task(std::uint32_t v) const override {
    return w_.task(core::TaskIndex(v));
  }
  [[nodiscard]] std::uint32_t in_degree(std::uint32_t v) const override {
    return static_cast<std::uint32_t>(w_.in_edge_ids(core::TaskIndex(v)).size());
  }
  void children(std::uint32_t v, ChildFn on_child, void* ctx) const override {
    for (const core::Dep& d : w_.out_edges(core::TaskIndex(v))) {
      on_child(ctx, d.to.value(), d.compute_ps);
    }
  }
  void check_transmission_times(const core::System& system) const override;
  [[nodiscard]] std::optional<core::TaskIndex> find(std::uint64_t id) const override {
    return w_.find(id);
  }
  [[nodiscard]] const core::Workload* material() const override { return &w_; }

 private:
  const core::Workload& w_;
};

/// A LazyWorkload's sends: task v is local send k of the instance holding
/// it; its children are the shape's successors and, where v ends a member
/// G's part (terminal(G)), the initial sends of every member M with a group
/// edge (G, M); the sends of initial(M) wait for |terminal(G)| parents per
/// such edge. Holds 4 B a send (its instance) and a few per member.
class LazySource final : public SendSource {
 public:
  /// `times_checked`: the transmission times on the system the engine will
  /// run were checked already (by the validator), so
  /// check_transmission_times does nothing.
  explicit LazySource(const core::LazyWorkload& w, bool times_checked = false);
  [[nodiscard]] std::size_t num_tasks() const override { return instance_of_.size(); }
  [[nodiscard]] std::uint32_t accelerators() const override { return w_.accelerators(); }
  [[nodiscard]] core::Task task(std::uint32_t v) const override;
  [[nodiscard]] std::uint32_t in_degree(std::uint32_t v) const override;
  void children(std::uint32_t v, ChildFn on_child, void* ctx) const override;
  void check_transmission_times(const core::System& system) const override;
  /// Ids are indices.
  [[nodiscard]] std::optional<core::TaskIndex> find(std::uint64_t id) const override {
    if (id >= num_tasks()) return std::nullopt;
    return core::TaskIndex(static_cast<std::uint32_t>(id));
  }

 private:
  const core::LazyWorkload& w_;
  bool times_checked_;
  std::vector<std::uint32_t> instance_of_;  // per send
  std::vector<std::uint32_t> gate_;         // per member: sum of |terminal(G)| over its edges in
  std::vector<std::uint32_t> out_offsets_;  // per member + 1: its edges out in out_
  std::vector<core::LazyWorkload::GroupEdge> out_;
};

}  // namespace flux::sim::detail
