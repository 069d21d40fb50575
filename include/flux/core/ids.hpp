#pragma once
// Strong integer ids. A TaskIndex is a dense position in a Workload's task
// vector (not the user's task id, which is any uint64 kept in Task::id).
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace flux::core {

template <class Tag, class Rep = std::uint32_t>
class StrongId {
 public:
  using rep_type = Rep;
  static constexpr Rep kInvalid = std::numeric_limits<Rep>::max();

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep v) : value_(v) {}
  [[nodiscard]] constexpr Rep value() const { return value_; }
  [[nodiscard]] constexpr bool valid() const { return value_ != kInvalid; }
  constexpr auto operator<=>(const StrongId&) const = default;

 private:
  Rep value_ = kInvalid;
};

struct TaskTag {};
struct RankTag {};
struct SwitchTag {};

/// Dense index of a send task inside one Workload (0 .. num_tasks-1).
using TaskIndex = StrongId<TaskTag>;
/// Accelerator (GPU) number, 0 .. n-1.
using Rank = StrongId<RankTag>;
/// Optical circuit switch number, 0 .. s-1.
using SwitchId = StrongId<SwitchTag>;

}  // namespace flux::core

template <class Tag, class Rep>
struct std::hash<flux::core::StrongId<Tag, Rep>> {
  std::size_t operator()(flux::core::StrongId<Tag, Rep> id) const noexcept {
    return std::hash<Rep>{}(id.value());
  }
};
