// Resolving a workload's choice groups (choice.hpp).
#include "flux/core/choice.hpp"

#include <algorithm>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {

void check_size(const Workload& w, std::size_t given) {
  if (given != w.choices().size()) {
    throw InputError("", "choice", std::to_string(given) + " alternatives",
                     "the workload has " + std::to_string(w.choices().size()) +
                         " choice groups: name one alternative of each");
  }
}

// The sends `keep` keeps and the deps among them; no choice groups.
template <class Keep>
Workload subset(const Workload& w, const Keep& keep) {
  WorkloadData d;
  d.name = w.name();
  d.accelerators = w.accelerators();
  d.labels.assign(w.labels().begin(), w.labels().end());
  d.fold = w.fold();
  d.scaleup_size = w.scaleup_size();
  d.scaleup_gbps = w.scaleup_gbps();
  // kept[v]: v's position in the result, or kNoLabel if dropped.
  std::vector<std::uint32_t> kept(w.num_tasks(), kNoLabel);
  d.tasks.reserve(w.num_tasks());
  for (std::size_t v = 0; v < w.num_tasks(); ++v) {
    if (!keep(TaskIndex(static_cast<std::uint32_t>(v)))) continue;
    kept[v] = static_cast<std::uint32_t>(d.tasks.size());
    d.tasks.push_back(w.tasks()[v]);
  }
  const auto both_kept = [&](const Dep& e) {
    return kept[e.from.value()] != kNoLabel && kept[e.to.value()] != kNoLabel;
  };
  d.deps.reserve(
      static_cast<std::size_t>(std::count_if(w.deps().begin(), w.deps().end(), both_kept)));
  for (const Dep& e : w.deps()) {
    if (both_kept(e)) {
      d.deps.push_back(
          {TaskIndex(kept[e.from.value()]), TaskIndex(kept[e.to.value()]), e.compute_ps});
    }
  }
  return Workload(std::move(d));
}

}  // namespace

void check_choice(const Workload& w, std::span<const std::uint32_t> choice) {
  check_size(w, choice.size());
  for (std::size_t g = 0; g < choice.size(); ++g) {
    if (choice[g] >= w.choices()[g].alternatives.size()) {
      throw InputError("", "choice[" + std::to_string(g) + "]", std::to_string(choice[g]),
                       "no such alternative (the group has " +
                           std::to_string(w.choices()[g].alternatives.size()) + ")");
    }
  }
}

Workload resolve(const Workload& w, std::span<const std::uint32_t> choice) {
  check_choice(w, choice);
  return subset(w, [&](TaskIndex v) {
    const auto alt = w.alternative_of(v);
    return !alt || choice[alt->first] == alt->second;
  });
}

Workload common_part(const Workload& w) {
  return subset(w, [&](TaskIndex v) { return !w.alternative_of(v); });
}

Choice choice_from_names(const Workload& w, std::span<const std::string> names) {
  check_size(w, names.size());
  Choice out(names.size());
  for (std::size_t g = 0; g < names.size(); ++g) {
    const std::vector<Alternative>& alts = w.choices()[g].alternatives;
    const auto it = std::find_if(alts.begin(), alts.end(),
                                 [&](const Alternative& a) { return a.name == names[g]; });
    if (it == alts.end()) {
      std::string known;
      for (const Alternative& a : alts) known += (known.empty() ? "" : ", ") + a.name;
      throw InputError("", "choice[" + std::to_string(g) + "]", names[g],
                       "no such alternative in the group (it has " + known + ")");
    }
    out[g] = static_cast<std::uint32_t>(it - alts.begin());
  }
  return out;
}

Choice choice_of_plan(const Workload& w, std::span<const std::string> names,
                      std::string_view planned_for) {
  if (!w.has_choices()) {
    throw InputError("", "choice", std::to_string(names.size()) + " names",
                     "the job has no collective in several decompositions (generate it with "
                     "--collective auto)");
  }
  if (!planned_for.empty() && planned_for != w.name()) {
    throw InputError("", "workload", std::string(planned_for),
                     "a schedule of another workload (this job is " + w.name() + ")");
  }
  return choice_from_names(w, names);
}

std::vector<std::string> choice_names(const Workload& w, std::span<const std::uint32_t> choice) {
  check_size(w, choice.size());
  std::vector<std::string> out;
  out.reserve(choice.size());
  for (std::size_t g = 0; g < choice.size(); ++g) {
    out.push_back(w.choices()[g].alternatives.at(choice[g]).name);
  }
  return out;
}

Choice uniform_choice(const Workload& w, std::string_view name, std::string_view fallback) {
  Choice out(w.choices().size(), 0);
  for (std::size_t g = 0; g < out.size(); ++g) {
    const std::vector<Alternative>& alts = w.choices()[g].alternatives;
    bool named = false;
    for (std::size_t a = 0; a < alts.size(); ++a) {
      if (alts[a].name == name) {
        out[g] = static_cast<std::uint32_t>(a);
        named = true;
      }
    }
    for (std::size_t a = 0; a < alts.size() && !named && !fallback.empty(); ++a) {
      if (alts[a].name == fallback) out[g] = static_cast<std::uint32_t>(a);
    }
  }
  return out;
}

std::vector<std::string> alternative_names(const Workload& w) {
  std::vector<std::string> out;
  for (const ChoiceGroup& g : w.choices()) {
    for (const Alternative& a : g.alternatives) {
      if (std::find(out.begin(), out.end(), a.name) == out.end()) out.push_back(a.name);
    }
  }
  return out;
}

std::uint64_t choice_count(const Workload& w) {
  std::uint64_t n = 1;
  for (const ChoiceGroup& g : w.choices()) {
    if (__builtin_mul_overflow(n, g.alternatives.size(), &n)) return ~std::uint64_t{0};
  }
  return n;
}

std::string describe_choice(const Workload& w, std::span<const std::uint32_t> choice,
                            std::string_view between, std::string_view count) {
  const std::vector<std::string> chosen = choice_names(w, choice);
  std::string out;
  for (const std::string& name : alternative_names(w)) {
    const auto n = std::count(chosen.begin(), chosen.end(), name);
    if (n == 0) continue;
    if (!out.empty()) out += between;
    out.append(name).append(count).append(std::to_string(n));
  }
  return out;
}

}  // namespace flux::core
