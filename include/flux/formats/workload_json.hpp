#pragma once
// The workload file format, flux.workload/v2 (docs/formats.md):
//   {"format": "flux.workload/v1", "name": "...", "accelerators": n,
//    "tasks": [{"id": 0, "src": 0, "dst": 1, "bytes": 100,
//               "label"?: "...", "release_s"?: 0.001, "tail_s"?: 0.002}, ...],
//    "deps": [{"from": 0, "to": 1, "compute_s": 0.0005}, ...],
//    "choices"?: [{"label"?: "...", "alternatives": [{"name": "ring",
//                  "tasks": [0, 1, ...]}, ...]}, ...]}          (v2 only)
// Times are seconds in the file and picoseconds in memory (rounded to the
// nearest). Reading streams the file (no DOM); a file with ten million tasks
// needs memory for the Workload, not for the text.
#include <filesystem>
#include <iosfwd>
#include <string_view>

#include "flux/core/workload.hpp"

namespace flux::formats {

/// What the writer writes for a workload with choice groups
/// (core::ChoiceGroup, "choices"); the reader reads it and v1.
inline constexpr std::string_view kWorkloadFormat = "flux.workload/v2";
/// What the writer writes for every other workload: files unchanged.
inline constexpr std::string_view kWorkloadFormatV1 = "flux.workload/v1";

/// Reads and validates a workload file. Every problem is a core::InputError
/// naming the file, the JSON path of the field ("tasks[3].bytes") and the
/// value: unreadable file, malformed JSON, a missing or different "format",
/// missing, unknown or duplicate keys, wrong types, negative or non-integer
/// or too large (>= 2^63) integers, negative or out-of-range times, deps
/// naming unknown task ids, and everything core::Workload rejects.
core::Workload read_workload(const std::filesystem::path& file);

/// Same, from text in memory; `source` names it in errors.
core::Workload parse_workload(std::string_view text, std::string_view source);

/// Writes `w` as flux.workload/v1 (v2 with its choice groups, if any): one task and one dep per
/// line, tasks in index order, deps in the workload's (from, to) order naming task ids; label,
/// release_s and tail_s only when set. Throws core::InputError if the name or a label is not valid
/// UTF-8.
void write_workload(std::ostream& out, const core::Workload& w);

/// write_workload as a file named `file` holds it: gzip-compressed when the
/// name ends in ".gz" (what save_workload writes; for several outputs
/// written as one, io::save_files).
void write_workload_as(std::ostream& out, const core::Workload& w,
                       const std::filesystem::path& file);

/// Writes `w` to `file` through a temporary file in the same directory that
/// is renamed into place: `file` is either the complete new workload or
/// untouched, and no temporary file is left behind. I/O errors are
/// core::InputError naming `file`. A name ending in ".gz" is written
/// gzip-compressed (streamed through zlib); read_workload reads either.
void save_workload(const std::filesystem::path& file, const core::Workload& w);

}  // namespace flux::formats
