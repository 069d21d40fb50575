// What `flux evaluate --preset robustness` prints: per job and tau, tables of
// iteration time (p50 / p95 over the trials), each scheduler's p95 against
// the first scheduler's, and peak NIC memory, and the failure's re-planning.
// Its plots are the preset's sweep plots (src/sweep/results.cpp).
#include <algorithm>
#include <sstream>

#include "flux/core/format.hpp"
#include "flux/eval/robustness.hpp"
#include "report_common.hpp"

namespace flux::eval {
namespace {

using detail::fmt;
using detail::pad;

const RobustRow* find(const std::vector<RobustRow>& rows, const std::string& job, core::TimePs tau,
                      const std::string& s, const RobustPerturbation& p) {
  for (const RobustRow& r : rows) {
    if (r.job == job && r.tau_ps == tau && r.scheduler == s && r.perturbation == p.kind &&
        r.jitter == p.jitter && r.straggler_factor == p.straggler_factor) {
      return &r;
    }
  }
  return nullptr;
}

// "none", "jitter 5%", "straggler 1.5x".
std::string label(const RobustPerturbation& p) {
  switch (p.kind) {
    case PerturbationKind::kNone:
      return "none";
    case PerturbationKind::kJitter:
      return "jitter " + fmt("%g%%", 100 * p.jitter);
    case PerturbationKind::kStraggler:
      return "straggler " + fmt("%gx", p.straggler_factor);
    case PerturbationKind::kFailure:
      return p.jitter > 0 ? "failure+" + fmt("%g%%", 100 * p.jitter) : "failure";
  }
  return "?";
}

// The failure instant of (job, tau) as its failure rows record it, or -1.
core::TimePs failure_time(const std::vector<RobustRow>& rows, const std::string& job,
                          core::TimePs tau) {
  for (const RobustRow& r : rows) {
    if (r.job == job && r.tau_ps == tau && r.failure) return r.failure->time_ps;
  }
  return -1;
}

double ms(double s) {
  return s * 1e3;
}

template <class T>
void add_unique(std::vector<T>& list, const T& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

bool same(const RobustPerturbation& a, const RobustPerturbation& b) {
  return a.kind == b.kind && a.jitter == b.jitter && a.straggler_factor == b.straggler_factor;
}

}  // namespace

std::string robustness_summary(const std::vector<RobustPoint>& points,
                               const std::vector<RobustRow>& rows) {
  std::ostringstream out;
  const std::size_t w0 = 16, w = 18;
  // The study's jobs, delays, schedulers and perturbations, in the points' order.
  std::vector<const RobustPoint*> jobs;
  std::vector<core::TimePs> taus;
  std::vector<std::string> schedulers;
  std::vector<RobustPerturbation> perts;
  std::uint32_t trials = 1;
  for (const RobustPoint& p : points) {
    if (std::none_of(jobs.begin(), jobs.end(),
                     [&](const RobustPoint* j) { return j->job.name == p.job.name; })) {
      jobs.push_back(&p);
    }
    add_unique(taus, p.tau_ps);
    add_unique(schedulers, p.scheduler);
    if (std::none_of(perts.begin(), perts.end(),
                     [&](const RobustPerturbation& q) { return same(q, p.perturbation); })) {
      perts.push_back(p.perturbation);
    }
    trials = std::max(trials, p.perturbation.trials);
  }
  const std::string& first = schedulers.front();
  for (const RobustPoint* c_ptr : jobs) {
    const RobustPoint& c = *c_ptr;
    const EvalJob& job = c.job;
    for (core::TimePs tau : taus) {
      out << "\n"
          << job.name << ": " << detail::describe(job) << ", tau " << core::format_duration(tau)
          << ", " << c.system.switches << " switches, " << c.system.link_gbps << " Gb/s; "
          << sim::to_string(c.execution) << " execution, " << trials
          << " trials per jitter, straggler rank " << c.straggler_rank << ", seed " << c.seed
          << "\n";
      struct Table {
        const char* title;
        std::string (*cell)(const RobustRow& r, const RobustRow* first);
      };
      const Table tables[] = {
          {"iteration time (ms), p50 / p95",
           [](const RobustRow& r, const RobustRow*) {
             return fmt("%.1f", ms(r.iteration_time_s.p50)) + " / " +
                    fmt("%.1f", ms(r.iteration_time_s.p95)) + (r.all_delivered ? "" : " LOST");
           }},
          {"p95 iteration time against the first scheduler's p95",
           [](const RobustRow& r, const RobustRow* f) {
             return f ? fmt("%.3fx", r.iteration_time_s.p95 / f->iteration_time_s.p95)
                      : std::string("-");
           }},
          {"peak NIC memory, p95",
           [](const RobustRow& r, const RobustRow*) {
             return core::format_bytes(static_cast<double>(r.peak_nic_bytes.p95), 1);
           }},
          {"failure: re-planned sends p50 / re-plan wall time max (ms)",
           [](const RobustRow& r, const RobustRow*) {
             return r.failure ? std::to_string(r.failure->replanned_sends_p50) + " / " +
                                    fmt("%.0f", ms(r.failure->replan_wall_max_s))
                              : std::string("-");
           }},
      };
      const core::TimePs at = failure_time(rows, job.name, tau);
      if (at >= 0) {
        out << "failure: switch " << c.fail_switch << " dark at " << core::format_duration(at)
            << " (" << c.fail_fraction
            << " x ideal's unperturbed iteration time), re-planned by each scheduler, "
            << c.replan_time_limit_s << " s limit, flux " << c.replan_moves << " moves\n";
      }
      for (const Table& t : tables) {
        const bool failure_table = &t == &tables[std::size(tables) - 1];
        if (failure_table && at < 0) continue;
        out << "\n" << t.title << "\n" << pad("perturbation", w0);
        for (const std::string& s : schedulers) out << pad(s, w);
        out << "\n";
        for (const RobustPerturbation& p : perts) {
          if (failure_table && p.kind != PerturbationKind::kFailure) continue;
          out << pad(label(p), w0);
          const RobustRow* f = find(rows, job.name, tau, first, p);
          for (const std::string& s : schedulers) {
            const RobustRow* r = find(rows, job.name, tau, s, p);
            out << pad(r ? t.cell(*r, f) : "-", w);
          }
          out << "\n";
        }
      }
    }
  }
  return out.str();
}

}  // namespace flux::eval
