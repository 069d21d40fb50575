#include "flux/core/workload.hpp"

#include "flux/core/fold.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {

std::string task_field(std::size_t i, const char* name) {
  return "tasks[" + std::to_string(i) + "]." + name;
}
std::string dep_field(std::size_t j, const char* name) {
  return "deps[" + std::to_string(j) + "]." + name;
}
std::string ps_value(TimePs ps) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g s", ps_to_seconds(ps));
  return buf;
}

void validate_plain(std::uint32_t accelerators, const std::vector<Task>& tasks,
                    const std::vector<Dep>& deps, std::size_t num_labels) {
  if (tasks.size() >= 0xffffffffu || deps.size() >= 0xffffffffu) {
    throw InputError("", "tasks", std::to_string(tasks.size()),
                     "too many tasks or deps (limit 2^32-1 each)");
  }
  if (accelerators == 0) {
    throw InputError("", "accelerators", "0", "a workload needs at least one accelerator");
  }
  std::uint64_t total_bytes = 0;  // kept within 2^64-1 so sums of bytes need no checks
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (t.src.value() >= accelerators) {
      throw InputError("", task_field(i, "src"), std::to_string(t.src.value()),
                       "out of range: accelerators are 0.." + std::to_string(accelerators - 1));
    }
    if (t.dst.value() >= accelerators) {
      throw InputError("", task_field(i, "dst"), std::to_string(t.dst.value()),
                       "out of range: accelerators are 0.." + std::to_string(accelerators - 1));
    }
    if (t.src == t.dst) {
      throw InputError("", task_field(i, "dst"), std::to_string(t.dst.value()),
                       "equals src: a send needs two different accelerators");
    }
    if (t.bytes == 0) {
      throw InputError("", task_field(i, "bytes"), "0", "a send must move at least one byte");
    }
    if (__builtin_add_overflow(total_bytes, t.bytes, &total_bytes)) {
      throw InputError("", task_field(i, "bytes"), std::to_string(t.bytes),
                       "the bytes of all sends up to this one pass 2^64-1");
    }
    if (t.release_ps < 0 || t.release_ps > kMaxTimePs) {
      throw InputError("", task_field(i, "release_s"), ps_value(t.release_ps),
                       std::string(kTimeRangeProblem));
    }
    if (t.tail_ps < 0 || t.tail_ps > kMaxTimePs) {
      throw InputError("", task_field(i, "tail_s"), ps_value(t.tail_ps),
                       std::string(kTimeRangeProblem));
    }
    if (t.label != kNoLabel && t.label >= num_labels) {
      throw InputError("", task_field(i, "label"), std::to_string(t.label),
                       "no such entry in the label table");
    }
  }
  for (std::size_t j = 0; j < deps.size(); ++j) {
    const Dep& e = deps[j];
    if (e.from.value() >= tasks.size()) {
      throw InputError("", dep_field(j, "from"), std::to_string(e.from.value()), "no such task");
    }
    if (e.to.value() >= tasks.size()) {
      throw InputError("", dep_field(j, "to"), std::to_string(e.to.value()), "no such task");
    }
    if (e.compute_ps < 0 || e.compute_ps > kMaxTimePs) {
      throw InputError("", dep_field(j, "compute_s"), ps_value(e.compute_ps),
                       std::string(kTimeRangeProblem));
    }
  }
}

}  // namespace

