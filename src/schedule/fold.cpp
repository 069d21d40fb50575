// Lifting a folded schedule (fold.hpp).
#include "flux/schedule/fold.hpp"

#include <algorithm>
#include <tuple>

#include "flux/core/error.hpp"
#include "flux/core/fold.hpp"

namespace flux::schedule {

Schedule unfold(const core::Workload& folded, const Schedule& s) {
  if (s.period_ps || s.routing == Routing::kVlb) {
    throw core::InputError("", "schedule", s.scheduler,
                           "periodic and VLB schedules do not lift from a folded workload");
  }
  const core::FoldLift lift(folded);
  const std::uint32_t copies = lift.copies();
  const std::uint64_t n = folded.num_tasks();
  Schedule out = s;
  out.workload = folded.name() + (copies > 1 ? "-unfolded" : "");
  out.tasks.clear();
  out.tasks.reserve(s.tasks.size() * copies);
  for (std::uint32_t c = 0; c < copies; ++c) {
    for (const TaskAssignment& a : s.tasks) {
      const auto v = folded.find(a.task_id);
      if (!v)
        throw core::InputError("", "tasks.task_id", std::to_string(a.task_id), "no such task");
      out.tasks.push_back(TaskAssignment{c * n + v->value(), a.sw, a.start_ps});
    }
  }
  for (SwitchTimeline& t : out.timelines) {
    std::vector<CircuitInterval> lifted;
    lifted.reserve(t.circuits.size() * copies);
    for (std::uint32_t c = 0; c < copies; ++c) {
      for (const CircuitInterval& i : t.circuits) {
        CircuitInterval l = i;
        const core::Rank a = lift.rank(i.a, c);
        const core::Rank b = lift.peer(i.a, i.b, c);
        l.a = std::min(a, b);
        l.b = std::max(a, b);
        lifted.push_back(l);
      }
    }
    std::sort(lifted.begin(), lifted.end(), [](const CircuitInterval& x, const CircuitInterval& y) {
      return std::tie(x.up_ps, x.a, x.b) < std::tie(y.up_ps, y.a, y.b);
    });
    t.circuits = std::move(lifted);
  }
  return out;
}

}  // namespace flux::schedule
