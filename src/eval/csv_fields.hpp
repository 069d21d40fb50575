#pragma once
// What the evaluation's CSVs share (csv.cpp, robust_csv.cpp): exact number
// formatting, name fields, splitting a line, and reading a row's fields
// with errors that name the file, the line and the column.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::eval::detail {

/// The shortest form that reads back exactly.
std::string num(double v);
inline std::string num(std::uint64_t v) {
  return std::to_string(v);
}
/// Empty for no value.
inline std::string opt(const std::optional<double>& v) {
  return v ? num(*v) : std::string();
}
/// `s` as a CSV field; throws core::InputError naming `column` when it
/// holds a comma, a quote or a newline.
std::string name(const std::string& s, std::string_view column);
/// Throws core::InputError "layers = 8: listed twice" (or "tau = 1us") for
/// a layer count or a delay given twice, however it was spelled (1us, 1000ns).
void check_unique_axes(const std::vector<std::uint32_t>& layers,
                       const std::vector<std::int64_t>& taus_ps);
/// The fields of a line, split at commas (no quoting).
std::vector<std::string> split(const std::string& line);
/// The header of the first `count` columns.
std::string header(std::span<const std::string_view> columns, std::size_t count);

class RowReader {
 public:
  RowReader(const std::filesystem::path& file, std::size_t line,
            std::span<const std::string_view> columns, std::vector<std::string> fields)
      : file_(file.string()), line_(line), columns_(columns), fields_(std::move(fields)) {}

  [[nodiscard]] const std::string& text(std::size_t col) const { return fields_[col]; }
  template <class T>
  T integer(std::size_t col) const {
    T v{};
    const std::string& s = fields_[col];
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) fail(col, "not a non-negative integer");
    return v;
  }
  [[nodiscard]] double real(std::size_t col) const;
  [[nodiscard]] std::optional<double> optional_real(std::size_t col) const {
    if (fields_[col].empty()) return std::nullopt;
    return real(col);
  }
  [[noreturn]] void fail(std::size_t col, const std::string& problem) const;

 private:
  std::string file_;
  std::size_t line_;
  std::span<const std::string_view> columns_;
  std::vector<std::string> fields_;
};

/// The error for row `index` (0-based) of a CSV being resumed, measured
/// with `field` = `have` where the sweep uses `want`.
[[noreturn]] void throw_resume_mismatch(std::size_t index, const std::string& field,
                                        const std::string& have, const std::string& want);

/// Reads `file`: its header must be one of `headers` (their column counts);
/// calls row(reader, columns) for every non-empty line after it. Throws
/// core::InputError naming the file and line.
void read_rows(const std::filesystem::path& file, std::span<const std::string_view> columns,
               std::span<const std::size_t> counts,
               const std::function<void(const RowReader&, std::size_t)>& row);

}  // namespace flux::eval::detail
