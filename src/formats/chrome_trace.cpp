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

// The sends of each source rank in `by_src` as slices from issue to finish,
// in lanes so that slices on one thread never overlap; lane k of rank x is
// thread tid(x, k) of process pid(x) (tid may write metadata events).
template <class Pid, class Tid>
void send_slices(io::JsonWriter& j, const core::Workload& w, const sim::SimResult& r,
                 std::vector<std::vector<std::uint32_t>>& by_src, std::string_view cat, Pid pid,
                 Tid tid) {
  for (std::uint32_t x = 0; x < by_src.size(); ++x) {
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
      const std::uint64_t thread = tid(x, lane);  // may write a thread_name first
      j.begin_object();
      j.member("name", name).member("cat", cat).member("ph", "X");
      j.member("pid", pid(x)).member("tid", thread).member("ts", us(rec.issue_ps));
      j.member("dur", us(rec.finish_ps - rec.issue_ps));
      j.key("args").begin_object();
      j.member("id", t.id).member("bytes", t.bytes).member("ready_us", us(rec.ready_ps));
      j.end_object();
      j.end_object();
    }
  }
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
  // Thread "GPU x egress" (one transfer at a time; only ideal needs more
  // lanes) in process pid_of(x), named when first used.
  const auto egress_threads = [&](std::vector<std::size_t>& lanes, auto pid_of) {
    return [&j, &lanes, pid_of, n](std::uint32_t x, std::size_t lane) {
      if (lane >= lanes[x]) {
        lanes[x] = lane + 1;
        std::string name = "GPU " + std::to_string(x) + " egress";
        if (lane > 0) name += " (lane " + std::to_string(lane) + ")";
        name_meta(j, "thread_name", pid_of(x), lane * n + x, name);
      }
      return lane * n + x;
    };
  };
  // Sends by source: OCS sends on their GPU, scale-up sends on their domain,
  // packet sends on the packet fabric.
  std::vector<std::vector<std::uint32_t>> by_src(n), scaleup_by_src(n), packet_by_src(n);
  for (std::uint32_t v = 0; v < w.num_tasks(); ++v) {
    const core::Task& t = w.task(core::TaskIndex(v));
    const core::Fabric f = s.system.fabric(t.src, t.dst);
    (f == core::Fabric::kScaleUp  ? scaleup_by_src
     : f == core::Fabric::kPacket ? packet_by_src
                                  : by_src)[t.src.value()]
        .push_back(v);
  }
  send_slices(
      j, w, r, by_src, "send", [](std::uint32_t x) { return x; },
      [](std::uint32_t, std::size_t lane) { return lane; });
  // The sends of another fabric: GPU x's in process pid_of(x), thread "GPU x
  // egress".
  const auto fabric_slices = [&](std::vector<std::vector<std::uint32_t>>& by, const char* cat,
                                 auto pid_of) {
    std::vector<std::size_t> lanes(n, 0);
    send_slices(j, w, r, by, cat, pid_of, egress_threads(lanes, pid_of));
  };
  if (s.system.has_scaleup()) {
    // Process "scale-up domain d" after the switches; thread "GPU x egress"
    // per source (one transfer at a time; only ideal needs more lanes).
    const std::size_t first = n + s.timelines.size();
    const std::uint32_t k = s.system.scaleup_size;
    for (std::uint32_t d = 0; d < n / k; ++d) {
      name_meta(j, "process_name", first + d, 0, "scale-up domain " + std::to_string(d));
    }
    fabric_slices(scaleup_by_src, "scaleup", [&](std::uint32_t x) { return first + x / k; });
  }
  if (s.system.has_packet()) {
    // Process "packet fabric" after the domains; thread "GPU x egress".
    const std::size_t pid =
        n + s.timelines.size() + (s.system.has_scaleup() ? n / s.system.scaleup_size : 0);
    name_meta(j, "process_name", pid, 0, "packet fabric");
    fabric_slices(packet_by_src, "packet", [&](std::uint32_t) { return pid; });
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
