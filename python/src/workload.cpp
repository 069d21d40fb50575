// flux.Workload, reading and writing workload files, the generators
// (flux.generate.llama3, flux.generate.moe, flux.generate.random) and
// Chakra traces in and out.
// The generators take the options of `flux generate` through the same
// option tables and resolution (the front end, include/flux/frontend/), so
// a keyword means what its flag means and a bad value raises what the CLI
// prints.
#include <malloc.h>

#include <string>
#include <vector>

#include "bindings.hpp"
#include "flux/chakra/export.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/routes.hpp"
#include "flux/core/summary.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/frontend/memory.hpp"
#include "flux/frontend/options.hpp"
#include "flux/frontend/outputs.hpp"
#include "flux/frontend/training.hpp"
#include "flux/frontend/workload_input.hpp"
#include "flux/workload/random.hpp"
#include "options.hpp"

namespace flux::python {
namespace {

PyWorkload wrap(core::Workload w) {
  return PyWorkload{std::make_shared<const core::Workload>(std::move(w)), std::nullopt};
}

py::dict summary_dict(const core::Workload& given, const PySystem* system) {
  // Under a wiring, the sends as it routes them (the first alternative and
  // route of each choice), as flux info describes them.
  std::optional<core::Routed> routed;
  if (system && system->system.wiring.kind != core::WiringKind::kFull) {
    routed.emplace(core::first_routed(given, system->system));
  }
  const core::Workload& w = routed ? routed->workload() : given;
  const core::WorkloadSummary s = core::summarize(w, system ? system->system : core::System{});
  py::dict d;
  d["sends"] = s.tasks;
  d["deps"] = s.deps;
  d["total_bytes"] = s.total_bytes;
  d["min_bytes"] = s.min_bytes;
  d["max_bytes"] = s.max_bytes;
  d["pairs"] = s.pairs;
  d["labels"] = s.labels;
  d["total_compute_ps"] = s.total_compute_ps;
  d["critical_path_ps"] = s.critical_path_ps;
  d["compute_on_path_ps"] = s.compute_on_path_ps;
  d["transmission_sum_ps"] = s.transmission_sum_ps;
  return d;
}

py::array_t<std::uint64_t> traffic_matrix(const core::Workload& w) {
  const std::uint64_t n = w.accelerators();
  constexpr std::uint64_t kMaxCells = std::uint64_t{1} << 28;  // 2 GiB of uint64
  if (n * n > kMaxCells) {
    throw core::InputError("", "accelerators", std::to_string(n),
                           "a dense traffic matrix of this many accelerators needs " +
                               std::to_string(n * n * 8 >> 20) +
                               " MiB: use traffic_pairs() (sparse)");
  }
  py::array_t<std::uint64_t> m({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(n)});
  std::uint64_t* out = m.mutable_data();
  std::fill(out, out + n * n, 0);
  for (const core::PairTraffic& p : core::traffic_pairs(w)) {
    out[std::uint64_t{p.src.value()} * n + p.dst.value()] = p.bytes;
  }
  return m;
}

py::tuple pair_arrays(const core::Workload& w) {
  const std::vector<core::PairTraffic> pairs = core::traffic_pairs(w);
  return py::make_tuple(
      make_array<std::uint32_t>(pairs.size(), [&](std::size_t i) { return pairs[i].src.value(); }),
      make_array<std::uint32_t>(pairs.size(), [&](std::size_t i) { return pairs[i].dst.value(); }),
      make_array<std::uint64_t>(pairs.size(), [&](std::size_t i) { return pairs[i].bytes; }));
}

/// flux.generate.llama3 (`moe` false) and flux.generate.moe: the keywords
/// of `flux generate llama3` / `moe` into frontend::TrainingOptions, resolved
/// on the command's defaults as the CLI resolves them.
PyWorkload training(py::kwargs given, bool moe) {
  py::dict kw = given.attr("copy")();
  frontend::TrainingOptions t;
  t.moe = moe;
  auto text = [&](const char* name, std::string& into) {
    if (py::object v = take(kw, name)) into = string_arg(v, name);
  };
  auto flag = [&](const char* name, bool& into) {
    if (py::object v = take(kw, name)) {
      if (!py::isinstance<py::bool_>(v))
        throw py::type_error(std::string(name) + ": expected a bool");
      into = v.cast<bool>();
    }
  };
  if (!moe) text("job", t.job);  // `flux generate moe` has no --job
  text("model", t.model);
  text("gpu", t.gpu);
  text("collective", t.collective);
  text("order", t.order);
  text("dp_sharding", t.dp_sharding);
  flag("sequence_parallel", t.sequence_parallel);
  flag("embeddings", t.embeddings);
  bool optimizer = true;
  flag("optimizer", optimizer);
  t.no_optimizer = !optimizer;
  collect_options(workload::kModelOptions, t.model_overrides, kw);
  collect_options(workload::kTrainingOptions, t.overrides, kw);
  collect_options(workload::kGpuOptions, t.gpu_overrides, kw);
  if (moe) {
    collect_options(workload::kMoeOptions, t.moe_overrides, kw);
    text("routing", t.routing);
    collect_options(workload::kRoutingOptions, t.routing_overrides, kw);
  }
  reject_unknown(kw, moe ? "moe" : "llama3");
  const workload::TrainingConfig config =
      t.resolve(moe ? frontend::moe_generate_defaults() : frontend::generate_defaults());
  const workload::WorkloadSize size = workload::estimate_llama_size(config);
  frontend::refuse_if_too_large(
      core::workload_memory_bytes(size.tasks, size.deps),
      core::InputError("", "--dp", std::to_string(config.dp),
                       "about " + std::to_string(size.tasks) +
                           (config.moe.enabled()
                                ? " sends; generate fewer layers, micro-batches or DP replicas (a "
                                  "MoE job cannot be folded)"
                                : " sends; fold the DP replicas (fold_dp, e.g. fold_dp=4)")));
  PyWorkload w = wrap(without_gil([&] { return workload::generate_llama(config); }));
  w.llama = config;
  return w;
}

PyWorkload llama3(py::kwargs given) {
  return training(std::move(given), false);
}
PyWorkload moe(py::kwargs given) {
  return training(std::move(given), true);
}

PyWorkload random_dag(py::kwargs given) {
  py::dict kw = given.attr("copy")();
  workload::RandomOptions o;
  apply_options(workload::kRandomOptions, o, kw);
  reject_unknown(kw, "random");
  try {
    o.validate();
  } catch (const core::InputError& e) {
    throw frontend::option_error(e, workload::kRandomOptions);
  }
  frontend::refuse_if_too_large(
      core::workload_memory_bytes(o.sends, o.max_deps()),
      core::InputError("", "--sends", std::to_string(o.sends), "generate fewer sends"));
  return wrap(without_gil([&] { return workload::generate_random(o); }));
}

PyWorkload import_chakra(py::handle prefix_arg, py::kwargs given) {
  py::dict kw = given.attr("copy")();
  const std::string prefix = path_arg(prefix_arg, "prefix");
  frontend::ChakraOptions c;
  if (py::object v = take(kw, "comm_groups")) c.comm_groups = path_arg(v, "comm_groups");
  if (py::object v = take(kw, "gpu")) c.gpu = string_arg(v, "gpu");
  if (py::object v = take(kw, "collective")) c.collective = string_arg(v, "collective");
  if (py::object v = take(kw, "drop_missing_deps"))
    c.drop_missing_deps = bool_arg(v, "drop_missing_deps");
  std::string name;
  if (py::object v = take(kw, "name")) name = string_arg(v, "name");
  chakra::ImportOptions table;
  apply_options(chakra::kImportOptions, table, kw);
  reject_unknown(kw, "import_chakra");
  std::vector<std::string> notes;
  chakra::ImportResult r = without_gil([&] {
    chakra::ImportOptions options = c.resolve(prefix, notes);
    options.name = name;
    options.scaleup_size = table.scaleup_size;
    frontend::check_import_scaleup(prefix, options);
    chakra::ImportResult result = chakra::import_chakra(prefix, options);
    malloc_trim(0);  // as the CLI: the traces' many small blocks back to the system
    return result;
  });
  const py::object warn = py::module_::import("warnings").attr("warn");
  for (const std::string& w : r.warnings)
    warn(w, py::module_::import("flux.errors").attr("TraceWarning"));
  return wrap(std::move(r.workload));
}

py::list export_chakra(const PyWorkload& w, py::handle prefix_arg, const std::string& collectives,
                       bool gzip, py::handle choice_arg) {
  const std::string prefix = path_arg(prefix_arg, "prefix");
  if (!w.llama) {
    throw core::InputError(
        "", "workload", w.w->name(),
        "only a workload made by flux.generate.llama3 or flux.generate.moe has a "
        "Chakra form (its program: the steps every rank runs)");
  }
  if (w.llama->generated_dp() != w.llama->dp) {
    throw core::InputError("", "--fold-dp", std::to_string(w.llama->fold_dp),
                           "a folded workload has no Chakra form (every rank needs its trace)");
  }
  if (collectives != "comm-coll" && collectives != "send-recv") {
    throw core::InputError("", "--chakra-collectives", collectives,
                           "unknown encoding (comm-coll or send-recv)");
  }
  // choice: a flux.Schedule of this workload, or the alternatives' names.
  core::Choice choice;
  if (py::isinstance<PySchedule>(choice_arg)) {
    const schedule::Schedule& s = *choice_arg.cast<const PySchedule&>().s;
    choice = core::choice_of_plan(*w.w, s.choice, s.workload);
  } else if (py::isinstance<py::sequence>(choice_arg) && !py::isinstance<py::str>(choice_arg)) {
    choice = core::choice_of_plan(*w.w, choice_arg.cast<std::vector<std::string>>(), "");
  } else if (!choice_arg.is_none()) {
    throw core::InputError("", "choice", std::string(py::str(choice_arg)),
                           "a flux.Schedule or a list of alternative names, one per group");
  }
  frontend::check_output_prefix(prefix, "prefix");
  const auto files = without_gil([&] {
    workload::Program program;
    const core::Workload again = workload::generate_llama(*w.llama, &program);
    const auto encoding = collectives == "comm-coll" ? chakra::CollectiveEncoding::kCommColl
                                                     : chakra::CollectiveEncoding::kSendRecv;
    return chakra::save_chakra(prefix, chakra::to_chakra(again, program, encoding, choice), gzip);
  });
  py::list out;
  for (const auto& f : files) out.append(f.string());
  return out;
}

/// A property: one value per row of `rows` (the sends, the dependencies),
/// a numpy column.
template <class T, class Rows, class Get>
auto column(Rows rows, Get get) {
  return [rows, get](const PyWorkload& w) {
    const auto all = rows(*w.w);
    return make_array<T>(all.size(), [&](std::size_t i) { return get(all[i]); });
  };
}
template <class T, class Get>
auto task_column(Get get) {
  return column<T>([](const core::Workload& w) { return w.tasks(); }, get);
}
template <class T, class Get>
auto dep_column(Get get) {
  return column<T>([](const core::Workload& w) { return w.deps(); }, get);
}

/// "a, b, c".
template <class Names>
std::string name_list(const Names& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out.append(", ");
    out.append(n);
  }
  return out;
}

}  // namespace

