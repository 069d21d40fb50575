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
#include <functional>
#include <map>
#include <queue>
#include <span>
#include <tuple>

#include "flux/chakra/import.hpp"
#include "flux/core/error.hpp"
#include "flux/workload/builder.hpp"
#include "rank_graph.hpp"

namespace flux::chakra {
namespace {

using core::TaskIndex;
using core::TimePs;
using detail::Collective;
using detail::GraphNode;
using detail::Kind;
using detail::kMaxTimePs;
using detail::kNone;
using detail::RankGraph;

constexpr TimePs kAbsent = -1;
constexpr TimePs kSaturated = 4 * kMaxTimePs;  // path lengths are capped here
constexpr std::size_t kSweepBudget = 1 << 18;  // tasks visited per dominance test

TimePs sat_add(TimePs a, TimePs b) {
  return std::min(kSaturated, a + b);
}

struct Entry {
  std::uint32_t task;
  TimePs wait;
};

struct Frontier {
  TimePs start = kAbsent;
  std::vector<Entry> entries;
};

enum class State : std::uint8_t { kWaiting, kArrived, kDone };

class Walk {
 public:
  Walk(std::vector<RankGraph>& graphs, std::vector<Collective>& colls,
       workload::Algorithm algorithm, bool forced, std::string name, std::uint32_t scaleup_size,
       double scaleup_gbps, std::vector<std::string>& warnings)
      : g_(graphs),
        colls_(colls),
        algorithm_(algorithm),
        forced_(forced),
        warnings_(warnings),
        b_(std::move(name), static_cast<std::uint32_t>(graphs.size())) {
    b_.set_scaleup_size(scaleup_size);
    b_.set_scaleup_gbps(scaleup_gbps);
  }

  core::Workload run();
  /// Frees the walk's per-node and per-task state (about 35 bytes a send)
  /// before the workload builds its adjacency, which lowers the peak.
  void release_scratch() {
    auto drop = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
    drop(out_), drop(remaining_), drop(uses_), drop(state_), drop(task_), drop(arrived_);
    drop(slot_), drop(in_head_), drop(in_next_), drop(head_), drop(best_), drop(best_stamp_);
  }

 private:
  // --- frontier merging -------------------------------------------------------
  void merge_begin() {
    acc_ = Frontier{};
    slot_.resize(b_.num_tasks(), kNone);
  }
  void merge_entry(const Entry& e) {
    std::uint32_t& s = slot_[e.task];
    if (s == kNone) {
      s = static_cast<std::uint32_t>(acc_.entries.size());
      acc_.entries.push_back(e);
    } else {
      acc_.entries[s].wait = std::max(acc_.entries[s].wait, e.wait);
    }
  }
  void merge(const Frontier& f) {
    acc_.start = std::max(acc_.start, f.start);
    for (const Entry& e : f.entries) merge_entry(e);
  }
  Frontier merge_end() {
    for (const Entry& e : acc_.entries) slot_[e.task] = kNone;
    return std::move(acc_);
  }
  void merge_implied(const Frontier& chain);

  // --- the walk ---------------------------------------------------------------
  Frontier gather(std::uint32_t r, std::uint32_t i);
  void consume(std::uint32_t r, std::uint32_t i);
  void process(std::uint32_t r, std::uint32_t i);
  void emit(std::uint32_t c);
  void finish(std::uint32_t r, std::uint32_t i);
  void push(std::uint32_t r, std::uint32_t i) { ready_.emplace(g_[r].file->nodes[i].id, r, i); }
  void connect(const Frontier& f, TaskIndex t);
  void sync();
  void tails();
  [[noreturn]] void report_stall() const;
  std::pair<std::uint32_t, std::uint32_t> blocker(std::uint32_t r, std::uint32_t i) const;

  std::vector<RankGraph>& g_;
  std::vector<Collective>& colls_;
  workload::Algorithm algorithm_;  // the default, or every collective's when forced_
  bool forced_;
  std::vector<std::string>& warnings_;
  workload::WorkloadBuilder b_;

  std::vector<std::vector<Frontier>> out_;
  std::vector<std::vector<std::uint32_t>> remaining_;  // unmet predecessors
  std::vector<std::vector<std::uint32_t>> uses_;       // readers of out_ still to come
  std::vector<std::vector<State>> state_;
  std::vector<std::vector<std::uint32_t>> task_;  // SEND: its task
  std::vector<std::vector<Frontier>> arrived_;    // per collective, per member
  std::vector<std::uint32_t> arrivals_;
  using Item = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready_;

