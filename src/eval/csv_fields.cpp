// The evaluation's one CSV mechanism (csv_fields.hpp): fields, headers,
// reading rows with errors that name the file, the line and the column.
#include "csv_fields.hpp"

#include <fstream>
#include <sstream>

#include "flux/io/save.hpp"

namespace flux::eval::detail {

std::string num(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
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

double RowReader::real(std::size_t col) const {
  double v = 0;
  const std::string& s = fields_[col];
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) {
    fail(col, "not a finite number");
  }
  return v;
}

std::int64_t RowReader::seconds_ps(std::size_t col, const char* problem) const {
  const double s = real(col);
  if (s < 0 || !core::representable_seconds(s)) fail(col, problem);
  return core::seconds_to_ps(s);
}

void RowReader::get(std::size_t col, bool& v) const {
  const std::string& s = text(col);
  if (s != "true" && s != "false") fail(col, "expected true or false");
  v = s == "true";
}

void RowReader::fail(std::size_t col, const std::string& problem) const {
  throw core::InputError(file_, "line " + std::to_string(line_) + ", " + std::string(columns_[col]),
                         fields_[col], problem);
}

std::string header(std::span<const std::string_view> names) {
  std::string h;
  for (const std::string_view n : names) {
    if (!h.empty()) h += ',';
    h += n;
  }
  return h;
}

const std::string& checked_field(const std::string& s, std::string_view column) {
  if (s.find_first_of(",\"\n\r") != std::string::npos) {
    throw core::InputError("", std::string(column), s,
                           "a CSV name must not contain , \" or newlines");
  }
  return s;
}

void read_rows(const std::filesystem::path& file,
               const std::vector<std::vector<std::string_view>>& headers,
               const std::function<void(const RowReader&, unsigned)>& row) {
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string(), "", "", "cannot open the file");
  std::string line;
  const bool read = static_cast<bool>(std::getline(in, line));
  const std::vector<std::string_view>* names = nullptr;
  unsigned version = 0;
  for (unsigned v = 0; v < headers.size(); ++v) {
    if (line == header(headers[v])) names = &headers[version = v];
  }
  if (!read || names == nullptr) {
    throw core::InputError(file.string(), "line 1", line.substr(0, 60),
                           "not a flux evaluation CSV (expected the header " +
                               header(headers.back()).substr(0, 40) + "...)");
  }
  for (std::size_t n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    std::vector<std::string> f = split(line);
    if (f.size() != names->size()) {
      throw core::InputError(file.string(), "line " + std::to_string(n), std::to_string(f.size()),
                             "expected " + std::to_string(names->size()) + " columns");
    }
    row(RowReader(file, n, *names, std::move(f)), version);
  }
}

void save_rows(const std::filesystem::path& file, const std::string& text) {
  io::save_file(file, [&](std::ostream& o) { o << text; });
}

void throw_resume_mismatch(std::size_t index, const std::string& field, const std::string& have,
                           const std::string& want) {
  std::ostringstream m;
  m << "row " << index + 1 << " was measured with " << field << " = " << have
    << ", this sweep uses " << want << ": write to another directory (-o) or start over (--fresh)";
  throw core::InputError("", field, have, m.str());
}

}  // namespace flux::eval::detail
