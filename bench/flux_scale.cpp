// The `flux` scheduler at scale: one process per instance (run it through
// bench/flux_scale.sh) so that the peak RSS is the instance's own. Generates
// the workload in memory, schedules it with `flux` (validated by
// run_scheduler), and prints one CSV line:
//   name,sends,gpus,tau_s,gpu,generate_s,schedule_s,peak_rss_mib,makespan_s,bound_s,gap,status,
//   dp_generated,job_sends
// With FOLD_DP the workload is folded (TrainingConfig::fold_dp): `sends` are
// the fold's, `job_sends` the job's, `gpus` the job's; `dp_generated` is the
// number of DP replicas generated (FOLD_DP, or DP when not folded).
// Usage: flux_scale NAME MODEL LAYERS TP DP GPU TAU TIME_LIMIT_S [FOLD_DP]
//   e.g. flux_scale 70b-dp16 70b 80 8 16 h100 1ms 60
//        flux_scale 405b-dp512 405b 126 8 512 a100 10us 60 4
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "flux/core/time.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/llama.hpp"

namespace {

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // KiB on Linux
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9 && argc != 10) {
    std::fprintf(stderr,
                 "usage: flux_scale NAME MODEL LAYERS TP DP GPU TAU TIME_LIMIT_S [FOLD_DP]\n");
    return 2;
  }
  try {
    flux::workload::TrainingConfig c;
    c.model = flux::workload::ModelConfig::llama3(argv[2]);
    c.model.layers = static_cast<std::uint32_t>(std::stoul(argv[3]));
    c.tp = static_cast<std::uint32_t>(std::stoul(argv[4]));
    c.dp = static_cast<std::uint32_t>(std::stoul(argv[5]));
    c.gpu = flux::workload::GpuSpec::preset(argv[6]);
    if (argc == 10) c.fold_dp = static_cast<std::uint32_t>(std::stoul(argv[9]));
    auto t0 = std::chrono::steady_clock::now();
    const flux::core::Workload w = flux::workload::generate_llama(c);
    const double gen_s = since(t0);
    flux::core::System sys;
    sys.reconfig_delay_ps = flux::core::parse_duration(argv[7], "tau");
    flux::sched::SchedulerOptions o;
    o.time_limit_s = std::stod(argv[8]);
    t0 = std::chrono::steady_clock::now();
    const auto s = flux::sched::run_scheduler("flux", w, sys, o);
    const double sched_s = since(t0);
    std::printf("%s,%zu,%u,%g,%s,%.3f,%.3f,%.1f,%.9g,%.9g,%.6f,%s,%u,%zu\n", argv[1], w.num_tasks(),
                c.tp * c.dp, flux::core::ps_to_seconds(sys.reconfig_delay_ps), argv[6], gen_s,
                sched_s, peak_rss_mib(), flux::core::ps_to_seconds(s.makespan_ps),
                flux::core::ps_to_seconds(s.lower_bound_ps.value_or(0)), s.gap.value_or(0),
                std::string(flux::schedule::to_string(s.status)).c_str(), c.generated_dp(),
                w.num_tasks() * w.fold().copies);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flux_scale: %s\n", e.what());
    return 1;
  }
  return 0;
}
