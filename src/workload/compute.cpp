#include "flux/workload/compute.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"

namespace flux::workload {

GpuSpec GpuSpec::preset(std::string_view name) {
  GpuSpec g;
  if (name == "a100") {
    // NVIDIA A100 SXM4 80 GB datasheet: 312 TFLOP/s dense BF16, 2,039 GB/s HBM2e.
    g.name = "a100";
    g.peak_flops = 312e12;
    g.hbm_bytes_per_s = 2039e9;
    g.nvlink_gbps = core::kNvlink3Gbps;  // NVLink 3: 600 GB/s both directions
  } else if (name == "h100") {
    // NVIDIA H100 SXM5 80 GB datasheet: 989 TFLOP/s dense BF16, 3.35 TB/s HBM3.
    g.name = "h100";
    g.peak_flops = 989e12;
    g.hbm_bytes_per_s = 3350e9;
    g.nvlink_gbps = core::kNvlink4Gbps;  // NVLink 4: 900 GB/s both directions
  } else {
    throw core::InputError("", "gpu", std::string(name), "unknown GPU preset (use a100 or h100)");
  }
  return g;
}

void GpuSpec::validate() const {
  core::check_options(kGpuOptions, *this);
}

OpCost gemm_cost(double m, double k, double n) {
  constexpr double kBf16 = 2;
  return OpCost{2 * m * k * n, kBf16 * (m * k + k * n + m * n)};
}

core::TimePs roofline_ps(const GpuSpec& gpu, OpClass op, const OpCost& cost) {
  double eff = 1;
  switch (op) {
    case OpClass::kGemm:
      eff = gpu.gemm_efficiency;
      break;
    case OpClass::kAttention:
      eff = gpu.attention_efficiency;
      break;
    case OpClass::kMemory:
      eff = 1;  // no FLOP bound for memory-bound kernels
      break;
  }
  const double compute_s = op == OpClass::kMemory ? 0.0 : cost.flops / (gpu.peak_flops * eff);
  const double memory_s = cost.bytes / (gpu.hbm_bytes_per_s * gpu.memory_efficiency);
  const double seconds = std::max(compute_s, memory_s);
  if (!(seconds * 1e12 <= static_cast<double>(core::kMaxTimePs))) {
    char value[48];
    std::snprintf(value, sizeof value, "%.3g FLOP, %.3g bytes", cost.flops, cost.bytes);
    core::throw_time_range("compute", value, "on " + gpu.name + ", its roofline", seconds);
  }
  return std::llround(seconds * 1e12);
}

}  // namespace flux::workload
