#pragma once
// What the reader and writer tests of Flux's file formats share: a scratch
// directory, a file's bytes, and the check that parsing a document fails
// with an InputError naming the source, the field and the value.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::test_util {

/// A fresh directory under the system's temporary directory, removed with
/// everything in it at the end of the scope.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "flux_test") {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            (tag + "_" + std::to_string(counter++) + "_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The names in the directory, sorted.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      names.push_back(e.path().filename());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

/// A file's bytes.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The ```json blocks of docs/formats.md that declare `format`.
inline std::vector<std::string> doc_examples(const std::string& format) {
  std::ifstream in(std::string(FLUX_SOURCE_DIR) + "/docs/formats.md");
  std::vector<std::string> blocks;
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```json") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      if (block.find("\"format\": \"" + format + "\"") != std::string::npos) {
        blocks.push_back(block);
      }
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

/// Expects `parse(body, source)` to throw an InputError attributed to
/// `source`, naming `field` and `value`, whose message holds `problem_part`.
template <class Parse>
void expect_parse_error(Parse&& parse, const std::string& source, const std::string& body,
                        const std::string& field, const std::string& value,
                        const std::string& problem_part) {
  try {
    parse(body, source);
    FAIL() << "no error; expected " << field;
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.source(), source) << what;
    EXPECT_EQ(e.field(), field) << what;
    EXPECT_EQ(e.value(), value) << what;
    EXPECT_NE(what.find(source), std::string::npos) << what;
    EXPECT_NE(what.find(field), std::string::npos) << what;
    EXPECT_NE(what.find(value), std::string::npos) << what;
    EXPECT_NE(what.find(problem_part), std::string::npos) << what;
  }
}

}  // namespace flux::test_util
