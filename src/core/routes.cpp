// Forwarding over the scale-up fabric (include/flux/core/routes.hpp).
#include "flux/core/routes.hpp"

#include "flux/core/choice.hpp"

#include <string>
#include <utility>
#include <vector>

#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"

namespace flux::core {

namespace {

// "rank 5 (rail 1, pod 0)" under rails, "rank 5 (group 2)" otherwise.
std::string where(Rank r, const System& system) {
  std::string out = "rank " + std::to_string(r.value());
  if (system.wiring.kind == WiringKind::kRails) {
    const std::uint32_t domain = r.value() / system.scaleup_size;
    return out + " (rail " + std::to_string(r.value() % system.scaleup_size) + ", pod " +
           std::to_string(domain / system.ocs_radix) + ")";
  }
  return out + " (group " + std::to_string(system.ocs_group(r)) + ")";
}

}  // namespace

void throw_no_route(std::size_t index, const Task& t, const System& system) {
  throw InputError("", "tasks[" + std::to_string(index) + "]", "send " + std::to_string(t.id),
                   "no route from " + where(t.src, system) + " to " + where(t.dst, system) +
                       ": no switch joins them under --wiring " + to_string(system.wiring) +
                       (system.has_scaleup() ? ", nor one of the source's scale-up domain" : "") +
                       (system.wiring.kind == WiringKind::kRails
                            ? " (pods of " + std::to_string(system.ocs_radix) + " domains)"
                            : "") +
                       ", and there is no packet fabric (--packet-gbps)");
}

std::optional<Rank> forwarder(Rank src, Rank dst, const System& system) {
  if (!system.forwardable(src, dst)) return std::nullopt;
  const std::uint32_t first = src.value() / system.scaleup_size * system.scaleup_size;
  for (std::uint32_t r = first; r < first + system.scaleup_size; ++r) {
    if (system.joined(Rank(r), dst)) return Rank(r);
  }
  return std::nullopt;
}

namespace {

// Send i's route, counted into `c`: its forwarder when it is forwarded over
// a scale-up peer, nullopt when it goes as it is (a circuit, the scale-up
// fabric, the packet fabric); throws when it has no route.
std::optional<Rank> route_of(std::size_t i, const Task& t, const System& system, RouteCounts& c) {
  const Fabric f = system.fabric(t.src, t.dst);
  if (f == Fabric::kPacket) {
    ++c.packet_sends;
    c.packet_bytes += t.bytes;
    return std::nullopt;
  }
  if (f != Fabric::kOcs || system.joined(t.src, t.dst)) return std::nullopt;
  const std::optional<Rank> via = forwarder(t.src, t.dst, system);
  if (!via) throw_no_route(i, t, system);
  ++c.forwarded_sends;
  c.forwarded_bytes += t.bytes;
  return via;
}

}  // namespace

RouteCounts route_counts(const Workload& w, const System& system) {
  RouteCounts c;
  if (system.wiring.kind == WiringKind::kFull) return c;
  const auto tasks = w.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) (void)route_of(i, tasks[i], system, c);
  return c;
}

Routed::Routed(const Workload& unresolved, const System& system,
               std::span<const std::string> choice)
    : original_(&unresolved) {
  if (unresolved.has_choices()) {
    if (choice.empty()) {
      throw InputError("", "choice", "none",
                       "the workload keeps " + std::to_string(unresolved.choices().size()) +
                           " collectives in several decompositions (generated with --collective "
                           "auto): a schedule names one alternative of each");
    }
    resolved_ =
        std::make_unique<Workload>(resolve(unresolved, choice_from_names(unresolved, choice)));
    original_ = resolved_.get();
  }
  const Workload& w = *original_;
  if (system.wiring.kind == WiringKind::kFull) return;
  system.validate_for(w.accelerators());
  const auto tasks = w.tasks();
  // Which sends are forwarded, and by whom; the rest are as they were.
  std::vector<std::optional<Rank>> via(tasks.size());
  bool any = false;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    via[i] = route_of(i, tasks[i], system, counts_);
    any = any || via[i].has_value();
  }
  if (!any) return;
  if (w.fold().folded()) {
    throw InputError("", "fold", std::to_string(w.fold().copies) + " copies",
                     "sends forwarded over the scale-up fabric do not fold (a hop's dependency "
                     "need not touch its copy's source): generate the job without folding");
  }
  WorkloadData data = w.data();
  std::uint64_t next_id = 0;
  for (const Task& t : tasks) next_id = std::max(next_id, t.id + 1);
  // first[i] / last[i]: the positions of send i's first and last hop.
  std::vector<std::uint32_t> first(tasks.size()), last(tasks.size());
  std::vector<Task> out;
  std::vector<Dep> hops;
  out.reserve(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    first[i] = static_cast<std::uint32_t>(out.size());
    Task t = tasks[i];
    if (!via[i]) {
      out.push_back(t);
      last[i] = first[i];
      continue;
    }
    if (next_id == 0) throw InputError("", "tasks", "ids", "no id left for a forwarding hop");
    Task second = t;
    t.dst = *via[i];
    t.tail_ps = 0;
    second.id = next_id++;
    second.src = *via[i];
    second.release_ps = 0;
    out.push_back(t);
    out.push_back(second);
    last[i] = first[i] + 1;
    hops.push_back({TaskIndex(first[i]), TaskIndex(last[i]), 0});
  }
  for (Dep& e : data.deps) {
    e.from = TaskIndex(last[e.from.value()]);
    e.to = TaskIndex(first[e.to.value()]);
  }
  data.deps.insert(data.deps.end(), hops.begin(), hops.end());
  data.tasks = std::move(out);
  routed_.emplace(std::move(data));
}

}  // namespace flux::core
