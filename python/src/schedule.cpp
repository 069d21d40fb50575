// flux.System, the scheduler registry, flux.schedule, flux.Schedule with its
// files, and flux.validate.
#include <string>

#include "bindings.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/frontend/scheduler_run.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/schedule/validator.hpp"
#include "options.hpp"

namespace flux::python {
namespace {

PySystem make_system(py::kwargs given) {
  py::dict kw = given.attr("copy")();
  PySystem s;
  s.scaleup_size_given = kw.contains("scaleup_size");
  s.scaleup_gbps_given = kw.contains("scaleup_gbps");
  s.switches_given = kw.contains("switches");
  apply_options(core::kSystemOptions, s.system, kw);
  reject_unknown(kw, "System");
  (void)s.to_system();  // validated, errors naming the option
  return s;
}

py::object optional_ps(const std::optional<core::TimePs>& v) {
  return v ? py::object(py::int_(*v)) : py::object(py::none());
}
py::object optional_s(const std::optional<core::TimePs>& v) {
  return v ? py::object(py::float_(core::ps_to_seconds(*v))) : py::object(py::none());
}

/// Switch of each send; -1 for a send on the scale-up fabric, -2 for one
/// on the packet fabric.
py::array_t<std::int32_t> switch_array(const schedule::Schedule& s) {
  return make_array<std::int32_t>(s.tasks.size(), [&](std::size_t i) {
    const core::SwitchId sw = s.tasks[i].sw;
    return sw == core::kScaleUpSwitch  ? -1
           : sw == core::kPacketSwitch ? -2
                                       : static_cast<std::int32_t>(sw.value());
  });
}

/// Every circuit interval as columns (a table: pandas.DataFrame(...)).
py::dict circuits(const schedule::Schedule& s) {
  std::size_t n = 0;
  for (const auto& t : s.timelines) n += t.circuits.size();
  std::vector<std::pair<std::uint32_t, const schedule::CircuitInterval*>> all;
  all.reserve(n);
  for (std::size_t sw = 0; sw < s.timelines.size(); ++sw) {
    for (const auto& c : s.timelines[sw].circuits)
      all.emplace_back(static_cast<std::uint32_t>(sw), &c);
  }
  py::dict d;
  d["switch"] = make_array<std::uint32_t>(n, [&](std::size_t i) { return all[i].first; });
  d["a"] = make_array<std::uint32_t>(n, [&](std::size_t i) { return all[i].second->a.value(); });
  d["b"] = make_array<std::uint32_t>(n, [&](std::size_t i) { return all[i].second->b.value(); });
  d["setup_ps"] =
      make_array<std::int64_t>(n, [&](std::size_t i) { return all[i].second->setup_ps; });
  d["up_ps"] = make_array<std::int64_t>(n, [&](std::size_t i) { return all[i].second->up_ps; });
  d["down_ps"] = make_array<std::int64_t>(n, [&](std::size_t i) { return all[i].second->down_ps; });
  return d;
}

PySchedule run_schedule(const PyWorkload& w, const PySystem* system_arg, py::kwargs given) {
  py::dict kw = given.attr("copy")();
  std::string scheduler = "flux";
  if (py::object v = take(kw, "scheduler")) scheduler = string_arg(v, "scheduler");
  frontend::SchedulerRun run;
  run.scheduler = scheduler;
  apply_options(sched::kSchedulerOptions, run.sched, kw);
  apply_options(sched::kMilpOptions, run.sched.milp, kw);
  if (py::object v = take(kw, "export_milp"))
    run.sched.milp.export_path = path_arg(v, "export_milp");
  if (py::object v = take(kw, "solution")) run.sched.milp.solution_path = path_arg(v, "solution");
  if (py::object v = take(kw, "alternative")) run.sched.collective = string_arg(v, "alternative");
  reject_unknown(kw, "schedule");
  sched::SchedulerOptions options = run.resolve();
  // The workload's scale-up hints unless the System gives its own.
  const core::System system = (system_arg ? *system_arg : PySystem{}).to_system(*w.w);
  std::atomic<bool> stop{false};
  options.stop = &stop;  // Ctrl-C
  auto s = interruptible(stop, [&] {
    return std::make_shared<const schedule::Schedule>(
        frontend::run_named_scheduler(scheduler, *w.w, system, options));
  });
  return PySchedule{std::move(s)};
}

py::dict scheduler_registry() {
  py::dict d;
  for (std::string_view name : sched::scheduler_names()) {
    d[py::str(std::string(name))] = std::string(sched::make_scheduler(name)->description());
  }
  return d;
}

PySystem system_of(const PySchedule& s) {
  PySystem out;  // the schedule's own: nothing of a workload's applies
  out.system = s.s->system;
  out.scaleup_size_given = out.scaleup_gbps_given = out.switches_given = true;
  return out;
}

}  // namespace

void add_schedule(py::module_& m) {
  const core::System defaults;
  py::class_<PySystem>(m, "System",
                       ("The optical fabric (the paper's section 3): s switches, a link from "
                        "every accelerator to each, reconfiguration delay tau; optionally "
                        "scale-up (NVLink) domains. Keywords, as `flux schedule`'s options:\n" +
                        options_doc(core::kSystemOptions, defaults) +
                        "Times are seconds (int or float) or strings with a unit ('10us').")
                           .c_str())
      .def(py::init(&make_system))
      .def_property_readonly("switches", [](const PySystem& s) { return s.system.switches; })
      .def_property_readonly("link_gbps", [](const PySystem& s) { return s.system.link_gbps; })
      .def_property_readonly(
          "tau", [](const PySystem& s) { return core::ps_to_seconds(s.system.reconfig_delay_ps); },
          "reconfiguration delay, s")
      .def_property_readonly("tau_ps", [](const PySystem& s) { return s.system.reconfig_delay_ps; })
      .def_property_readonly("scaleup_size",
                             [](const PySystem& s) { return s.system.scaleup_size; })
      .def_property_readonly("scaleup_gbps",
                             [](const PySystem& s) { return s.system.scaleup_gbps; })
      .def_property_readonly(
          "duplex", [](const PySystem& s) { return std::string(core::to_string(s.system.duplex)); },
          "half (the paper's model) or full")
      .def_property_readonly(
          "wiring", [](const PySystem& s) { return core::to_string(s.system.wiring); },
          "full (the paper's model), rails or file:PATH")
      .def_property_readonly("ocs_radix", [](const PySystem& s) { return s.system.ocs_radix; })
      .def_property_readonly(
          "packet_gbps", [](const PySystem& s) { return s.system.packet_gbps; },
          "the packet fabric's NIC rate per direction, Gb/s (0: none)")
      .def_property_readonly(
          "packet_latency",
          [](const PySystem& s) { return core::ps_to_seconds(s.system.packet_latency_ps); },
          "latency of one packet transfer, s")
      .def_property_readonly("packet_oversubscription",
                             [](const PySystem& s) { return s.system.packet_oversubscription; })
      .def_property_readonly(
          "route", [](const PySystem& s) { return std::string(core::to_string(s.system.route)); },
          "forward, forward-rx, packet or auto")
      .def("__repr__", [](const PySystem& s) {
        std::string r = "flux.System(switches=" + std::to_string(s.system.switches) + ", tau='" +
                        core::format_duration(s.system.reconfig_delay_ps) + "', link_gbps=" +
                        core::NumberOption<core::System, double>::show_number(s.system.link_gbps);
        if (s.system.has_scaleup()) {
          r += ", scaleup_size=" + std::to_string(s.system.scaleup_size) + ", scaleup_gbps=" +
               core::NumberOption<core::System, double>::show_number(s.system.scaleup_gbps);
        }
        if (s.system.duplex != core::Duplex::kHalf) {
          r += ", duplex='" + std::string(core::to_string(s.system.duplex)) + "'";
        }
        if (s.system.wiring.kind != core::WiringKind::kFull) {
          r += ", wiring='" + core::to_string(s.system.wiring) + "'";
        }
        if (s.system.ocs_radix != 0) r += ", ocs_radix=" + std::to_string(s.system.ocs_radix);
        if (s.system.has_packet()) {
          using Show = core::NumberOption<core::System, double>;
          r += ", packet_gbps=" + Show::show_number(s.system.packet_gbps);
          if (s.system.packet_latency_ps != 0) {
            r += ", packet_latency='" + core::format_duration(s.system.packet_latency_ps) + "'";
          }
          if (s.system.packet_oversubscription != 1) {
            r += ", packet_oversubscription=" + Show::show_number(s.system.packet_oversubscription);
          }
        }
        if (s.system.route != core::RoutePolicy::kForward) {
          r += ", route='" + std::string(core::to_string(s.system.route)) + "'";
        }
        return r + ")";
      });

  py::class_<PySchedule>(m, "Schedule",
                         "A scheduler's result: a switch and a start per send (task-level "
                         "schedulers) and the circuit timeline of every switch. Validated.")
      .def_property_readonly("scheduler", [](const PySchedule& s) { return s.s->scheduler; })
      .def_property_readonly(
          "workload", [](const PySchedule& s) { return s.s->workload; }, "the workload's name")
      .def_property_readonly("system", &system_of)
      .def_property_readonly(
          "status",
          [](const PySchedule& s) { return std::string(schedule::to_string(s.s->status)); },
          "optimal, feasible, infeasible, no_solution or error")
      .def_property_readonly(
          "makespan_ps", [](const PySchedule& s) { return s.s->makespan_ps; },
          "iteration time the schedule plans, ps (0 for circuit-only schedules)")
      .def_property_readonly(
          "makespan", [](const PySchedule& s) { return core::ps_to_seconds(s.s->makespan_ps); },
          "s")
      .def_property_readonly(
          "bound_ps", [](const PySchedule& s) { return optional_ps(s.s->lower_bound_ps); },
          "lower bound on the optimum, ps, or None")
      .def_property_readonly(
          "bound", [](const PySchedule& s) { return optional_s(s.s->lower_bound_ps); },
          "s, or None")
      .def_property_readonly(
          "gap",
          [](const PySchedule& s) {
            return s.s->gap ? py::object(py::float_(*s.s->gap)) : py::object(py::none());
          },
          "(makespan - bound) / bound, or None")
      .def_property_readonly(
          "solve_time",
          [](const PySchedule& s) {
            return s.s->solve_time_s ? py::object(py::float_(*s.s->solve_time_s))
                                     : py::object(py::none());
          },
          "the scheduler's wall time, s, or None")
      .def_property_readonly(
          "choice", [](const PySchedule& s) { return s.s->choice; },
          "a workload generated with collective='auto': the alternative run of each collective "
          "in several decompositions (its choice groups' order); else []")
      .def_property_readonly(
          "routes", [](const PySchedule& s) { return s.s->routes; },
          "route='auto' on a wiring that forwards: the route taken by each send with several "
          "('forward', 'forward-rx', 'packet'), in send order; else []")
      .def_property_readonly(
          "period_ps", [](const PySchedule& s) { return optional_ps(s.s->period_ps); },
          "periodic timelines: the period, ps; else None")
      .def_property_readonly(
          "circuit_model",
          [](const PySchedule& s) { return std::string(schedule::to_string(s.s->circuit_model)); })
      .def_property_readonly(
          "routing",
          [](const PySchedule& s) { return std::string(schedule::to_string(s.s->routing)); })
      .def_property_readonly(
          "task_ids",
          [](const PySchedule& s) {
            return make_array<std::uint64_t>(s.s->tasks.size(),
                                             [&](std::size_t i) { return s.s->tasks[i].task_id; });
          },
          "the workload's id of each assigned send (empty for circuit-only schedules)")
      .def_property_readonly(
          "switch", [](const PySchedule& s) { return switch_array(*s.s); },
          "switch of each send, int32; -1: the scale-up fabric")
      .def_property_readonly(
          "start_ps",
          [](const PySchedule& s) {
            return make_array<std::int64_t>(s.s->tasks.size(),
                                            [&](std::size_t i) { return s.s->tasks[i].start_ps; });
          },
          "start of each send, ps")
      .def_property_readonly("num_circuits",
                             [](const PySchedule& s) {
                               std::size_t n = 0;
                               for (const auto& t : s.s->timelines) n += t.circuits.size();
                               return n;
                             })
      .def(
          "circuits", [](const PySchedule& s) { return circuits(*s.s); },
          "Every circuit interval as columns: switch, a, b (a < b), setup_ps, up_ps, down_ps "
          "(numpy arrays; pandas.DataFrame(schedule.circuits()) makes a table).")
      .def("__repr__", [](const PySchedule& s) {
        return "<flux.Schedule " + s.s->scheduler + " of '" + s.s->workload +
               "': " + std::string(schedule::to_string(s.s->status)) + ", makespan " +
               core::format_duration(s.s->makespan_ps) + ">";
      });

  py::class_<schedule::ValidationReport>(m, "ValidationReport", "The validator's verdict.")
      .def_property_readonly("ok", &schedule::ValidationReport::ok)
      .def_readonly("violation_count", &schedule::ValidationReport::violation_count)
      .def_readonly("violations", &schedule::ValidationReport::violations,
                    "the first violations, human-readable")
      .def("__bool__", &schedule::ValidationReport::ok)
      .def("__str__", &schedule::ValidationReport::to_string);

  m.def("schedulers", &scheduler_registry, "The registered schedulers: {name: description}.");
  const sched::SchedulerOptions sched_defaults;
  m.def("schedule", &run_schedule, py::arg("workload"), py::arg("system") = py::none(),
        ("Runs a scheduler (scheduler='flux' by default; flux.schedulers() lists them) on "
         "`workload` over `system` (default flux.System(), with the workload's scale-up hints "
         "unless the System gives its own), and validates the schedule, as `flux schedule`. "
         "Keywords:\n    scheduler: a registered name\n" +
         options_doc(sched::kSchedulerOptions, sched_defaults) +
         options_doc(sched::kMilpOptions, sched_defaults.milp) +
         "    export_milp: flux-milp: write the model (.lp or .mps) here instead of solving\n"
         "    solution: flux-milp: decode a solver's .sol file for the exported model\n"
         "    alternative: a workload generated with collective='auto': every collective in its "
         "alternative of this name (ring, direct, ...) instead of choosing\n")
            .c_str());
  m.def(
      "validate",
      [](const PyWorkload& w, const PySchedule& s, std::size_t max_violations,
         bool check_makespan) {
        schedule::ValidationOptions o;
        o.max_violations = max_violations;
        o.check_makespan = check_makespan;
        return without_gil([&] { return schedule::validate(*w.w, *s.s, o); });
      },
      py::arg("workload"), py::arg("schedule"), py::kw_only(), py::arg("max_violations") = 20,
      py::arg("check_makespan") = true,
      "Checks `schedule` against `workload` with the independent validator (`flux validate`).");
  m.def(
      "read_schedule",
      [](py::handle path) {
        const std::string p = path_arg(path, "path");
        return PySchedule{without_gil(
            [&] { return std::make_shared<const schedule::Schedule>(formats::read_schedule(p)); })};
      },
      py::arg("path"), "Reads a schedule file (flux.schedule/v1 or v2).");
  m.def(
      "write_schedule",
      [](const PySchedule& s, py::handle path) {
        const std::string p = path_arg(path, "path");
        without_gil([&] { formats::save_schedule(p, *s.s); });
      },
      py::arg("schedule"), py::arg("path"), "Writes a schedule file atomically.");
}

}  // namespace flux::python
