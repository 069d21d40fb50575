// simulate(): checks the inputs, runs the engine and derives the metrics
// (docs/model.md, "Simulator metrics"). Circuit statistics (reconfigurations,
// circuits set up, up time) come from the timelines and the iteration's end,
// not from the event loop: a periodic timeline is unrolled cycle by cycle up
// to the end.
#include "flux/sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine.hpp"
#include "flux/core/error.hpp"
#include "flux/core/routes.hpp"
#include "flux/schedule/validator.hpp"
#include "ordered.hpp"

namespace flux::sim {
namespace {

struct CircuitStats {
  std::uint64_t reconfigurations = 0;
  std::uint64_t circuits_set_up = 0;
  detail::Units up_units = 0;  // both directions, within [0, end)
};

CircuitStats circuit_stats(const schedule::Schedule& s, core::TimePs end) {
  CircuitStats st;
  for (const schedule::SwitchTimeline& tl : s.timelines) {
    if (tl.circuits.empty()) continue;
    std::vector<core::TimePs> setups;
    core::TimePs first_setup = tl.circuits.front().setup_ps;
    for (const auto& c : tl.circuits) {
      setups.push_back(c.setup_ps);
      first_setup = std::min(first_setup, c.setup_ps);
    }
    std::sort(setups.begin(), setups.end());
    setups.erase(std::unique(setups.begin(), setups.end()), setups.end());
    const core::TimePs period = s.period_ps.value_or(0);
    for (std::int64_t k = 0;; ++k) {
      const core::TimePs shift = k * period;
      if (first_setup + shift >= end) break;
      for (const auto& c : tl.circuits) {
        if (c.setup_ps + shift < end) ++st.circuits_set_up;
        const core::TimePs lo = std::max<core::TimePs>(c.up_ps + shift, 0);
        const core::TimePs hi = std::min(c.down_ps + shift, end);
        if (hi > lo) st.up_units += 2 * (hi - lo);
      }
      st.reconfigurations += static_cast<std::uint64_t>(
          std::lower_bound(setups.begin(), setups.end(), end - shift) - setups.begin());
      if (period == 0) break;
    }
  }
  return st;
}

// Units (link-ps) to bytes, rounded up: exact at 800 Gb/s (10 units a byte).
std::uint64_t units_to_bytes(detail::Units units, const core::System& system) {
  const long double bytes =
      static_cast<long double>(units) * static_cast<long double>(system.link_bps()) / 8e12L;
  return static_cast<std::uint64_t>(std::ceil(bytes - 1e-9L));
}

void check_inputs(const core::Workload& w, const schedule::Schedule& s, const SimOptions& options) {
  options.validate();
  s.system.validate();
  if (options.validate_schedule) {
    schedule::ValidationOptions routed;
    routed.routed = true;                    // as RoutedPair made it
    schedule::check_schedule(w, s, routed);  // also: the domains tile the accelerators
  } else {
    s.system.validate_for(w.accelerators());
  }
}

SimResult run_engine(const detail::SendSource& source, const schedule::Schedule& s,
                     const SimOptions& options, std::chrono::steady_clock::time_point t0);

SimResult run_checked(const core::Workload& w, const schedule::Schedule& plan,
                      const SimOptions& options, Execution execution) {
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<schedule::Schedule> executed;
  if ((execution == Execution::kOrdered || execution == Execution::kOrderedNoEarly) &&
      !plan.tasks.empty()) {
    executed = detail::retime(w, plan, execution == Execution::kOrderedNoEarly);
  }
  const schedule::Schedule& s = executed ? *executed : plan;
  const detail::MaterialSource source(w);
  SimResult r = run_engine(source, s, options, t0);
  r.executed = std::move(executed);
  return r;
}

SimResult run_engine(const detail::SendSource& source, const schedule::Schedule& s,
                     const SimOptions& options, std::chrono::steady_clock::time_point t0) {
  detail::Engine engine(source, s, options);
  const auto t1 = std::chrono::steady_clock::now();
  engine.run();
  const auto t2 = std::chrono::steady_clock::now();

  SimResult r;
  r.metrics = engine.totals();
  Metrics& m = r.metrics;
  Metrics cut = engine.cut_totals();  // the sends finished by options.cut_ps
  for (const detail::Nic& n : engine.nics()) {
    m.nic_peak_bytes.push_back(units_to_bytes(n.peak, s.system));
    m.peak_nic_bytes = std::max(m.peak_nic_bytes, m.nic_peak_bytes.back());
  }
  if (engine.relayed_units() != engine.second_hop_units()) {
    throw std::logic_error("simulator: relayed first hops and second hops differ (a bug)");
  }
  m.bytes_relayed = units_to_bytes(engine.relayed_units(), s.system);
  const CircuitStats cs = circuit_stats(s, m.iteration_time_ps);
  m.reconfigurations = cs.reconfigurations;
  m.circuits_set_up = cs.circuits_set_up;
  if (cs.up_units > 0) {
    m.circuit_utilization =
        static_cast<double>(engine.busy_units()) / static_cast<double>(cs.up_units);
  }
  if (options.cut_ps) {
    for (const detail::Units peak : engine.cut_peaks()) {
      cut.nic_peak_bytes.push_back(units_to_bytes(peak, s.system));
      cut.peak_nic_bytes = std::max(cut.peak_nic_bytes, cut.nic_peak_bytes.back());
    }
    const CircuitStats before = circuit_stats(s, *options.cut_ps);
    cut.reconfigurations = before.reconfigurations;
    cut.circuits_set_up = before.circuits_set_up;
    cut.events = engine.cut_events();
    r.at_cut = std::move(cut);
  }
  m.events = engine.events();
  r.sends = engine.take_records();
  m.loop_time_s = std::chrono::duration<double>(t2 - t1).count();
  m.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

std::string_view to_string(Execution e) {
  switch (e) {
    case Execution::kAuto:
      return "auto";
    case Execution::kStrict:
      return "strict";
    case Execution::kOrdered:
      return "ordered";
    case Execution::kOrderedNoEarly:
      return "ordered-no-early";
  }
  return "?";
}

Execution execution_from_string(std::string_view s) {
  for (const Execution e :
       {Execution::kAuto, Execution::kStrict, Execution::kOrdered, Execution::kOrderedNoEarly}) {
    if (s == to_string(e)) return e;
  }
  throw core::InputError("", "execution", std::string(s),
                         "expected strict, ordered, ordered-no-early or auto");
}

Execution SimOptions::resolved_execution(bool another_workload) const {
  if (execution == Execution::kAuto) {
    return perturbation.any() || another_workload ? Execution::kOrdered : Execution::kStrict;
  }
  if (execution == Execution::kStrict && another_workload) {
    throw core::InputError("", "execution", "strict",
                           "strict replays every send at its planned start, which another "
                           "workload's sizes and compute may not allow: use ordered or "
                           "ordered-no-early (the default on another workload is ordered)");
  }
  if (execution == Execution::kStrict && perturbation.any()) {
    throw core::InputError("", "execution", "strict",
                           "strict replays every send at its planned start, which perturbed "
                           "compute may not have readied: use ordered or ordered-no-early (the "
                           "default with a perturbation is ordered)");
  }
  return execution;
}

void SimOptions::validate() const {
  core::check_options(kSimOptions, *this);
  perturbation.validate();
  if (trace_trial >= trials) {
    throw core::InputError("", "trace_trial", std::to_string(trace_trial),
                           "must be below --trials (" + std::to_string(trials) + ")");
  }
  (void)resolved_execution();
}

namespace {

// The planned and the actual workload as the schedule's wiring routes them
// (core/routes.hpp); `other` when they are two workloads.
class RoutedPair {
 public:
  RoutedPair(const core::Workload& planned, const core::Workload& actual,
             const schedule::Schedule& s)
      : other(&planned != &actual), planned_(planned, s.system, s.choice, s.routes) {
    if (other) actual_.emplace(actual, s.system, s.choice, s.routes);
  }
  const bool other;
  [[nodiscard]] const core::Workload& planned() const { return planned_.workload(); }
  [[nodiscard]] const core::Workload& actual() const {
    return other ? actual_->workload() : planned();
  }

 private:
  core::Routed planned_;
  std::optional<core::Routed> actual_;
};

}  // namespace

SimResult simulate(const core::Workload& w, const schedule::Schedule& s,
                   const SimOptions& options) {
  return simulate_on(w, w, s, options);
}

SimResult simulate_on(const core::Workload& planned_unrouted, const core::Workload& actual_unrouted,
                      const schedule::Schedule& s, const SimOptions& options) {
  const RoutedPair routed(planned_unrouted, actual_unrouted, s);
  const bool other = routed.other;
  const core::Workload& planned = routed.planned();
  const core::Workload& actual = routed.actual();
  check_inputs(planned, s, options);
  if (other) check_same_structure(planned, actual);
  const Execution execution = options.resolved_execution(other);
  if (options.perturbation.any()) {
    const core::Workload wp = perturb(actual, options.perturbation, options.trace_trial);
    return run_checked(wp, s, options, execution);
  }
  return run_checked(actual, s, options, execution);
}

SimResult simulate_lazy(const core::LazyWorkload& w, const schedule::Schedule& s,
                        const SimOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  options.validate();
  if (options.perturbation.any()) {
    throw core::InputError("", "perturbation", "on",
                           "collectives kept whole are simulated unperturbed: perturb the "
                           "materialised workload (simulate)");
  }
  s.system.validate();
  if (options.validate_schedule) {
    schedule::check_schedule(w, s);  // also: a full wiring, no sends named
  } else {
    s.system.validate_for(w.accelerators());
    if (!s.tasks.empty()) {
      throw core::InputError("", "tasks", std::to_string(s.tasks.size()),
                             "a schedule that names sends needs the workload expanded");
    }
  }
  // (the validator checked the transmission times on s.system)
  const detail::LazySource source(w, options.validate_schedule);
  return run_engine(source, s, options, t0);
}

namespace {

template <class T>
Percentiles<T> nearest_rank_of(std::vector<T> values) {
  Percentiles<T> r;
  if (values.empty()) return r;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  auto at = [&](std::size_t p) {  // rank ceil(p n / 100), 1-based
    const std::size_t rank = std::max<std::size_t>(1, (p * n + 99) / 100);
    return values[rank - 1];
  };
  r.p50 = at(50);
  r.p95 = at(95);
  r.p99 = at(99);
  r.max = values.back();
  return r;
}

}  // namespace

Percentiles<std::int64_t> nearest_rank(std::vector<std::int64_t> values) {
  return nearest_rank_of(std::move(values));
}

Percentiles<double> nearest_rank(std::vector<double> values) {
  return nearest_rank_of(std::move(values));
}

TrialsResult simulate_trials(const core::Workload& w, const schedule::Schedule& s,
                             const SimOptions& options) {
  return simulate_trials_on(w, w, s, options);
}

TrialsResult simulate_trials_on(const core::Workload& planned_unrouted,
                                const core::Workload& w_unrouted, const schedule::Schedule& s,
                                const SimOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const RoutedPair routed(planned_unrouted, w_unrouted, s);
  const bool other = routed.other;
  const core::Workload& planned = routed.planned();
  const core::Workload& w = routed.actual();
  check_inputs(planned, s, options);
  if (other) check_same_structure(planned, w);
  TrialsResult r;
  r.execution = options.resolved_execution(other);
  std::vector<std::int64_t> times, peaks;
  const std::uint64_t total = w.total_bytes();
  for (std::uint32_t k = 0; k < options.trials; ++k) {
    if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
      throw core::Stopped();
    }
    SimOptions trial = options;  // the records of the trace trial only
    trial.keep_records = options.keep_records && k == options.trace_trial;
    SimResult one;
    if (options.perturbation.any()) {
      const core::Workload wp = perturb(w, options.perturbation, k);
      one = run_checked(wp, s, trial, r.execution);
    } else {
      one = run_checked(w, s, trial, r.execution);
    }
    const Metrics& m = one.metrics;
    r.all_delivered = r.all_delivered && m.bytes_sent == total && m.bytes_delivered == total;
    times.push_back(m.iteration_time_ps);
    peaks.push_back(static_cast<std::int64_t>(m.peak_nic_bytes));
    if (k == options.trace_trial) {
      r.trials.push_back(one.metrics);
      r.chosen = std::move(one);
    } else {
      r.trials.push_back(std::move(one.metrics));
    }
  }
  r.iteration_time_ps = nearest_rank(times);
  r.peak_nic_bytes = nearest_rank(peaks);
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace flux::sim
