#pragma once
// What the evaluation's reports share (report.cpp, robust_report.cpp):
// number formatting, table cells, and the schedulers' plot styles.
#include <cstddef>
#include <string>

#include "flux/eval/evaluate.hpp"

namespace flux::eval::detail {

/// "Llama 3 8B, 8 layers, TP4 x DP2 on 8 A100 GPUs": what one job runs.
std::string describe(const EvalJob& j);
/// printf of one number.
std::string fmt(const char* f, double v);
/// Right-aligned in `width` (one space after when longer).
std::string pad(const std::string& s, std::size_t width);
std::string upper(std::string s);
/// A gnuplot data block name, "$<prefix>_<scheduler>", with letters, digits
/// and underscores.
std::string gnuplot_block(const std::string& prefix, const std::string& scheduler);
/// A scheduler's colour ("#d62728") and full line style, the same in every plot.
std::string color(const std::string& scheduler);
std::string style(const std::string& scheduler);
/// The terminal and output lines of a script's pass 0 (PNG) or 1 (SVG),
/// `width` x `height` pixels.
std::string gnuplot_terminal(int pass, std::size_t width, std::size_t height,
                             const std::string& png, const std::string& svg);

}  // namespace flux::eval::detail
