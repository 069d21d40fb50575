// Library exceptions as the Python exceptions of flux.errors:
// core::InputError -> flux.InputError (file, field, value, problem; str() is
// the CLI's message), schedule::ScheduleError -> flux.ScheduleError
// (violations), any other core::Error -> flux.Error.
#include "bindings.hpp"
#include "flux/core/error.hpp"
#include "flux/schedule/validator.hpp"

namespace flux::python {

void add_errors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    const py::module_ errors = py::module_::import("flux.errors");
    try {
      std::rethrow_exception(p);
    } catch (const core::InputError& e) {
      py::object cls = errors.attr("InputError");
      PyErr_SetObject(cls.ptr(),
                      cls(e.what(), e.source(), e.field(), e.value(), e.problem()).ptr());
    } catch (const schedule::ScheduleError& e) {
      py::object cls = errors.attr("ScheduleError");
      PyErr_SetObject(cls.ptr(), cls(e.what(), e.violations(), e.violation_count()).ptr());
    } catch (const core::Error& e) {
      py::object cls = errors.attr("Error");
      PyErr_SetObject(cls.ptr(), cls(e.what()).ptr());
    }
  });
}

}  // namespace flux::python
