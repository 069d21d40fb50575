#pragma once
// Lifting a folded workload (core::Fold) to the job it stands for, and the
// checks that make the lift well defined (docs/model.md, "Folding").
//
// Blocks: the folded workload's accelerators are B = accelerators /
// block_ranks blocks; the job has B * copies. Rank x = (block a, offset o)
// lifts in copy c to block a + c * B, offset o. A send from block a to block
// b crosses delta = (b - a) mod B blocks, taken in (-B/2, B/2) (a send half
// the ring away is refused: its direction would be ambiguous), so its copy c
// goes from block a + cB to block a + cB + delta (mod the job's blocks). A
// send and its reverse then lift onto the same circuits, as they share one in
// the folded workload. A dependency u -> v is lifted within the copy in which
// u touches v's source (u's destination first, else its source); a folded
// workload whose deps do not touch the source of their target is refused.
#include <cstdint>
#include <utility>

#include "flux/core/ids.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {

/// Throws InputError on a fold that is not well formed (copies 0,
/// block_ranks not dividing the accelerators into >= 2 blocks, a job over
/// 2^32-1 accelerators) or whose lift is not well defined (a send half the
/// ring away, a dependency not touching its target's source). The Workload
/// constructor calls it, so every folded Workload lifts.
void check_fold(const Workload& w);

class FoldLift {
 public:
  explicit FoldLift(const Workload& w);

  [[nodiscard]] std::uint32_t copies() const { return copies_; }
  /// Rank x of the folded workload in copy c.
  [[nodiscard]] Rank rank(Rank x, std::uint32_t c) const { return Rank(x.value() + c * n_); }
  /// Where the copy-c lift of a send from x to y ends.
  [[nodiscard]] Rank peer(Rank x, Rank y, std::uint32_t c) const;
  /// The copy of task u that task v's copy c depends on (u -> v a dep).
  [[nodiscard]] std::uint32_t dep_copy(const Task& u, const Task& v, std::uint32_t c) const;

 private:
  [[nodiscard]] std::int64_t delta(Rank x, Rank y) const;

  std::uint32_t n_ = 0;       // accelerators of the folded workload
  std::uint32_t block_ = 1;   // ranks per block
  std::uint32_t blocks_ = 1;  // blocks in the folded workload
  std::uint32_t copies_ = 1;
};

/// The job's workload: copies * tasks sends, copy c of task v at index
/// c * num_tasks + v with id c * num_tasks + v, labels kept; not folded.
/// Throws InputError (field fold.copies) when the job would hold more sends
/// or deps than a workload can (2^32-1 each).
Workload unfold(const Workload& folded);

}  // namespace flux::core
