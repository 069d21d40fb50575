#pragma once
// The Python module flux._flux (python/README.md): the objects it hands to
// Python and the functions that add each part of it to the module.
//
// Conventions: every option is a keyword argument named after its
// command-line flag ("--time-limit" -> time_limit, "--no-lp-bound" ->
// lp_bound=False), converted and bounded by the library's option tables
// (options.hpp), so that a bad value raises the error the CLI prints. Times
// given to Flux are seconds (int or float) or strings with a unit ("10us");
// times coming back are picoseconds (int, *_ps) and seconds (float). Per-send
// values are numpy arrays filled from the library's vectors, never one Python
// object per send. Long calls release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <span>

#include "flux/core/system.hpp"
#include "flux/core/workload.hpp"
#include "flux/frontend/system.hpp"
#include "flux/runtime/online.hpp"
#include "flux/schedule/schedule.hpp"
#include "flux/sim/simulator.hpp"
#include "flux/workload/llama.hpp"

namespace flux::python {

namespace py = pybind11;

/// A workload; `llama` keeps the configuration it was generated from, so
/// that export_chakra can generate its program again (deterministic).
struct PyWorkload {
  std::shared_ptr<const core::Workload> w;
  std::optional<workload::TrainingConfig> llama;
};

/// A system, and whether the scale-up values were given (else a workload's
/// hints apply, as on the command line): the front end's SystemOptions.
using PySystem = frontend::SystemOptions;

struct PySchedule {
  std::shared_ptr<const schedule::Schedule> s;
};

/// What flux.simulate returns: the trials and what produced them (the
/// metrics file and the trace need all of it).
struct PySimResult {
  std::shared_ptr<const core::Workload> w;  ///< the workload run (run_on's, when given)
  /// With run_on: the workload the plan was made for; else null.
  std::shared_ptr<const core::Workload> planned_for;
  std::shared_ptr<const schedule::Schedule> s;
  sim::SimOptions options;
  std::shared_ptr<const sim::TrialsResult> trials;
  /// With online=True: the decisions of the online run (runtime/online.hpp).
  std::shared_ptr<const std::vector<runtime::Decision>> decisions;
};

/// A 1-D numpy array of `n` values, v[i] = f(i), filled in place.
template <class T, class F>
py::array_t<T> make_array(std::size_t n, F&& f) {
  py::array_t<T> a(static_cast<py::ssize_t>(n));
  T* out = a.mutable_data();
  for (std::size_t i = 0; i < n; ++i) out[i] = f(i);
  return a;
}

/// Runs `f` without the GIL.
template <class F>
decltype(auto) without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

/// Runs `f` on a worker thread without the GIL while the calling thread
/// looks for signals every 50 ms (Python runs its signal handlers only in the
/// main thread, between bytecodes). On Ctrl-C (a handler raising) it raises
/// `stop`, waits for `f` to end (f must watch `stop`: a scheduler's
/// SchedulerOptions::stop, the simulator's SimOptions::stop) and raises the
/// handler's exception
/// (KeyboardInterrupt). `f`'s own exceptions propagate.
template <class F>
auto interruptible(std::atomic<bool>& stop, F&& f) {
  py::gil_scoped_release release;
  auto done = std::async(std::launch::async, std::forward<F>(f));
  while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      stop.store(true);
      {
        py::gil_scoped_release wait;
        done.wait();
      }
      throw py::error_already_set();
    }
  }
  return done.get();
}

void add_errors(py::module_& m);
void add_workload(py::module_& m);
void add_schedule(py::module_& m);
void add_simulate(py::module_& m);
void add_sweep(py::module_& m);
void add_evaluate(py::module_& m);

}  // namespace flux::python
