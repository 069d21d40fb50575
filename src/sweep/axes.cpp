// Every axis a sweep can have (include/flux/sweep/spec.hpp, axis_table()):
// the system's from core::kSystemOptions, the rest listed here.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/sweep/spec.hpp"
#include "flux/workload/split.hpp"

namespace flux::sweep {

namespace {

// An option's bound as a sweep file's integer holds it.
template <class T>
std::int64_t capped(T v) {
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(v), INT64_MAX));
}

// An option's bounds in its table (core/option.hpp), the one source of
// them; capped to what a sweep file's integers hold.
template <class Options>
std::pair<std::int64_t, std::int64_t> bounds(const Options& options, std::string_view field) {
  std::pair<std::int64_t, std::int64_t> b{0, 0};
  core::for_each_option(options, [&](const auto& option) {
    if constexpr (requires { option.max; }) {
      if (option.field == field) b = {capped(option.min), capped(option.max)};
    }
  });
  return b;
}

AxisInfo integer_axis(std::string_view name, std::string_view help,
                      std::pair<std::int64_t, std::int64_t> b, bool robust) {
  return {name, AxisType::kInteger, help, b.first, b.second, robust};
}

// The axis of the entry `field` of an option table (core/option.hpp): its
// help, type and bounds from the table, one source; named `name` (the
// field's name unless given).
template <class Options>
AxisInfo option_axis(const Options& options, std::string_view field, std::string_view name = {}) {
  AxisInfo info{name.empty() ? field : name, AxisType::kName, {}};
  bool found = false;
  core::for_each_option(options, [&](const auto& option) {
    if constexpr (requires { option.field; }) {
      if (option.field != field) return;
      found = true;
      info.help = option.help;
      if constexpr (requires { option.max; }) {
        using Value = typename std::decay_t<decltype(option)>::Value;
        if (option.unit == core::OptionUnit::kPicoseconds) {
          info.type = AxisType::kDuration;
        } else if constexpr (std::is_integral_v<Value>) {
          info.type = AxisType::kInteger;
          info.min = capped(option.min);
          info.max = capped(option.max);
        } else {
          info.type = AxisType::kReal;
        }
      }
    }
  });
  if (!found) throw core::Error("sweep: no option " + std::string(field) + " for an axis (a bug)");
  return info;
}

}  // namespace

std::vector<AxisInfo> axis_table() {
  // The order of application too: job sets a whole layout, model resets the
  // layer count, later axes override single fields.
  return {
      {"job", AxisType::kName, "a named training job (llama3-70b-1k, ...) with its fabric"},
      {"model", AxisType::kName,
       "Llama 3 size (8b, 70b, 405b) or MoE model (mixtral-8x7b, deepseek-v3, ...), all its "
       "layers"},
      {"layers", AxisType::kInteger, "transformer layers"},
      {"tp", AxisType::kInteger, "tensor-parallel degree"},
      {"pp", AxisType::kInteger, "pipeline stages"},
      {"dp", AxisType::kInteger, "data-parallel degree"},
      {"cp", AxisType::kInteger, "context-parallel degree"},
      {"vpp", AxisType::kInteger, "model chunks per pipeline stage"},
      {"fold_dp", AxisType::kInteger, "DP replicas generated (0: all)", 0},
      {"micro_batches", AxisType::kInteger, "micro-batches per iteration"},
      {"seq", AxisType::kInteger, "sequence length, tokens"},
      {"gpu", AxisType::kName, "GPU preset: a100, h100, ..."},
      {"ep", AxisType::kInteger, "MoE expert-parallel degree (inside DP x CP)"},
      {"routing", AxisType::kName, "MoE token routing: uniform, zipf:S or file:R.json"},
      {"routing_seed", AxisType::kInteger, "seed of the MoE routing draws", 0, core::kMaxSeed},
      {"capacity_factor", AxisType::kReal,
       "MoE expert capacity factor (0, as without the axis: no token dropping)", 0},
      {"routing_iterations", AxisType::kInteger,
       "MoE: run each plan on this many later routing iterations and re-plan each (0: no)", 0,
       eval::kMaxRoutingIterations},
      {"plan_routing", AxisType::kName,
       "MoE, with routing_iterations: plan for the routing's draw or its expected (mean) routing"},
      {"routing_replan_limit", AxisType::kDuration,
       "MoE, with routing_iterations: each re-plan's time limit (default: time_limit)"},
      option_axis(core::kSystemOptions, "scaleup_size"),
      option_axis(core::kSystemOptions, "scaleup_gbps"),
      option_axis(core::kSystemOptions, "switches"),
      option_axis(core::kSystemOptions, "link_gbps"),
      option_axis(core::kSystemOptions, "duplex"),
      option_axis(core::kSystemOptions, "wiring"),
      option_axis(core::kSystemOptions, "ocs_radix"),
      {"channels", AxisType::kInteger,
       "every send between scale-up domains split into this many (workload/split.hpp)", 1,
       workload::kMaxChannels},
      option_axis(core::kSystemOptions, "reconfig_delay", "tau"),
      {"time_limit", AxisType::kDuration, "scheduler time limit"},
      {"jitter", AxisType::kPercent, "compute jitter (coefficient of variation)"},
      {"straggler_factor", AxisType::kFactor,
       "the straggler's compute x this (1: none); in filters x100: 150", 1, kMaxAxisInteger, true},
      integer_axis("straggler_rank", "the rank that straggles",
                   bounds(eval::kRobustnessOptions, "straggler_rank"), true),
      {"fail_at", AxisType::kPercent,
       "a switch goes dark at this share of ideal's iteration time (0: no failure)", 1,
       kMaxAxisInteger, true},
      {"fail_switch", AxisType::kInteger, "the switch that fails (0-based)", 0, kMaxAxisInteger,
       true},
      {"replan_time_limit", AxisType::kDuration, "wall-clock budget of each re-plan", 1,
       kMaxAxisInteger, true},
      integer_axis("replan_moves", "flux's local search moves in a re-plan",
                   bounds(eval::kRobustnessOptions, "replan_moves"), true),
      {"seed", AxisType::kInteger, "seed of the perturbation", 0, core::kMaxSeed},
      integer_axis("trials",
                   "perturbed runs per jittered point (common random numbers): p50/p95/p99/max "
                   "rows",
                   bounds(sim::kSimOptions, "trials"), true),
      {"scheduler", AxisType::kName, "scheduler (the first is the summary's baseline)"},
  };
}

bool SweepSpec::robust() const {
  const std::vector<AxisInfo> table = axis_table();
  return std::any_of(axes.begin(), axes.end(), [&](const Axis& a) {
    return std::any_of(table.begin(), table.end(),
                       [&](const AxisInfo& i) { return i.robust && i.name == a.name; });
  });
}

}  // namespace flux::sweep
