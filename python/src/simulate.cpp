// flux.simulate and what it returns (flux.SimResult): the simulator's
// metrics, per-send records, per-trial values with percentiles, and the
// metrics file and Chrome trace of `flux simulate`.
#include <optional>
#include <string>

#include "bindings.hpp"
#include "flux/core/routes.hpp"
#include "flux/formats/chrome_trace.hpp"
#include "flux/formats/metrics_json.hpp"
#include "flux/frontend/options.hpp"
#include "flux/io/save.hpp"
#include "flux/sim/perturb.hpp"
#include "options.hpp"

namespace flux::python {
namespace {

py::dict percentiles(const sim::Percentiles<std::int64_t>& p) {
  py::dict d;
  d["p50"] = p.p50;
  d["p95"] = p.p95;
  d["p99"] = p.p99;
  d["max"] = p.max;
  return d;
}

// (rank, factor): a tuple or list of an int and a number; anything else is
// an InputError naming straggler, as a bad 'RANK:FACTOR' is.
sim::Straggler straggler_of(py::handle v) {
  const auto bad = [&] {
    return core::InputError("", "straggler", text_of(v),
                            "expected (rank, factor) with 0 <= rank < 2^32, or 'RANK:FACTOR'");
  };
  if (!py::isinstance<py::tuple>(v) && !py::isinstance<py::list>(v)) throw bad();
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
  if (seq.size() != 2) throw bad();
  const std::optional<std::uint32_t> rank = detail::integer_of<std::uint32_t>(seq[0]);
  const py::object factor = seq[1];
  if (!rank || py::isinstance<py::bool_>(factor) ||
      !(py::isinstance<py::int_>(factor) || py::isinstance<py::float_>(factor))) {
    throw bad();
  }
  sim::Straggler st{*rank, factor.cast<double>()};
  sim::Perturbation p;
  p.straggler = st;
  p.validate();
  return st;
}

// `w` as the schedule's wiring routes it (core/routes.hpp): `w` itself, or
// the routed copy, whose sends the result's per-send columns and trace are.
std::shared_ptr<const core::Workload> routed(const std::shared_ptr<const core::Workload>& w,
                                             const schedule::Schedule& s) {
  const core::Routed r(*w, s.system, s.choice, s.routes);
  if (&r.workload() == w.get()) return w;
  return std::make_shared<const core::Workload>(r.workload());
}

PySimResult run_simulate(const PyWorkload& given_w, const PySchedule& s, py::kwargs given) {
  PyWorkload w = given_w;
  w.w = routed(given_w.w, *s.s);
  py::dict kw = given.attr("copy")();
  sim::SimOptions o;
  std::shared_ptr<const core::Workload> run_on;        // the workload the plan runs on, if another
  std::shared_ptr<const core::Workload> run_on_given;  // the same before routing
  apply_options(sim::kSimOptions, o, kw);
  std::optional<runtime::OnlineOptions> online;
  if (py::object v = take(kw, "online")) {
    if (!py::isinstance<py::bool_>(v)) {
      throw py::type_error("online: expected True or False, got " +
                           std::string(py::str(v.get_type().attr("__name__"))));
    }
    if (v.cast<bool>()) online.emplace();
  }
  runtime::OnlineOptions online_options;
  const std::size_t before = py::len(kw);
  try {
    apply_options(runtime::kOnlineOptions, online_options, kw);
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, runtime::kOnlineOptions);
  }
  // Without online=True they are refused whatever their values, as the CLI
  // refuses them without --online.
  if (!online && py::len(kw) != before) {
    throw core::InputError(
        "", "online", "False",
        "decision_budget, decision_latency and decision_reserve apply with online=True only");
  }
  try {
    online_options.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, runtime::kOnlineOptions);
  }
  if (online) online = online_options;
  if (py::object v = take(kw, "seed")) {
    try {  // the keyword is seed (the CLI's --perturb-seed)
      o.perturbation.seed = number_of(std::get<1>(sim::kPerturbationOptions), v);
    } catch (const core::InputError& e) {
      throw core::InputError("", "seed", e.value(), e.problem());
    }
  }
  try {
    // A fraction (0.05) or the CLI's text ("5%"), as everywhere (core/numbers.hpp).
    if (py::object v = take(kw, "compute_jitter")) {
      o.perturbation.compute_jitter = number_of(std::get<0>(sim::kPerturbationOptions), v);
    }
    if (py::object v = take(kw, "straggler")) {
      if (py::isinstance<py::str>(v)) {
        o.perturbation.straggler = sim::parse_straggler(v.cast<std::string>());
      } else if (!v.is_none()) {
        o.perturbation.straggler = straggler_of(v);
      }
    }
    if (py::object v = take(kw, "run_on")) {
      if (!v.is_none() && !py::isinstance<PyWorkload>(v)) {
        throw py::type_error("run_on: expected a flux.Workload, got " +
                             std::string(py::str(v.get_type().attr("__name__"))));
      }
      if (!v.is_none()) {
        run_on_given = v.cast<const PyWorkload&>().w;
        run_on = routed(run_on_given, *s.s);
      }
    }
    reject_unknown(kw, "simulate");
    o.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, sim::kSimOptions, sim::kPerturbationOptions);
  }
  if (o.perturbation.straggler && o.perturbation.straggler->rank >= w.w->accelerators()) {
    throw core::InputError("", "--straggler", std::to_string(o.perturbation.straggler->rank),
                           "the rank is not an accelerator of the workload (it has " +
                               std::to_string(w.w->accelerators()) + ")");
  }
  std::atomic<bool> stop{false};
  o.stop = &stop;  // Ctrl-C
  if (run_on) {
    try {
      sim::check_same_structure(*w.w, *run_on);
      (void)o.resolved_execution(true);
    } catch (const core::InputError& e) {
      if (e.field() == "execution") throw frontend::option_error(e, sim::kSimOptions);
      throw;
    }
  }
  // The simulator routes the workloads it is given (routing a routed one
  // again would not be the same under route='auto').
  const core::Workload& actual = run_on ? *run_on_given : *given_w.w;
  if (online) {
    if (!run_on) {
      throw core::InputError("", "online", "True",
                             "needs run_on: the actual iteration the plan runs on online");
    }
    auto run = interruptible(stop, [&] {
      return std::make_shared<runtime::OnlineRun>(
          runtime::run_online(*given_w.w, actual, *s.s, *online, o));
    });
    o.stop = nullptr;
    auto t = std::make_shared<sim::TrialsResult>();
    t->trials = {run->replay.metrics};
    t->iteration_time_ps = sim::nearest_rank(std::vector{run->replay.metrics.iteration_time_ps});
    t->peak_nic_bytes = sim::nearest_rank(
        std::vector{static_cast<std::int64_t>(run->replay.metrics.peak_nic_bytes)});
    t->all_delivered = run->replay.metrics.bytes_delivered == run_on->total_bytes();
    t->chosen = std::move(run->replay);
    t->wall_time_s = 0;
    auto plan = std::make_shared<const schedule::Schedule>(std::move(run->schedule));
    // The online schedule is the actual iteration's own (as flux simulate --online).
    return PySimResult{
        run_on,
        nullptr,
        std::move(plan),
        o,
        std::move(t),
        std::make_shared<const std::vector<runtime::Decision>>(std::move(run->decisions))};
  }
  auto trials = interruptible(stop, [&] {
    return std::make_shared<const sim::TrialsResult>(
        sim::simulate_trials_on(*given_w.w, actual, *s.s, o));
  });
  o.stop = nullptr;  // `stop` ends here; SimResult keeps the options
  if (run_on) return PySimResult{run_on, w.w, s.s, o, std::move(trials), nullptr};
  return PySimResult{w.w, nullptr, s.s, o, std::move(trials), nullptr};
}

