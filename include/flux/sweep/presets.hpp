#pragma once
// The presets of `flux evaluate` (paper-fig2, real-jobs, robustness) are
// shipped sweep files, sweeps/<name>.toml, compiled into flux
// (cmake/EmbedSweeps.cmake) so a binary finds them wherever it runs. `flux
// evaluate --preset NAME` reads one, gathers its points into one
// eval::EvalConfig (jobs x delays x schedulers) or, for robustness, one
// eval::RobustnessConfig (jobs x delays x schedulers x perturbations), which
// its options then change, and runs the points through the sweep runner
// (runner.hpp) into the CSV users know (fig2.csv, jobs.csv, robustness.csv).
#include <string>
#include <string_view>
#include <vector>

#include "flux/eval/evaluate.hpp"
#include "flux/eval/robustness.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::sweep {

/// A sweep file compiled into flux.
struct PresetFile {
  std::string_view name;  ///< the preset: the file's stem
  std::string_view path;  ///< where it is in the source tree, for messages
  std::string_view text;  ///< its TOML
};
/// Every shipped sweep file, in name order (generated at build time).
const std::vector<PresetFile>& preset_files();

/// The preset's sweep file, parsed. Throws core::InputError naming "preset"
/// and the name when there is no such preset.
SweepSpec preset_spec(const std::string& name);

/// The evaluation a sweep file describes: its points gathered into one
/// EvalConfig. Only job, layers, tau and scheduler may take several values
/// (the other axes, one each, set the configuration) and there are no
/// filters; core::InputError naming the file and the axis otherwise.
eval::EvalConfig evaluation_config(const SweepSpec& spec);
/// evaluation_config of preset_spec(name), with the preset's name and its
/// CSV's stem (paper-fig2: fig2, real-jobs: jobs).
eval::EvalConfig evaluation_preset(const std::string& name);

/// A sweep point of one eval::pending_points() configuration: its values are
/// job, tau and scheduler; its memory estimate point_memory_bytes().
Point evaluation_point(const eval::EvalConfig& one);

/// The robustness study a robustness sweep file describes: its points
/// gathered into one RobustnessConfig. The file must be the product jobs
/// (layers x gpu) x tau x scheduler x perturbations (jitter alone, a
/// straggler alone, a failure alone or under jitter) with one value of every
/// other axis; core::InputError naming the file otherwise.
eval::RobustnessConfig robustness_config(const SweepSpec& spec);
/// robustness_config of preset_spec("robustness"): sweeps/robustness.toml.
eval::RobustnessConfig robustness_preset();

/// A sweep point of one eval::pending_robust_points() point: its values are
/// job, tau, scheduler and RobustPoint::perturbation_text().
Point robustness_point(const eval::RobustPoint& one);

}  // namespace flux::sweep
