#pragma once
// Roofline compute model. An operation takes
//   t = max(flops / (peak_flops * efficiency), bytes / (hbm_bandwidth * memory_efficiency))
// where GEMMs use gemm_efficiency, attention kernels attention_efficiency, and
// elementwise/normalisation kernels have no FLOP term worth counting (memory
// bound). Peaks are the vendors' published dense bf16 tensor-core rates and
// HBM bandwidths; efficiencies are assumptions documented in docs/model.md.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "flux/core/option.hpp"
#include "flux/core/time.hpp"

namespace flux::workload {

struct GpuSpec {
  std::string name;
  double peak_flops = 0;         ///< dense bf16 tensor FLOP/s
  double hbm_bytes_per_s = 0;    ///< HBM bandwidth, byte/s
  double gemm_efficiency = 0.7;  ///< achieved fraction of peak on large GEMMs
  double attention_efficiency = 0.5;
  double memory_efficiency = 0.8;  ///< achieved fraction of HBM bandwidth
  /// NVLink bandwidth per GPU and direction, Gb/s: the scale-up fabric a job
  /// on these GPUs has (core::System::scaleup_gbps; docs/model.md).
  double nvlink_gbps = 0;

  /// "a100" (SXM4 80 GB) or "h100" (SXM5 80 GB); throws core::InputError.
  static GpuSpec preset(std::string_view name);
  /// Throws core::InputError naming the field (bounds in kGpuOptions).
  void validate() const;
};

/// The options of a GPU: names, flags, help and bounds (core/option.hpp).
/// The peak rates have no flag: they come with the preset.
inline constexpr auto kGpuOptions = std::tuple{
    core::NumberOption<GpuSpec, double>{"peak_flops", "", "dense bf16 tensor FLOP/s",
                                        &GpuSpec::peak_flops, 0.0, 1e18, true},
    core::NumberOption<GpuSpec, double>{"hbm_bytes_per_s", "", "HBM bandwidth, byte/s",
                                        &GpuSpec::hbm_bytes_per_s, 0.0, 1e16, true},
    core::NumberOption<GpuSpec, double>{"gemm_efficiency", "--gemm-efficiency",
                                        "fraction of peak FLOP/s on GEMMs",
                                        &GpuSpec::gemm_efficiency, 0.0, 1.0, true},
    core::NumberOption<GpuSpec, double>{"attention_efficiency", "--attention-efficiency",
                                        "fraction of peak FLOP/s on attention",
                                        &GpuSpec::attention_efficiency, 0.0, 1.0, true},
    core::NumberOption<GpuSpec, double>{"memory_efficiency", "--memory-efficiency",
                                        "fraction of peak HBM bandwidth",
                                        &GpuSpec::memory_efficiency, 0.0, 1.0, true},
};

enum class OpClass : std::uint8_t { kGemm, kAttention, kMemory };

/// Work of one kernel: floating-point operations and HBM bytes moved.
struct OpCost {
  double flops = 0;
  double bytes = 0;
  OpCost& operator+=(const OpCost& o) {
    flops += o.flops;
    bytes += o.bytes;
    return *this;
  }
};

/// [m x k] * [k x n] in bf16: 2mkn FLOPs; reads A and B, writes C.
OpCost gemm_cost(double m, double k, double n);
/// A memory-bound kernel moving `bytes`.
inline OpCost memory_cost(double bytes) {
  return OpCost{0, bytes};
}

/// Roofline time of one kernel, rounded to the nearest picosecond.
/// Throws InputError ("compute") when the time is beyond core::kMaxTimePs.
core::TimePs roofline_ps(const GpuSpec& gpu, OpClass op, const OpCost& cost);

}  // namespace flux::workload
