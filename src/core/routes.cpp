// Routes for what no circuit joins (include/flux/core/routes.hpp).
#include "flux/core/routes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "flux/core/choice.hpp"
#include "flux/core/dag.hpp"
#include "flux/core/error.hpp"

namespace flux::core {

std::string_view to_string(Route r) {
  switch (r) {
    case Route::kForward:
      return "forward";
    case Route::kForwardRx:
      return "forward-rx";
    case Route::kPacket:
      return "packet";
  }
  return "forward";
}

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
  std::string domains;
  if (system.has_scaleup()) {
    domains = system.route == RoutePolicy::kForward ? ", nor one of the source's scale-up domain"
              : system.route == RoutePolicy::kForwardRx ? ", nor one of the destination's scale-up "
                                                          "domain"
                                                        : ", nor one of either's scale-up domain";
  }
  std::string hint;
  if (system.route == RoutePolicy::kForward && forwarder(t.dst, t.src, system)) {
    hint = " (--route forward-rx or auto forwards it at the receiver)";
  } else if (system.route == RoutePolicy::kForwardRx && forwarder(t.src, t.dst, system)) {
    hint = " (--route forward or auto forwards it at the sender)";
  }
  throw InputError("", "tasks[" + std::to_string(index) + "]", "send " + std::to_string(t.id),
                   "no route from " + where(t.src, system) + " to " + where(t.dst, system) +
                       ": no switch joins them under --wiring " + to_string(system.wiring) +
                       domains +
                       (system.wiring.kind == WiringKind::kRails
                            ? " (pods of " + std::to_string(system.ocs_radix) + " domains)"
                            : "") +
                       ", and there is no packet fabric (--packet-gbps)" + hint);
}

std::optional<Rank> forwarder(Rank src, Rank dst, const System& system) {
  if (!system.forwardable(src, dst)) return std::nullopt;
  const std::uint32_t first = src.value() / system.scaleup_size * system.scaleup_size;
  for (std::uint32_t r = first; r < first + system.scaleup_size; ++r) {
    if (system.joined(Rank(r), dst)) return Rank(r);
  }
  return std::nullopt;
}

System chosen_routes(System system) {
  if (system.route == RoutePolicy::kAuto) {
    system.route = system.has_packet() ? RoutePolicy::kPacket : RoutePolicy::kForward;
  }
  return system;
}

namespace {

// Per send, the routes it may take (System::route's order); none for a send
// a circuit or the scale-up fabric carries as it is.
struct RoutePlan {
  std::vector<std::uint32_t> begin;  // per send, into routes; size sends + 1
  std::vector<Route> routes;
  std::uint64_t groups = 0;  // sends with more than one route
  bool forwards = false;     // some route forwards (the workload changes)

  [[nodiscard]] std::span<const Route> of(std::size_t i) const {
    return {routes.data() + begin[i], routes.data() + begin[i + 1]};
  }
};

RoutePlan plan_routes(const Workload& w, const System& system) {
  RoutePlan plan;
  if (system.wiring.kind == WiringKind::kFull) return plan;
  system.validate_for(w.accelerators());
  const auto tasks = w.tasks();
  plan.begin.reserve(tasks.size() + 1);
  const RoutePolicy policy = system.route;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    plan.begin.push_back(static_cast<std::uint32_t>(plan.routes.size()));
    const Task& t = tasks[i];
    if (system.fabric(t.src, t.dst) == Fabric::kScaleUp || system.joined(t.src, t.dst)) continue;
    const bool tx = policy != RoutePolicy::kPacket && policy != RoutePolicy::kForwardRx &&
                    forwarder(t.src, t.dst, system);
    const bool rx = (policy == RoutePolicy::kForwardRx || policy == RoutePolicy::kAuto) &&
                    forwarder(t.dst, t.src, system);
    const std::size_t before = plan.routes.size();
    if (tx) plan.routes.push_back(Route::kForward);
    if (rx) plan.routes.push_back(Route::kForwardRx);
    // A policy naming a forwarding side falls back to packets; auto offers
    // them beside forwarding.
    if (system.has_packet() && (policy == RoutePolicy::kAuto || plan.routes.size() == before)) {
      plan.routes.push_back(Route::kPacket);
    }
    const std::size_t n = plan.routes.size() - before;
    if (n == 0) throw_no_route(i, t, system);
    plan.groups += n > 1 ? 1 : 0;
    plan.forwards = plan.forwards || tx || rx;
  }
  plan.begin.push_back(static_cast<std::uint32_t>(plan.routes.size()));
  return plan;
}

