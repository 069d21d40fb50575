#pragma once
// The schedule file format, flux.schedule/v1 (docs/formats.md):
//   {"format": "flux.schedule/v1", "scheduler": "...", "workload": "...",
//    "system": {"switches": 2, "link_gbps": 800, "reconfig_delay_s": 1e-05},
//    "makespan_s": 0.0123, "status": "optimal",
//    "lower_bound_s"?: 0.012, "gap"?: 0.025, "solve_time_s"?: 1.5,
//    "circuit_model"?: "all_connected", "routing"?: "vlb", "period_s"?: 0.0011,
//    "tasks": [{"id": 0, "switch": 1, "start_s": 0.0001}, ...],
//    "circuits": [{"switch": 0, "intervals": [{"a": 0, "b": 1, "setup_s": 0,
//                  "up_s": 1e-05, "down_s": 0.002}, ...]}, ...]}
// Absent circuit_model, routing and period_s mean timeline, direct and no
// period, so files from before these keys existed read unchanged; the writer
// writes them only when they differ from that default.
// The reader checks the file's own consistency (types, ranges, a < b,
// setup <= up <= down, switches in range, known circuit_model and routing
// names, period_s > 0); whether the schedule fits a workload (and that
// up - setup == tau, intervals sorted and disjoint per port, intervals within
// the period, model/routing/period/tasks consistent) is the validator's
// business. setup_s may be negative: a circuit used before tau is configured
// before the iteration starts (timeline.hpp).
#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "flux/schedule/schedule.hpp"

namespace flux::formats {

inline constexpr std::string_view kScheduleFormat = "flux.schedule/v1";

/// Reads a schedule file. Every problem is a core::InputError naming the
/// file, the JSON path of the field ("circuits[1].intervals[4].a") and the
/// value. The result has exactly system.switches timelines (switches the
/// file does not list are empty), intervals in file order (the validator
/// checks that they are sorted by (up, a, b)).
schedule::Schedule read_schedule(const std::filesystem::path& file);

/// Same, from text in memory; `source` names it in errors.
schedule::Schedule parse_schedule(std::string_view text, std::string_view source);

/// Writes `s` as flux.schedule/v1: one "circuits" entry per switch 0..s-1
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
