// The system a front end's options describe (include/flux/frontend/system.hpp).
#include "flux/frontend/system.hpp"

#include "flux/core/error.hpp"
#include "flux/core/option.hpp"
#include "flux/frontend/options.hpp"

namespace flux::frontend {

core::System SystemOptions::to_system() const {
  try {
    system.validate();
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return system;
}

core::System SystemOptions::to_system(const core::Workload& w) const {
  core::System s = system;
  if (w.scaleup_size() != 0 && !scaleup_size_given) s.scaleup_size = w.scaleup_size();
  if (w.scaleup_gbps() != 0 && !scaleup_gbps_given) s.scaleup_gbps = w.scaleup_gbps();
  try {
    s.validate_for(w.accelerators());
  } catch (const core::InputError& e) {
    throw option_error(e, core::kSystemOptions);
  }
  return s;
}

}  // namespace flux::frontend
