// core::printable and InputError's message: one line of valid UTF-8 whatever
// the input held, each part cut at its bound saying how long it was.
#include <gtest/gtest.h>

#include <string>

#include "flux/core/error.hpp"

namespace flux::core {
namespace {

TEST(Printable, EscapesControlsAndBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("a\nb\tc\rd", 100), "a\\nb\\tc\\rd");
  EXPECT_EQ(printable(std::string("x\0y", 3), 100), "x\\x00y");
  EXPECT_EQ(printable("r\xffx.json", 100), "r\\xffx.json");
  EXPECT_EQ(printable("\x7f", 100), "\\x7f");
  // Valid UTF-8 is kept; overlong forms, surrogates and a cut sequence are not.
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82", 100),
            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
  EXPECT_EQ(printable("\xc0\xaf", 100), "\\xc0\\xaf");
  EXPECT_EQ(printable("\xed\xa0\x80", 100), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable("\xe2\x82", 100), "\\xe2\\x82");
  // Backslashes stay: values escaped by their readers stay readable.
  EXPECT_EQ(printable("\"a\\u0000b\"", 100), "\"a\\u0000b\"");
}

TEST(Printable, CutsAtTheBoundNeverInsideACharacter) {
  EXPECT_EQ(printable("abcdef", 6), "abcdef");
  EXPECT_EQ(printable("abcdefg", 6), "abcdef... (7 bytes)");
  // A 2-byte character that would cross the bound is left out whole, and
  // so is an escape.
  EXPECT_EQ(printable("abcde\xc3\xa9", 6), "abcde... (7 bytes)");
  EXPECT_EQ(printable("abcde\n", 6), "abcde... (6 bytes)");
  // Idempotent: what it returns passes through unchanged (the CLI applies it
  // again to every message).
  const std::string once = printable("a\nb\xff", 100);
  EXPECT_EQ(printable(once, 100), once);
}

TEST(InputErrorMessage, IsOneBoundedLine) {
  const std::string big(1'000'000, 'x');
  const InputError e("w\n.json", "tasks[0].name", "\"" + big + "\"", "too long\nreally");
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_LT(what.size(), 400U);
  EXPECT_NE(what.find("w\\n.json: tasks[0].name = \"xxx"), std::string::npos) << what;
  EXPECT_NE(what.find("... (1000002 bytes): too long\\nreally"), std::string::npos) << what;
  // The parts keep their whole text for callers that rebuild the error.
  EXPECT_EQ(e.value().size(), big.size() + 2);
  // A 50,000-level JSON path is cut too.
  std::string path;
  for (int i = 0; i < 50'000; ++i) path += "[0]";
  EXPECT_LT(std::string(InputError("s.json", path, "1", "bad").what()).size(), 300U);
}

}  // namespace
}  // namespace flux::core
