// What `flux evaluate --preset robustness` shows: per job and tau, tables of
// iteration time (p50 / p95 over the trials), each scheduler's p95 against
// the first scheduler's, and peak NIC memory, and the failure's re-planning;
// and the gnuplot script: per (job, tau) one panel of iteration time against
// jitter (p50 line, band up to p95), one against the straggler's factor, and
// one per scheduler without and with the failed switch (p50, bar to p95).
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

// Per scheduler: iteration time without the failure and with it (each
// failure point: p50, bar to p95), on a log axis (RotorNet at 1 ms is 20-40x
// the others).
void failure_panel(std::ostream& g, const RobustnessConfig& c,
                   const std::vector<RobustPerturbation>& perts, const std::string& id,
                   const std::string& where, core::TimePs at) {
  std::vector<const RobustPerturbation*> failures;
  for (const RobustPerturbation& p : perts) {
    if (p.kind == PerturbationKind::kFailure) failures.push_back(&p);
  }
  const std::string block = "$F" + id;
  g << "set key top left font ',8'\nset logscale y\nset xlabel ''\nset xrange [-0.5:"
    << c.schedulers.size() - 0.5 << "]\nset yrange [*:*]\nset xtics rotate by -20 font ',8'\n"
    << "set title '" << where << ": switch " << c.fail_switch << " dark at "
    << (at >= 0 ? core::format_duration(at) : std::string("-")) << "'\nplot " << block
    << " using ($1-0.2):2:xtic(" << 3 + 2 * failures.size()
    << ") with points pt 6 ps 1.3 lc rgb '#444444' title 'no failure'";
  const char* colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  for (std::size_t k = 0; k < failures.size(); ++k) {
    const double dx = 0.4 * static_cast<double>(k + 1) / static_cast<double>(failures.size()) - 0.2;
    const std::size_t col = 3 + 2 * k;
    g << ", \\\n     " << block << " using ($1+" << dx << "):" << col << ":" << col << ":"
      << col + 1 << " with yerrorbars pt 7 lc rgb '" << colors[k % std::size(colors)] << "' title '"
      << label(*failures[k]) << (failures[k]->jitter > 0 ? " (p50, bar to p95)" : "") << "'";
  }
  g << "\nunset logscale y\nset xrange [*:*]\nset xtics norotate font ''\nunset key\n";
}

}  // namespace