const sim::Metrics& chosen(const PySimResult& r) {
  return r.trials->chosen.metrics;
}

template <class F>
auto per_trial(const PySimResult& r, F&& f) {
  const auto& t = r.trials->trials;
  return make_array<std::int64_t>(
      t.size(), [&](std::size_t i) { return static_cast<std::int64_t>(f(t[i])); });
}

/// A property: one time per send of the trace trial, a numpy column.
auto send_column(core::TimePs sim::SendRecord::*field) {
  return [field](const PySimResult& r) {
    const auto& sends = r.trials->chosen.sends;
    return make_array<std::int64_t>(sends.size(), [&](std::size_t i) { return sends[i].*field; });
  };
}

bool robust(const PySimResult& r) {
  return r.options.trials > 1 || r.options.perturbation.any();
}

}  // namespace

void add_simulate(py::module_& m) {
  py::class_<PySimResult>(m, "SimResult",
                          "A simulation's metrics (of the trace trial when there are several), "
                          "per-send records and per-trial values.")
      .def_property_readonly("iteration_time_ps",
                             [](const PySimResult& r) { return chosen(r).iteration_time_ps; })
      .def_property_readonly(
          "iteration_time",
          [](const PySimResult& r) { return core::ps_to_seconds(chosen(r).iteration_time_ps); },
          "s")
      .def_property_readonly("peak_nic_bytes",
                             [](const PySimResult& r) { return chosen(r).peak_nic_bytes; })
      .def_property_readonly(
          "nic_peak_bytes",
          [](const PySimResult& r) {
            const auto& v = chosen(r).nic_peak_bytes;
            return make_array<std::uint64_t>(v.size(), [&](std::size_t i) { return v[i]; });
          },
          "peak memory of each NIC (by rank), bytes")
      .def_property_readonly("reconfigurations",
                             [](const PySimResult& r) { return chosen(r).reconfigurations; })
      .def_property_readonly("circuits_set_up",
                             [](const PySimResult& r) { return chosen(r).circuits_set_up; })
      .def_property_readonly("circuit_utilization",
                             [](const PySimResult& r) {
                               const auto& u = chosen(r).circuit_utilization;
                               return u ? py::object(py::float_(*u)) : py::object(py::none());
                             })
      .def_property_readonly("wait_total_ps",
                             [](const PySimResult& r) { return chosen(r).wait_total_ps; })
      .def_property_readonly("wait_max_ps",
                             [](const PySimResult& r) { return chosen(r).wait_max_ps; })
      .def_property_readonly("bytes_sent",
                             [](const PySimResult& r) { return chosen(r).bytes_sent; })
      .def_property_readonly("bytes_delivered",
                             [](const PySimResult& r) { return chosen(r).bytes_delivered; })
      .def_property_readonly("bytes_relayed",
                             [](const PySimResult& r) { return chosen(r).bytes_relayed; })
      .def_property_readonly("scaleup_sends",
                             [](const PySimResult& r) { return chosen(r).scaleup_sends; })
      .def_property_readonly("scaleup_bytes",
                             [](const PySimResult& r) { return chosen(r).scaleup_bytes; })
      .def_property_readonly("packet_sends",
                             [](const PySimResult& r) { return chosen(r).packet_sends; })
      .def_property_readonly("packet_bytes",
                             [](const PySimResult& r) { return chosen(r).packet_bytes; })
      .def_property_readonly("events", [](const PySimResult& r) { return chosen(r).events; })
      .def_property_readonly(
          "wall_time", [](const PySimResult& r) { return r.trials->wall_time_s; },
          "wall time of the simulation (all trials), s")
      .def_property_readonly(
          "execution",
          [](const PySimResult& r) { return std::string(sim::to_string(r.trials->execution)); })
      .def_property_readonly("all_delivered",
                             [](const PySimResult& r) { return r.trials->all_delivered; })
      .def_property_readonly(
          "ready_ps", send_column(&sim::SendRecord::ready_ps),
          "per send (workload order): parents done, compute elapsed, release reached, ps")
      .def_property_readonly("issue_ps", send_column(&sim::SendRecord::issue_ps),
                             "per send: the NIC starts taking its bytes, ps")
      .def_property_readonly("finish_ps", send_column(&sim::SendRecord::finish_ps),
                             "per send: its last byte arrived, ps")
      .def_property_readonly("trials", [](const PySimResult& r) { return r.trials->trials.size(); })
      .def_property_readonly(
          "trial_iteration_time_ps",
          [](const PySimResult& r) {
            return per_trial(r, [](const sim::Metrics& t) { return t.iteration_time_ps; });
          },
          "iteration time of each trial, ps")
      .def_property_readonly("trial_peak_nic_bytes",
                             [](const PySimResult& r) {
                               return per_trial(
                                   r, [](const sim::Metrics& t) { return t.peak_nic_bytes; });
                             })
      .def_property_readonly("trial_reconfigurations",
                             [](const PySimResult& r) {
                               return per_trial(
                                   r, [](const sim::Metrics& t) { return t.reconfigurations; });
                             })
      .def_property_readonly(
          "iteration_time_percentiles_ps",
          [](const PySimResult& r) { return percentiles(r.trials->iteration_time_ps); },
          "nearest-rank p50, p95, p99 and max over the trials, ps")
      .def_property_readonly(
          "peak_nic_percentiles_bytes",
          [](const PySimResult& r) { return percentiles(r.trials->peak_nic_bytes); })
      .def(
          "write_metrics",
          [](const PySimResult& r, py::handle path) {
            const std::string p = path_arg(path, "path");
            without_gil([&] {
              io::save_file(p, [&](std::ostream& out) {
                formats::write_metrics(out, *r.w, *r.s, r.options, chosen(r),
                                       robust(r) ? r.trials.get() : nullptr, nullptr,
                                       r.planned_for.get());
              });
            });
          },
          py::arg("path"),
          "Writes the metrics file `flux simulate -o` writes (flux.metrics/v1 or v2).")
      .def(
          "write_trace",
          [](const PySimResult& r, py::handle path) {
            const std::string p = path_arg(path, "path");
            without_gil([&] {
              io::save_file(p, [&](std::ostream& out) {
                const sim::SimResult& c = r.trials->chosen;
                formats::write_chrome_trace(out, *r.w, c.executed ? *c.executed : *r.s, c);
              });
            });
          },
          py::arg("path"), "Writes the Chrome trace `flux simulate --trace` writes (Perfetto).")
      .def_property_readonly(
          "schedule", [](const PySimResult& r) { return PySchedule{r.s}; },
          "the schedule run: the one given, or with online=True the online schedule")
      .def_property_readonly(
          "decisions",
          [](const PySimResult& r) {
            py::list out;
            if (!r.decisions) return out;
            for (const runtime::Decision& d : *r.decisions) {
              py::dict x;
              x["label"] = d.label;
              x["instant_ps"] = d.instant_ps;
              x["latency_ps"] = d.latency_ps;
              x["wall_time"] = d.wall_s;
              x["sends"] = d.sends;
              x["placed"] = d.placed;
              x["pick"] = std::string(sched::to_string(d.pick));
              out.append(std::move(x));
            }
            return out;
          },
          "with online=True: per decision its all-to-all's label, instant and latency (ps), wall "
          "time (s), the sends it could move, those it placed anew and the candidate that won "
          "(plan, plan-switch, plan-order, longest-first); else empty")
      .def("__repr__", [](const PySimResult& r) {
        return "<flux.SimResult iteration time " +
               core::format_duration(chosen(r).iteration_time_ps) + ", " +
               std::to_string(r.trials->trials.size()) + " trial(s)>";
      });

  const sim::SimOptions defaults;
  m.def("simulate", &run_simulate, py::arg("workload"), py::arg("schedule"),
        ("Replays `workload` over `schedule` in the discrete-event simulator (validated first), "
         "as `flux simulate`. Keywords:\n" +
         options_doc(sim::kSimOptions, defaults) +
         "    compute_jitter: lognormal jitter on every compute duration, its coefficient of "
         "variation: a fraction (0.05) or a percentage string ('5%'); a bare number of 1 or "
         "more is refused as ambiguous [default 0]\n"
         "    straggler: (rank, factor) or 'RANK:FACTOR' [default None]\n"
         "    seed: seed of the perturbations, 0 to 2**63 - 1 [default 0]\n"
         "    run_on: a Workload of the same structure to execute the plan on (ordered "
         "execution; docs/model.md, 'Running a plan on another workload') [default None]\n"
         "    online: with run_on, run the plan online: each MoE all-to-all placed when its "
         "routing is revealed (docs/model.md, 'Online MoE scheduling') [default False]\n" +
         options_doc(runtime::kOnlineOptions, runtime::OnlineOptions{}))
            .c_str());
}

}  // namespace flux::python
