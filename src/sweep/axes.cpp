// Every axis a sweep can have (include/flux/sweep/spec.hpp, axis_table()):
// an axis with an option entry (the system's, the training job's, the
// scheduler's, the perturbation's, the robustness preset's) is built from
// it, its help, type and bounds the table's; the others are listed here.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"
#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/sim/perturb.hpp"
#include "flux/sweep/spec.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/moe.hpp"
#include "flux/workload/routing.hpp"
#include "flux/workload/split.hpp"

namespace flux::sweep {

namespace {

// An option's bound as a sweep file's integer holds it.
template <class T>
std::int64_t capped(T v) {
  return static_cast<std::int64_t>(
      std::min<std::uint64_t>(static_cast<std::uint64_t>(v), INT64_MAX));
}

// How an option's values are written in a sweep file: a duration with a
// unit, a fraction or percentage, an integer, a number; names otherwise.
template <class Option>
AxisType type_of(const Option& option) {
  if constexpr (requires { option.max; }) {
    switch (option.unit) {
      case core::OptionUnit::kPicoseconds:
      case core::OptionUnit::kSeconds:
        return AxisType::kDuration;
      case core::OptionUnit::kFraction:
        return AxisType::kPercent;
      case core::OptionUnit::kNone:
        break;
    }
    return std::is_integral_v<typename Option::Value> ? AxisType::kInteger : AxisType::kReal;
  }
  return AxisType::kName;
}

// A number axis's bounds (AxisInfo::real_min, ...): those of `option`.
template <class Option>
void take_bounds(AxisInfo& info, const Option& option) {
  info.real_min = static_cast<double>(option.min);
  info.real_max = static_cast<double>(option.max);
  info.real_min_open = option.min_open;
  info.real_max_open = option.max_open;
}

// The bounds of `info` as an option entry, for its test and its text.
core::NumberOption<AxisInfo, double> as_option(const AxisInfo& info) {
  return {
      info.name,         {}, info.help, nullptr, info.real_min, info.real_max, info.real_min_open,
      info.real_max_open};
}

// The axis of the entry `field` of an option table (core/option.hpp): its
// help, type and bounds from the table, one source; named `name` (the
// field's name unless given); `robust`: AxisInfo::robust.
template <class Options>
AxisInfo option_axis(const Options& options, std::string_view field, std::string_view name = {},
                     bool robust = false) {
  AxisInfo info{name.empty() ? field : name, AxisType::kName, {}};
  info.robust = robust;
  bool found = false;
  core::for_each_option(options, [&](const auto& option) {
    if constexpr (requires { option.field; }) {
      if (option.field != field) return;
      found = true;
      info.help = option.help;
      info.type = type_of(option);
      if constexpr (requires { option.max; }) {
        if (info.type == AxisType::kInteger) {
          info.min = capped(option.min);
          info.max = capped(option.max);
        } else if (info.type == AxisType::kReal) {
          take_bounds(info, option);
        }
      }
    }
  });
  if (!found) throw core::Error("sweep: no option " + std::string(field) + " for an axis (a bug)");
  return info;
}

// straggler_factor: a factor (x100 in filters) with the bounds of
// sim::kStragglerFactorOption, as --straggler and --straggler-factors.
AxisInfo straggler_factor_axis() {
  AxisInfo info{"straggler_factor", AxisType::kFactor,
                "the straggler's compute x this (1: none); in filters x100: 150"};
  info.robust = true;
  take_bounds(info, sim::kStragglerFactorOption);
  return info;
}

}  // namespace

bool AxisInfo::contains(double v) const {
  return as_option(*this).contains(v);
}

std::string AxisInfo::range_text() const {
  return as_option(*this).range_text();
}

std::vector<AxisInfo> axis_table() {
  using core::kSystemOptions;
  using workload::kTrainingOptions;
  constexpr bool kRobust = true;
  // The order of application too: job sets a whole layout, model resets the
  // layer count, later axes override single fields.
  return {
      {"job", AxisType::kName, "a named training job (llama3-70b-1k, ...) with its fabric"},
      {"model", AxisType::kName,
       "Llama 3 size (8b, 70b, 405b) or MoE model (mixtral-8x7b, deepseek-v3, ...), all its "
       "layers"},
      option_axis(workload::kModelOptions, "layers"),
      option_axis(kTrainingOptions, "tp"),
      option_axis(kTrainingOptions, "pp"),
      option_axis(kTrainingOptions, "dp"),
      option_axis(kTrainingOptions, "cp"),
      option_axis(kTrainingOptions, "vpp"),
      option_axis(kTrainingOptions, "fold_dp"),
      option_axis(kTrainingOptions, "micro_batches"),
      option_axis(kTrainingOptions, "seq"),
      {"gpu", AxisType::kName, "GPU preset: a100, h100, ..."},
      {"collective", AxisType::kName,
       "collective algorithm: ring, direct, halving-doubling, bruck, hierarchical, or auto (the "
       "scheduler chooses per collective)"},

      option_axis(workload::kMoeOptions, "ep"),
      {"routing", AxisType::kName,
       "MoE token routing: uniform, zipf:S, zipf-drift:S:D or file:R.json"},
      option_axis(workload::kRoutingOptions, "seed", "routing_seed"),
      option_axis(workload::kRoutingOptions, "capacity_factor"),
      {"routing_iterations", AxisType::kInteger,
       "MoE: run each plan on this many later routing iterations and re-plan each (0: no)", 0,
       eval::kMaxRoutingIterations},
      {"plan_routing", AxisType::kName,
       "MoE, with routing_iterations: plan once for the routing's draw or its expected (mean) "
       "routing, or before each iteration for a prediction from the ones before (last, ewma:A)"},
      {"routing_replan_limit", AxisType::kDuration,
       "MoE, with routing_iterations: each re-plan's time limit (default: time_limit)"},
      {"decision_budget", AxisType::kName,
       "MoE, with routing_iterations: also run each plan online, each all-to-all placed when "
       "its routing is revealed within this budget (10us, 100us, 1ms), or off"},
      {"decision_latency", AxisType::kName,
       "MoE, with decision_budget: modelled (a decision takes the budget) or measured (its wall "
       "time)"},
      option_axis(runtime::kOnlineOptions, "decision_reserve"),
      option_axis(kSystemOptions, "scaleup_size"),
      option_axis(kSystemOptions, "scaleup_gbps"),
      option_axis(kSystemOptions, "switches"),
      option_axis(kSystemOptions, "link_gbps"),
      option_axis(kSystemOptions, "duplex"),
      option_axis(kSystemOptions, "wiring"),
      option_axis(kSystemOptions, "ocs_radix"),
      option_axis(kSystemOptions, "packet_gbps"),
      option_axis(kSystemOptions, "packet_latency"),
      option_axis(kSystemOptions, "packet_oversubscription"),
      option_axis(kSystemOptions, "route"),
      {"channels", AxisType::kInteger,
       "every send between scale-up domains split into this many (workload/split.hpp)", 1,
       workload::kMaxChannels},
      option_axis(kSystemOptions, "reconfig_delay", "tau"),
      option_axis(sched::kSchedulerOptions, "time_limit"),
      option_axis(sim::kPerturbationOptions, "compute_jitter", "jitter"),
      straggler_factor_axis(),
      option_axis(eval::kRobustnessOptions, "straggler_rank", {}, kRobust),
      {"fail_at", AxisType::kPercent,
       "a switch goes dark at this share of ideal's iteration time (0: no failure)", 1,
       kMaxAxisInteger, kRobust},
      {"fail_switch", AxisType::kInteger, "the switch that fails (0-based)", 0, kMaxAxisInteger,
       kRobust},
      option_axis(eval::kRobustnessOptions, "replan_time_limit", {}, kRobust),
      option_axis(eval::kRobustnessOptions, "replan_moves", {}, kRobust),
      option_axis(sim::kPerturbationOptions, "seed"),
      option_axis(eval::kRobustnessOptions, "trials", {}, kRobust),
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
