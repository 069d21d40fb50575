// What `flux evaluate --preset robustness` shows: per job and tau, tables of
// iteration time (p50 / p95 over the trials), each scheduler's p95 against
// the first scheduler's, and peak NIC memory; and the gnuplot script: per
// (job, tau) one panel of iteration time against jitter (p50 line, band up
// to p95) and one against the straggler's factor.
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
  }
  return "?";
}

double ms(double s) {
  return s * 1e3;
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
      };
      for (const Table& t : tables) {
        out << "\n" << t.title << "\n" << pad("perturbation", w0);
        for (const std::string& s : c.schedulers) out << pad(s, w);
        out << "\n";
        for (const RobustPerturbation& p : perts) {
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
          if (p.kind != PerturbationKind::kStraggler) {
            jit << 100 * p.jitter << ' ' << ms(t.p50) << ' ' << ms(t.p95) << ' ' << ms(t.p99)
                << '\n';
          }
          if (p.kind != PerturbationKind::kJitter) {
            str << p.straggler_factor << ' ' << ms(t.p50) << '\n';
          }
        }
        const std::string id = std::to_string(panel);
        const std::string jid = 'J' + id, sid = 'S' + id;
        g << detail::gnuplot_block(jid, s) << " << EOD\n" << jit.str() << "EOD\n";
        g << detail::gnuplot_block(sid, s) << " << EOD\n" << str.str() << "EOD\n";
      }
      ++panel;
    }
  }
  const std::size_t n = panel;
  for (int pass = 0; pass < 2; ++pass) {
    g << detail::gnuplot_terminal(pass, 1300, 380 * n + 60, png, svg);
    g << "set multiplot layout " << n
      << ",2 title 'Iteration time under perturbed compute: " << sim::to_string(c.execution)
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
      }
    }
    g << "unset multiplot\nset output\n";
  }
  return g.str();
}

}  // namespace flux::eval