  Frontier acc_;
  std::vector<std::uint32_t> slot_;  // task -> position in acc_.entries
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
  for (const Entry& e : f.entries) b_.add_dep(TaskIndex(e.task), t, e.wait);
  if (f.start > 0) b_.raise_release(t, f.start);
}

// Merges the implicit predecessor's output into acc_ (which holds the
// explicit predecessors' outputs), leaving out what acc_ already implies.
void Walk::merge_implied(const Frontier& chain) {
  std::vector<Entry> candidates;
  for (const Entry& e : chain.entries) {
    const std::uint32_t s = slot_[e.task];
    if (s == kNone || acc_.entries[s].wait < e.wait) candidates.push_back(e);
  }
  if (!candidates.empty() && !acc_.entries.empty()) {
    // best(u) = max over entries (b, wb) of acc_ of (longest compute path u -> b) + wb,
    // over tasks u >= lo, visiting tasks in decreasing index (a topological order).
    std::uint32_t lo = candidates[0].task;
    for (const Entry& e : candidates) lo = std::min(lo, e.task);
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
      if (e.task >= lo) relax(e.task, e.wait);
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
      return best_stamp_[e.task] == stamp_ && best_[e.task] >= e.wait;
    });
  }
  for (const Entry& e : candidates) merge_entry(e);
  if (chain.start > acc_.start) {
    const bool implied = std::any_of(acc_.entries.begin(), acc_.entries.end(), [&](const Entry& e) {
      return sat_add(head_[e.task], e.wait) >= chain.start;
    });
    if (!implied) acc_.start = chain.start;
  }
}

void Walk::consume(std::uint32_t r, std::uint32_t i) {
  if (--uses_[r][i] == 0 && !g_[r].nodes[i].succs.empty()) {
    Frontier().entries.swap(out_[r][i].entries);
  }
}

Frontier Walk::gather(std::uint32_t r, std::uint32_t i) {
  const GraphNode& node = g_[r].nodes[i];
  if (node.preds.empty() && node.chain == kNone) return Frontier{0, {}};
  merge_begin();
  for (std::uint32_t p : node.preds) {
    merge(out_[r][p]);
    consume(r, p);
  }
  if (node.chain != kNone) {
    merge_implied(out_[r][node.chain]);
    consume(r, node.chain);
  }
  return merge_end();
}

void Walk::finish(std::uint32_t r, std::uint32_t i) {
  state_[r][i] = State::kDone;
  const GraphNode& node = g_[r].nodes[i];
  for (std::uint32_t s : node.succs) {
    if (--remaining_[r][s] == 0) push(r, s);
  }
  if (node.kind == Kind::kSend && --remaining_[node.peer][node.match] == 0) {
    push(node.peer, node.match);
  }
}

void Walk::process(std::uint32_t r, std::uint32_t i) {
  const GraphNode& node = g_[r].nodes[i];
  Frontier f = gather(r, i);
  switch (node.kind) {
    case Kind::kComp:
      if (node.compute_ps > 0) {
        TimePs longest = f.start;
        for (Entry& e : f.entries) longest = std::max(longest, e.wait += node.compute_ps);
        if (f.start != kAbsent) longest = std::max(longest, f.start += node.compute_ps);
        if (longest > kMaxTimePs) {
          throw core::InputError(
              g_[r].file->source, g_[r].field(i, "duration_micros"), "",
              "the compute of rank " + std::to_string(r) + " up to this node exceeds 10^6 s");
        }
      }
      break;
    case Kind::kSend:
      if (node.bytes > 0) {
        const std::string& name = g_[r].file->nodes[i].name;
        const TaskIndex t = b_.add_send(core::Rank(r), core::Rank(node.peer), node.bytes,
                                        name.empty() ? core::kNoLabel : b_.intern_label(name));
        connect(f, t);
        sync();
        task_[r][i] = t.value();
        f = Frontier{kAbsent, {Entry{t.value(), 0}}};
      }
      break;
    case Kind::kRecv: {
      // A receive completes when its data has arrived (a zero-byte message:
      // when the sender got there) and its own dependencies are met.
      const std::uint32_t peer = node.peer;
      merge_begin();
      merge(f);
      if (node.bytes > 0) {
        merge_entry(Entry{task_[peer][node.match], 0});
        if (acc_.start == 0) acc_.start = kAbsent;  // implied: the send ends at >= 0
      } else {
        merge(out_[peer][node.match]);
        consume(peer, node.match);
      }
      f = merge_end();
      break;
    }
    case Kind::kColl: {
      arrived_[node.match][node.position] = std::move(f);
      state_[r][i] = State::kArrived;
      if (++arrivals_[node.match] == colls_[node.match].group.size()) emit(node.match);
      return;
    }
    case Kind::kOther:
      break;
  }
  out_[r][i] = std::move(f);
  finish(r, i);
}

