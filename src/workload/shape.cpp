// Collective shapes: emit_collective run once on stand-in ranks, its sends
// renumbered by position (workload/shape.hpp).
#include "flux/workload/shape.hpp"

#include <stdexcept>
#include <unordered_map>

#include "flux/workload/builder.hpp"

namespace flux::workload {

namespace {

// The positions' scale-up domains, numbered by first appearance, and each
// position's order of appearance within its domain.
struct DomainPattern {
  std::vector<std::uint32_t> domain, local;
  std::uint32_t domains = 0, largest = 0;
};

DomainPattern domain_pattern(const CollectiveSpec& spec) {
  DomainPattern d;
  std::unordered_map<std::uint32_t, std::uint32_t> index;
  std::vector<std::uint32_t> count;
  for (const core::Rank r : spec.group) {
    const auto [it, added] = index.try_emplace(r.value() / spec.domain_size, d.domains);
    if (added) {
      ++d.domains;
      count.push_back(0);
    }
    d.domain.push_back(it->second);
    d.local.push_back(count[it->second]++);
    d.largest = std::max(d.largest, count[it->second]);
  }
  return d;
}

}  // namespace

core::CollectiveShape collective_shape(const CollectiveSpec& spec) {
  if (spec.algorithm == Algorithm::kAuto) {
    throw std::invalid_argument("collective_shape: a choice of algorithms is not one shape");
  }
  const auto p = static_cast<std::uint32_t>(spec.group.size());
  CollectiveSpec one = spec;
  one.algorithm = applied_algorithm(spec);
  // Stand-in ranks: the positions, or for a hierarchical decomposition
  // domain * largest + local, which keeps the domains and the order within
  // each.
  std::uint32_t ranks = p;
  if (one.algorithm == Algorithm::kHierarchical) {
    const DomainPattern d = domain_pattern(spec);
    for (std::uint32_t i = 0; i < p; ++i)
      one.group[i] = core::Rank(d.domain[i] * d.largest + d.local[i]);
    one.domain_size = d.largest;
    ranks = d.domains * d.largest;
  } else {
    for (std::uint32_t i = 0; i < p; ++i) one.group[i] = core::Rank(i);
  }
  std::vector<std::uint32_t> position(ranks, 0);
  for (std::uint32_t i = 0; i < p; ++i) position[one.group[i].value()] = i;

  WorkloadBuilder b("shape", ranks);
  const CollectiveTasks ct = emit_collective(b, one);
  core::CollectiveShape s;
  s.members = p;
  const auto n = static_cast<std::uint32_t>(b.num_tasks());
  s.sends.reserve(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const core::Task& t = b.task(core::TaskIndex(k));
    s.sends.push_back({position[t.src.value()], position[t.dst.value()], t.bytes});
  }
  s.parents.assign(n, 0);
  s.succ_offsets.assign(n + 1, 0);
  for (const core::Dep& e : b.deps()) {
    if (e.compute_ps != 0) throw std::logic_error("collective_shape: a dependency with compute");
    ++s.succ_offsets[e.from.value() + 1];
    ++s.parents[e.to.value()];
  }
  for (std::uint32_t k = 0; k < n; ++k) s.succ_offsets[k + 1] += s.succ_offsets[k];
  s.succs.resize(b.deps().size());
  {
    std::vector<std::uint32_t> at(s.succ_offsets.begin(), s.succ_offsets.end() - 1);
    for (const core::Dep& e : b.deps()) s.succs[at[e.from.value()]++] = e.to.value();
  }
  s.initial_offsets.assign(p + 1, 0);
  for (std::uint32_t m = 0; m < p; ++m) {
    for (const core::TaskIndex v : ct.initial[m]) s.initial.push_back(v.value());
    s.initial_offsets[m + 1] = static_cast<std::uint32_t>(s.initial.size());
  }
  s.terminal.assign(n, 0);
  s.terminal_count.assign(p, 0);
  s.replaces.assign(p, 0);
  for (std::uint32_t m = 0; m < p; ++m) {
    for (const core::TaskIndex v : ct.terminal[m]) {
      const core::CollectiveShape::Send& x = s.sends[v.value()];
      const std::uint8_t bit = x.from == m ? core::CollectiveShape::kTerminalFrom
                               : x.to == m ? core::CollectiveShape::kTerminalTo
                                           : 0;
      if (bit == 0 || (s.terminal[v.value()] & bit) != 0) {
        throw std::logic_error("collective_shape: a terminal task not of its member");
      }
      s.terminal[v.value()] |= bit;
    }
    s.terminal_count[m] = static_cast<std::uint32_t>(ct.terminal[m].size());
    s.replaces[m] = ct.replaces_frontier(m) ? 1 : 0;
  }
  // Every send without a predecessor in the shape is some member's initial
  // send (so a send's earliest start is its initial ancestors').
  {
    std::vector<std::uint8_t> is_initial(n, 0);
    for (const std::uint32_t k : s.initial) is_initial[k] = 1;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (s.parents[k] == 0 && is_initial[k] == 0) {
        throw std::logic_error("collective_shape: a send waiting for nothing is no initial send");
      }
    }
  }
  // reach, 64 members at a time: which members' initial sends each send
  // descends from (or is), then per terminal send its member's column.
  s.words = (p + 63) / 64;
  std::vector<std::uint64_t> reached_by(std::size_t{p} * s.words, 0);  // [q][word of m]
  std::vector<std::uint64_t> bits(n);
  for (std::uint32_t w = 0; w < s.words; ++w) {
    std::fill(bits.begin(), bits.end(), 0);
    for (std::uint32_t m = w * 64; m < std::min(p, w * 64 + 64); ++m) {
      for (const std::uint32_t k : s.initial_of(m)) bits[k] |= std::uint64_t{1} << (m % 64);
    }
    for (std::uint32_t k = 0; k < n; ++k) {
      for (const std::uint32_t c : s.succs_of(k)) bits[c] |= bits[k];
      if ((s.terminal[k] & core::CollectiveShape::kTerminalFrom) != 0) {
        reached_by[std::size_t{s.sends[k].from} * s.words + w] |= bits[k];
      }
      if ((s.terminal[k] & core::CollectiveShape::kTerminalTo) != 0) {
        reached_by[std::size_t{s.sends[k].to} * s.words + w] |= bits[k];
      }
    }
  }
  s.reach.assign(std::size_t{p} * s.words, 0);
  for (std::uint32_t q = 0; q < p; ++q) {
    for (std::uint32_t m = 0; m < p; ++m) {
      if (((reached_by[std::size_t{q} * s.words + m / 64] >> (m % 64)) & 1u) != 0) {
        s.reach[std::size_t{m} * s.words + q / 64] |= std::uint64_t{1} << (q % 64);
      }
    }
  }
  return s;
}

