// gzip streams (io/gzip.hpp): round trips across chunk boundaries,
// concatenated members, and the errors of truncated, corrupt and trailing
// data; InputFile reads plain and gzip files alike.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "flux/core/error.hpp"
#include "flux/io/gzip.hpp"
#include "flux/io/input_file.hpp"

namespace flux::io {
namespace {

class ViewBuf final : public std::streambuf {
 public:
  explicit ViewBuf(const std::string& s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
};

std::string inflate_all(const std::string& gz) {
  ViewBuf in(gz);
  GzipInBuf buf(in, "x.gz");
  std::string out;
  char piece[1000];
  for (std::streamsize n; (n = buf.sgetn(piece, sizeof piece)) > 0;) out.append(piece, n);
  return out;
}

std::string error_of(const std::string& gz) {
  try {
    inflate_all(gz);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

// 3 MB of text that compresses well but not trivially: many zlib chunks.
std::string sample() {
  std::string s;
  for (std::uint64_t i = 0; s.size() < 3'000'000; ++i)
    s += std::to_string(i * 7919 % 100'003) + ",";
  return s;
}

TEST(Gzip, RoundTripsThroughTheStreamsAndAsOneString) {
  const std::string text = sample();
  std::ostringstream out;
  GzipOStream gz(out, 1);
  gz << text.substr(0, 12345);
  gz.write(text.data() + 12345, static_cast<std::streamsize>(text.size() - 12345));
  gz.finish();
  const std::string packed = out.str();
  EXPECT_LT(packed.size(), text.size() / 2);
  EXPECT_EQ(packed.substr(0, 2), "\x1f\x8b");
  EXPECT_EQ(inflate_all(packed), text);
  EXPECT_EQ(inflate_all(gzip_bytes(text)), text);
  // Two members one after the other read as one stream.
  EXPECT_EQ(inflate_all(gzip_bytes("abc") + gzip_bytes("def")), "abcdef");
  EXPECT_EQ(inflate_all(gzip_bytes("")), "");
}

TEST(Gzip, BadStreamsAreInputErrors) {
  const std::string packed = gzip_bytes(sample());
  EXPECT_EQ(error_of(packed.substr(0, packed.size() - 4)), "x.gz: truncated gzip stream");
  EXPECT_EQ(error_of(packed.substr(0, 100)), "x.gz: truncated gzip stream");
  std::string bad = packed;
  for (std::size_t i = 20; i < 40; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  EXPECT_NE(error_of(bad).find("x.gz: corrupt gzip data: "), std::string::npos) << error_of(bad);
  const std::string trailing = gzip_bytes("abc") + "xyz";
  EXPECT_NE(error_of(trailing).find("data after the end of the gzip stream"), std::string::npos)
      << error_of(trailing);
}

TEST(Gzip, InputFileReadsPlainAndGzipAlike) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("flux_gzip_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string text = sample();
  std::ofstream(dir / "plain", std::ios::binary) << text;
  std::ofstream(dir / "packed", std::ios::binary) << gzip_bytes(text);
  for (const char* name : {"plain", "packed"}) {
    InputFile f(dir / name);
    std::ostringstream got;
    got << &f.bytes();
    EXPECT_EQ(got.str(), text) << name;
    EXPECT_EQ(f.size().has_value(), std::string(name) == "plain");
  }
  try {
    InputFile f(dir);
    ADD_FAILURE() << "opened a directory";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a file");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace flux::io
