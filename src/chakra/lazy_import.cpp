// Chakra traces -> a LazyWorkload (core/lazy_workload.hpp): the walk of
// import.cpp with collectives kept whole. A frontier's refs are members
// (a collective's member, or one end of a point-to-point send: an instance
// of the one-send shape whose sender is member 0 and receiver member 1,
// both standing for that send). Where import.cpp connects every entry to
// every initial send, this adds one group edge per entry and member.
//
// The compute stream's implied entries are dropped by the same test as
// import.cpp's, on the graph of members: (a, wa) is implied by (b, wb) when
// a path of group edges and collectives leads from terminal(a) to
// terminal(b) with compute at least wa - wb. A path enters a collective at
// initial(q) and leaves it at terminal(b) for any b that q reaches
// (CollectiveShape::reach), with no compute inside. The test is sound (it
// drops only entries that are implied: every send of terminal(a) is an
// ancestor of one of terminal(b) with that much compute between), not the
// same as import.cpp's (a member is dropped whole), so the two workloads
// can differ in redundant edges and releases but never in any send's
// earliest start.
#include <algorithm>
#include <queue>
#include <stdexcept>

#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/workload/shape.hpp"
#include "walk.hpp"

namespace flux::chakra {
namespace {

using core::TimePs;
using namespace detail;

class LazyWalk : public WalkBase<LazyWalk> {
 public:
  LazyWalk(Prepared& p, std::vector<std::string>& warnings)
      : WalkBase(p, warnings),
        w_(std::move(p.name), static_cast<std::uint32_t>(p.graphs.size())),
        shapes_(w_) {
    w_.set_scaleup_size(p.scaleup_size);
    w_.set_scaleup_gbps(p.scaleup_gbps);
  }

  core::LazyWorkload run() {
    walk();
    tails(longest_head_);
    release_walk();
    return std::move(w_);
  }

  // --- WalkBase's hooks -------------------------------------------------------
  [[nodiscard]] std::size_t num_refs() const { return w_.num_members(); }
  void merge_implied(const Frontier& chain);
  Entry add_send(std::uint32_t r, std::uint32_t i, const Frontier& f) {
    const GraphNode& node = g_[r].nodes[i];
    const std::string& name = g_[r].file->nodes[i].name;
    const core::Rank ranks[2] = {core::Rank(r), core::Rank(node.peer)};
    const std::uint32_t m = w_.add_instance(
        shapes_.single(), ranks, name.empty() ? core::kNoLabel : w_.intern_label(name), node.bytes);
    grow();
    join(m, f);
    heads(m);
    return Entry{m, 0};
  }
  static Entry recv_entry(std::uint32_t sent) { return Entry{sent + 1, 0}; }
  [[nodiscard]] TimePs head_of(std::uint32_t ref) const { return head_t_[ref]; }
  void raise_tail(std::uint32_t ref, TimePs ps) { w_.raise_tail(ref, ps); }
  void emit_sends(const Collective& c, std::vector<Frontier>& arrived, std::vector<Frontier>& outs);

 private:
  // Per-member state for the members added since.
  void grow() {
    const std::size_t n = w_.num_members();
    head_i_.resize(n, 0);
    head_t_.resize(n, 0);
    in_head_.resize(n, kNone);
  }
  [[nodiscard]] bool has_initial(std::uint32_t m) const {
    return !w_.shape_of_member(m).initial_of(w_.position(m)).empty();
  }
  // Connects member m's initial sends to f: a group edge per entry, the
  // release, and head_i_ (the longest release-plus-compute path to them).
  void join(std::uint32_t m, const Frontier& f) {
    if (!has_initial(m)) return;
    TimePs h = std::max<TimePs>(0, f.start);
    for (const Entry& e : f.entries) {
      in_next_.push_back(in_head_[m]);
      in_head_[m] = static_cast<std::uint32_t>(w_.num_edges());
      w_.add_edge(e.ref, m, e.wait);
      h = std::max(h, sat_add(head_t_[e.ref], e.wait));
    }
    if (f.start > 0) w_.raise_release(m, f.start);
    head_i_[m] = h;
  }
  // head_t_ of the instance whose first member is `first`: the largest
  // head_i_ of the members reaching it.
  void heads(std::uint32_t first);

