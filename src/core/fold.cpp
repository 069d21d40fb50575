// The lift of a folded workload; the rules are in fold.hpp and docs/model.md.
#include "flux/core/fold.hpp"

#include <string>

#include "flux/core/error.hpp"

namespace flux::core {

FoldLift::FoldLift(const Workload& w)
    : n_(w.accelerators()), block_(n_), blocks_(1), copies_(w.fold().copies) {
  if (!w.fold().folded()) return;
  block_ = w.fold().block_ranks;
  blocks_ = n_ / block_;
}

void check_fold(const Workload& w) {
  const Fold& f = w.fold();
  const std::uint32_t accelerators = w.accelerators();
  if (f.copies == 0) throw InputError("", "fold.copies", "0", "must be at least 1");
  if (f.copies == 1) {
    if (f.block_ranks != 0 && f.block_ranks != accelerators) {
      throw InputError("", "fold.block_ranks", std::to_string(f.block_ranks),
                       "must be 0 for a workload that is not folded (copies 1)");
    }
    return;
  }
  if (f.block_ranks == 0 || accelerators % f.block_ranks != 0) {
    throw InputError("", "fold.block_ranks", std::to_string(f.block_ranks),
                     "must divide the accelerators (" + std::to_string(accelerators) + ")");
  }
  if (accelerators / f.block_ranks < 2) {
    throw InputError("", "fold.block_ranks", std::to_string(f.block_ranks),
                     "a folded workload needs at least 2 blocks (a send across blocks must "
                     "not become a send to itself)");
  }
  if (static_cast<std::uint64_t>(accelerators) * f.copies > 0xffffffffu) {
    throw InputError("", "fold.copies", std::to_string(f.copies),
                     "the job would exceed 2^32-1 accelerators");
  }
  // The lift is well defined.
  const std::uint32_t block = f.block_ranks;
  const std::uint32_t blocks = w.accelerators() / block;
  const std::span<const Task> tasks = w.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint32_t a = tasks[i].src.value() / block;
    const std::uint32_t b = tasks[i].dst.value() / block;
    if (a != b && 2 * ((b + blocks - a) % blocks) == blocks) {
      throw InputError("", "tasks[" + std::to_string(i) + "].dst",
                       std::to_string(tasks[i].dst.value()),
                       "a send half the ring of " + std::to_string(blocks) +
                           " blocks away has no unique lift; fold onto more blocks");
    }
  }
  const std::span<const Dep> deps = w.deps();
  for (std::size_t j = 0; j < deps.size(); ++j) {
    const Task& u = w.task(deps[j].from);
    const Task& v = w.task(deps[j].to);
    if (u.dst != v.src && u.src != v.src) {
      throw InputError("", "deps[" + std::to_string(j) + "].from", std::to_string(u.id),
                       "in a folded workload a dependency must touch its target's source "
                       "(task " +
                           std::to_string(v.id) + " sends from " + std::to_string(v.src.value()) +
                           ")");
    }
  }
}

std::int64_t FoldLift::delta(Rank x, Rank y) const {
  const std::uint32_t a = x.value() / block_;
  const std::uint32_t b = y.value() / block_;
  auto d = static_cast<std::int64_t>((b + blocks_ - a) % blocks_);
  if (2 * d > blocks_) d -= blocks_;
  return d;
}

Rank FoldLift::peer(Rank x, Rank y, std::uint32_t c) const {
  const std::int64_t job_blocks = static_cast<std::int64_t>(blocks_) * copies_;
  const std::int64_t block = (static_cast<std::int64_t>(x.value() / block_) +
                              static_cast<std::int64_t>(c) * blocks_ + delta(x, y) + job_blocks) %
                             job_blocks;
  return Rank(static_cast<std::uint32_t>(block * block_ + y.value() % block_));
}

std::uint32_t FoldLift::dep_copy(const Task& u, const Task& v, std::uint32_t c) const {
  if (u.dst != v.src) return c;  // u.src == v.src: the same copy
  // u's copy c' ends at block a_u + c'B + delta = a_v + cB, with
  // a_u + delta = a_v + kB: c' = c - k.
  const std::int64_t reach =
      static_cast<std::int64_t>(u.src.value() / block_) + delta(u.src, u.dst);
  const std::int64_t k = (reach - static_cast<std::int64_t>(v.src.value() / block_)) / blocks_;
  const std::int64_t copy = (static_cast<std::int64_t>(c) - k + copies_) % copies_;
  return static_cast<std::uint32_t>(copy);
}

Workload unfold(const Workload& folded) {
  const FoldLift lift(folded);
  const std::uint32_t copies = lift.copies();
  const std::size_t n = folded.num_tasks();
  const std::uint64_t sends = std::uint64_t{n} * copies;
  const std::uint64_t deps = std::uint64_t{folded.num_deps()} * copies;
  if (sends >= 0xffffffffu || deps >= 0xffffffffu) {
    throw InputError("", "fold.copies", std::to_string(copies),
                     "the job has " + std::to_string(sends) + " sends and " + std::to_string(deps) +
                         " deps, more than a workload holds (2^32-1 each); schedule the fold");
  }
  WorkloadData out;
  out.name = folded.name() + (copies > 1 ? "-unfolded" : "");
  out.accelerators = static_cast<std::uint32_t>(folded.job_accelerators());
  out.scaleup_size = folded.scaleup_size();
  out.scaleup_gbps = folded.scaleup_gbps();
  out.labels.assign(folded.labels().begin(), folded.labels().end());
  out.tasks.reserve(n * copies);
  out.deps.reserve(folded.num_deps() * copies);
  for (std::uint32_t c = 0; c < copies; ++c) {
    for (std::size_t v = 0; v < n; ++v) {
      Task t = folded.tasks()[v];
      t.id = c * n + v;
      t.dst = lift.peer(t.src, t.dst, c);
      t.src = lift.rank(t.src, c);
      out.tasks.push_back(t);
    }
  }
  for (std::uint32_t c = 0; c < copies; ++c) {
    for (const Dep& e : folded.deps()) {
      const std::uint32_t cu = lift.dep_copy(folded.task(e.from), folded.task(e.to), c);
      out.deps.push_back(Dep{TaskIndex(static_cast<std::uint32_t>(cu * n + e.from.value())),
                             TaskIndex(static_cast<std::uint32_t>(c * n + e.to.value())),
                             e.compute_ps});
    }
  }
  return Workload(std::move(out));
}

}  // namespace flux::core