std::string robustness_summary(const RobustnessConfig& c, const std::vector<RobustRow>& rows) {
  std::ostringstream out;
  const std::size_t w0 = 16, w = 18;
  const std::vector<RobustPerturbation> perts = c.perturbations();
  const std::string& first = c.schedulers.front();
  for (const EvalJob& job : c.jobs()) {
    for (core::TimePs tau : c.taus_ps) {
      out << "\n"
          << job.name << ": " << detail::describe(job) << ", tau " << core::format_duration(tau)
          << ", " << c.system.switches << " switches, " << c.system.link_gbps << " Gb/s; "
          << sim::to_string(c.execution) << " execution, " << c.trials
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
        for (const std::string& s : c.schedulers) out << pad(s, w);
        out << "\n";
        for (const RobustPerturbation& p : perts) {
          if (failure_table && p.kind != PerturbationKind::kFailure) continue;
          out << pad(label(p), w0);
          const RobustRow* f = find(rows, job.name, tau, first, p);
          for (const std::string& s : c.schedulers) {
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

std::string robustness_gnuplot(const RobustnessConfig& c, const std::vector<RobustRow>& rows,
                               const std::string& png, const std::string& svg) {
  std::ostringstream g;
  const std::vector<EvalJob> jobs = c.jobs();
  const std::vector<RobustPerturbation> perts = c.perturbations();
  g << "# Robustness as measured by `flux evaluate --preset " << c.preset
    << "`; data inline.\n# Render: gnuplot " << c.file_stem
    << ".gp\n# Linear axes; curves above a panel's range (1.6x the first scheduler's slowest p95) "
       "are in the CSV.\n";
  // Per (job, tau, scheduler): J (jitter %, p50, p95, p99 ms) and S
  // (straggler factor, ms; factor 1 is the unperturbed point).
  std::size_t panel = 0;
  for (const EvalJob& job : jobs) {
    for (core::TimePs tau : c.taus_ps) {
      for (const std::string& s : c.schedulers) {
        std::ostringstream jit, str;
        for (const RobustPerturbation& p : perts) {
          const RobustRow* r = find(rows, job.name, tau, s, p);
          if (!r) continue;
          const auto& t = r->iteration_time_s;
          if (p.kind == PerturbationKind::kNone || p.kind == PerturbationKind::kJitter) {
            jit << 100 * p.jitter << ' ' << ms(t.p50) << ' ' << ms(t.p95) << ' ' << ms(t.p99)
                << '\n';
          }
          if (p.kind == PerturbationKind::kNone || p.kind == PerturbationKind::kStraggler) {
            str << p.straggler_factor << ' ' << ms(t.p50) << '\n';
          }
        }
        const std::string id = std::to_string(panel);
        const std::string jid = 'J' + id, sid = 'S' + id;
        g << detail::gnuplot_block(jid, s) << " << EOD\n" << jit.str() << "EOD\n";
        g << detail::gnuplot_block(sid, s) << " << EOD\n" << str.str() << "EOD\n";
      }
      // F: per scheduler (x = its index) the unperturbed p50, then p50 and
      // p95 of each failure point, then its name (the x tic).
      g << "$F" << panel << " << EOD\n";
      for (std::size_t i = 0; i < c.schedulers.size(); ++i) {
        const std::string& s = c.schedulers[i];
        // The unperturbed point is always a column (NaN when not swept).
        const RobustRow* none = find(rows, job.name, tau, s, RobustPerturbation{});
        g << i << ' ';
        if (none) {
          g << ms(none->iteration_time_s.p50);
        } else {
          g << "NaN";
        }
        for (const RobustPerturbation& p : perts) {
          if (p.kind != PerturbationKind::kFailure) continue;
          const RobustRow* r = find(rows, job.name, tau, s, p);
          if (!r) {
            g << " NaN NaN";
            continue;
          }
          g << ' ' << ms(r->iteration_time_s.p50) << ' ' << ms(r->iteration_time_s.p95);
        }
        g << ' ' << s << '\n';
      }
      g << "EOD\n";
      ++panel;
    }
  }
  const std::size_t n = panel;
  for (int pass = 0; pass < 2; ++pass) {
    g << detail::gnuplot_terminal(pass, 1900, 380 * n + 60, png, svg);
    g << "set multiplot layout " << n
      << ",3 title 'Iteration time under perturbed compute: " << sim::to_string(c.execution)
      << " execution, " << c.trials << " trials per jitter (line p50, band to p95), "
      << c.system.switches << " OCS, " << c.system.link_gbps << " Gb/s'\n";
    g << "set grid\nset format y '%g'\nset ylabel 'iteration time (ms)'\n"
      << "set style fill transparent solid 0.15 noborder\n";
    panel = 0;
    for (const EvalJob& job : jobs) {
      for (core::TimePs tau : c.taus_ps) {
        const std::string id = std::to_string(panel++);
        const std::string jid = 'J' + id, sid = 'S' + id;
        const std::string where = job.name + ", tau " + core::format_duration(tau);
        // Linear, from just below the fastest p50 to 1.6x the first
        // scheduler's slowest p95: the differences that matter stay
        // visible; slower curves (RotorNet at 1 ms: 20-40x) leave the top.
        double lo = 0, hi = 0;
        for (const RobustRow& r : rows) {
          if (r.job != job.name || r.tau_ps != tau) continue;
          lo = lo == 0 ? r.iteration_time_s.p50 : std::min(lo, r.iteration_time_s.p50);
          if (r.scheduler == c.schedulers.front()) hi = std::max(hi, r.iteration_time_s.p95);
        }
        if (lo > 0 && hi > 0) {
          g << "set yrange [" << 0.95 * ms(lo) << ":" << 1.6 * ms(hi) << "]\n";
        } else {
          g << "set yrange [*:*]\n";
        }
        g << "set key top left font ',8'\nset xlabel 'compute jitter (coefficient of variation, "
             "%)'\nset title '"
          << where << ": jitter'\nplot ";
        bool first = true;
        for (const std::string& s : c.schedulers) {
          const std::string block = detail::gnuplot_block(jid, s);
          g << (first ? "" : ", \\\n     ") << block << " using 1:2:3 with filledcurves lc rgb '"
            << detail::color(s) << "' notitle, \\\n"
            << "     " << block << " using 1:2 with linespoints " << detail::style(s) << " title '"
            << s << "'";
          first = false;
        }
        g << "\nunset key\nset xlabel 'straggler: rank " << c.straggler_rank
          << " compute x factor'\nset title '" << where << ": straggler'\nplot ";
        first = true;
        for (const std::string& s : c.schedulers) {
          g << (first ? "" : ", \\\n     ") << detail::gnuplot_block(sid, s)
            << " using 1:2 with linespoints " << detail::style(s) << " title '" << s << "'";
          first = false;
        }
        g << "\n";
        failure_panel(g, c, perts, id, where, failure_time(rows, job.name, tau));
      }
    }
    g << "unset multiplot\nset output\n";
  }
  return g.str();
}

}  // namespace flux::eval