std::vector<std::uint64_t> shape_key(const CollectiveSpec& spec) {
  if (spec.algorithm == Algorithm::kAuto) {
    throw std::invalid_argument("shape_key: a choice of algorithms is not one shape");
  }
  const Algorithm a = applied_algorithm(spec);
  std::vector<std::uint64_t> key = {static_cast<std::uint64_t>(spec.kind),
                                    static_cast<std::uint64_t>(a),
                                    spec.group.size(),
                                    spec.bytes,
                                    spec.ring_size,
                                    spec.pair_bytes.size()};
  key.insert(key.end(), spec.pair_bytes.begin(), spec.pair_bytes.end());
  if (a == Algorithm::kHierarchical) {
    const DomainPattern d = domain_pattern(spec);
    key.insert(key.end(), d.domain.begin(), d.domain.end());
  }
  return key;
}

std::uint32_t ShapeCache::shape_for(const CollectiveSpec& spec) {
  std::vector<std::uint64_t> key = shape_key(spec);
  const auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  const std::uint32_t s = w_.add_shape(collective_shape(spec));
  index_.emplace(std::move(key), s);
  return s;
}

std::uint32_t ShapeCache::single() {
  if (single_ == 0xffffffffu) single_ = w_.add_shape(core::single_send_shape());
  return single_;
}

}  // namespace flux::workload
