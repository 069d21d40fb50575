#pragma once
// Predicting an iteration's MoE routing from the earlier ones (docs/model.md,
// "Uncertain routing", predictors): what a plan made before iteration i runs
// is made for, when the routing drifts (zipf-drift:S:D) or is measured.
//
//   last:    the matrices of iteration i - 1;
//   ewma:A:  per matrix entry, x_i = A * y_{i-1} + (1 - A) * x_{i-1}, x_1 =
//            y_0 (y the observed counts, 0 < A <= 1; ewma:1 is last), each
//            row rounded to integers by largest remainder (ties to the lower
//            destination) with its total the row's rounded total, so every
//            row still routes at most T * K (the rest counted dropped).
//
// Deterministic: the same observations give the same matrices, bit for bit
// (IEEE doubles in a fixed order).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flux/workload/routing.hpp"

namespace flux::workload {

struct PredictorSpec {
  double alpha = 1;  ///< the weight of the newest iteration; 1: last
  /// "last" or "ewma:A" (A in (0, 1]); throws core::InputError (field
  /// `field`) otherwise.
  static PredictorSpec parse(std::string_view text, std::string_view field = "predictor");
  /// "last", or "ewma:0.5".
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const PredictorSpec&, const PredictorSpec&) = default;
};

class Predictor {
 public:
  explicit Predictor(PredictorSpec spec) : spec_(spec) {}
  /// Takes an iteration's routing (every one of the same shape, in order).
  /// Throws core::InputError (field routing) on another shape.
  void observe(const RoutingMatrices& actual);
  /// The predicted routing of the next iteration, as a RoutingSpec of kind
  /// kMatrices (named by the predictor). Throws std::logic_error before any
  /// observation.
  [[nodiscard]] RoutingSpec predicted() const;
  [[nodiscard]] std::uint32_t observed() const { return observed_; }

 private:
  PredictorSpec spec_;
  RoutingShape shape_;
  std::uint32_t observed_ = 0;
  std::vector<double> tokens_;  // per matrix entry, matrices in RoutingMatrices' order
};

}  // namespace flux::workload