void add_workload(py::module_& m) {
  py::class_<PyWorkload>(m, "Workload",
                         "One training iteration: a DAG of sends (src, dst, bytes) whose edges "
                         "carry compute time. Immutable; per-send values are numpy arrays.")
      .def_property_readonly("name", [](const PyWorkload& w) { return w.w->name(); })
      .def_property_readonly("accelerators",
                             [](const PyWorkload& w) { return w.w->accelerators(); })
      .def_property_readonly("num_sends", [](const PyWorkload& w) { return w.w->num_tasks(); })
      .def_property_readonly("num_deps", [](const PyWorkload& w) { return w.w->num_deps(); })
      .def_property_readonly("total_bytes", [](const PyWorkload& w) { return w.w->total_bytes(); })
      .def_property_readonly(
          "fold_copies", [](const PyWorkload& w) { return w.w->fold().copies; },
          "copies of the workload the job stands for (1: not folded)")
      .def_property_readonly("job_accelerators",
                             [](const PyWorkload& w) { return w.w->job_accelerators(); })
      .def_property_readonly(
          "scaleup_size", [](const PyWorkload& w) { return w.w->scaleup_size(); },
          "the scale-up domain size the job was laid out for (0: not said); schedule() uses it "
          "unless the System gives one")
      .def_property_readonly("scaleup_gbps",
                             [](const PyWorkload& w) { return w.w->scaleup_gbps(); })
      .def_property_readonly("ids",
                             task_column<std::uint64_t>([](const core::Task& x) { return x.id; }))
      .def_property_readonly(
          "src", task_column<std::uint32_t>([](const core::Task& x) { return x.src.value(); }))
      .def_property_readonly(
          "dst", task_column<std::uint32_t>([](const core::Task& x) { return x.dst.value(); }))
      .def_property_readonly(
          "bytes", task_column<std::uint64_t>([](const core::Task& x) { return x.bytes; }))
      .def_property_readonly(
          "release_ps", task_column<std::int64_t>([](const core::Task& x) { return x.release_ps; }))
      .def_property_readonly(
          "tail_ps", task_column<std::int64_t>([](const core::Task& x) { return x.tail_ps; }))
      .def_property_readonly(
          "dep_from", dep_column<std::uint32_t>([](const core::Dep& x) { return x.from.value(); }))
      .def_property_readonly(
          "dep_to", dep_column<std::uint32_t>([](const core::Dep& x) { return x.to.value(); }))
      .def_property_readonly("dep_compute_ps", dep_column<std::int64_t>(
                                                   [](const core::Dep& x) { return x.compute_ps; }))
      .def(
          "traffic_matrix", [](const PyWorkload& w) { return traffic_matrix(*w.w); },
          "Bytes from each accelerator (row) to each (column), an n x n uint64 array.")
      .def(
          "traffic_pairs", [](const PyWorkload& w) { return pair_arrays(*w.w); },
          "The sparse traffic matrix: arrays (src, dst, bytes), one entry per pair with "
          "traffic, sorted by (src, dst).")
      .def(
          "summary",
          [](const PyWorkload& w, const PySystem* system) { return summary_dict(*w.w, system); },
          py::arg("system") = py::none(),
          "What `flux info` prints: counts, bytes, compute and the critical path on an ideal "
          "network of `system`'s link rate (ps).")
      .def("__len__", [](const PyWorkload& w) { return w.w->num_tasks(); })
      .def("__repr__", [](const PyWorkload& w) {
        return "<flux.Workload '" + w.w->name() + "': " + std::to_string(w.w->num_tasks()) +
               " sends, " + std::to_string(w.w->num_deps()) + " deps, " +
               std::to_string(w.w->accelerators()) + " accelerators>";
      });

  m.def(
      "read_workload",
      [](py::handle path) {
        const std::string p = path_arg(path, "path");
        return wrap(without_gil([&] { return formats::read_workload(p); }));
      },
      py::arg("path"), "Reads a workload file (flux.workload/v1 JSON, plain or gzip).");
  m.def(
      "write_workload",
      [](const PyWorkload& w, py::handle path) {
        const std::string p = path_arg(path, "path");
        without_gil([&] { formats::save_workload(p, *w.w); });
      },
      py::arg("workload"), py::arg("path"),
      "Writes a workload file atomically (gzip when the name ends in .gz).");

  const workload::TrainingConfig defaults = frontend::generate_defaults();
  m.def("generate_llama3", &llama3,
        ("One training iteration of Llama 3 under Megatron-LM's parallelisms, as `flux generate "
         "llama3` makes it (docs/model.md). Keywords:\n"
         "    job: a published job as the defaults, which the other keywords override: " +
         name_list(workload::job_names()) +
         "\n"
         "    model: Llama 3 preset: 8b, 70b, 405b [default 8b]\n"
         "    gpu: compute model: a100, h100 [default a100]\n"
         "    collective: ring, direct, halving-doubling, or auto (the scheduler chooses) [default "
         "ring]\n"
         "    order: rank order, TP innermost: tp-cp-dp-pp or tp-cp-pp-dp [default tp-cp-dp-pp]\n"
         "    dp_sharding: none, optimizer (ZeRO-1) or full (ZeRO-3 / FSDP) [default none]\n"
         "    sequence_parallel: Megatron sequence parallelism [default False]\n"
         "    embeddings: also model the embedding, LM head and loss [default False]\n"
         "    optimizer: model the optimizer step's trailing compute [default True]\n" +
         options_doc(workload::kModelOptions, defaults.model) +
         options_doc(workload::kTrainingOptions, defaults) +
         options_doc(workload::kGpuOptions, defaults.gpu))
            .c_str());
  const workload::TrainingConfig moe_defaults = frontend::moe_generate_defaults();
  m.def("generate_moe", &moe,
        ("One training iteration of a mixture-of-experts model (Megatron-Core): expert "
         "parallelism inside DP x CP, token all-to-alls by a routing, with TP, CP, PP and DP as "
         "llama3; as `flux generate moe` makes it (docs/model.md, MoE). Keywords:\n"
         "    model: MoE model: " +
         name_list(workload::moe_model_names()) + " [default " + moe_defaults.model.name +
         "]\n"
         "    routing: token routing: uniform, zipf:S, zipf-drift:S:D or file:R.json [default " +
         moe_defaults.moe.routing.to_string() +
         "]\n"
         "    gpu: compute model: a100, h100 [default " +
         moe_defaults.gpu.name +
         "]\n"
         "    collective: ring, direct, halving-doubling, or auto (the scheduler chooses) [default "
         "ring]\n"
         "    order: rank order, TP innermost: tp-cp-dp-pp or tp-cp-pp-dp [default " +
         std::string(workload::to_string(moe_defaults.order)) +
         "]\n"
         "    dp_sharding: none, optimizer (ZeRO-1) or full (ZeRO-3 / FSDP) [default " +
         std::string(workload::to_string(moe_defaults.dp_sharding)) +
         "]\n"
         "    sequence_parallel: Megatron sequence parallelism [default False]\n"
         "    embeddings: also model the embedding, LM head and loss [default False]\n"
         "    optimizer: model the optimizer step's trailing compute [default True]\n" +
         options_doc(workload::kMoeOptions, moe_defaults.moe) +
         options_doc(workload::kRoutingOptions, moe_defaults.moe.routing) +
         options_doc(workload::kModelOptions, moe_defaults.model) +
         options_doc(workload::kTrainingOptions, moe_defaults) +
         options_doc(workload::kGpuOptions, moe_defaults.gpu))
            .c_str());
  m.def("generate_random", &random_dag,
        ("A random DAG of sends, as `flux generate random` makes it. Keywords:\n" +
         options_doc(workload::kRandomOptions, workload::RandomOptions{}))
            .c_str());
  m.def("import_chakra", &import_chakra, py::arg("prefix"),
        "Chakra execution traces PREFIX.0.et, PREFIX.1.et, ... as a workload, as `flux import "
        "chakra`. Keywords: comm_groups (path; default PREFIX.json if present), gpu ('a100'), "
        "collective (default: the one Flux recorded, else 'ring'), drop_missing_deps (False), "
        "name, scaleup_size (0). Import warnings are issued as flux.TraceWarning.");
  m.def("export_chakra", &export_chakra, py::arg("workload"), py::arg("prefix"), py::kw_only(),
        py::arg("collectives") = "comm-coll", py::arg("gzip") = false,
        py::arg("choice") = py::none(),
        "Writes a workload made by flux.generate.llama3 or flux.generate.moe as Chakra traces "
        "PREFIX.<rank>.et (and "
        "PREFIX.json with the communicator groups), as `flux generate llama3` (`moe`) `--format "
        "chakra`; "
        "returns the files written. A workload generated with collective='auto' needs choice: a "
        "flux.Schedule of it (or the alternatives' names, one per group), whose decomposition of "
        "each collective is written (`--choice`).");
}

}  // namespace flux::python