Workload::Workload(WorkloadData data)
    : name_(std::move(data.name)),
      accelerators_(data.accelerators),
      tasks_(std::move(data.tasks)),
      deps_(std::move(data.deps)),
      labels_(std::move(data.labels)),
      fold_(data.fold),
      scaleup_size_(data.scaleup_size),
      scaleup_gbps_(data.scaleup_gbps),
      choices_(std::move(data.choices)) {
  validate_plain(accelerators_, tasks_, deps_, labels_.size());
  if (!choices_.empty()) index_choices();
  if (scaleup_size_ != 0 && (accelerators_ == 0 || accelerators_ % scaleup_size_ != 0)) {
    throw InputError("", "scaleup_size", std::to_string(scaleup_size_),
                     "must divide the " + std::to_string(accelerators_) +
                         " accelerators into whole scale-up domains");
  }
  if (!(scaleup_gbps_ >= 0 && scaleup_gbps_ <= 1e9)) {
    throw InputError("", "scaleup_gbps", std::to_string(scaleup_gbps_),
                     "must be in [0, 1e9] Gb/s (0: not said)");
  }
  check_fold(*this);  // fold.hpp; on the deps in the caller's order
  const std::size_t n = tasks_.size();

  // Unique ids; the common case (task i has id i) needs no lookup table.
  for (std::size_t i = 0; i < n && dense_ids_; ++i) dense_ids_ = tasks_[i].id == i;
  if (!dense_ids_) {
    id_index_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      id_index_.emplace_back(tasks_[i].id, static_cast<std::uint32_t>(i));
    }
    std::sort(id_index_.begin(), id_index_.end());
    for (std::size_t i = 1; i < n; ++i) {
      if (id_index_[i].first == id_index_[i - 1].first) {
        throw InputError(
            "", task_field(id_index_[i].second, "id"), std::to_string(id_index_[i].first),
            "duplicate id (also tasks[" + std::to_string(id_index_[i - 1].second) + "])");
      }
    }
  }

  // Adjacency: deps sorted by (from, to) so out-edges are contiguous (a
  // workload's subsets and copies come sorted: checked in one pass).
  const auto by_ends = [](const Dep& a, const Dep& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  };
  if (!std::is_sorted(deps_.begin(), deps_.end(), by_ends)) {
    std::stable_sort(deps_.begin(), deps_.end(), by_ends);
  }
  out_offsets_.assign(n + 1, 0);
  in_offsets_.assign(n + 1, 0);
  for (const Dep& e : deps_) {
    ++out_offsets_[e.from.value() + 1];
    ++in_offsets_[e.to.value() + 1];
  }
  for (std::size_t i = 0; i < n; ++i) {
    out_offsets_[i + 1] += out_offsets_[i];
    in_offsets_[i + 1] += in_offsets_[i];
  }
  in_edges_.resize(deps_.size());
  {
    std::vector<std::uint32_t> fill(in_offsets_.begin(), in_offsets_.end() - 1);
    for (std::size_t j = 0; j < deps_.size(); ++j) {
      in_edges_[fill[deps_[j].to.value()]++] = static_cast<std::uint32_t>(j);
    }
  }

  // Kahn's algorithm; a FIFO of ready tasks seeded in index order.
  std::vector<std::uint32_t> indegree(n);
  for (std::size_t v = 0; v < n; ++v) indegree[v] = in_offsets_[v + 1] - in_offsets_[v];
  topo_.reserve(n);
  for (std::size_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) topo_.emplace_back(static_cast<std::uint32_t>(v));
  }
  for (std::size_t head = 0; head < topo_.size(); ++head) {
    for (const Dep& e : out_edges(topo_[head])) {
      if (--indegree[e.to.value()] == 0) topo_.push_back(e.to);
    }
  }
  if (topo_.size() != n) {
    // Every task left has an unprocessed parent: walk parents until one repeats.
    std::uint32_t v = 0;
    while (indegree[v] == 0) ++v;
    std::vector<std::uint32_t> seen_at(n, 0xffffffffu), path;
    while (seen_at[v] == 0xffffffffu) {
      seen_at[v] = static_cast<std::uint32_t>(path.size());
      path.push_back(v);
      for (std::uint32_t j : in_edge_ids(TaskIndex(v))) {
        const std::uint32_t u = deps_[j].from.value();
        if (indegree[u] != 0) {
          v = u;
          break;
        }
      }
    }
    // path[seen_at[v]..] walks backwards along a cycle; print it forwards.
    std::string cycle;
    for (std::size_t k = path.size(); k-- > seen_at[v];) {
      cycle += std::to_string(tasks_[path[k]].id) + " -> ";
    }
    cycle += std::to_string(tasks_[path.back()].id);
    throw InputError("", "deps", cycle, "the dependencies form a cycle");
  }
  topo_pos_.resize(n);
  for (std::size_t k = 0; k < n; ++k) topo_pos_[topo_[k].value()] = static_cast<std::uint32_t>(k);
}

std::uint64_t workload_memory_bytes(std::uint64_t tasks, std::uint64_t deps) {
  // Per send: the Task plus its id index, topological slot and offsets; per
  // dep: the Dep plus its in-edge entry.
  const double bytes = 2.0 * (static_cast<double>(tasks) * (sizeof(Task) + 16) +
                              static_cast<double>(deps) * (sizeof(Dep) + 8));
  return bytes >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
}

std::string_view Workload::label(TaskIndex v) const {
  const std::uint32_t l = tasks_[v.value()].label;
  return l == kNoLabel ? std::string_view() : std::string_view(labels_[l]);
}

