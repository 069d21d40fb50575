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

#include "flux/core/time.hpp"

namespace flux::workload {

struct GpuSpec {
  std::string name;
  double peak_flops = 0;         ///< dense bf16 tensor FLOP/s
  double hbm_bytes_per_s = 0;    ///< HBM bandwidth, byte/s
  double gemm_efficiency = 0.7;  ///< achieved fraction of peak on large GEMMs
  double attention_efficiency = 0.5;
  double memory_efficiency = 0.8;  ///< achieved fraction of HBM bandwidth

  /// "a100" (SXM4 80 GB) or "h100" (SXM5 80 GB); throws core::InputError.
  static GpuSpec preset(std::string_view name);
  /// Throws core::InputError naming the field on non-positive or > 1 values.
  void validate() const;
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
