// Sends split into channels; see split.hpp.
#include "flux/workload/split.hpp"

#include <limits>
#include <string>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::workload {

core::Workload split_sends(const core::Workload& w, std::uint32_t channels,
                           std::uint32_t scaleup_size) {
  if (channels == 0 || channels > kMaxChannels) {
    throw core::InputError("", "channels", std::to_string(channels),
                           "must be from 1 to " + std::to_string(kMaxChannels));
  }
  if (scaleup_size == 0) throw core::InputError("", "scaleup_size", "0", "must be at least 1");
  core::WorkloadData d = w.data();
  if (channels == 1) return core::Workload(std::move(d));
  const auto overflow = [&](const std::string& what) {
    throw core::InputError("", "channels", std::to_string(channels),
                           what + " of workload '" + w.name() + "' overflow when split");
  };
  const std::vector<core::Task> tasks = std::move(d.tasks);
  const std::vector<core::Dep> deps = std::move(d.deps);
  // first[v]: v's first part in the new list; parts[v]: how many.
  std::vector<std::uint32_t> first(tasks.size()), parts(tasks.size());
  d.tasks.clear();
  for (std::size_t v = 0; v < tasks.size(); ++v) {
    const core::Task& t = tasks[v];
    const bool split = t.src.value() / scaleup_size != t.dst.value() / scaleup_size;
    const std::uint64_t k =
        split ? std::min<std::uint64_t>(channels, std::max<std::uint64_t>(t.bytes, 1)) : 1;
    if (t.id > (std::numeric_limits<std::uint64_t>::max() - (channels - 1)) / channels) {
      overflow("task ids");
    }
    if (d.tasks.size() + k > std::numeric_limits<std::uint32_t>::max()) overflow("the sends");
    first[v] = static_cast<std::uint32_t>(d.tasks.size());
    parts[v] = static_cast<std::uint32_t>(k);
    for (std::uint64_t i = 0; i < k; ++i) {
      core::Task part = t;
      part.id = t.id * channels + i;
      part.bytes = t.bytes / k + (i < t.bytes % k ? 1 : 0);
      d.tasks.push_back(part);
    }
  }
  d.deps.clear();
  for (const core::Dep& e : deps) {
    const std::uint32_t u = e.from.value(), v = e.to.value();
    if (d.deps.size() + std::uint64_t{parts[u]} * parts[v] >
        std::numeric_limits<std::uint32_t>::max()) {
      overflow("the dependencies");
    }
    for (std::uint32_t a = 0; a < parts[u]; ++a) {
      for (std::uint32_t b = 0; b < parts[v]; ++b) {
        d.deps.push_back(
            {core::TaskIndex(first[u] + a), core::TaskIndex(first[v] + b), e.compute_ps});
      }
    }
  }
  // An alternative of a choice group holds every part of its sends.
  for (core::ChoiceGroup& g : d.choices) {
    for (core::Alternative& alt : g.alternatives) {
      std::vector<core::TaskIndex> split_tasks;
      for (const core::TaskIndex v : alt.tasks) {
        for (std::uint32_t a = 0; a < parts[v.value()]; ++a) {
          split_tasks.emplace_back(first[v.value()] + a);
        }
      }
      alt.tasks = std::move(split_tasks);
    }
  }
  d.name += "-ch" + std::to_string(channels);
  return core::Workload(std::move(d));
}

}  // namespace flux::workload
