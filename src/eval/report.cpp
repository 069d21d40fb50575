// What `flux evaluate` prints: per job, tau x scheduler tables of Figure 2's
// three metrics (iteration time, peak NIC memory, reconfigurations). Its
// plots are the preset's sweep plots (src/sweep/results.cpp).
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
using detail::upper;

// The row of a job on a fabric at a tau by a scheduler.
const EvalRow* find(const std::vector<EvalRow>& rows, const std::string& job,
                    const RowFabric& fabric, core::TimePs tau, const std::string& s) {
  for (const EvalRow& r : rows) {
    if (r.job == job && r.tau_ps == tau && r.scheduler == s && r.fabric == fabric) return &r;
  }
  return nullptr;
}

// A flux-milp cell carries its status: "opt" when proven optimal, else the gap.
std::string status_mark(const EvalRow& r) {
  if (!r.schedule_makespan_s) return "";
  if (r.status == "optimal") return " opt";
  return r.gap ? fmt(" %.1f%%", 100 * *r.gap) : " " + r.status;
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

}  // namespace detail

std::string summary_table(const std::vector<EvalPoint>& points, const std::vector<EvalRow>& rows) {
  std::ostringstream out;
  const std::size_t w0 = 12, w = 15;
  // The study's jobs (each on each fabric), delays and schedulers, in the
  // points' order.
  std::vector<const EvalPoint*> jobs;
  std::vector<core::TimePs> taus;
  std::vector<std::string> schedulers;
  for (const EvalPoint& p : points) {
    if (std::none_of(jobs.begin(), jobs.end(), [&](const EvalPoint* j) {
          return j->job.name == p.job.name && fabric_of(j->system) == fabric_of(p.system);
        })) {
      jobs.push_back(&p);
    }
    if (std::find(taus.begin(), taus.end(), p.tau_ps) == taus.end()) taus.push_back(p.tau_ps);
    if (std::find(schedulers.begin(), schedulers.end(), p.scheduler) == schedulers.end()) {
      schedulers.push_back(p.scheduler);
    }
  }
  for (const EvalPoint* first : jobs) {
    const EvalPoint& c = *first;
    const EvalJob& job = c.job;
    const std::string& name = job.name;
    const RowFabric fabric = fabric_of(c.system);
    // A job the fabric cannot run has no row: flux evaluate lists why.
    if (std::none_of(rows.begin(), rows.end(),
                     [&](const EvalRow& r) { return r.job == name && r.fabric == fabric; })) {
      continue;
    }
    const std::string wiring = c.point_system().wiring_text(job.training.ranks());
    out << "\n";
    if (name != layer_job_name(job.training.model.layers)) out << name << ": ";
    out << describe(job) << ", " << c.system.switches << " switches, " << c.system.link_gbps
        << " Gb/s" << (c.system.duplex == core::Duplex::kFull ? ", full duplex" : "")
        << (c.channels > 1 ? ", sends in " + std::to_string(c.channels) + " channels" : "")
        << (wiring.empty() ? "" : "; " + wiring) << "\n";
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
      for (const std::string& s : schedulers) out << pad(s, w);
      out << "\n";
      for (core::TimePs tau : taus) {
        out << pad(core::format_duration(tau), w0);
        for (const std::string& s : schedulers) {
          const EvalRow* r = find(rows, name, fabric, tau, s);
          out << pad(r ? p.cell(*r) : "-", w);
        }
        out << "\n";
      }
    }
    if (c.routing_iterations > 0 && job.training.moe.enabled()) {
      // Uncertain routing: the plan for iteration 0 (or for the expected
      // routing) run on the next ones, against re-planning each (with the
      // slowest re-plan's wall time).
      out << "\nuncertain routing, " << c.routing_iterations << " later iterations (ms, p50): "
          << (c.plan_routing.kind == PlanRouting::Kind::kExpected ? "planned once for the "
                                                                    "expected routing"
              : c.plan_routing.kind == PlanRouting::Kind::kPredicted
                  ? "planned before each for the " + to_string(c.plan_routing) + " prediction"
                  : std::string("planned once"))
          << " / re-planned each; slowest re-plan (s)\n"
          << pad("tau", w0);
      for (const std::string& s : schedulers) out << pad(s, 2 * w);
      out << "\n";
      for (core::TimePs tau : taus) {
        out << pad(core::format_duration(tau), w0);
        for (const std::string& s : schedulers) {
          const EvalRow* r = find(rows, name, fabric, tau, s);
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
    const std::string& flux = schedulers.front();
    if (std::none_of(schedulers.begin() + 1, schedulers.end(),
                     [](const std::string& s) { return s != "ideal"; })) {
      continue;
    }
    out << "\n" << flux << " against the best other scheduler (ideal excluded):\n";
    for (core::TimePs tau : taus) {
      const EvalRow* f = find(rows, name, fabric, tau, flux);
      const EvalRow* best = nullptr;
      for (const std::string& s : schedulers) {
        const EvalRow* r = find(rows, name, fabric, tau, s);
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

}  // namespace flux::eval
