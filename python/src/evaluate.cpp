// flux._flux.evaluate, re-exported as flux.evaluate: a preset run into a
// directory as `flux evaluate --preset NAME -o DIR` runs it (the library's
// include/flux/frontend/evaluate.hpp), the same CSV row for row and the same
// summary.
//
// Processes, Ctrl-C and `progress` as flux.sweep's (sweep.cpp): the runner
// forks from the calling thread with the GIL released; a signal handler or
// a `progress` callback that raises stops the run (the CSV keeps every row
// finished, a later call resumes) and the exception propagates.
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "flux/core/time.hpp"
#include "flux/frontend/evaluate.hpp"
#include "flux/frontend/sweep_driver.hpp"
#include "flux/io/output.hpp"
#include "options.hpp"

namespace flux::python {
namespace {

// A list keyword as the command line's list: None (the preset's), or a
// list or tuple of str (as on the command line) or int; with `seconds`, a
// number is a time in seconds.
std::vector<std::string> list_arg(py::handle value, const std::string& name, const char* flag,
                                  bool seconds) {
  std::vector<std::string> out;
  if (value.is_none()) return out;
  if (py::isinstance<py::str>(value) ||
      !(py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) {
    throw py::type_error(name + ": expected a list, got " +
                         std::string(py::str(value.get_type().attr("__name__"))));
  }
  for (py::handle v : value) {
    if (py::isinstance<py::str>(v)) {
      out.push_back(v.cast<std::string>());
    } else if (py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v) && !seconds) {
      out.push_back(text_of(v));
    } else if (seconds && !py::isinstance<py::bool_>(v) &&
               (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v))) {
      const double s = v.cast<double>();
      if (!core::representable_seconds(s)) {
        throw core::InputError("", flag, text_of(v), "not a time Flux represents");
      }
      out.push_back(std::to_string(core::seconds_to_ps(s)) + "ps");
    } else {
      throw py::type_error(name + ": expected a list of " +
                           (seconds ? "str or numbers" : "str or int") + ", got " +
                           std::string(py::str(v.get_type().attr("__name__"))) + " in it");
    }
  }
  return out;
}

py::dict evaluate(const std::string& preset, py::handle output, py::handle layers, py::handle taus,
                  py::handle schedulers, py::handle time_limit, bool full, unsigned jobs,
                  bool fresh, bool plot, py::object progress) {
  frontend::EvaluateOptions o;
  o.preset = preset;
  o.layers = list_arg(layers, "layers", "--layers", false);
  o.taus = list_arg(taus, "taus", "--tau", true);
  o.schedulers = list_arg(schedulers, "schedulers", "--schedulers", false);
  if (!time_limit.is_none()) {
    py::dict kw;
    kw["time_limit"] = time_limit;
    apply_options(sched::kSchedulerOptions, o.run.sched, kw);
    o.time_limit_given = true;
  }
  o.full = full;
  o.jobs = jobs;
  o.fresh = fresh;
  const frontend::EvaluatePlan plan = without_gil([&] { return frontend::make_points(o); });
  const std::filesystem::path dir = path_arg(output, "output");
  io::prepare_output_directory(dir, "output");
  const io::DirectoryLock lock(dir, ".flux-evaluate.lock", "flux evaluate");

  // The first Python exception raised by a signal handler or `progress`.
  std::optional<py::error_already_set> raised;
  const auto stop = [&] {
    py::gil_scoped_acquire gil;
    if (!raised && PyErr_CheckSignals() != 0) raised.emplace();
    return raised.has_value();
  };
  const auto report = [&](const std::string& line) {
    if (progress.is_none()) return;
    py::gil_scoped_acquire gil;
    if (raised) return;
    try {
      progress(line);
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
    }
  };
  const frontend::EvaluateResult r = without_gil([&] {
    frontend::EvaluateResult result = frontend::run_evaluate(o, plan, dir, report, stop);
    if (!result.stopped && result.failures.empty()) {
      frontend::write_plots(plan.spec, plan.points, result.sweep_rows, dir, plot, stdout);
    }
    return result;
  });
  if (raised) throw std::move(*raised);
  if (!r.failures.empty()) throw core::Error(r.failure_message());
  py::dict d;
  d["csv"] = r.csv.string();
  d["summary_file"] = r.summary_file.string();
  d["summary"] = r.summary;
  d["points"] = r.points;
  d["resumed"] = r.resumed;
  d["ran"] = r.ran;
  d["measured"] = r.measured;
  d["cannot_run"] = r.cannot_run;
  return d;
}

}  // namespace

void add_evaluate(py::module_& m) {
  m.def("evaluate", &evaluate, py::arg("preset"), py::arg("output") = "results", py::kw_only(),
        py::arg("layers") = py::none(), py::arg("taus") = py::none(),
        py::arg("schedulers") = py::none(), py::arg("time_limit") = py::none(),
        py::arg("full") = false, py::arg("jobs") = 1, py::arg("fresh") = false,
        py::arg("plot") = false, py::arg("progress") = py::none(),
        R"(Runs a preset (sweeps/<preset>.toml: paper-fig2, real-jobs, robustness, moe,
fabrics) into the directory `output` as `flux evaluate --preset PRESET -o OUTPUT`
does: <stem>.csv (resumed unless fresh), summary.txt and, with plot, the plots.

layers, taus, schedulers: lists overriding the preset's (--layers, --tau,
--schedulers); time_limit (--time-limit) and full (--full: 600 s solves); jobs:
points at once (-j). progress(line) receives each line the CLI prints on stderr.
Returns a dict: csv, summary_file, summary (the text), points, resumed, ran,
measured and cannot_run (the points the configuration cannot run, "key: why").
Raises flux.InputError for a bad option or preset, flux.Error when points fail.)");
}

}  // namespace flux::python
