#pragma once
// What the evaluation's reports share (report.cpp, robust_report.cpp):
// number formatting and table cells (plots are the sweep's plot writer,
// src/sweep/results.cpp).
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

}  // namespace flux::eval::detail
