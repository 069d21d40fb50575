#pragma once
// A sweep into a directory, the steps `flux sweep` and the Python bindings'
// flux.sweep share: the outputs checked before the run, which points a
// resumed run still has to run, the files written at the end (the CSV in
// the points' order, the summary, the gnuplot scripts and plots). The
// memory budget's text is memory.hpp's (parse_memory_budget).
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "flux/sweep/results.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::frontend {

/// The files a sweep into `dir` writes (the CSV, the summary, each plot's
/// script and, with `plot`, its PNG) checked before any is written
/// (io::check_outputs): none may be the sweep file `spec_file` (empty: none)
/// or a routing file a point reads. Throws core::InputError.
void check_sweep_outputs(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                         const std::filesystem::path& dir, const std::string& spec_file, bool plot);

/// The indexes of the points the run has to run: those without a row in
/// `results` (or with a failed one, when `retry_failed`). `resumed` counts
/// the others.
std::vector<std::size_t> points_to_run(const std::vector<sweep::Point>& points,
                                       const sweep::ResultFile& results, bool retry_failed,
                                       std::size_t& resumed);

/// After a run: rewrites the CSV in the points' order and writes
/// <dir>/<name>-summary.txt; returns the summary.
std::string finish_sweep(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                         sweep::ResultFile& results, const std::filesystem::path& dir);

/// Writes each plot's gnuplot script into `dir` and, with `run`, its PNG
/// through gnuplot, printing what it plotted (or that gnuplot is missing)
/// on `report`.
void write_plots(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                 const std::map<std::string, std::string>& rows, const std::filesystem::path& dir,
                 bool run, std::FILE* report);

}  // namespace flux::frontend
