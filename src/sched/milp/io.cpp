// LP / MPS export of a MilpModel and reading ".sol" solution files.
#include <coin/CoinMpsIO.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "flux/core/error.hpp"
#include "flux/io/save.hpp"
#include "osi_load.hpp"
#include "solver.hpp"

namespace flux::sched {

namespace {

// The bytes written to `f`, an anonymous file, from its start.
std::string read_back(std::FILE* f) {
  std::string text;
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0) return text;
  char buf[1 << 16];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, got);
  return text;
}

}  // namespace

void check_model_format(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext != ".lp" && ext != ".mps") {
    throw core::InputError("", "--export-milp", path.string(),
                           "unknown model format: use a .lp or .mps file name");
  }
}

std::string milp_model_text(const MilpModel& m, const std::filesystem::path& path) {
  check_model_format(path);
  OsiClpSolverInterface solver;
  load_into_osi(m, solver);
  // CoinUtils writes to a FILE* (LP) or a file name (MPS): an anonymous file
  // serves both, and is read back.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::tmpfile(), &std::fclose);
  if (!f) throw core::InputError(path.string(), "", "", "cannot make a temporary file");
  bool ok = false;
  if (path.extension() == ".lp") {
    solver.writeLp(f.get(), 1e-9, 8, 9, 0.0, true);
    ok = std::ferror(f.get()) == 0;
  } else {
    // CoinMpsIO directly: Osi's writer would gzip the file.
    std::vector<std::string> row_names;
    for (std::size_t r = 0; r < m.num_rows(); ++r) {
      row_names.push_back(solver.getRowName(static_cast<int>(r)));
    }
    // The char* overload: the std::vector<std::string> one leaks inside
    // CoinUtils 2.11.
    std::vector<const char*> rows, cols;
    for (const std::string& n : row_names) rows.push_back(n.c_str());
    for (const std::string& n : m.col_names) cols.push_back(n.c_str());
    CoinMpsIO io;
    io.messageHandler()->setLogLevel(0);
    io.setMpsData(*solver.getMatrixByCol(), solver.getInfinity(), solver.getColLower(),
                  solver.getColUpper(), solver.getObjCoefficients(), m.is_integer.data(),
                  solver.getRowLower(), solver.getRowUpper(), cols.data(), rows.data());
    // Non-zero only on I/O errors (1 also when long names forced free MPS).
    const std::string through = "/proc/self/fd/" + std::to_string(::fileno(f.get()));
    ok = io.writeMps(through.c_str(), 0, 1, 2) >= 0;
  }
  std::string text = ok ? read_back(f.get()) : std::string();
  if (text.empty()) throw core::InputError(path.string(), "", "", "cannot write the model file");
  return text;
}

void export_milp(const MilpModel& m, const std::filesystem::path& path) {
  const std::string text = milp_model_text(m, path);
  io::save_file(path, [&](std::ostream& out) { out << text; });
}

std::vector<double> read_solution(const MilpModel& m, const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(path.string(), "", "", "cannot open the solution file");
  std::unordered_map<std::string, int> col;
  for (std::size_t c = 0; c < m.num_cols(); ++c) col.emplace(m.col_names[c], static_cast<int>(c));
  std::vector<double> values(m.num_cols(), 0.0);
  std::size_t found = 0, line_no = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream tokens(line);
    std::string prev, tok;
    int pending = -1;  // column whose value is the next token
    while (tokens >> tok) {
      if (pending >= 0) {
        char* end = nullptr;
        const double v = std::strtod(tok.c_str(), &end);
        if (end == tok.c_str() || *end != '\0') {
          throw core::InputError(path.string(), "line " + std::to_string(line_no), tok,
                                 "expected the value of column " + prev);
        }
        values[pending] = v;
        ++found;
        break;
      }
      if (auto it = col.find(tok); it != col.end()) {
        pending = it->second;
        prev = tok;
      }
    }
  }
  if (found == 0) {
    throw core::InputError(path.string(), "", "",
                           "no value for any column of this model (is it the solution of it?)");
  }
  return values;
}

}  // namespace flux::sched
