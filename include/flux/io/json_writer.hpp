#pragma once
// A small streaming JSON writer: tokens go straight to a std::ostream through
// a 64 KiB buffer, so a file with ten million tasks is written without ever
// holding it in memory. The writer checks the nesting (a key only inside an
// object, a value after each key) and throws std::logic_error on misuse.
//
// Pretty style: the root container and every array put one member or element
// per line; other objects stay on one line. A workload's tasks therefore come
// out one per line:
//   {
//     "tasks": [
//       {"id": 0, "src": 0, "dst": 1, "bytes": 100},
//       ...
//     ]
//   }
// Compact style writes no whitespace at all.
#include <concepts>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace flux::io {

/// True when `s` is well-formed UTF-8 (what JSON strings must be).
bool is_valid_utf8(std::string_view s);
/// Throws core::InputError naming `field` when `s` is not valid UTF-8.
void check_utf8(std::string_view s, std::string_view field);

class JsonWriter {
 public:
  enum class Style : std::uint8_t { kCompact, kPretty };

  explicit JsonWriter(std::ostream& out, Style style = Style::kPretty);
  /// Flushes what is buffered (errors are left in the stream's state).
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  /// An array kept on one line in pretty style too (a matrix row); what it
  /// holds stays on that line. Closed by end_array().
  JsonWriter& begin_inline_array();
  JsonWriter& end_array();
  /// The key of the next member; only directly inside an object.
  JsonWriter& key(std::string_view k);

  /// A string, escaped. Throws core::InputError if it is not valid UTF-8.
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  /// Shortest form that reads back as the same double (std::to_chars).
  /// Throws std::invalid_argument on NaN or infinity (JSON has neither).
  JsonWriter& value(double v);
  /// Any other integer type (int, unsigned, ...), without ambiguity.
  template <std::integral T>
  requires(!std::same_as<T, bool> && !std::same_as<T, char>) JsonWriter& value(T v) {
    if constexpr (std::is_signed_v<T>) {
      return value(static_cast<std::int64_t>(v));
    } else {
      return value(static_cast<std::uint64_t>(v));
    }
  }
  JsonWriter& null();

  /// Shorthand for key(k).value(v).
  template <class T>
  JsonWriter& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  /// Checks that every container is closed, ends the document with a
  /// newline (pretty style) and flushes to the stream.
  void finish();

 private:
  template <class Int>
  JsonWriter& integer(Int v);

  struct Level {
    bool object = false;
    bool multiline = false;
    bool empty = true;
  };

  void before_value();  // separator, indentation, nesting checks
  void open(bool object, bool inline_array = false);
  void close(bool object);
  void write_string(std::string_view s);  // quoted and escaped
  void newline_indent(std::size_t depth);
  void put(std::string_view s);
  void put(char c);
  void flush_buffer();

  std::ostream& out_;
  Style style_;
  std::string buf_;
  std::vector<Level> stack_;
  std::size_t multiline_depth_ = 0;  // open containers that break lines
  bool have_key_ = false;            // a key was written; its value is next
  bool done_ = false;                // the root value is complete
};

}  // namespace flux::io
