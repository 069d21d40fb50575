// Chakra traces -> workload DAG: the walk over all ranks (import.hpp states
// the mapping; docs/formats.md has it in full).
//
// Every node gets a frontier F: entries (task u, wait w) meaning "the node
// may start once u has finished and w of the rank's compute has elapsed
// since", plus `start`, the compute since the iteration began (absent once
// some entry implies it). A node's F merges its predecessors' outputs:
//
//   COMP       out = F, every wait (and start) plus the node's time
//   COMM_SEND  creates the send task t with an edge (u, t, w) per entry and
//              release >= start; out = {(t, 0)}, which implies all of F
//   COMM_RECV  out = {(t, 0)} + F, t the matching send's task
//   COMM_COLL  once every member has arrived: the collective's sends, each
//              member's F connected to its initial sends; out = its terminal
//              tasks, plus F unless a terminal task follows an initial one
//              (CollectiveTasks::replaces_frontier; with --collective auto
//              every decomposition that applies, as a choice group, and F
//              unless each one's terminal tasks follow its initial ones)
//   other      out = F
//
// A COMP node also waits for the rank's previous COMP node (they run one at
// a time). Entries that this implicit edge brings and that the node's own
// dependencies already imply are dropped (a test that would visit more than
// kSweepBudget tasks gives up and keeps the entry): (a, wa) is implied by an entry
// (b, wb) when the longest path of edge compute from a to b is at least
// wa - wb (transmissions counted as 0, so the test is sound at any link
// rate); start is implied by (b, wb) when b's longest release-plus-compute
// path head(b) plus wb reaches it. The walk visits nodes in order of
// (node id, rank) as they become ready, so tasks are created in a
// deterministic order; a trace Flux exported gets its tasks back in the
// generator's order.
#include <algorithm>
#include <charconv>
#include <queue>
#include <span>

#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/workload/builder.hpp"
#include "walk.hpp"

namespace flux::chakra {
namespace {

using core::TaskIndex;
using core::TimePs;
using namespace detail;

// The walk that builds every send: refs are tasks.
class Walk : public WalkBase<Walk> {
 public:
  Walk(Prepared& p, std::vector<std::string>& warnings)
      : WalkBase(p, warnings), b_(std::move(p.name), static_cast<std::uint32_t>(p.graphs.size())) {
    b_.set_scaleup_size(p.scaleup_size);
    b_.set_scaleup_gbps(p.scaleup_gbps);
  }

  core::Workload run();

  // --- WalkBase's hooks -------------------------------------------------------
  [[nodiscard]] std::size_t num_refs() const { return b_.num_tasks(); }
  void merge_implied(const Frontier& chain);
  Entry add_send(std::uint32_t r, std::uint32_t i, const Frontier& f) {
    const GraphNode& node = g_[r].nodes[i];
    const std::string& name = g_[r].file->nodes[i].name;
    const TaskIndex t = b_.add_send(core::Rank(r), core::Rank(node.peer), node.bytes,
                                    name.empty() ? core::kNoLabel : b_.intern_label(name));
    connect(f, t);
    sync();
    return Entry{t.value(), 0};
  }
  static Entry recv_entry(std::uint32_t sent) { return Entry{sent, 0}; }
  [[nodiscard]] TimePs head_of(std::uint32_t ref) const { return head_[ref]; }
  void raise_tail(std::uint32_t ref, TimePs ps) { b_.raise_tail(TaskIndex(ref), ps); }
  void emit_sends(const Collective& c, std::vector<Frontier>& arrived, std::vector<Frontier>& outs);

 private:
  void connect(const Frontier& f, TaskIndex t);
  void sync();
  /// Frees the walk's per-node and per-task state (about 35 bytes a send)
  /// before the workload builds its adjacency, which lowers the peak.
  void release_scratch() {
    release_walk();
    auto drop = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
    drop(in_head_), drop(in_next_), drop(head_), drop(best_), drop(best_stamp_);
  }

