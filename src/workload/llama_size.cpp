// estimate_llama_size: the sends and deps generate_llama would build, from
// closed forms of the collectives (collectives.hpp) and counts of the
// program's steps (llama.cpp), without generating: the sends are exact up
// to zero-byte chunks, the deps an upper estimate (each send waits for at
// most the rank's frontier, whose size is bounded per kind of step below).
#include <algorithm>
#include <cmath>
#include <utility>

#include "flux/workload/llama.hpp"

namespace flux::workload {
namespace {

// Frontier entries an initial send is connected to, at most, outside ring
// attention: the tasks that ended the rank's previous collective (its last
// send and receive), a pipeline receive and an FSDP all-gather's two.
constexpr double kFrontier = 6;

// The entries beyond those two that a configuration adds.
// A MoE all-to-all leaves its 2 (ep - 1) sends and receives in the frontier.
double more_entries(const TrainingConfig& c) {
  const double a2a = c.moe.enabled() ? 2.0 * (c.moe.ep - 1) : 0;
  return (c.pp > 1 ? 1 : 0) + (c.dp_sharding == DpSharding::kFull ? 2 : 0) + a2a;
}

struct Size {
  double sends = 0;
  double deps = 0;
  Size& operator+=(const Size& o) {
    sends += o.sends;
    deps += o.deps;
    return *this;
  }
  Size operator*(double k) const { return {sends * k, deps * k}; }
};

// Sends and deps of one all-reduce over `p` ranks (a ring of `ring`
// positions when folded), by the algorithm's pattern; deps include one
// connection per initial send per frontier entry. Doubles: no overflow.
// `more`: frontier entries beyond the two the formulas count per initial send.
Size allreduce_size(Algorithm a, double p, double ring, double more) {
  switch (a) {
    case Algorithm::kRing: {
      // Each send waits for the step before and for the tasks that ended
      // its rank's previous collective (the rank's last send and receive).
      const double sends = 2 * (ring - 1) * p;
      return {sends, 2 * sends + (2 + more) * p};
    }
    case Algorithm::kDirect:
      // p(p-1) sends per phase; each all-gather send waits for all p-1
      // reduce-scatter receives of its rank, each reduce-scatter send for the
      // 2(p-1) tasks that ended the rank's previous collective.
      return {2 * p * (p - 1), 3 * p * (p - 1) * (p - 1) + (2 + more) * p * (p - 1)};
    case Algorithm::kHalvingDoubling: {
      const double k = std::floor(std::log2(p)), pow2 = std::exp2(k), extra = p - pow2;
      const double steps = 2 * k + (extra > 0 ? 2 : 0);  // per rank, at most
      // A send waits for every earlier receive of its rank: steps^2 / 2.
      return {2 * extra + 2 * k * pow2, p * (steps * steps / 2 + 2 * steps + more)};
    }
    case Algorithm::kHierarchical:
      // At most the ring's sends (2p(m - 1 + D - 1) <= 2p(p - 1) for p = m D);
      // each waits for at most two receives, the intra-domain all-gather's
      // first sends for up to D - 1 <= p - 1 more.
      return {2 * (p - 1) * p, 4 * (p - 1) * p + (p - 1 + 2 + more) * p};
    case Algorithm::kBruck:  // all-to-all only: emit_collective refuses an all-reduce
      break;
    case Algorithm::kAuto: {
      // Every alternative (alternatives_of): at most all three.
      Size all;
      for (const Algorithm x :
           {Algorithm::kRing, Algorithm::kDirect, Algorithm::kHalvingDoubling}) {
        all += allreduce_size(x, p, ring, more);
      }
      return all;
    }
  }
  return {};
}

// A reduce-scatter or an all-gather: one phase of the all-reduce, whose
// sends are half of it; its deps at most the all-reduce's.
Size half_size(Algorithm a, double p, double ring, double more) {
  const Size ar = allreduce_size(a, p, ring, more);
  return {ar.sends / 2, ar.deps};
}

}  // namespace

WorkloadSize estimate_llama_size(const TrainingConfig& c) {
  c.validate();
  const double tp = c.tp, cp = c.cp, gdp = c.generated_dp(), mbs = c.micro_batches;
  const bool sp = c.sequence_parallel;
  const double more = more_entries(c);
  Size total;
  for (std::uint32_t s = 0; s < c.virtual_stages(); ++s) {
    const double layers = c.stage_layers(s);
    double moe_layers = 0;
    for (std::uint32_t l = c.first_layer(s); l < c.first_layer(s) + c.stage_layers(s); ++l) {
      moe_layers += c.moe.is_moe_layer(l) ? 1 : 0;
    }
    // MoE layers without shared experts have no TP collective in their MLP.
    const double mlp_tp_layers = layers - (c.moe.shared_experts == 0 ? moe_layers : 0);
    const bool first = s == 0, last = s + 1 == c.virtual_stages();
    const double units = layers + (c.embeddings && first ? 1 : 0) + (c.embeddings && last ? 1 : 0);
    if (c.tp > 1) {
      // Per micro-batch, in all-reduces' worth of sends: 4 per layer (each
      // a reduce-scatter and an all-gather when sequence parallel), the
      // embedding's (1, and its backward all-gather), the head's (3 loss
      // all-reduces, 1 backward, and the forward all-gather).
      double ars = 0, halves = 0;  // all-reduces; reduce-scatters and all-gathers
      (sp ? halves : ars) += sp ? 4 * (layers + mlp_tp_layers) : 2 * (layers + mlp_tp_layers);
      if (c.embeddings && first) (sp ? halves : ars) += sp ? 2 : 1;
      if (c.embeddings && last) {
        ars += 3;
        (sp ? halves : ars) += sp ? 2 : 1;
      }
      const double groups = gdp * cp * mbs;
      total += allreduce_size(c.collective, tp, tp, more) * (ars * groups);
      total += half_size(c.collective, tp, tp, more) * (halves * groups);
    }
    if (c.cp > 1) {
      // Per layer and micro-batch, forward and backward: cp - 1 ring steps
      // of cp sends per CP group; step j's sends wait for a frontier of up
      // to kFrontier + 2j entries, and the TP collective after the kernel
      // for up to 2 cp more per initial send.
      const double groups = gdp * tp * mbs * layers * 2;
      const double steps = cp - 1;
      total += Size{steps * cp, cp * (kFrontier * steps + steps * (steps - 1)) + 2 * cp * tp * 2} *
               groups;
    }
    if (moe_layers > 0 && c.moe.ep > 1) {
      // Four all-to-alls per MoE layer and micro-batch over each of the
      // stage's tp * dp * cp / ep EP groups: ep (ep - 1) sends, all initial,
      // each waiting for up to 2 (ep - 1) + kFrontier frontier entries.
      const double ep = c.moe.ep, groups = tp * gdp * cp / ep;
      const double sends = 4 * moe_layers * mbs * groups * ep * (ep - 1);
      total += Size{sends, sends * (kFrontier + more)};
    }
    if (moe_layers > 0 && edp_size(c) > 1) {
      // The expert gradients over each of the stage's ep EDP groups.
      const double p = edp_size(c);
      const double units_e = moe_layers * c.moe.ep;
      if (c.dp_sharding == DpSharding::kNone) {
        total += allreduce_size(c.collective, p, p, more) * units_e;
      } else {
        total += half_size(c.collective, p, p, more) * (2 * units_e);
      }
    }
    if (!last) {
      // Pipeline sends to the next stage and back: one per TP/CP rank and
      // DP replica, per micro-batch and direction.
      total += Size{2 * mbs * tp * cp * gdp, 2 * mbs * tp * cp * gdp * kFrontier};
    }
    if (c.dp * c.cp > 1) {
      // Per unit, over each of the stage's tp DP x CP groups: the gradient
      // all-reduce, or its reduce-scatter and (distributed optimizer) the
      // parameter all-gather, or (FSDP) the reduce-scatter and two
      // parameter all-gathers per micro-batch.
      const double p = gdp * cp, ring = static_cast<double>(c.dp) * cp;
      switch (c.dp_sharding) {
        case DpSharding::kNone:
          total += allreduce_size(c.collective, p, ring, more) * (units * tp);
          break;
        case DpSharding::kOptimizer:
          total += half_size(c.collective, p, ring, more) * (2 * units * tp);
          break;
        case DpSharding::kFull:
          total += half_size(c.collective, p, ring, more) * ((1 + 2 * mbs) * units * tp);
          break;
      }
    }
  }
  const auto clamp = [](double x) {
    return x >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(x);
  };
  return {clamp(total.sends), clamp(total.deps)};
}

}  // namespace flux::workload
