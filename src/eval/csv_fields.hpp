#pragma once
// The one CSV mechanism of the evaluation's row formats (csv.cpp: fig2.csv /
// jobs.csv / moe.csv and robustness.csv): a format is a table of columns,
// each column once with its name, the version of the format that added it
// (a file of an earlier version lacks it and still reads), how it is
// written and how it is read. No quoting: every field is a number or a
// name without commas; numbers in the shortest form that reads back
// exactly; errors name the file, the line and the column.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/time.hpp"

namespace flux::eval::detail {

/// The shortest form that reads back exactly.
std::string num(double v);
/// The fields of a line, split at commas (no quoting).
std::vector<std::string> split(const std::string& line);

/// A value as its field: numbers exact, an optional empty when unset.
inline std::string text_of(const std::string& s) {
  return s;
}
inline std::string text_of(double v) {
  return num(v);
}
inline std::string text_of(const std::optional<double>& v) {
  return v ? num(*v) : std::string();
}
inline std::string text_of(const std::optional<std::uint64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}
inline std::string text_of(bool v) {
  return v ? "true" : "false";
}
template <class T>
requires std::is_integral_v<T> std::string text_of(T v) {
  return std::to_string(v);
}

/// The fields of one line being read, with the names of its columns.
class RowReader {
 public:
  RowReader(const std::filesystem::path& file, std::size_t line,
            std::span<const std::string_view> columns, std::vector<std::string> fields)
      : file_(file.string()), line_(line), columns_(columns), fields_(std::move(fields)) {}

  [[nodiscard]] const std::string& text(std::size_t col) const { return fields_[col]; }
  /// A non-negative integer (a signed field too: never below 0).
  template <class T>
  T integer(std::size_t col) const {
    std::make_unsigned_t<T> v{};
    const std::string& s = fields_[col];
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) fail(col, "not a non-negative integer");
    return static_cast<T>(v);
  }
  [[nodiscard]] double real(std::size_t col) const;
  [[nodiscard]] std::optional<double> optional_real(std::size_t col) const {
    if (fields_[col].empty()) return std::nullopt;
    return real(col);
  }
  /// Seconds as picoseconds: a valid time (>= 0, representable), else
  /// `problem`.
  [[nodiscard]] std::int64_t seconds_ps(std::size_t col, const char* problem) const;

  /// Reads column `col` into `v`, by its type (text_of() read back).
  void get(std::size_t col, std::string& v) const { v = text(col); }
  void get(std::size_t col, double& v) const { v = real(col); }
  void get(std::size_t col, std::optional<double>& v) const { v = optional_real(col); }
  void get(std::size_t col, std::optional<std::uint64_t>& v) const {
    if (fields_[col].empty()) {
      v.reset();
    } else {
      v = integer<std::uint64_t>(col);
    }
  }
  void get(std::size_t col, bool& v) const;
  template <class T>
  requires std::is_integral_v<T>
  void get(std::size_t col, T& v) const { v = integer<T>(col); }

  [[noreturn]] void fail(std::size_t col, const std::string& problem) const;

 private:
  std::string file_;
  std::size_t line_;
  std::span<const std::string_view> columns_;
  std::vector<std::string> fields_;
};

/// One column of a row format.
template <class Row>
struct Column {
  std::string_view name;
  std::string (*write)(const Row&);
  void (*read)(const RowReader&, std::size_t col, Row&);
  unsigned since = 0;     ///< the format's version that added it
  bool required = false;  ///< an empty field is an error
};

template <class M>
struct MemberOf;
template <class R, class T>
struct MemberOf<T R::*> {
  using Row = R;
};

/// The column of a member (or a member of a member: field<&Row::a, &A::b>),
/// written by text_of() and read by RowReader::get().
template <auto First, auto... Rest>
constexpr Column<typename MemberOf<decltype(First)>::Row> field(std::string_view name,
                                                                unsigned since = 0,
                                                                bool required = false) {
  using Row = typename MemberOf<decltype(First)>::Row;
  return {
      name, [](const Row& r) { return text_of(((r.*First).*....*Rest)); },
      [](const RowReader& in, std::size_t col, Row& r) { in.get(col, ((r.*First).*....*Rest)); },
      since, required};
}
/// A name that must not be empty.
template <auto Member>
constexpr auto name_field(std::string_view name, unsigned since = 0) {
  return field<Member>(name, since, true);
}
/// A delay in ps written in seconds.
template <auto Member>
constexpr auto seconds_field(std::string_view name) {
  using Row = typename MemberOf<decltype(Member)>::Row;
  return Column<Row>{name, [](const Row& r) { return num(core::ps_to_seconds(r.*Member)); },
                     [](const RowReader& in, std::size_t col, Row& r) {
                       r.*Member = in.seconds_ps(col, "not a valid delay");
                     }};
}