  core::LazyWorkload w_;
  workload::ShapeCache shapes_;
  std::vector<TimePs> head_i_, head_t_;  // per member
  TimePs longest_head_ = 0;
  std::vector<std::uint32_t> in_head_;  // per member: its last group edge in
  std::vector<std::uint32_t> in_next_;  // per edge: the member's edge in before it
  // Scratch of the dominance test, per member and per instance.
  std::vector<TimePs> best_t_;
  std::vector<std::uint32_t> stamp_t_, stamp_instance_;
  std::uint32_t stamp_ = 0;
};

void LazyWalk::heads(std::uint32_t first) {
  const core::CollectiveShape& s = w_.shape_of_member(first);
  TimePs all = 0;
  for (std::uint32_t q = 0; q < s.members; ++q) {
    if (s.initial_offsets[q] != s.initial_offsets[q + 1]) all = std::max(all, head_i_[first + q]);
  }
  for (std::uint32_t b = 0; b < s.members; ++b) {
    if (s.terminal_count[b] == 0) continue;
    TimePs h = 0;
    if (s.mixing) {
      h = all;
    } else {
      for (std::uint32_t q = 0; q < s.members; ++q) {
        if (s.initial_offsets[q] != s.initial_offsets[q + 1] && s.reaches(q, b)) {
          h = std::max(h, head_i_[first + q]);
        }
      }
    }
    head_t_[first + b] = h;
    longest_head_ = std::max(longest_head_, h);
  }
}

void LazyWalk::emit_sends(const Collective& c, std::vector<Frontier>& arrived,
                          std::vector<Frontier>& outs) {
  workload::CollectiveSpec spec = spec_of(c, w_.scaleup_size());
  if (spec.algorithm == workload::Algorithm::kAuto) {
    const std::vector<workload::Algorithm> a = workload::alternatives_of(spec);
    if (a.size() != 1) {
      throw NeedsEverySend(
          "import_traces_lazy: a collective kept in several "
          "decompositions (--collective auto)");
    }
    spec.algorithm = a.front();
  }
  std::uint32_t shape = 0;
  try {
    shape = shapes_.shape_for(spec);
  } catch (const core::InputError& e) {
    throw e.with_source(g_[c.group[0].value()].file->source);
  }
  const std::uint32_t first =
      w_.add_instance(shape, c.group, c.label.empty() ? core::kNoLabel : w_.intern_label(c.label));
  grow();
  for (std::uint32_t pos = 0; pos < c.group.size(); ++pos) join(first + pos, arrived[pos]);
  heads(first);
  const core::CollectiveShape& s = w_.shape_of_member(first);
  for (std::uint32_t pos = 0; pos < c.group.size(); ++pos) {
    merge_begin();
    if (s.replaces[pos] == 0) merge(arrived[pos]);
    if (s.terminal_count[pos] != 0) merge_entry(Entry{first + pos, 0});
    outs[pos] = merge_end();
  }
}

// Merges the implicit predecessor's output into acc_ (which holds the
// explicit predecessors' outputs), leaving out what acc_ already implies
// (the head comment has the test).
void LazyWalk::merge_implied(const Frontier& chain) {
  std::vector<Entry> candidates = implied_candidates(chain);
  if (!candidates.empty() && !acc_.entries.empty()) {
    // best_t(G) = max over entries (b, wb) of acc_ of the longest compute
    // path terminal(G) -> terminal(b), plus wb; best_i(q) the same from
    // initial(q). Instances are visited in decreasing index (a topological
    // order: a group edge goes to a later instance), none below the
    // candidates'.
    std::uint32_t lo = w_.instance_of(candidates[0].ref);
    for (const Entry& e : candidates) lo = std::min(lo, w_.instance_of(e.ref));
    const std::size_t members = w_.num_members();
    if (++stamp_ == 0) {
      std::fill(stamp_t_.begin(), stamp_t_.end(), 0);
      std::fill(stamp_instance_.begin(), stamp_instance_.end(), 0);
      stamp_ = 1;
    }
    best_t_.resize(members);
    stamp_t_.resize(members, 0);
    stamp_instance_.resize(w_.num_instances(), 0);
    std::priority_queue<std::uint32_t> heap;
    auto relax = [&](std::uint32_t g, TimePs value) {
      const std::uint32_t x = w_.instance_of(g);
      if (x < lo) return;
      if (stamp_t_[g] != stamp_) {
        stamp_t_[g] = stamp_;
        best_t_[g] = value;
        heap.push(x);
      } else {
        best_t_[g] = std::max(best_t_[g], value);
      }
    };
    for (const Entry& e : acc_.entries) relax(e.ref, e.wait);
    const std::span<const core::LazyWorkload::GroupEdge> edges = w_.edges();
    for (std::size_t visited = 0; !heap.empty() && visited < kSweepBudget;) {
      const std::uint32_t x = heap.top();
      heap.pop();
      if (stamp_instance_[x] == stamp_) continue;  // pushed once per member set
      stamp_instance_[x] = stamp_;
      // Every member of x is final (group edges into x come from later
      // instances, all visited): from terminal(b) back to initial(q) for
      // each q reaching b, then along q's group edges in.
      const std::uint32_t first = w_.instance_first_member(x);
      const core::CollectiveShape& s = w_.instance_shape(x);
      visited += s.members;
      bool any = false;
      TimePs all = 0;
      for (std::uint32_t b = 0; b < s.members; ++b) {
        if (stamp_t_[first + b] != stamp_) continue;
        all = any ? std::max(all, best_t_[first + b]) : best_t_[first + b];
        any = true;
      }
      for (std::uint32_t q = 0; q < s.members; ++q) {
        if (s.initial_offsets[q] == s.initial_offsets[q + 1]) continue;
        bool set = s.mixing && any;
        TimePs v = all;
        if (!s.mixing) {
          for (std::uint32_t b = 0; b < s.members; ++b) {
            if (stamp_t_[first + b] != stamp_ || !s.reaches(q, b)) continue;
            v = set ? std::max(v, best_t_[first + b]) : best_t_[first + b];
            set = true;
          }
        }
        if (!set) continue;
        for (std::uint32_t j = in_head_[first + q]; j != kNone; j = in_next_[j]) {
          relax(edges[j].from, sat_add(v, edges[j].compute_ps));
        }
      }
    }
    std::erase_if(candidates, [&](const Entry& e) {
      return stamp_t_[e.ref] == stamp_ && best_t_[e.ref] >= e.wait;
    });
  }
  for (const Entry& e : candidates) merge_entry(e);
  merge_start(chain);
}

}  // namespace

LazyImportResult import_traces_lazy(const std::vector<EtFile>& ranks, const ImportOptions& options,
                                    std::string_view default_name) {
  return detail::import_with<LazyWalk, LazyImportResult>(ranks, options, default_name);
}

LazyImportResult import_chakra_lazy(const std::filesystem::path& prefix,
                                    const ImportOptions& options) {
  return import_traces_lazy(read_traces(prefix), options, prefix.filename().string());
}

}  // namespace flux::chakra
