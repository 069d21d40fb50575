#pragma once
// Internal to flux::chakra: the walk over all ranks' nodes that both
// importers share (import.cpp builds every send, lazy_import.cpp keeps
// collectives whole; import.cpp's head comment has the mapping).
//
// Every node gets a frontier F: entries (ref, wait) meaning "the node may
// start once ref has finished and wait of the rank's compute has elapsed
// since", plus `start`, the compute since the iteration began (absent once
// some entry implies it). A ref is what the importer's sends are grouped
// by: a send (import.cpp) or a collective's member (lazy_import.cpp). The
// walk visits nodes in order of (node id, rank) as they become ready; the
// importer (`Derived`) says what a send, a receive's data and a collective
// become, and which entries its compute stream brings that are implied:
//
//   std::size_t num_refs() const;            // refs so far (slot_ sizing)
//   void merge_implied(const Frontier& chain);
//   Entry add_send(r, i, const Frontier& f);  // COMM_SEND of > 0 bytes
//   Entry recv_entry(std::uint32_t sent);     // COMM_RECV's data, from add_send's ref
//   TimePs head_of(ref) const;                // longest release-plus-compute path to it
//   void raise_tail(ref, TimePs);
//   void emit_sends(const Collective&, std::vector<Frontier>& arrived,
//                   std::vector<Frontier>& outs);
#include <algorithm>
#include <cstdint>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"
#include "rank_graph.hpp"

namespace flux::chakra::detail {

inline constexpr core::TimePs kAbsent = -1;
inline constexpr core::TimePs kSaturated = 4 * kMaxTimePs;  // path lengths are capped here
inline constexpr std::size_t kSweepBudget = 1 << 18;        // visits per dominance test

inline core::TimePs sat_add(core::TimePs a, core::TimePs b) {
  return std::min(kSaturated, a + b);
}

struct Entry {
  std::uint32_t ref;
  core::TimePs wait;
};

struct Frontier {
  core::TimePs start = kAbsent;
  std::vector<Entry> entries;
};

enum class State : std::uint8_t { kWaiting, kArrived, kDone };

/// What both importers take from the traces and options before walking.
struct Prepared {
  std::vector<RankGraph> graphs;
  std::vector<Collective> colls;
  std::string name;
  workload::Algorithm algorithm = workload::Algorithm::kRing;
  bool forced = false;  ///< the user chose the algorithm
  std::uint32_t scaleup_size = 0;
  double scaleup_gbps = 0;
};

template <class Derived>
class WalkBase {
 protected:
  WalkBase(Prepared& p, std::vector<std::string>& warnings)
      : g_(p.graphs),
        colls_(p.colls),
        warnings_(warnings),
        algorithm_(p.algorithm),
        forced_(p.forced) {}

  Derived& self() { return static_cast<Derived&>(*this); }

  // --- frontier merging -------------------------------------------------------
  void merge_begin() {
    acc_ = Frontier{};
    slot_.resize(self().num_refs(), kNone);
  }
  void merge_entry(const Entry& e) {
    std::uint32_t& s = slot_[e.ref];
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
    for (const Entry& e : acc_.entries) slot_[e.ref] = kNone;
    return std::move(acc_);
  }
  /// Collective c as a spec: the node's own algorithm unless the user chose
  /// one (lowered as the generator does: Bruck and hierarchical where they
  /// apply, hierarchical on the trace's scale-up domains, the ring
  /// elsewhere); no label.
  [[nodiscard]] workload::CollectiveSpec spec_of(const Collective& c,
                                                 std::uint32_t domain_size) const {
    workload::CollectiveSpec spec;
    spec.kind = c.kind;
    spec.algorithm = !forced_ && c.algorithm ? *c.algorithm : algorithm_;
    spec.domain_size = domain_size;
    spec.group = c.group;
    spec.bytes = c.bytes;
    return spec;
  }
  /// Merges the chain's start into acc_ unless an entry of acc_ implies it:
  /// its head (Derived::head_of) plus its wait reaches the start.
  void merge_start(const Frontier& chain) {
    if (chain.start <= acc_.start) return;
    const bool implied = std::any_of(acc_.entries.begin(), acc_.entries.end(), [&](const Entry& e) {
      return sat_add(self().head_of(e.ref), e.wait) >= chain.start;
    });
    if (!implied) acc_.start = chain.start;
  }
  /// The chain's entries that acc_ does not hold with at least their wait.
  std::vector<Entry> implied_candidates(const Frontier& chain) const {
    std::vector<Entry> candidates;
    for (const Entry& e : chain.entries) {
      const std::uint32_t s = slot_[e.ref];
      if (s == kNone || acc_.entries[s].wait < e.wait) candidates.push_back(e);
    }
    return candidates;
  }