/// The column names of version `version` (the columns since it or before).
template <class Row>
std::vector<std::string_view> column_names(std::span<const Column<Row>> columns, unsigned version) {
  std::vector<std::string_view> names;
  for (const Column<Row>& c : columns) {
    if (c.since <= version) names.push_back(c.name);
  }
  return names;
}
/// The names joined by commas.
std::string header(std::span<const std::string_view> names);
/// `s` as the field of `column`: core::InputError naming the column when it
/// holds a comma, a quote or a newline.
const std::string& checked_field(const std::string& s, std::string_view column);
/// Reads `file`: its header must be one of `headers` (by version, the last
/// the newest); calls row(reader, version) for every non-empty line after
/// it. Throws core::InputError naming the file and line.
void read_rows(const std::filesystem::path& file,
               const std::vector<std::vector<std::string_view>>& headers,
               const std::function<void(const RowReader&, unsigned)>& row);
/// Writes the header and the rows through a temporary file and a rename.
void save_rows(const std::filesystem::path& file, const std::string& text);

/// A row format: its columns (each name once) and the check of a whole row
/// read (`finish`: defaults of an old version's missing columns, checks
/// across columns).
template <class Row>
struct CsvFormat {
  std::span<const Column<Row>> columns;
  unsigned version = 0;  ///< the newest, the one written
  void (*finish)(const RowReader&, Row&, unsigned version) = nullptr;

  [[nodiscard]] std::string header() const {
    return detail::header(column_names(columns, version));
  }

  [[nodiscard]] std::string row(const Row& r) const {
    std::string out;
    for (const Column<Row>& c : columns) {
      if (&c != columns.data()) out += ',';
      out += checked_field(c.write(r), c.name);
    }
    return out;
  }

  [[nodiscard]] Row parse(const std::string& line) const {
    std::vector<std::string> fields = split(line);
    const std::vector<std::string_view> names = column_names(columns, version);
    if (fields.size() != names.size()) {
      throw core::InputError("", "row", line.substr(0, 60),
                             "expected " + std::to_string(names.size()) + " columns");
    }
    return read_row(RowReader("", 1, names, std::move(fields)), version);
  }

  [[nodiscard]] std::vector<Row> read(const std::filesystem::path& file) const {
    std::vector<std::vector<std::string_view>> headers;
    for (unsigned v = 0; v <= version; ++v) headers.push_back(column_names(columns, v));
    std::vector<Row> rows;
    read_rows(file, headers,
              [&](const RowReader& r, unsigned v) { rows.push_back(read_row(r, v)); });
    return rows;
  }

  void write(const std::filesystem::path& file, const std::vector<Row>& rows) const {
    std::string text = header() + '\n';
    for (const Row& r : rows) text += row(r) + '\n';
    save_rows(file, text);
  }

 private:
  Row read_row(const RowReader& in, unsigned v) const {
    Row r;
    std::size_t col = 0;
    for (const Column<Row>& c : columns) {
      if (c.since > v) continue;
      if (c.required && in.text(col).empty()) in.fail(col, "empty");
      c.read(in, col++, r);
    }
    if (finish != nullptr) finish(in, r, v);
    return r;
  }
};

/// True when no two columns of the table share a name.
template <class Row>
constexpr bool names_unique(std::span<const Column<Row>> columns) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (columns[i].name == columns[j].name) return false;
    }
  }
  return true;
}

/// The error for row `index` (0-based) of a CSV being resumed, measured
/// with `field` = `have` where the sweep uses `want`.
[[noreturn]] void throw_resume_mismatch(std::size_t index, const std::string& field,
                                        const std::string& have, const std::string& want);

}  // namespace flux::eval::detail
