// What `flux evaluate` shows: the terminal summary and the gnuplot script of
// Figure 2's three panels (iteration time, peak NIC memory on a log axis,
// reconfigurations), one row of panels per layer count.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <vector>

#include "flux/core/format.hpp"
#include "flux/eval/evaluate.hpp"
#include "report_common.hpp"

namespace flux::eval {
namespace {

using detail::describe;
using detail::fmt;
using detail::pad;
using detail::style;
using detail::upper;

const EvalRow* find(const std::vector<EvalRow>& rows, const std::string& job, core::TimePs tau,
                    const std::string& s) {
  for (const EvalRow& r : rows) {
    if (r.job == job && r.tau_ps == tau && r.scheduler == s) return &r;
  }
  return nullptr;
}

// A flux-milp cell carries its status: "opt" when proven optimal, else the gap.
std::string status_mark(const EvalRow& r) {
  if (!r.schedule_makespan_s) return "";
  if (r.status == "optimal") return " opt";
  return r.gap ? fmt(" %.1f%%", 100 * *r.gap) : " " + r.status;
}

std::string block_name(std::size_t job, const std::string& scheduler) {
  std::string prefix = "J";
  prefix += std::to_string(job);
  return detail::gnuplot_block(prefix, scheduler);
}

// The panel's title: the layer count of a layer sweep, else the job.
std::string title(const EvalJob& j) {
  if (j.name == layer_job_name(j.training.model.layers)) {
    std::string t = std::to_string(j.training.model.layers);
    t += " layers";
    return t;
  }
  return j.name;
}

}  // namespace

namespace detail {

// "Llama 3 8B, 8 layers, TP4 x DP2 on 8 A100 GPUs": what one job runs.
std::string describe(const EvalJob& j) {
  const workload::TrainingConfig& t = j.training;
  std::ostringstream out;
  if (t.moe.enabled()) {
    // "Mixtral-8x7b (MoE, 8 experts, top-2, EP8, zipf:1.2 routing), 8 layers, ..."
    out << t.model.name << " (MoE, " << t.moe.experts << " experts, top-" << t.moe.top_k << ", EP"
        << t.moe.ep << ", " << t.moe.routing.to_string() << " routing)";
  } else {
    out << "Llama 3 " << upper(t.model.name);
  }
  out << ", " << t.model.layers << " layers, TP" << t.tp;
  if (t.cp > 1) out << " x CP" << t.cp;
  if (t.pp > 1) out << " x PP" << t.pp;
  out << " x DP" << t.dp << " on " << t.ranks() << " " << upper(t.gpu.name) << " GPUs";
  if (t.generated_dp() != t.dp) out << " (folded: " << t.generated_dp() << " DP replicas)";
  if (j.scaleup_size > 1) out << " in scale-up domains of " << j.scaleup_size;
  return out.str();
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : std::string(width - s.size(), ' ') + s;
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::string gnuplot_block(const std::string& prefix, const std::string& scheduler) {
  std::string n = "$";  // appended: GCC 12 reports a false -Wrestrict on "$" + string
  n += prefix;
  n += '_';
  for (char c : scheduler) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

std::string color(const std::string& s) {
  if (s == "flux-milp" || s == "flux") return "#d62728";
  if (s == "flux-robust" || s == "flux-milp-robust") return "#ff7f0e";
  if (s == "rotornet") return "#1f77b4";
  if (s == "rotornet-vlb") return "#17becf";
  if (s == "bvn") return "#2ca02c";
  if (s == "ideal") return "black";
  return "#7f7f7f";
}

std::string style(const std::string& s) {
  const std::string lc = " lc rgb '" + color(s) + "'";
  if (s == "flux-milp" || s == "flux") return "lw 2.5" + lc + " pt 7";
  if (s == "flux-robust" || s == "flux-milp-robust") return "lw 2" + lc + " pt 6";
  if (s == "rotornet") return "lw 1.5" + lc + " pt 5";
  if (s == "rotornet-vlb") return "lw 1.5" + lc + " pt 13";
  if (s == "bvn") return "lw 1.5" + lc + " pt 9";
  if (s == "ideal") return "lw 1.5" + lc + " dt 2";
  return "lw 1.5" + lc + " pt 3";
}

std::string gnuplot_terminal(int pass, std::size_t width, std::size_t height,
                             const std::string& png, const std::string& svg) {
  std::ostringstream g;
  if (pass == 0) {
    g << "set terminal pngcairo size " << width << "," << height << " font ',10'\n";
    g << "set output '" << png << "'\n";
  } else {
    g << "set terminal svg size " << width << "," << height << " dynamic font 'sans,10'\n";
    g << "set output '" << svg << "'\n";
  }
  return g.str();
}

}  // namespace detail

std::string summary_table(const EvalConfig& c, const std::vector<EvalRow>& rows) {
  std::ostringstream out;
  const std::size_t w0 = 12, w = 15;
  for (const EvalJob& job : c.jobs()) {
    const std::string& name = job.name;
    out << "\n";
    if (!c.named_jobs.empty()) out << name << ": ";
    out << describe(job) << ", " << c.system.switches << " switches, " << c.system.link_gbps
        << " Gb/s" << (c.system.duplex == core::Duplex::kFull ? ", full duplex" : "")
        << (c.channels > 1 ? ", sends in " + std::to_string(c.channels) + " channels" : "") << "\n";
    struct Panel {
      const char* title;
      std::string (*cell)(const EvalRow&);
    };
    const Panel panels[] = {
        {"iteration time (ms)",
         [](const EvalRow& r) { return fmt("%.1f", r.iteration_time_s * 1e3) + status_mark(r); }},
        {"peak NIC memory",
         [](const EvalRow& r) {
           return core::format_bytes(static_cast<double>(r.peak_nic_bytes), 1);
         }},
        {"reconfigurations", [](const EvalRow& r) { return std::to_string(r.reconfigurations); }},
    };
    for (const Panel& p : panels) {
      out << "\n" << p.title << "\n" << pad("tau", w0);
      for (const std::string& s : c.schedulers) out << pad(s, w);
      out << "\n";
      for (core::TimePs tau : c.taus_ps) {
        out << pad(core::format_duration(tau), w0);
        for (const std::string& s : c.schedulers) {
          const EvalRow* r = find(rows, name, tau, s);
          out << pad(r ? p.cell(*r) : "-", w);
        }
        out << "\n";
      }
    }
    if (c.routing_iterations > 0 && job.training.moe.enabled()) {
      // Uncertain routing: the plan for iteration 0 (or for the expected
      // routing) run on the next ones, against re-planning each (with the
      // slowest re-plan's wall time).
      out << "\nuncertain routing, " << c.routing_iterations
          << " later iterations (ms, p50): planned once"
          << (c.plan_routing == PlanRouting::kExpected ? " for the expected routing" : "")
          << " / re-planned each; slowest re-plan (s)\n"
          << pad("tau", w0);
      for (const std::string& s : c.schedulers) out << pad(s, 2 * w);
      out << "\n";
      for (core::TimePs tau : c.taus_ps) {
        out << pad(core::format_duration(tau), w0);
        for (const std::string& s : c.schedulers) {
          const EvalRow* r = find(rows, name, tau, s);
          const bool has = r && r->planned_p50_s && r->replanned_p50_s && r->replan_wall_max_s;
          out << pad(has ? fmt("%.1f", *r->planned_p50_s * 1e3) + " / " +
                               fmt("%.1f", *r->replanned_p50_s * 1e3) + "; " +
                               fmt("%.2g", *r->replan_wall_max_s)
                         : "-",
                     2 * w);
        }
        out << "\n";
      }
    }
    // How far the best baseline is from the first scheduler (flux-milp);
    // nothing to compare when the others are ideal alone.
    const std::string& flux = c.schedulers.front();
    if (std::none_of(c.schedulers.begin() + 1, c.schedulers.end(),
                     [](const std::string& s) { return s != "ideal"; })) {
      continue;
    }
    out << "\n" << flux << " against the best other scheduler (ideal excluded):\n";
    for (core::TimePs tau : c.taus_ps) {
      const EvalRow* f = find(rows, name, tau, flux);
      const EvalRow* best = nullptr;
      for (const std::string& s : c.schedulers) {
        const EvalRow* r = find(rows, name, tau, s);
        if (s == flux || s == "ideal" || !r) continue;
        if (!best || r->iteration_time_s < best->iteration_time_s) best = r;
      }
      if (!f || !best) continue;
      out << pad(core::format_duration(tau), w0) << "  " << best->scheduler << " takes "
          << fmt("%.2fx", best->iteration_time_s / f->iteration_time_s) << " the time, "
          << fmt("%.0fx", static_cast<double>(best->peak_nic_bytes) /
                              static_cast<double>(std::max<std::uint64_t>(f->peak_nic_bytes, 1)))
          << " the peak NIC memory\n";
    }
  }
  return out.str();
}

std::string gnuplot_script(const EvalConfig& c, const std::vector<EvalRow>& rows,
                           const std::string& png, const std::string& svg) {
  std::ostringstream g;
  const std::vector<EvalJob> jobs = c.jobs();
  g << "# "
    << (c.named_jobs.empty() ? "Figure 2 of the paper" : "Figure 2's panels for training jobs")
    << " as measured by `flux evaluate --preset " << c.preset
    << "`; data inline.\n# Render: gnuplot " << c.file_stem << ".gp\n";
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (const std::string& s : c.schedulers) {
      g << block_name(j, s) << " << EOD\n";
      for (core::TimePs tau : c.taus_ps) {
        if (const EvalRow* r = find(rows, jobs[j].name, tau, s)) {
          g << static_cast<double>(tau) / 1e6 << ' ' << r->iteration_time_s * 1e3 << ' '
            << r->peak_nic_bytes << ' ' << r->reconfigurations << '\n';
        }
      }
      g << "EOD\n";
    }
  }
  const std::size_t n = jobs.size();
  struct Panel {
    int column;
    const char* ylabel;
    const char* yformat;
    bool with_ideal;
  };
  // All three on log axes: iteration times span 0.2 to 14 s, memory 4 KiB
  // to 260 MiB, reconfigurations 20 to 100,000. Memory and reconfigurations
  // leave out ideal (no circuits): with ideal alone, only the times are drawn.
  std::vector<Panel> panels = {{2, "iteration time (ms)", "%g", true}};
  if (std::any_of(c.schedulers.begin(), c.schedulers.end(),
                  [](const std::string& s) { return s != "ideal"; })) {
    panels.push_back({3, "peak NIC memory (bytes)", "10^{%L}", false});
    panels.push_back({4, "reconfigurations", "10^{%L}", false});
  }
  for (int pass = 0; pass < 2; ++pass) {
    g << detail::gnuplot_terminal(pass, 500 * panels.size(), 430 * n + 60, png, svg);
    g << "set multiplot layout " << n << "," << panels.size() << " title '";
    if (c.named_jobs.empty()) {
      g << "Llama 3 " << upper(c.training.model.name) << ", TP" << c.training.tp << " x DP"
        << c.training.dp << ", " << c.system.switches << " OCS, " << c.system.link_gbps << " Gb/s, "
        << upper(c.training.gpu.name) << " compute'\n";
    } else {
      g << "training jobs, " << c.system.switches << " OCS, " << c.system.link_gbps << " Gb/s"
        << (c.system.duplex == core::Duplex::kFull ? ", full duplex" : "") << "'\n";
    }
    g << "set logscale x\nset xlabel 'reconfiguration delay {/Symbol t} (us)'\n"
      << "set grid\nset format x '%g'\n";
    g << "set logscale y\n";
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      for (const Panel& p : panels) {
        g << "set format y '" << p.yformat << "'\n";
        g << (p.column == 2 ? "set key top left font ',9'\n" : "unset key\n");
        g << "set ylabel '" << p.ylabel << "'\nset title '" << title(jobs[j]) << "'\n";
        g << "plot ";
        bool first = true;
        for (const std::string& s : c.schedulers) {
          if (s == "ideal" && !p.with_ideal) continue;
          g << (first ? "" : ", \\\n     ") << block_name(j, s) << " using 1:" << p.column
            << " with " << (s == "ideal" ? "lines" : "linespoints") << ' ' << style(s) << " title '"
            << s << "'";
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
