// The extension module flux._flux; the package flux (python/flux) re-exports
// it. bindings.hpp states the conventions.
#include "bindings.hpp"

PYBIND11_MODULE(_flux, m) {
  m.doc() = "Flux: optical circuit switch scheduling for LLM training (the C++ library)";
  flux::python::add_errors(m);
  flux::python::add_workload(m);
  flux::python::add_schedule(m);
  flux::python::add_simulate(m);
  flux::python::add_sweep(m);
  flux::python::add_evaluate(m);
}