std::span<const Dep> Workload::out_edges(TaskIndex u) const {
  return std::span<const Dep>(deps_).subspan(out_offsets_[u.value()],
                                             out_offsets_[u.value() + 1] - out_offsets_[u.value()]);
}

std::span<const std::uint32_t> Workload::in_edge_ids(TaskIndex v) const {
  return std::span<const std::uint32_t>(in_edges_).subspan(
      in_offsets_[v.value()], in_offsets_[v.value() + 1] - in_offsets_[v.value()]);
}

std::optional<TaskIndex> Workload::find(std::uint64_t id) const {
  if (dense_ids_) {
    if (id < tasks_.size()) return TaskIndex(static_cast<std::uint32_t>(id));
    return std::nullopt;
  }
  auto it =
      std::lower_bound(id_index_.begin(), id_index_.end(), std::make_pair(id, std::uint32_t{0}));
  if (it == id_index_.end() || it->first != id) return std::nullopt;
  return TaskIndex(it->second);
}

WorkloadFacts facts_of(const Workload& w) {
  return {w.name(), w.num_tasks(), w.accelerators(), w.total_bytes(), w.fold()};
}

std::uint64_t Workload::total_bytes() const {
  std::uint64_t sum = 0;
  for (const Task& t : tasks_) sum += t.bytes;
  return sum;
}

WorkloadData Workload::data() const {
  return WorkloadData{name_, accelerators_, tasks_,        deps_,   labels_,
                      fold_, scaleup_size_, scaleup_gbps_, choices_};
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> Workload::alternative_of(TaskIndex v) const {
  if (alternative_of_.empty() || alternative_of_[v.value()].first == kNoLabel) return std::nullopt;
  return alternative_of_[v.value()];
}

void Workload::index_choices() {
  const auto field = [](std::size_t g, const std::string& rest) {
    return "choices[" + std::to_string(g) + "]" + rest;
  };
  if (choices_.size() >= kNoLabel) {
    throw InputError("", "choices", std::to_string(choices_.size()), "too many choice groups");
  }
  alternative_of_.assign(tasks_.size(), {kNoLabel, 0});
  for (std::size_t g = 0; g < choices_.size(); ++g) {
    const ChoiceGroup& group = choices_[g];
    if (group.alternatives.size() < 2 || group.alternatives.size() > kMaxAlternatives) {
      throw InputError("", field(g, ".alternatives"), std::to_string(group.alternatives.size()),
                       "a choice needs 2 to " + std::to_string(kMaxAlternatives) + " alternatives");
    }
    if (group.label != kNoLabel && group.label >= labels_.size()) {
      throw InputError("", field(g, ".label"), std::to_string(group.label),
                       "no such entry in the label table");
    }
    for (std::size_t a = 0; a < group.alternatives.size(); ++a) {
      const Alternative& alt = group.alternatives[a];
      const std::string at = field(g, ".alternatives[" + std::to_string(a) + "]");
      if (alt.name.empty()) throw InputError("", at + ".name", "", "an alternative needs a name");
      for (std::size_t b = 0; b < a; ++b) {
        if (group.alternatives[b].name == alt.name) {
          throw InputError("", at + ".name", alt.name,
                           "repeats alternatives[" + std::to_string(b) + "] of the group");
        }
      }
      if (alt.tasks.empty()) throw InputError("", at + ".tasks", "", "an alternative needs sends");
      for (const TaskIndex v : alt.tasks) {
        if (v.value() >= tasks_.size()) {
          throw InputError("", at + ".tasks", std::to_string(v.value()), "no such task");
        }
        auto& slot = alternative_of_[v.value()];
        if (slot.first != kNoLabel) {
          throw InputError("", at + ".tasks", std::to_string(tasks_[v.value()].id),
                           "the send is also in alternative " + std::to_string(slot.second) +
                               " of choices[" + std::to_string(slot.first) +
                               "]: an alternative's sends are its own");
        }
        slot = {static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(a)};
      }
    }
  }
  for (std::size_t j = 0; j < deps_.size(); ++j) {
    const auto& from = alternative_of_[deps_[j].from.value()];
    const auto& to = alternative_of_[deps_[j].to.value()];
    if (from.first != kNoLabel && from.first == to.first && from.second != to.second) {
      throw InputError("", "deps[" + std::to_string(j) + "]",
                       std::to_string(tasks_[deps_[j].from.value()].id) + " -> " +
                           std::to_string(tasks_[deps_[j].to.value()].id),
                       "joins two alternatives of choices[" + std::to_string(from.first) +
                           "]: a schedule runs only one of them");
    }
  }
}

}  // namespace flux::core