void count(RouteCounts& c, Route r, const Task& t) {
  if (r == Route::kPacket) {
    ++c.packet_sends;
    c.packet_bytes += t.bytes;
    return;
  }
  ++c.forwarded_sends;
  c.forwarded_bytes += t.bytes;
  c.received_sends += r == Route::kForwardRx ? 1 : 0;
}

// The alternative of each group named by `routes` (field "routes").
std::vector<std::uint8_t> picks_of(const Workload& w, const RoutePlan& plan,
                                   std::span<const std::string> routes) {
  std::vector<std::uint8_t> picks;
  if (routes.size() != plan.groups) {
    throw InputError("", "routes", std::to_string(routes.size()) + " routes",
                     plan.groups == 0 ? "no send of the workload has a choice of route (--route "
                                        "auto on a wiring that forwards): a schedule names none"
                                      : "the workload has " + std::to_string(plan.groups) +
                                            " sends with a choice of route under --route auto: "
                                            "a schedule names one route of each, in send order");
  }
  picks.reserve(routes.size());
  std::size_t g = 0;
  for (std::size_t i = 0; i + 1 < plan.begin.size(); ++i) {
    const auto options = plan.of(i);
    if (options.size() < 2) continue;
    const auto it = std::find_if(options.begin(), options.end(),
                                 [&](Route r) { return to_string(r) == routes[g]; });
    if (it == options.end()) {
      std::string known;
      for (const Route r : options) known.append(known.empty() ? "" : ", ").append(to_string(r));
      throw InputError(
          "", "routes[" + std::to_string(g) + "]", routes[g],
          "not a route of send " + std::to_string(w.tasks()[i].id) + " (it has " + known + ")");
    }
    picks.push_back(static_cast<std::uint8_t>(it - options.begin()));
    ++g;
  }
  return picks;
}

// The workload with every send's routes as `plan` says: one route (or the
// group's pick, `picks` in group order) replaced by its hops, or, with no
// picks, every route of a send with several kept as a choice group. Ids as
// routes.hpp says, the same whichever routes are kept.
WorkloadData build(const Workload& w, const System& system, const RoutePlan& plan,
                   std::span<const std::uint8_t> picks, RouteCounts* counts) {
  if (w.fold().folded()) {
    throw InputError("", "fold", std::to_string(w.fold().copies) + " copies",
                     "sends forwarded over the scale-up fabric do not fold (a hop's dependency "
                     "need not touch its copy's source): generate the job without folding");
  }
  WorkloadData data = w.data();
  const auto tasks = w.tasks();
  std::uint64_t next_id = 0;
  for (const Task& t : tasks) next_id = std::max(next_id, t.id + 1);
  const auto new_id = [&] {
    if (next_id == 0) throw InputError("", "tasks", "ids", "no id left for a forwarding hop");
    return next_id++;
  };
  // Per send, the positions of its kept routes' first and last sends.
  std::vector<std::uint32_t> end_begin;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends;  // (first, last)
  end_begin.reserve(tasks.size() + 1);
  std::vector<Task> out;
  std::vector<Dep> hops;
  out.reserve(tasks.size() + plan.routes.size());
  std::size_t g = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    end_begin.push_back(static_cast<std::uint32_t>(ends.size()));
    const Task& t = tasks[i];
    const auto options = plan.of(i);
    if (options.empty()) {
      const auto at = static_cast<std::uint32_t>(out.size());
      out.push_back(t);
      ends.emplace_back(at, at);
      continue;
    }
    const bool group = options.size() > 1;
    const bool keep_all = group && picks.empty();
    const std::size_t chosen = group && !keep_all ? picks[g] : 0;
    ChoiceGroup choices{t.label, {}};
    for (std::size_t j = 0; j < options.size(); ++j) {
      const Route r = options[j];
      Task first = t;
      if (j != 0) first.id = new_id();
      std::optional<Task> second;
      if (r != Route::kPacket) {
        second = t;
        second->id = new_id();
        second->release_ps = 0;
        first.tail_ps = 0;
        const Rank via = r == Route::kForward ? *forwarder(t.src, t.dst, system)
                                              : *forwarder(t.dst, t.src, system);
        first.dst = via;
        second->src = via;
      }
      if (!keep_all && j != chosen) continue;
      if (counts != nullptr && !keep_all) count(*counts, r, t);
      const auto at = static_cast<std::uint32_t>(out.size());
      out.push_back(first);
      if (second) {
        out.push_back(*second);
        hops.push_back({TaskIndex(at), TaskIndex(at + 1), 0});
      }
      const auto last = static_cast<std::uint32_t>(out.size() - 1);
      ends.emplace_back(at, last);
      if (keep_all) {
        Alternative alt{std::string(to_string(r)), {TaskIndex(at)}};
        if (second) alt.tasks.push_back(TaskIndex(last));
        choices.alternatives.push_back(std::move(alt));
      }
    }
    if (keep_all) data.choices.push_back(std::move(choices));
    g += group ? 1 : 0;
  }
  end_begin.push_back(static_cast<std::uint32_t>(ends.size()));
  std::vector<Dep> deps;
  deps.reserve(data.deps.size() + hops.size());
  for (const Dep& e : data.deps) {
    const std::uint32_t u = e.from.value();
    const std::uint32_t v = e.to.value();
    for (std::uint32_t a = end_begin[u]; a < end_begin[u + 1]; ++a) {
      for (std::uint32_t b = end_begin[v]; b < end_begin[v + 1]; ++b) {
        deps.push_back({TaskIndex(ends[a].second), TaskIndex(ends[b].first), e.compute_ps});
      }
    }
  }
  deps.insert(deps.end(), hops.begin(), hops.end());
  data.deps = std::move(deps);
  data.tasks = std::move(out);
  return data;
}

}  // namespace

