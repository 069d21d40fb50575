// libFuzzer target: the command line (flux::cli::run, what the flux binary
// runs). The input is a list of words (separated by newlines or NULs) given
// to `flux` as its arguments, in a scratch directory holding a small
// workload (w.json, w.json.gz), a schedule of it (s.json) and a Chakra trace
// (t.0.et, t.1.et, t.json). Every command line must end in an exit code of 0,
// 1 or 2 with the error reported as one line; an internal error (exit 3), a
// crash, a sanitizer report or a hang is a finding.
//
// So that every run stays inside the scratch directory and takes well under
// a second, inputs are skipped when a word names another directory ('/',
// a leading '.'), when a number in them exceeds 8 (the workload generator's
// sizes, which tests/cli/usage.sh covers at their bounds), or when they name
// what is slow by design: evaluate, the 70b and 405b presets, --time-limit
// and --moves. schedule and simulate get `--time-limit 1s` first.
// Files the command writes are removed after each run.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flux/chakra/export.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/sched/scheduler.hpp"
#include "flux/workload/llama.hpp"
#include "run.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxWords = 16;
constexpr std::size_t kMaxWordLength = 64;
const std::set<std::string>* fixtures = nullptr;

bool skipped(const std::string& w) {
  if (w.find('/') != std::string::npos || (!w.empty() && w[0] == '.')) return true;
  if (w == "evaluate" || w == "70b" || w == "405b" || w.rfind("--time-limit", 0) == 0 ||
      w.rfind("--moves", 0) == 0) {
    return true;
  }
  // Any run of digits above 8 (also inside "1e9", "16us" or "--tp=64").
  std::uint64_t v = 0;
  bool digits = false;
  for (char c : w + " ") {
    if (c >= '0' && c <= '9') {
      v = digits ? std::min<std::uint64_t>(v * 10 + static_cast<std::uint64_t>(c - '0'), 1000)
                 : static_cast<std::uint64_t>(c - '0');
      digits = true;
    } else {
      if (digits && v > 8) return true;
      digits = false;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  const fs::path dir = fs::temp_directory_path() / ("flux-fuzz-cli." + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::current_path(dir);
  flux::workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 2;
  c.dp = 2;
  flux::workload::Program program;
  const flux::core::Workload w = flux::workload::generate_llama(c, &program);
  flux::formats::save_workload("w.json", w);
  flux::formats::save_workload("w.json.gz", w);
  flux::formats::save_schedule("s.json",
                               flux::sched::run_scheduler("greedy", w, flux::core::System{}, {}));
  flux::chakra::save_chakra(
      "t", flux::chakra::to_chakra(w, program, flux::chakra::CollectiveEncoding::kCommColl));
  static std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename());
  fixtures = &names;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words = {"flux"};
  std::string word;
  for (std::size_t i = 0; i <= size; ++i) {
    const char c = i < size ? static_cast<char>(data[i]) : '\n';
    if (c == '\n' || c == '\0') {
      if (skipped(word) || words.size() > kMaxWords) return 0;
      words.push_back(word);
      word.clear();
    } else if (word.size() < kMaxWordLength) {
      word += c;
    } else {
      return 0;
    }
  }
  if (words.size() > 1 && (words[1] == "schedule" || words[1] == "simulate")) {
    words.insert(words.begin() + 2, {"--time-limit", "1s"});
  }
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);
  const int code = flux::cli::run(static_cast<int>(words.size()), argv.data(), 0);
  for (const auto& e : fs::directory_iterator(fs::current_path())) {
    if (fixtures->count(e.path().filename()) == 0) {
      std::error_code ec;
      fs::remove_all(e.path(), ec);
    }
  }
  if (code != 0 && code != 1 && code != 2) std::abort();
  return 0;
}
