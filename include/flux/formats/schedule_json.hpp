#pragma once
// The schedule file format, flux.schedule/v2 (docs/formats.md):
//   {"format": "flux.schedule/v2", "scheduler": "...", "workload": "...",
//    "system": {"switches": 2, "link_gbps": 800, "reconfig_delay_s": 1e-05,
//               "scaleup_size"?: 4, "scaleup_gbps"?: 2400},
//    "makespan_s": 0.0123, "status": "optimal",
//    "lower_bound_s"?: 0.012, "gap"?: 0.025, "solve_time_s"?: 1.5,
//    "circuit_model"?: "all_connected", "routing"?: "vlb", "period_s"?: 0.0011,
//    "tasks": [{"id": 0, "switch": 1, "start_s": 0.0001},
//              {"id": 1, "fabric": "scaleup", "start_s": 0}, ...],
//    "circuits": [{"switch": 0, "intervals": [{"a": 0, "b": 1, "setup_s": 0,
//                  "up_s": 1e-05, "down_s": 0.002}, ...]}, ...]}
// flux.schedule/v1 is the same without scale-up domains: no scaleup_size,
// scaleup_gbps or fabric keys (a v1 file that has one is an error); both
// read. A task with "fabric": "scaleup" has no "switch" (in memory its
// switch is core::kScaleUpSwitch); "fabric": "ocs" or no fabric key means a
// switch is required. Absent scaleup_size and scaleup_gbps are 1 and 2400.
// Absent circuit_model, routing and period_s mean timeline, direct and no
// period, so files from before these keys existed read unchanged; the writer
// writes them only when they differ from that default.
// The reader checks the file's own consistency (types, ranges, a < b,
// setup <= up <= down, switches in range, known circuit_model, routing and
// fabric names, period_s > 0); whether the schedule fits a workload (and that
// up - setup == tau, intervals sorted and disjoint per port, intervals within
// the period, model/routing/period/tasks consistent, each send on the fabric
// its domains dictate, domains tiling the accelerators) is the validator's
// business. setup_s may be negative: a circuit used before tau is configured
// before the iteration starts (timeline.hpp).
#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "flux/schedule/schedule.hpp"

namespace flux::formats {

/// What the writer writes for a schedule of a workload with choice groups
/// (Schedule::choice, docs/formats.md); the reader reads it and the three
/// below.
inline constexpr std::string_view kScheduleFormat = "flux.schedule/v4";
/// What the writer writes for a system wired other than in full (a wiring
/// and an OCS radix).
inline constexpr std::string_view kScheduleFormatV3 = "flux.schedule/v3";
/// What the writer writes for a system with scale-up domains or full-duplex
/// circuits, wired in full.
inline constexpr std::string_view kScheduleFormatV2 = "flux.schedule/v2";
/// What the writer writes for a system without scale-up domains
/// (scaleup_size 1): the paper's model, files unchanged since v1.
inline constexpr std::string_view kScheduleFormatV1 = "flux.schedule/v1";

/// Reads a schedule file. Every problem is a core::InputError naming the
/// file, the JSON path of the field ("circuits[1].intervals[4].a") and the
/// value. The result has exactly system.switches timelines (switches the
/// file does not list are empty), intervals in file order (the validator
/// checks that they are sorted by (up, a, b)).
schedule::Schedule read_schedule(const std::filesystem::path& file);

/// Same, from text in memory; `source` names it in errors.
schedule::Schedule parse_schedule(std::string_view text, std::string_view source);

/// Writes `s` as flux.schedule/v2 if its system has scale-up domains (or a
/// task is on the scale-up fabric), else as flux.schedule/v1 (the same text
/// as before v2 existed): one "circuits"
/// entry per switch 0..s-1
/// (empty timelines included), one task and one interval per line; the
/// optional fields only when set (circuit_model and routing only when not
/// timeline and direct). Throws std::invalid_argument when `s` has more
/// timelines than switches, a period <= 0 or a non-finite gap or solve time,
/// and core::InputError when a name is not valid UTF-8.
void write_schedule(std::ostream& out, const schedule::Schedule& s);

/// Writes `s` to `file` through a temporary file in the same directory that
/// is renamed into place; on any error `file` is untouched and no temporary
/// file is left. I/O errors are core::InputError naming `file`.
void save_schedule(const std::filesystem::path& file, const schedule::Schedule& s);

}  // namespace flux::formats
