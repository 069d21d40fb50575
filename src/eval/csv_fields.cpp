// The CSV helpers the evaluation's files share (csv_fields.hpp).
#include "csv_fields.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "flux/core/time.hpp"

namespace flux::eval {

namespace detail {

std::string num(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string name(const std::string& s, std::string_view column) {
  if (s.find_first_of(",\"\n\r") != std::string::npos) {
    throw core::InputError("", std::string(column), s,
                           "a CSV name must not contain , \" or newlines");
  }
  return s;
}

double RowReader::real(std::size_t col) const {
  double v = 0;
  const std::string& s = fields_[col];
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) {
    fail(col, "not a finite number");
  }
  return v;
}

void RowReader::fail(std::size_t col, const std::string& problem) const {
  throw core::InputError(file_, "line " + std::to_string(line_) + ", " + std::string(columns_[col]),
                         fields_[col], problem);
}

void throw_resume_mismatch(std::size_t index, const std::string& field, const std::string& have,
                           const std::string& want) {
  std::ostringstream m;
  m << "row " << index + 1 << " was measured with " << field << " = " << have
    << ", this sweep uses " << want << ": write to another directory (-o) or start over (--fresh)";
  throw core::InputError("", field, have, m.str());
}

namespace {

// The first value listed again, if any.
template <class T>
const T* repeated(const std::vector<T>& values) {
  for (auto it = values.begin(); it != values.end(); ++it) {
    if (std::find(values.begin(), it, *it) != it) return &*it;
  }
  return nullptr;
}

}  // namespace

void check_unique_axes(const std::vector<std::uint32_t>& layers,
                       const std::vector<std::int64_t>& taus_ps) {
  if (const auto* l = repeated(layers)) {
    throw core::InputError("", "layers", std::to_string(*l), "listed twice");
  }
  if (const auto* t = repeated(taus_ps)) {
    throw core::InputError("", "tau", core::format_duration(*t), "listed twice");
  }
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string header(std::span<const std::string_view> columns, std::size_t count) {
  std::string h;
  for (std::size_t i = 0; i < count; ++i) {
    if (!h.empty()) h += ',';
    h += columns[i];
  }
  return h;
}

void read_rows(const std::filesystem::path& file, std::span<const std::string_view> columns,
               std::span<const std::size_t> counts,
               const std::function<void(const RowReader&, std::size_t)>& row) {
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string(), "", "", "cannot open the file");
  std::string line;
  const bool read = static_cast<bool>(std::getline(in, line));
  std::size_t count = 0;
  for (const std::size_t c : counts) {
    if (count == 0 && line == header(columns, c)) count = c;
  }
  if (!read || count == 0) {
    throw core::InputError(file.string(), "line 1", line.substr(0, 60),
                           "not a flux evaluation CSV (expected the header " +
                               header(columns, columns.size()).substr(0, 40) + "...)");
  }
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    std::vector<std::string> f = split(line);
    if (f.size() != count) {
      throw core::InputError(file.string(), "line " + std::to_string(n), std::to_string(f.size()),
                             "expected " + std::to_string(count) + " columns");
    }
    row(RowReader(file, n, columns, std::move(f)), count);
  }
}

}  // namespace detail

}  // namespace flux::eval