  workload::WorkloadBuilder b_;
  // The builder's deps as in-edge lists, and head(v) per task.
  std::vector<std::uint32_t> in_head_, in_next_;
  std::size_t linked_ = 0;
  std::vector<TimePs> head_;
  // Scratch of the dominance test.
  std::vector<TimePs> best_;
  std::vector<std::uint32_t> best_stamp_;
  std::uint32_t stamp_ = 0;
};

void Walk::sync() {
  const std::size_t n = b_.num_tasks();
  in_head_.resize(n, kNone);
  const std::span<const core::Dep> deps = b_.deps();
  for (std::size_t j = linked_; j < deps.size(); ++j) {
    std::uint32_t& head = in_head_[deps[j].to.value()];
    in_next_.push_back(head);
    head = static_cast<std::uint32_t>(j);
  }
  linked_ = deps.size();
  for (std::size_t v = head_.size(); v < n; ++v) {
    TimePs h = b_.task(TaskIndex(static_cast<std::uint32_t>(v))).release_ps;
    for (std::uint32_t j = in_head_[v]; j != kNone; j = in_next_[j]) {
      h = std::max(h, sat_add(head_[deps[j].from.value()], deps[j].compute_ps));
    }
    head_.push_back(h);
  }
}

void Walk::connect(const Frontier& f, TaskIndex t) {
  for (const Entry& e : f.entries) b_.add_dep(TaskIndex(e.ref), t, e.wait);
  if (f.start > 0) b_.raise_release(t, f.start);
}

// Merges the implicit predecessor's output into acc_ (which holds the
// explicit predecessors' outputs), leaving out what acc_ already implies.
void Walk::merge_implied(const Frontier& chain) {
  std::vector<Entry> candidates = implied_candidates(chain);
  if (!candidates.empty() && !acc_.entries.empty()) {
    // best(u) = max over entries (b, wb) of acc_ of (longest compute path u -> b) + wb,
    // over tasks u >= lo, visiting tasks in decreasing index (a topological order).
    std::uint32_t lo = candidates[0].ref;
    for (const Entry& e : candidates) lo = std::min(lo, e.ref);
    if (++stamp_ == 0) {
      std::fill(best_stamp_.begin(), best_stamp_.end(), 0);
      stamp_ = 1;
    }
    best_.resize(b_.num_tasks());
    best_stamp_.resize(b_.num_tasks(), 0);
    std::priority_queue<std::uint32_t> heap;
    auto relax = [&](std::uint32_t u, TimePs value) {
      if (best_stamp_[u] != stamp_) {
        best_stamp_[u] = stamp_;
        best_[u] = value;
        heap.push(u);
      } else {
        best_[u] = std::max(best_[u], value);
      }
    };
    for (const Entry& e : acc_.entries) {
      if (e.ref >= lo) relax(e.ref, e.wait);
    }
    const std::span<const core::Dep> deps = b_.deps();
    for (std::size_t visited = 0; !heap.empty() && visited < kSweepBudget; ++visited) {
      const std::uint32_t v = heap.top();
      heap.pop();
      for (std::uint32_t j = in_head_[v]; j != kNone; j = in_next_[j]) {
        const std::uint32_t u = deps[j].from.value();
        if (u >= lo) relax(u, sat_add(best_[v], deps[j].compute_ps));
      }
    }
    std::erase_if(candidates, [&](const Entry& e) {
      return best_stamp_[e.ref] == stamp_ && best_[e.ref] >= e.wait;
    });
  }
  for (const Entry& e : candidates) merge_entry(e);
  merge_start(chain);
}

void Walk::emit_sends(const Collective& c, std::vector<Frontier>& arrived,
                      std::vector<Frontier>& outs) {
  workload::CollectiveSpec spec = spec_of(c, b_.scaleup_size());
  spec.label = c.label.empty() ? core::kNoLabel : b_.intern_label(c.label);
  // With --collective auto, every decomposition that applies, as a
  // choice group (workload::lower_collective, as the generator).
  workload::CollectiveTasks ct;
  std::vector<bool> replaces;
  workload::CollectiveSpec lowered;
  try {
    ct = workload::lower_collective(b_, spec, replaces, lowered);
  } catch (const core::InputError& e) {
    throw e.with_source(g_[c.group[0].value()].file->source);
  }
  for (std::size_t pos = 0; pos < c.group.size(); ++pos) {
    for (TaskIndex t : ct.initial[pos]) connect(arrived[pos], t);
  }
  sync();
  for (std::size_t pos = 0; pos < c.group.size(); ++pos) {
    merge_begin();
    if (!replaces[pos]) merge(arrived[pos]);
    for (TaskIndex t : ct.terminal[pos]) merge_entry(Entry{t.value(), 0});
    outs[pos] = merge_end();
  }
}

core::Workload Walk::run() {
  walk();
  tails(head_.empty() ? 0 : *std::max_element(head_.begin(), head_.end()));
  release_scratch();
  return std::move(b_).build();
}

}  // namespace

namespace detail {

Prepared prepare(const std::vector<EtFile>& ranks, const ImportOptions& options,
                 std::string_view default_name, ImportStats& stats,
                 std::vector<std::string>& warnings) {
  options.validate();
  if (ranks.empty()) throw core::InputError("", "ranks", "0", "no trace files");
  if (ranks.size() > (1u << 20)) {
    throw core::InputError(ranks[0].source, "ranks", std::to_string(ranks.size()),
                           "more than 2^20 ranks");
  }
  Prepared p;
  const auto n = static_cast<std::uint32_t>(ranks.size());
  stats.ranks = n;
  for (const EtFile& f : ranks)
    warnings.insert(warnings.end(), f.warnings.begin(), f.warnings.end());
  p.graphs.reserve(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    p.graphs.push_back(build_rank_graph(ranks[r], r, n, options, stats, warnings));
  }
  p.colls = match_ranks(p.graphs, options);
  stats.collectives = p.colls.size();

  p.name = options.name;
  if (p.name.empty()) {
    p.name = ranks[0].workload;
    for (const EtFile& f : ranks) {
      if (f.workload != p.name) p.name.clear();
    }
  }
  if (p.name.empty()) p.name = default_name;
  p.forced = options.collective.has_value();
  if (options.collective) {
    p.algorithm = *options.collective;
  } else if (std::all_of(ranks.begin(), ranks.end(), [&](const EtFile& f) {
               return !f.collective.empty() && f.collective == ranks[0].collective;
             })) {
    try {
      p.algorithm = workload::algorithm_from_string(ranks[0].collective);
    } catch (const core::InputError& e) {
      throw core::InputError(ranks[0].source, "flux_collective", ranks[0].collective, e.problem());
    }
  }
  p.scaleup_size = options.scaleup_size;
  if (p.scaleup_size == 0 && !ranks[0].scaleup_size.empty() &&
      std::all_of(ranks.begin(), ranks.end(),
                  [&](const EtFile& f) { return f.scaleup_size == ranks[0].scaleup_size; })) {
    const std::string& text = ranks[0].scaleup_size;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p.scaleup_size);
    if (ec != std::errc() || end != text.data() + text.size() || p.scaleup_size == 0) {
      throw core::InputError(ranks[0].source, "flux_scaleup_size", text,
                             "not a positive integer below 2^32");
    }
  }
  // The bandwidth Flux wrote, when every rank says the same.
  if (!ranks[0].scaleup_gbps.empty() &&
      std::all_of(ranks.begin(), ranks.end(),
                  [&](const EtFile& f) { return f.scaleup_gbps == ranks[0].scaleup_gbps; })) {
    const std::string& text = ranks[0].scaleup_gbps;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p.scaleup_gbps);
    if (ec != std::errc() || end != text.data() + text.size() ||
        !(p.scaleup_gbps > 0 && p.scaleup_gbps <= 1e9)) {
      throw core::InputError(ranks[0].source, "flux_scaleup_gbps", text,
                             "not a bandwidth in (0, 1e9] Gb/s");
    }
  }
  return p;
}

}  // namespace detail

ImportResult import_traces(const std::vector<EtFile>& ranks, const ImportOptions& options,
                           std::string_view default_name) {
  return detail::import_with<Walk, ImportResult>(ranks, options, default_name);
}

}  // namespace flux::chakra