void Walk::emit(std::uint32_t ci) {
  const Collective& c = colls_[ci];
  std::vector<Frontier>& arrived = arrived_[ci];
  std::vector<Frontier> outs(c.group.size());
  if (c.sync_only) {
    // Nothing moves; every member waits for all of them.
    merge_begin();
    for (const Frontier& f : arrived) merge(f);
    const Frontier all = merge_end();
    std::fill(outs.begin(), outs.end(), all);
  } else {
    workload::CollectiveSpec spec;
    spec.kind = c.kind;
    // The node's own algorithm unless the user chose one; Bruck and
    // hierarchical where they apply (hierarchical on the trace's scale-up
    // domains), the ring elsewhere, as the generator lowers them.
    spec.algorithm = !forced_ && c.algorithm ? *c.algorithm : algorithm_;
    spec.domain_size = b_.scaleup_size();
    spec.group = c.group;
    spec.bytes = c.bytes;
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
  std::vector<Frontier>().swap(arrived);
  for (std::size_t pos = 0; pos < c.group.size(); ++pos) {
    const std::uint32_t r = c.group[pos].value();
    out_[r][c.nodes[pos]] = std::move(outs[pos]);
    finish(r, c.nodes[pos]);
  }
}

// What x waits for that has not happened: an unfinished predecessor, the
// matching send, or a member of its collective that has not arrived.
std::pair<std::uint32_t, std::uint32_t> Walk::blocker(std::uint32_t r, std::uint32_t i) const {
  const GraphNode& node = g_[r].nodes[i];
  for (std::uint32_t p : node.preds) {
    if (state_[r][p] != State::kDone) return {r, p};
  }
  if (node.chain != kNone && state_[r][node.chain] != State::kDone) return {r, node.chain};
  if (node.kind == Kind::kRecv) return {node.peer, node.match};
  if (node.kind == Kind::kColl) {
    const Collective& c = colls_[node.match];
    for (std::size_t pos = 0; pos < c.group.size(); ++pos) {
      const std::uint32_t m = c.group[pos].value();
      if (state_[m][c.nodes[pos]] == State::kWaiting) return {m, c.nodes[pos]};
    }
  }
  return {r, i};
}

void Walk::report_stall() const {
  // Start at the first unfinished node and follow what it waits for until a
  // node repeats: that loop is the deadlock.
  std::pair<std::uint32_t, std::uint32_t> x{0, 0};
  while (x.second >= g_[x.first].nodes.size() || state_[x.first][x.second] == State::kDone) {
    if (++x.second >= g_[x.first].nodes.size()) x = {x.first + 1, 0};
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> path;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> seen;  // node -> position
  while (seen.emplace(x, path.size()).second) {
    path.push_back(x);
    x = blocker(x.first, x.second);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loop(
      path.begin() + static_cast<std::ptrdiff_t>(seen.at(x)), path.end());
  loop.push_back(x);
  std::string cycle;
  for (std::size_t k = 0; k < loop.size(); ++k) {
    if (loop.size() > 12 && k == 5) {
      cycle += "... -> ";
      k = loop.size() - 6;
    }
    cycle += g_[loop[k].first].describe(loop[k].second);
    if (k + 1 < loop.size()) cycle += " -> ";
  }
  throw core::InputError(g_[x.first].file->source, g_[x.first].field(x.second, "data_deps"), cycle,
                         "the ranks wait for each other in a cycle (dependencies, COMM_SEND/"
                         "COMM_RECV matches and the order of collectives form a deadlock)");
}

void Walk::tails() {
  // The iteration lasts at least as long as any task's head.
  const TimePs longest_head = head_.empty() ? 0 : *std::max_element(head_.begin(), head_.end());
  for (std::uint32_t r = 0; r < g_.size(); ++r) {
    merge_begin();
    for (std::uint32_t i = 0; i < g_[r].nodes.size(); ++i) {
      if (g_[r].nodes[i].succs.empty()) merge(out_[r][i]);
    }
    const Frontier end = merge_end();
    TimePs covered = longest_head;
    for (const Entry& e : end.entries) {
      if (e.wait > 0) b_.raise_tail(TaskIndex(e.task), e.wait);
      covered = std::max(covered, sat_add(head_[e.task], e.wait));
    }
    if (end.start > covered) {
      warnings_.push_back(g_[r].file->source + ": rank " + std::to_string(r) + " computes for " +
                          core::format_duration(end.start) +
                          " that no send precedes or follows; the workload leaves it out");
    }
  }
}

core::Workload Walk::run() {
  const std::size_t ranks = g_.size();
  out_.resize(ranks);
  remaining_.resize(ranks);
  uses_.resize(ranks);
  state_.resize(ranks);
  task_.resize(ranks);
  std::size_t total = 0;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const std::size_t n = g_[r].nodes.size();
    total += n;
    out_[r].resize(n);
    remaining_[r].resize(n);
    uses_[r].resize(n);
    state_[r].assign(n, State::kWaiting);
    task_[r].assign(n, kNone);
    for (std::uint32_t i = 0; i < n; ++i) {
      const GraphNode& node = g_[r].nodes[i];
      remaining_[r][i] = static_cast<std::uint32_t>(node.preds.size()) +
                         (node.chain != kNone ? 1 : 0) + (node.kind == Kind::kRecv ? 1 : 0);
      uses_[r][i] = static_cast<std::uint32_t>(node.succs.size()) +
                    (node.kind == Kind::kSend && node.bytes == 0 ? 1 : 0);
    }
  }
  arrived_.resize(colls_.size());
  arrivals_.assign(colls_.size(), 0);
  for (std::size_t c = 0; c < colls_.size(); ++c) arrived_[c].resize(colls_[c].group.size());
  for (std::uint32_t r = 0; r < ranks; ++r) {
    for (std::uint32_t i = 0; i < g_[r].nodes.size(); ++i) {
      if (remaining_[r][i] == 0) push(r, i);
    }
  }
  std::size_t done = 0;
  while (!ready_.empty()) {
    const auto [id, r, i] = ready_.top();
    ready_.pop();
    process(r, i);
    ++done;
  }
  if (done != total) report_stall();
  tails();
  release_scratch();
  return std::move(b_).build();
}

}  // namespace

ImportResult import_traces(const std::vector<EtFile>& ranks, const ImportOptions& options,
                           std::string_view default_name) {
  options.validate();
  if (ranks.empty()) throw core::InputError("", "ranks", "0", "no trace files");
  if (ranks.size() > (1u << 20)) {
    throw core::InputError(ranks[0].source, "ranks", std::to_string(ranks.size()),
                           "more than 2^20 ranks");
  }
  ImportStats stats;
  std::vector<std::string> warnings;
  const auto n = static_cast<std::uint32_t>(ranks.size());
  stats.ranks = n;
  for (const EtFile& f : ranks)
    warnings.insert(warnings.end(), f.warnings.begin(), f.warnings.end());
  std::vector<detail::RankGraph> graphs;
  graphs.reserve(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    graphs.push_back(detail::build_rank_graph(ranks[r], r, n, options, stats, warnings));
  }
  std::vector<detail::Collective> colls = detail::match_ranks(graphs, options);
  stats.collectives = colls.size();

  std::string name = options.name;
  if (name.empty()) {
    name = ranks[0].workload;
    for (const EtFile& f : ranks) {
      if (f.workload != name) name.clear();
    }
  }
  if (name.empty()) name = default_name;
  workload::Algorithm algorithm = workload::Algorithm::kRing;
  if (options.collective) {
    algorithm = *options.collective;
  } else if (std::all_of(ranks.begin(), ranks.end(), [&](const EtFile& f) {
               return !f.collective.empty() && f.collective == ranks[0].collective;
             })) {
    try {
      algorithm = workload::algorithm_from_string(ranks[0].collective);
    } catch (const core::InputError& e) {
      throw core::InputError(ranks[0].source, "flux_collective", ranks[0].collective, e.problem());
    }
  }
  std::uint32_t scaleup_size = options.scaleup_size;
  if (scaleup_size == 0 && !ranks[0].scaleup_size.empty() &&
      std::all_of(ranks.begin(), ranks.end(),
                  [&](const EtFile& f) { return f.scaleup_size == ranks[0].scaleup_size; })) {
    const std::string& text = ranks[0].scaleup_size;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), scaleup_size);
    if (ec != std::errc() || end != text.data() + text.size() || scaleup_size == 0) {
      throw core::InputError(ranks[0].source, "flux_scaleup_size", text,
                             "not a positive integer below 2^32");
    }
  }
  // The bandwidth Flux wrote, when every rank says the same.
  double scaleup_gbps = 0;
  if (!ranks[0].scaleup_gbps.empty() &&
      std::all_of(ranks.begin(), ranks.end(),
                  [&](const EtFile& f) { return f.scaleup_gbps == ranks[0].scaleup_gbps; })) {
    const std::string& text = ranks[0].scaleup_gbps;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), scaleup_gbps);
    if (ec != std::errc() || end != text.data() + text.size() ||
        !(scaleup_gbps > 0 && scaleup_gbps <= 1e9)) {
      throw core::InputError(ranks[0].source, "flux_scaleup_gbps", text,
                             "not a bandwidth in (0, 1e9] Gb/s");
    }
  }
  try {
    Walk walk(graphs, colls, algorithm, options.collective.has_value(), name, scaleup_size,
              scaleup_gbps, warnings);
    core::Workload w = walk.run();
    return ImportResult{std::move(w), stats, std::move(warnings)};
  } catch (const core::InputError& e) {
    throw e.with_source(ranks[0].source);
  }
}

}  // namespace flux::chakra
