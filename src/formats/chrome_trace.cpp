// The Chrome trace of a simulation (include/flux/formats/chrome_trace.hpp).
#include "flux/formats/chrome_trace.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "flux/io/json_writer.hpp"

namespace flux::formats {
namespace {

double us(core::TimePs ps) {
  return static_cast<double>(ps) / 1e6;
}

void slice(io::JsonWriter& j, std::string_view name, std::string_view cat, std::uint64_t pid,
           std::uint64_t tid, core::TimePs from, core::TimePs to) {
  j.begin_object();
  j.member("name", name).member("cat", cat).member("ph", "X");
  j.member("pid", pid).member("tid", tid).member("ts", us(from)).member("dur", us(to - from));
  j.end_object();
}

void name_meta(io::JsonWriter& j, const char* what, std::uint64_t pid, std::uint64_t tid,
               const std::string& name) {
  j.begin_object();
  j.member("name", what).member("ph", "M").member("pid", pid).member("tid", tid);
  j.key("args").begin_object().member("name", name).end_object();
  j.end_object();
}

}  // namespace

void write_chrome_trace(std::ostream& out, const core::Workload& w, const schedule::Schedule& s,
                        const sim::SimResult& r) {
  io::JsonWriter j(out);
  j.begin_object();
  j.member("displayTimeUnit", "ns");
  j.key("traceEvents").begin_array();
  const std::uint32_t n = w.accelerators();
  for (std::uint32_t x = 0; x < n; ++x)
    name_meta(j, "process_name", x, 0, "GPU " + std::to_string(x));
  for (std::size_t sw = 0; sw < s.timelines.size(); ++sw) {
    name_meta(j, "process_name", n + sw, 0, "OCS " + std::to_string(sw));
  }
  // Sends: per accelerator, lanes so that slices on one thread never overlap.
  std::vector<std::vector<std::uint32_t>> by_src(n);
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    by_src[w.task(core::TaskIndex(v)).src.value()].push_back(v);
  }
  for (std::uint32_t x = 0; x < n; ++x) {
    auto& vs = by_src[x];
    std::sort(vs.begin(), vs.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::pair{r.sends[a].issue_ps, a} < std::pair{r.sends[b].issue_ps, b};
    });
    std::vector<core::TimePs> lane_end;
    for (std::uint32_t v : vs) {
      const sim::SendRecord& rec = r.sends[v];
      std::size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > rec.issue_ps) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = rec.finish_ps;
      const core::Task& t = w.task(core::TaskIndex(v));
      const std::string_view label = w.label(core::TaskIndex(v));
      std::string name = label.empty() ? "send " + std::to_string(t.id) : std::string(label);
      name += " -> " + std::to_string(t.dst.value());
      j.begin_object();
      j.member("name", name).member("cat", "send").member("ph", "X");
      j.member("pid", x).member("tid", lane).member("ts", us(rec.issue_ps));
      j.member("dur", us(rec.finish_ps - rec.issue_ps));
      j.key("args").begin_object();
      j.member("id", t.id).member("bytes", t.bytes).member("ready_us", us(rec.ready_ps));
      j.end_object();
      j.end_object();
    }
  }
  // Circuits, unrolled up to the end of the iteration.
  const core::TimePs end = r.metrics.iteration_time_ps;
  for (std::size_t sw = 0; sw < s.timelines.size(); ++sw) {
    const auto& circuits = s.timelines[sw].circuits;
    const core::TimePs period = s.period_ps.value_or(0);
    for (std::int64_t k = 0;; ++k) {
      const core::TimePs shift = k * period;
      bool any = false;
      for (const auto& c : circuits) {
        if (c.setup_ps + shift >= end) continue;
        any = true;
        const std::string pair = std::to_string(c.a.value()) + "-" + std::to_string(c.b.value());
        slice(j, "reconfigure " + pair, "reconfiguration", n + sw, c.a.value(), c.setup_ps + shift,
              c.up_ps + shift);
        slice(j, pair, "circuit", n + sw, c.a.value(), c.up_ps + shift,
              std::min(c.down_ps + shift, std::max(end, c.up_ps + shift)));
      }
      if (period == 0 || !any) break;
    }
  }
  j.end_array();
  j.end_object();
  j.finish();
}
}  // namespace flux::formats
