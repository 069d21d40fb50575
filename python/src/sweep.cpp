// flux._flux.run_sweep, behind flux.sweep (python/flux/sweeps.py): a sweep
// file run into a directory as `flux sweep SPEC -o DIR` runs it (the steps
// shared in include/flux/frontend/sweep_driver.hpp), the same CSV row for
// row.
//
// Processes. The runner forks one child per point (src/sweep/runner.cpp).
// It forks from the calling thread with the GIL released: a child never
// runs Python (it computes its point, writes to its pipe and leaves with
// _exit), and it dies with the thread that forked it, which waits for it.
// Ctrl-C: the runner asks RunOptions::stop at least every 100 ms; that
// callback takes the GIL and runs Python's signal handlers (so Ctrl-C is
// seen when flux.sweep runs in the main thread, where Python runs them).
// A handler that raises (KeyboardInterrupt), or a `progress` callback that
// raises, stops the sweep: the running points are killed and not recorded,
// the CSV keeps every row finished (a later call resumes), and the
// exception propagates.
#include <optional>
#include <string>

#include "bindings.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/sweep_driver.hpp"
#include "flux/io/output.hpp"
#include "flux/sweep/runner.hpp"
#include "options.hpp"

namespace flux::python {
namespace {

sweep::SweepSpec read_spec(py::handle spec) {
  if (py::isinstance<py::dict>(spec)) {  // the JSON layout, as a dict
    std::string text;
    try {
      text = py::module_::import("json").attr("dumps")(spec).cast<std::string>();
    } catch (py::error_already_set& e) {
      // Nested past Python's recursion limit: past the sweep file's too.
      if (!e.matches(PyExc_RecursionError)) throw;
      throw core::InputError("<dict>", "", "",
                             "nested deeper than " + std::to_string(sweep::kMaxSweepDepth) +
                                 " levels, the limit of a sweep file");
    }
    return sweep::SweepSpec::parse(text, "<dict>", true);
  }
  const std::string path = path_arg(spec, "spec");
  return without_gil([&] { return sweep::SweepSpec::read(path); });
}

py::dict run_sweep(py::handle spec_arg, py::handle output, unsigned jobs,
                   const std::string& memory_budget, py::object point_timeout, bool fresh,
                   bool retry_failed, bool plot, py::object progress) {
  const sweep::SweepSpec spec = read_spec(spec_arg);
  const std::vector<sweep::Point> points = spec.points();
  sweep::RunOptions run;
  run.jobs = jobs;
  run.memory_budget_bytes = frontend::parse_memory_budget(memory_budget);
  if (!point_timeout.is_none()) {
    run.point_timeout_s = number_of(std::get<0>(sweep::kRunOptions), point_timeout);
  }
  const std::filesystem::path dir = path_arg(output, "output");
  io::prepare_output_directory(dir, "output");
  const io::DirectoryLock lock(dir, ".flux-sweep-" + spec.name + ".lock", "flux sweep");
  frontend::check_sweep_outputs(
      spec, points, dir, py::isinstance<py::dict>(spec_arg) ? "" : path_arg(spec_arg, "spec"),
      plot);
  const std::filesystem::path csv = dir / (spec.name + ".csv");
  sweep::ResultFile results(csv, sweep::csv_header(spec), points, fresh, sweep::csv_upgrade(spec));
  std::size_t resumed = 0;
  const std::vector<std::size_t> todo =
      frontend::points_to_run(points, results, retry_failed, resumed);

  // The first Python exception raised by a signal handler or `progress`.
  std::optional<py::error_already_set> raised;
  run.stop = [&] {
    py::gil_scoped_acquire gil;
    if (!raised && PyErr_CheckSignals() != 0) raised.emplace();
    return raised.has_value();
  };
  const auto on_done = [&](std::size_t index, const sweep::Outcome& out,
                           const sweep::RunProgress& p) {
    const sweep::Point& point = points[index];
    results.append(point.key(), sweep::csv_row(spec, point, out));
    if (progress.is_none()) return;
    py::gil_scoped_acquire gil;
    if (raised) return;
    try {
      py::dict d;
      d["done"] = p.done;
      d["total"] = p.total;
      d["failed"] = p.failed;
      d["running"] = p.running;
      d["elapsed"] = p.elapsed_s;
      d["point"] = point.key();
      d["status"] = std::string(sweep::to_string(out.status));
      d["error"] = out.error;
      d["wall"] = out.wall_s;
      progress(d);
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
    }
  };
  {
    py::gil_scoped_release release;
    sweep::run_points(points, todo, run, on_done);
  }
  if (raised) throw std::move(*raised);
  std::string summary = without_gil([&] {
    std::string s = frontend::finish_sweep(spec, points, results, dir);
    frontend::write_plots(spec, points, results.rows(), dir, plot, stdout);
    return s;
  });
  py::dict d;
  d["csv"] = csv.string();
  d["summary"] = std::move(summary);
  d["points"] = points.size();
  d["ran"] = todo.size();
  d["resumed"] = resumed;
  return d;
}

}  // namespace

void add_sweep(py::module_& m) {
  m.def("run_sweep", &run_sweep, py::arg("spec"), py::arg("output"), py::arg("jobs"),
        py::arg("memory_budget"), py::arg("point_timeout"), py::arg("fresh"),
        py::arg("retry_failed"), py::arg("plot"), py::arg("progress"),
        "flux.sweep's engine (python/flux/sweeps.py documents it).");
}

}  // namespace flux::python
