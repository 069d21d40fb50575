// A workload of collective instances; what it stands for is in
// core/lazy_workload.hpp.
#include "flux/core/lazy_workload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"
#include "flux/core/wiring.hpp"

namespace flux::core {

namespace {

// Task indices are 32-bit; the largest is kept free as "none".
constexpr std::uint64_t kMaxTasks = 0xfffffffeu;

template <typename T>
std::uint64_t bytes_of(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

std::uint64_t CollectiveShape::memory_bytes() const {
  return sizeof(*this) + bytes_of(sends) + bytes_of(succ_offsets) + bytes_of(succs) +
         bytes_of(parents) + bytes_of(terminal) + bytes_of(initial_offsets) + bytes_of(initial) +
         bytes_of(terminal_count) + bytes_of(replaces) + bytes_of(reach);
}

void CollectiveShape::check() const {
  const std::size_t n = sends.size();
  auto fail = [](const char* what) {
    throw std::logic_error(std::string("CollectiveShape: ") + what);
  };
  if (members < 2) fail("fewer than 2 members");
  if (succ_offsets.size() != n + 1 || parents.size() != n || terminal.size() != n) fail("sizes");
  if (initial_offsets.size() != std::size_t{members} + 1 || terminal_count.size() != members ||
      replaces.size() != members) {
    fail("member sizes");
  }
  if (words != (members + 63) / 64 || reach.size() != std::size_t{members} * words) fail("reach");
  if (succ_offsets.front() != 0 || succ_offsets.back() != succs.size()) fail("succ offsets");
  if (initial_offsets.front() != 0 || initial_offsets.back() != initial.size()) fail("initial");
  if (single && (n != 1 || members != 2)) fail("a single shape has one send between 2 members");
  std::vector<std::uint32_t> in(n, 0);
  std::vector<std::uint32_t> count(members, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Send& s = sends[k];
    if (s.from >= members || s.to >= members || s.from == s.to) fail("positions");
    if (!single && s.bytes == 0) fail("a send of 0 bytes");
    if (succ_offsets[k] > succ_offsets[k + 1]) fail("succ offsets");
    for (const std::uint32_t x : succs_of(static_cast<std::uint32_t>(k))) {
      if (x <= k || x >= n) fail("a dependency that is not forward");
      ++in[x];
    }
    if ((terminal[k] & kTerminalFrom) != 0) ++count[s.from];
    if ((terminal[k] & kTerminalTo) != 0) ++count[s.to];
  }
  if (in != parents) fail("parents");
  if (count != terminal_count) fail("terminal counts");
  for (std::uint32_t m = 0; m < members; ++m) {
    if (initial_offsets[m] > initial_offsets[m + 1]) fail("initial offsets");
    for (const std::uint32_t k : initial_of(m)) {
      if (k >= n) fail("an initial send out of range");
    }
  }
}

CollectiveShape single_send_shape() {
  CollectiveShape s;
  s.members = 2;
  s.single = true;
  s.sends = {CollectiveShape::Send{0, 1, 0}};
  s.succ_offsets = {0, 0};
  s.parents = {0};
  s.terminal = {CollectiveShape::kTerminalFrom | CollectiveShape::kTerminalTo};
  s.initial_offsets = {0, 1, 1};
  s.initial = {0};
  s.terminal_count = {1, 1};
  // The sender's terminal send is its initial one; the receiver starts
  // nothing, so its frontier stays (workload::CollectiveTasks).
  s.replaces = {1, 0};
  s.words = 1;
  s.reach = {0b11, 0};
  return s;
}

LazyWorkload::LazyWorkload(std::string name, std::uint32_t accelerators)
    : name_(std::move(name)), accelerators_(accelerators) {}

std::uint32_t LazyWorkload::add_shape(CollectiveShape shape) {
  shape.check();
  shape.owner.assign(shape.sends.size(), CollectiveShape::kNoMember);
  for (std::uint32_t m = 0; m < shape.members; ++m) {
    for (const std::uint32_t k : shape.initial_of(m)) {
      if (shape.owner[k] != CollectiveShape::kNoMember) {
        throw std::logic_error("CollectiveShape: a send initial for two members");
      }
      shape.owner[k] = m;
    }
  }
  shape.mixing = true;
  for (std::uint32_t m = 0; m < shape.members && shape.mixing; ++m) {
    if (shape.initial_offsets[m] == shape.initial_offsets[m + 1]) continue;
    for (std::uint32_t q = 0; q < shape.members; ++q) {
      if (shape.terminal_count[q] != 0 && !shape.reaches(m, q)) {
        shape.mixing = false;
        break;
      }
    }
  }
  std::uint64_t bytes = 0;
  for (const CollectiveShape::Send& x : shape.sends) {
    if (__builtin_add_overflow(bytes, x.bytes, &bytes)) bytes = ~std::uint64_t{0};  // saturated
  }
  shape_bytes_.push_back(bytes);
  shapes_.push_back(std::move(shape));
  return static_cast<std::uint32_t>(shapes_.size() - 1);
}

std::uint32_t LazyWorkload::add_instance(std::uint32_t shape, std::span<const Rank> ranks,
                                         std::uint32_t label, std::uint64_t bytes) {
  const CollectiveShape& s = shapes_.at(shape);
  if (ranks.size() != s.members) throw std::logic_error("LazyWorkload: ranks of another shape");
  if (s.single != (bytes != 0)) throw std::logic_error("LazyWorkload: bytes of a single send only");
  if (num_tasks_ + s.sends.size() > kMaxTasks) {
    throw InputError("", "tasks", std::to_string(num_tasks_ + s.sends.size()),
                     "more than 2^32 - 2 sends");
  }
  for (const Rank r : ranks) {
    if (r.value() >= accelerators_) throw std::logic_error("LazyWorkload: rank out of range");
  }
  if (member_rank_.size() + s.members > kMaxTasks) {
    throw InputError("", "collectives", std::to_string(member_rank_.size() + s.members),
                     "more than 2^32 - 2 members of collectives and sends");
  }
  std::uint64_t total = 0;
  // A shape's bytes saturate at 2^64-1: then, or when the sum passes it,
  // the send at which it passes.
  const std::uint64_t add = s.single ? bytes : shape_bytes_[shape];
  if (add == ~std::uint64_t{0} || __builtin_add_overflow(total_bytes_, add, &total)) {
    // The send at which the sum passes, named as Workload's check names it.
    total = total_bytes_;
    for (std::uint32_t k = 0; k < s.sends.size(); ++k) {
      const std::uint64_t b = s.single ? bytes : s.sends[k].bytes;
      if (__builtin_add_overflow(total, b, &total)) {
        throw InputError("", "tasks[" + std::to_string(num_tasks_ + k) + "].bytes",
                         std::to_string(b), "the bytes of all sends up to this one pass 2^64-1");
      }
    }
  }
  total_bytes_ = total;
  Instance in;
  in.shape = shape;
  in.label = label;
  in.first_task = static_cast<std::uint32_t>(num_tasks_);
  in.first_member = static_cast<std::uint32_t>(member_rank_.size());
  in.bytes = bytes;
  num_tasks_ += s.sends.size();
  const auto index = static_cast<std::uint32_t>(instances_.size());
  instances_.push_back(in);
  member_rank_.insert(member_rank_.end(), ranks.begin(), ranks.end());
  member_instance_.insert(member_instance_.end(), ranks.size(), index);
  release_.insert(release_.end(), ranks.size(), 0);
  tail_.insert(tail_.end(), ranks.size(), 0);
  return in.first_member;
}

void LazyWorkload::add_edge(std::uint32_t from, std::uint32_t to, TimePs compute_ps) {
  if (from >= member_instance_.size() || to >= member_instance_.size() ||
      member_instance_[from] >= member_instance_[to] || compute_ps < 0) {
    throw std::logic_error("LazyWorkload: an edge that is not forward");
  }
  if (edges_.size() >= kMaxTasks) {
    throw InputError("", "deps", std::to_string(edges_.size() + 1),
                     "more than 2^32 - 2 dependencies between collectives");
  }
  edges_.push_back(GroupEdge{from, to, compute_ps});
}

void LazyWorkload::raise_release(std::uint32_t member, TimePs ps) {
  release_.at(member) = std::max(release_[member], ps);
}

void LazyWorkload::raise_tail(std::uint32_t member, TimePs ps) {
  tail_.at(member) = std::max(tail_[member], ps);
}

std::uint32_t LazyWorkload::intern_label(std::string_view label) {
  auto [it, inserted] =
      label_index_.try_emplace(std::string(label), static_cast<std::uint32_t>(labels_.size()));
  if (inserted) labels_.emplace_back(label);
  return it->second;
}

Task LazyWorkload::task_of(std::uint32_t i, std::uint32_t k) const {
  const Instance& in = instances_[i];
  const CollectiveShape& s = shapes_[in.shape];
  const CollectiveShape::Send& x = s.sends[k];
  Task t;
  t.id = in.first_task + k;
  t.src = member_rank_[in.first_member + x.from];
  t.dst = member_rank_[in.first_member + x.to];
  t.bytes = s.single ? in.bytes : x.bytes;
  t.label = in.label;
  if (s.owner[k] != CollectiveShape::kNoMember)
    t.release_ps = release_[in.first_member + s.owner[k]];
  if ((s.terminal[k] & CollectiveShape::kTerminalFrom) != 0) {
    t.tail_ps = std::max(t.tail_ps, tail_[in.first_member + x.from]);
  }
  if ((s.terminal[k] & CollectiveShape::kTerminalTo) != 0) {
    t.tail_ps = std::max(t.tail_ps, tail_[in.first_member + x.to]);
  }
  return t;
}

WorkloadData LazyWorkload::expand() const {
  WorkloadData d;
  d.name = name_;
  d.accelerators = accelerators_;
  d.labels = labels_;
  d.scaleup_size = scaleup_size_;
  d.scaleup_gbps = scaleup_gbps_;
  d.tasks.reserve(num_tasks_);
  for (std::uint32_t i = 0; i < instances_.size(); ++i) {
    const Instance& in = instances_[i];
    const CollectiveShape& s = shapes_[in.shape];
    for (std::uint32_t k = 0; k < s.sends.size(); ++k) {
      d.tasks.push_back(task_of(i, k));
      for (const std::uint32_t c : s.succs_of(k)) {
        d.deps.push_back(Dep{TaskIndex(in.first_task + k), TaskIndex(in.first_task + c), 0});
      }
    }
  }
  // terminal(G) per member of each shape, listed once.
  std::vector<std::vector<std::vector<std::uint32_t>>> terminal(shapes_.size());
  for (std::size_t i = 0; i < shapes_.size(); ++i) {
    const CollectiveShape& s = shapes_[i];
    terminal[i].resize(s.members);
    for (std::uint32_t k = 0; k < s.sends.size(); ++k) {
      if ((s.terminal[k] & CollectiveShape::kTerminalFrom) != 0) {
        terminal[i][s.sends[k].from].push_back(k);
      }
      if ((s.terminal[k] & CollectiveShape::kTerminalTo) != 0)
        terminal[i][s.sends[k].to].push_back(k);
    }
  }
  for (const GroupEdge& e : edges_) {
    const Instance& gi = instances_[member_instance_[e.from]];
    const Instance& mi = instances_[member_instance_[e.to]];
    const std::span<const std::uint32_t> init =
        shapes_[mi.shape].initial_of(e.to - mi.first_member);
    for (const std::uint32_t k : terminal[gi.shape][e.from - gi.first_member]) {
      for (const std::uint32_t v : init) {
        d.deps.push_back(
            Dep{TaskIndex(gi.first_task + k), TaskIndex(mi.first_task + v), e.compute_ps});
      }
    }
  }
  std::sort(d.deps.begin(), d.deps.end(), [](const Dep& a, const Dep& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.compute_ps > b.compute_ps;
  });
  d.deps.erase(
      std::unique(d.deps.begin(), d.deps.end(),
                  [](const Dep& a, const Dep& b) { return a.from == b.from && a.to == b.to; }),
      d.deps.end());
  return d;
}

std::uint64_t LazyWorkload::memory_bytes() const {
  std::uint64_t b = sizeof(*this) + bytes_of(instances_) + bytes_of(member_rank_) +
                    bytes_of(member_instance_) + bytes_of(release_) + bytes_of(tail_) +
                    bytes_of(edges_) + bytes_of(labels_);
  for (const CollectiveShape& s : shapes_) b += s.memory_bytes();
  for (const std::string& l : labels_) b += l.capacity();
  return b;
}

WorkloadFacts facts_of(const LazyWorkload& w) {
  return {w.name(), w.num_tasks(), w.accelerators(), w.total_bytes(), Fold{}};
}

namespace {

// transmission_times, the times kept in `p` when it is given.
void lazy_transmission_times(const LazyWorkload& w, const System& system,
                             std::vector<TimePs>* keep) {
  system.validate_for(w.accelerators());
  if (system.wiring.kind != WiringKind::kFull) {
    throw InputError("", "wiring", std::string(to_string(system.wiring.kind)),
                     "collectives kept whole run on a full wiring only (routes are chosen send "
                     "by send)");
  }
  // As transmission_times of a Workload (dag.cpp): each p, and the serial
  // horizon.
  __extension__ typedef unsigned __int128 U128;
  U128 horizon = 0;
  TimePs max_release = 0;
  if (keep != nullptr) keep->reserve(w.num_tasks());
  for (std::uint32_t i = 0; i < w.num_instances(); ++i) {
    const std::size_t n = w.instance_shape(i).sends.size();
    for (std::uint32_t k = 0; k < n; ++k) {
      const Task t = w.task_of(i, k);
      TimePs p = 0;
      try {
        p = system.transmission_ps(t.bytes, t.src, t.dst);
      } catch (const InputError& e) {
        throw InputError(e.source(), "tasks[" + std::to_string(t.id) + "].bytes", e.value(),
                         e.problem());
      }
      if (keep != nullptr) keep->push_back(p);
      horizon += static_cast<U128>(p) + static_cast<U128>(system.reconfig_delay_ps) +
                 static_cast<U128>(t.tail_ps);
      max_release = std::max(max_release, t.release_ps);
    }
  }
  // Each group edge's compute once: the expansion has at least one dep
  // per edge, so this is at most the sum a Workload's check takes (the
  // simulator's own sums are checked as they go).
  for (const LazyWorkload::GroupEdge& e : w.edges()) horizon += static_cast<U128>(e.compute_ps);
  horizon += static_cast<U128>(max_release);
  if (horizon > static_cast<U128>(kMaxTimePs)) {
    throw_serial_horizon(w.num_tasks(), system, static_cast<double>(horizon) / 1e12);
  }
}

}  // namespace

std::vector<TimePs> transmission_times(const LazyWorkload& w, const System& system) {
  std::vector<TimePs> p;
  lazy_transmission_times(w, system, &p);
  return p;
}

void check_transmission_times(const LazyWorkload& w, const System& system) {
  lazy_transmission_times(w, system, nullptr);
}

}  // namespace flux::core
