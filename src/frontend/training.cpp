// The training job's options and the generators' defaults
// (include/flux/frontend/training.hpp).
#include "flux/frontend/training.hpp"

#include "flux/core/error.hpp"
#include "flux/frontend/options.hpp"

namespace flux::frontend {

workload::TrainingConfig TrainingOptions::resolve(workload::TrainingConfig c) const {
  try {
    if (!job.empty()) c = workload::job_preset(job).config;
    if (!model.empty() && moe) {
      const workload::MoeModel m = workload::moe_model(model);
      const std::uint32_t ep = c.moe.ep;  // the parallelism stays the base's
      c.model = m.model;
      c.moe = m.moe;
      c.moe.ep = ep;
    } else if (!model.empty()) {
      c.model = workload::ModelConfig::llama3(model);
    }
    for (const auto& set : moe_overrides) set(c.moe);
    if (!routing.empty()) c.moe.routing = workload::RoutingSpec::parse(routing);
    for (const auto& set : routing_overrides) set(c.moe.routing);
    for (const auto& set : model_overrides) set(c.model);
    if (!gpu.empty()) c.gpu = workload::GpuSpec::preset(gpu);
    for (const auto& set : gpu_overrides) set(c.gpu);
    for (const auto& set : overrides) set(c);
    if (!collective.empty()) c.collective = workload::algorithm_from_string(collective);
    if (!order.empty()) c.order = workload::rank_order_from_string(order);
    if (!dp_sharding.empty()) c.dp_sharding = workload::dp_sharding_from_string(dp_sharding);
    if (sequence_parallel) c.sequence_parallel = true;
    if (embeddings) c.embeddings = true;
    if (no_optimizer) c.optimizer = false;
    c.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, workload::kTrainingOptions, workload::kModelOptions,
                       workload::kGpuOptions, workload::kMoeOptions, workload::kRoutingOptions);
  }
  return c;
}

workload::TrainingConfig generate_defaults() {
  workload::TrainingConfig c;
  c.tp = 4;
  c.dp = 2;
  return c;
}

workload::TrainingConfig moe_generate_defaults() {
  workload::TrainingConfig c;
  const workload::MoeModel m = workload::moe_model("mixtral-8x7b");
  c.model = m.model;
  c.moe = m.moe;
  c.gpu = workload::GpuSpec::preset("h100");
  c.tp = 1;
  c.dp = 8;
  c.moe.ep = 8;
  return c;
}

}  // namespace flux::frontend
