// simulate(): checks the inputs, runs the engine and derives the metrics
// (docs/model.md, "Simulator metrics"). Circuit statistics (reconfigurations,
// circuits set up, up time) come from the timelines and the iteration's end,
// not from the event loop: a periodic timeline is unrolled cycle by cycle up
// to the end.
#include "flux/sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine.hpp"
#include "flux/core/error.hpp"
#include "flux/schedule/validator.hpp"

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

}  // namespace

void SimOptions::validate() const {
  core::check_options(kSimOptions, *this);
}

SimResult simulate(const core::Workload& w, const schedule::Schedule& s,
                   const SimOptions& options) {
  options.validate();
  s.system.validate();
  if (options.validate_schedule) {
    schedule::check_schedule(w, s);  // also: the domains tile the accelerators
  } else {
    s.system.validate_for(w.accelerators());
  }
  const auto t0 = std::chrono::steady_clock::now();
  detail::Engine engine(w, s, options);
  const auto t1 = std::chrono::steady_clock::now();
  engine.run();
  const auto t2 = std::chrono::steady_clock::now();

  SimResult r;
  Metrics& m = r.metrics;
  const auto& sends = engine.sends();
  r.sends.resize(sends.size());
  for (std::size_t v = 0; v < sends.size(); ++v) {
    const detail::SendState& st = sends[v];
    const core::Task& t = w.task(core::TaskIndex(v));
    r.sends[v] = SendRecord{st.ready, st.issue, st.finish};
    m.iteration_time_ps = std::max(m.iteration_time_ps, st.finish + t.tail_ps);
    const core::TimePs wait = st.finish - st.ready - st.work;
    m.wait_total_ps += wait;
    m.wait_max_ps = std::max(m.wait_max_ps, wait);
    if (st.departed == st.work) m.bytes_sent += t.bytes;
    if (st.delivered == st.work) m.bytes_delivered += t.bytes;
    if (st.scaleup) {
      ++m.scaleup_sends;
      m.scaleup_bytes += t.bytes;
      m.scaleup_wait_total_ps += wait;
      m.scaleup_wait_max_ps = std::max(m.scaleup_wait_max_ps, wait);
    }
  }
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
  m.events = engine.events();
  m.loop_time_s = std::chrono::duration<double>(t2 - t1).count();
  m.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace flux::sim
