#pragma once
// The training job's options (`flux generate llama3` / `moe`, `flux
// evaluate`, flux.generate.llama3 / moe): the model preset and its
// overrides, parallelism, sizes, the GPU preset and its efficiencies, from
// workload's option tables, resolved over a base configuration; and the
// generators' defaults.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "flux/workload/llama.hpp"
#include "flux/workload/routing.hpp"

namespace flux::frontend {

/// The training options as given; values given override `base`, a preset
/// chosen by the command.
struct TrainingOptions {
  std::string job;    ///< named job (workload::job_preset) replacing the base ("" : none)
  std::string model;  ///< Llama 3 preset ("" : the base's)
  std::string gpu;    ///< GPU preset ("" : the base's)
  std::string collective;
  std::string order;        ///< rank order ("" : the base's)
  std::string dp_sharding;  ///< "" : the base's
  bool sequence_parallel = false;
  bool embeddings = false;
  bool no_optimizer = false;
  std::vector<std::function<void(workload::TrainingConfig&)>> overrides;
  std::vector<std::function<void(workload::ModelConfig&)>> model_overrides;
  std::vector<std::function<void(workload::GpuSpec&)>> gpu_overrides;
  /// A MoE job (`flux generate moe`): --model names a MoE model
  /// (workload::moe_model) and the MoE options (workload::kMoeOptions,
  /// --routing, workload::kRoutingOptions) apply; no --job.
  bool moe = false;
  std::string routing;  ///< --routing as given ("" : the base's)
  std::vector<std::function<void(workload::MoeConfig&)>> moe_overrides;
  std::vector<std::function<void(workload::RoutingSpec&)>> routing_overrides;

  /// `base` (or the named job's configuration) with the given options
  /// applied, validated; throws core::InputError naming the option.
  [[nodiscard]] workload::TrainingConfig resolve(workload::TrainingConfig base) const;
};

/// The defaults of `flux generate llama3` (and of the Python
/// flux.generate.llama3): Llama 3 8B, TP4 x DP2 on A100s (the paper's setup).
workload::TrainingConfig generate_defaults();
/// The defaults of `flux generate moe`: Mixtral 8x7B, EP8 over DP8 on H100s.
workload::TrainingConfig moe_generate_defaults();

}  // namespace flux::frontend