  // --- the walk ---------------------------------------------------------------
  /// Walks every node; throws InputError naming the cycle when some never
  /// become ready. Afterwards end_frontier(r) gives each rank's last one.
  void walk() {
    const std::size_t ranks = g_.size();
    out_.resize(ranks);
    remaining_.resize(ranks);
    uses_.resize(ranks);
    state_.resize(ranks);
    ref_.resize(ranks);
    std::size_t total = 0;
    for (std::uint32_t r = 0; r < ranks; ++r) {
      const std::size_t n = g_[r].nodes.size();
      total += n;
      out_[r].resize(n);
      remaining_[r].resize(n);
      uses_[r].resize(n);
      state_[r].assign(n, State::kWaiting);
      ref_[r].assign(n, kNone);
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
  }

  /// The merge of rank r's nodes that nothing follows.
  Frontier end_frontier(std::uint32_t r) {
    merge_begin();
    for (std::uint32_t i = 0; i < g_[r].nodes.size(); ++i) {
      if (g_[r].nodes[i].succs.empty()) merge(out_[r][i]);
    }
    return merge_end();
  }

  /// Raises the tails of what each rank ends with (Derived::raise_tail(ref,
  /// wait)) and warns of compute that no send precedes or follows: compute
  /// since the iteration began (`start`) that no entry's head
  /// (Derived::head_of(ref), the longest release-plus-compute path to it)
  /// plus wait, nor the longest head of all, covers.
  void tails(core::TimePs longest_head) {
    for (std::uint32_t r = 0; r < g_.size(); ++r) {
      const Frontier end = end_frontier(r);
      core::TimePs covered = longest_head;
      for (const Entry& e : end.entries) {
        if (e.wait > 0) self().raise_tail(e.ref, e.wait);
        covered = std::max(covered, sat_add(self().head_of(e.ref), e.wait));
      }
      if (end.start > covered) {
        warnings_.push_back(g_[r].file->source + ": rank " + std::to_string(r) + " computes for " +
                            core::format_duration(end.start) +
                            " that no send precedes or follows; the workload leaves it out");
      }
    }
  }

  /// Frees the walk's per-node state.
  void release_walk() {
    auto drop = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
    drop(out_), drop(remaining_), drop(uses_), drop(state_), drop(ref_), drop(arrived_);
    drop(slot_);
  }

  std::vector<RankGraph>& g_;
  std::vector<Collective>& colls_;
  std::vector<std::string>& warnings_;
  workload::Algorithm algorithm_;  // the default, or every collective's when forced_
  bool forced_;
  Frontier acc_;
  std::vector<std::uint32_t> slot_;  // ref -> position in acc_.entries

 private:
  void consume(std::uint32_t r, std::uint32_t i) {
    if (--uses_[r][i] == 0 && !g_[r].nodes[i].succs.empty()) {
      Frontier().entries.swap(out_[r][i].entries);
    }
  }

  Frontier gather(std::uint32_t r, std::uint32_t i) {
    const GraphNode& node = g_[r].nodes[i];
    if (node.preds.empty() && node.chain == kNone) return Frontier{0, {}};
    merge_begin();
    for (std::uint32_t p : node.preds) {
      merge(out_[r][p]);
      consume(r, p);
    }
    if (node.chain != kNone) {
      self().merge_implied(out_[r][node.chain]);
      consume(r, node.chain);
    }
    return merge_end();
  }

  void push(std::uint32_t r, std::uint32_t i) { ready_.emplace(g_[r].file->nodes[i].id, r, i); }

  void finish(std::uint32_t r, std::uint32_t i) {
    state_[r][i] = State::kDone;
    const GraphNode& node = g_[r].nodes[i];
    for (std::uint32_t s : node.succs) {
      if (--remaining_[r][s] == 0) push(r, s);
    }
    if (node.kind == Kind::kSend && --remaining_[node.peer][node.match] == 0) {
      push(node.peer, node.match);
    }
  }

  void process(std::uint32_t r, std::uint32_t i) {
    const GraphNode& node = g_[r].nodes[i];
    Frontier f = gather(r, i);
    switch (node.kind) {
      case Kind::kComp:
        if (node.compute_ps > 0) {
          core::TimePs longest = f.start;
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
          const Entry e = self().add_send(r, i, f);
          ref_[r][i] = e.ref;
          f = Frontier{kAbsent, {e}};
        }
        break;
      case Kind::kRecv: {
        // A receive completes when its data has arrived (a zero-byte
        // message: when the sender got there) and its own dependencies are
        // met.
        const std::uint32_t peer = node.peer;
        merge_begin();
        merge(f);
        if (node.bytes > 0) {
          merge_entry(self().recv_entry(ref_[peer][node.match]));
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

  void emit(std::uint32_t ci) {
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
      self().emit_sends(c, arrived, outs);
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
  std::pair<std::uint32_t, std::uint32_t> blocker(std::uint32_t r, std::uint32_t i) const {
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

  [[noreturn]] void report_stall() const {
    // Start at the first unfinished node and follow what it waits for until
    // a node repeats: that loop is the deadlock.
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
    throw core::InputError(g_[x.first].file->source, g_[x.first].field(x.second, "data_deps"),
                           cycle,
                           "the ranks wait for each other in a cycle (dependencies, COMM_SEND/"
                           "COMM_RECV matches and the order of collectives form a deadlock)");
  }

  std::vector<std::vector<Frontier>> out_;
  std::vector<std::vector<std::uint32_t>> remaining_;  // unmet predecessors
  std::vector<std::vector<std::uint32_t>> uses_;       // readers of out_ still to come
  std::vector<std::vector<State>> state_;
  std::vector<std::vector<std::uint32_t>> ref_;  // SEND: add_send's ref
  std::vector<std::vector<Frontier>> arrived_;   // per collective, per member
  std::vector<std::uint32_t> arrivals_;
  using Item = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready_;
};

/// Checks the options and traces, builds every rank's graph and matches
/// them (rank_graph.hpp); the name, algorithm and scale-up hints as
/// import_traces documents them.
Prepared prepare(const std::vector<EtFile>& ranks, const ImportOptions& options,
                 std::string_view default_name, ImportStats& stats,
                 std::vector<std::string>& warnings);

/// An import: prepare(), then walk `WalkT` (its run() gives the workload)
/// into `Result` {workload, stats, warnings}; errors name rank 0's file when
/// they name none.
template <class WalkT, class Result>
Result import_with(const std::vector<EtFile>& ranks, const ImportOptions& options,
                   std::string_view default_name) {
  ImportStats stats;
  std::vector<std::string> warnings;
  Prepared p = prepare(ranks, options, default_name, stats, warnings);
  try {
    WalkT walk(p, warnings);
    auto w = walk.run();
    return Result{std::move(w), stats, std::move(warnings)};
  } catch (const core::InputError& e) {
    throw e.with_source(ranks[0].source);
  }
}

}  // namespace flux::chakra::detail
