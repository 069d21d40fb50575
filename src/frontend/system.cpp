// The system a front end's options describe (include/flux/frontend/system.hpp).
#include "flux/frontend/system.hpp"

#include "flux/core/error.hpp"
#include "flux/core/option.hpp"
#include "flux/formats/wiring_json.hpp"
#include "flux/frontend/options.hpp"

namespace flux::frontend {

core::System SystemOptions::with_wiring() const {
  core::System s = system;
  // Not a file, or one already read (a schedule's own wiring).
  if (s.wiring.kind != core::WiringKind::kExplicit || s.wiring_ports) return s;
  if (!wiring_read_ || wiring_read_from_ != s.wiring.file) {
    wiring_read_ = std::make_shared<const core::Wiring>(formats::read_wiring(s.wiring.file));
    wiring_read_from_ = s.wiring.file;
  }
  s.wiring_ports = wiring_read_;
  if (!switches_given && wiring_read_->grouped()) s.switches = wiring_read_->planes();
  return s;
}

std::vector<io::InputSpec> SystemOptions::inputs() const {
  if (system.wiring.kind != core::WiringKind::kExplicit) return {};
  return {{system.wiring.file, "the wiring file (--wiring)"}};
}

core::System SystemOptions::to_system() const {
  core::System s = with_wiring();
  try {
    s.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return s;
}

core::System SystemOptions::to_system(const core::Workload& w) const {
  return to_system(w.accelerators(), w.scaleup_size(), w.scaleup_gbps());
}

core::System SystemOptions::to_system(std::uint32_t accelerators, std::uint32_t scaleup_size,
                                      double scaleup_gbps) const {
  core::System s = with_wiring();
  if (scaleup_size != 0 && !scaleup_size_given) s.scaleup_size = scaleup_size;
  if (scaleup_gbps != 0 && !scaleup_gbps_given) s.scaleup_gbps = scaleup_gbps;
  try {
    s.validate_for(accelerators);
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return s;
}

}  // namespace flux::frontend
