// check_same_structure (simulator.hpp): may a plan made for one workload run
// on another? Yes when both have the same accelerators, fold, sends (id,
// source, destination, position) and dependency edges (from, to, position);
// what may differ is what a plan does not fix: bytes, releases, tails and
// the compute on the edges (docs/model.md, "Running a plan on another
// workload").
#include <string>

#include "flux/core/error.hpp"
#include "flux/sim/simulator.hpp"

namespace flux::sim {
namespace {

[[noreturn]] void differ(const std::string& field, const std::string& planned,
                         const std::string& actual) {
  throw core::InputError("", field, actual,
                         "differs from the planned workload's " + planned +
                             ": a plan runs only on a workload of the same structure (sends, "
                             "endpoints and dependencies; sizes and compute may differ)");
}

std::string task_name(const core::Workload& w, std::size_t i) {
  return "tasks[" + std::to_string(i) + "] (id " + std::to_string(w.tasks()[i].id) + ")";
}

}  // namespace

void check_same_structure(const core::Workload& planned, const core::Workload& actual) {
  if (planned.accelerators() != actual.accelerators()) {
    differ("accelerators", std::to_string(planned.accelerators()),
           std::to_string(actual.accelerators()));
  }
  if (!(planned.fold() == actual.fold())) {
    differ("fold.copies", std::to_string(planned.fold().copies),
           std::to_string(actual.fold().copies));
  }
  if (planned.num_tasks() != actual.num_tasks()) {
    differ("tasks", std::to_string(planned.num_tasks()) + " sends",
           std::to_string(actual.num_tasks()) + " sends");
  }
  for (std::size_t i = 0; i < planned.num_tasks(); ++i) {
    const core::Task& p = planned.tasks()[i];
    const core::Task& a = actual.tasks()[i];
    if (p.id != a.id) {
      differ("tasks[" + std::to_string(i) + "].id", "id " + std::to_string(p.id),
             std::to_string(a.id));
    }
    if (p.src != a.src || p.dst != a.dst) {
      differ(task_name(actual, i) + ".src/dst",
             std::to_string(p.src.value()) + " -> " + std::to_string(p.dst.value()),
             std::to_string(a.src.value()) + " -> " + std::to_string(a.dst.value()));
    }
  }
  if (planned.num_deps() != actual.num_deps()) {
    differ("deps", std::to_string(planned.num_deps()) + " dependencies",
           std::to_string(actual.num_deps()) + " dependencies");
  }
  for (std::size_t i = 0; i < planned.num_deps(); ++i) {
    const core::Dep& p = planned.deps()[i];
    const core::Dep& a = actual.deps()[i];
    if (p.from != a.from || p.to != a.to) {
      auto edge = [](const core::Workload& w, const core::Dep& d) {
        return std::to_string(w.task(d.from).id) + " -> " + std::to_string(w.task(d.to).id);
      };
      differ("deps[" + std::to_string(i) + "]", "edge " + edge(planned, p), edge(actual, a));
    }
  }
}

}  // namespace flux::sim
