#pragma once
// The system a front end's options describe (core::kSystemOptions:
// --switches, --link-gbps, --tau, --scaleup-size, ...), and the system it
// runs a workload on: the workload's scale-up hints unless the options give
// their own.
#include <memory>
#include <string>

#include <vector>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/io/output.hpp"

namespace flux::frontend {

/// The system's options as given, and whether the scale-up values were
/// given (else a workload's hints apply).
struct SystemOptions {
  core::System system;
  bool scaleup_size_given = false;
  bool scaleup_gbps_given = false;
  bool switches_given = false;

  /// Validates; throws core::InputError naming the option. Under
  /// --wiring file:W.json reads W.json (once) into the system's
  /// wiring_ports, its planes the switches unless --switches is given.
  [[nodiscard]] core::System to_system() const;
  /// The system for workload `w`: without --scaleup-size (--scaleup-gbps)
  /// given, the workload's hint (core::Workload::scaleup_size,
  /// scaleup_gbps) if it has one; validated, and the scale-up domains must
  /// tile its accelerators (core::System::validate_for). Errors name the
  /// option.
  [[nodiscard]] core::System to_system(const core::Workload& w) const;
  /// The same for a workload of `accelerators` with these hints (0: none).
  [[nodiscard]] core::System to_system(std::uint32_t accelerators, std::uint32_t scaleup_size,
                                       double scaleup_gbps) const;

  /// The files the options read (--wiring file:W.json), for
  /// io::check_outputs: an output never overwrites them.
  [[nodiscard]] std::vector<io::InputSpec> inputs() const;

 private:
  [[nodiscard]] core::System with_wiring() const;
  mutable std::shared_ptr<const core::Wiring> wiring_read_;  ///< the file, once read
  mutable std::string wiring_read_from_;
};

}  // namespace flux::frontend