RouteCounts route_counts(const Workload& w, const System& system,
                         std::span<const std::string> routes) {
  RouteCounts c;
  const RoutePlan plan = plan_routes(w, system);
  if (plan.routes.empty()) return c;
  const std::vector<std::uint8_t> picks =
      routes.empty() ? std::vector<std::uint8_t>{} : picks_of(w, plan, routes);
  const auto tasks = w.tasks();
  std::size_t g = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const auto options = plan.of(i);
    if (options.empty()) continue;
    if (options.size() == 1) {
      count(c, options.front(), tasks[i]);
    } else if (picks.empty()) {
      ++c.choice_sends;
    } else {
      count(c, options[picks[g]], tasks[i]);
    }
    g += options.size() > 1 ? 1 : 0;
  }
  return c;
}

std::optional<Workload> route_choices(const Workload& w, const System& system) {
  if (system.route != RoutePolicy::kAuto) return std::nullopt;
  const RoutePlan plan = plan_routes(w, system);
  if (plan.groups == 0) return std::nullopt;
  if (w.has_choices()) {
    throw std::invalid_argument("route_choices: the workload keeps collective choices");
  }
  return Workload(build(w, system, plan, {}, nullptr));
}

Routed::Routed(const Workload& unresolved, const System& system,
               std::span<const std::string> choice, std::span<const std::string> routes)
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
  const RoutePlan plan = plan_routes(w, system);
  const std::vector<std::uint8_t> picks = picks_of(w, plan, routes);
  if (plan.routes.empty()) return;
  if (!plan.forwards) {  // packet sends at most: they go as they are
    const auto tasks = w.tasks();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      for (const Route r : plan.of(i)) count(counts_, r, tasks[i]);
    }
    return;
  }
  routed_.emplace(build(w, system, plan, picks, &counts_));
}

Routed first_routed(const Workload& w, const System& system, std::uint64_t* choices_out) {
  std::vector<std::string> first;
  std::optional<Workload> chosen;
  if (w.has_choices()) {
    const Choice c(w.choices().size(), 0);
    first = choice_names(w, c);
    chosen.emplace(resolve(w, c));
  }
  // The first route of each send with several: from the plan alone.
  const RoutePlan plan = plan_routes(chosen ? *chosen : w, system);
  std::vector<std::string> first_routes;
  for (std::size_t i = 0; i + 1 < plan.begin.size(); ++i) {
    if (plan.of(i).size() > 1) first_routes.emplace_back(to_string(plan.of(i).front()));
  }
  if (choices_out != nullptr) *choices_out = first_routes.size();
  return Routed(w, system, first, first_routes);
}

}  // namespace flux::core
