#include "flux/io/json_writer.hpp"

#include "flux/io/json_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "flux/core/error.hpp"

namespace flux::io {
namespace {

constexpr std::size_t kBufferSize = 64 * 1024;

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, at most U+10FFFF), or 0 if it is not well formed.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

// The string with control characters and invalid bytes shown as \xNN, for
// error messages.
std::string printable(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x80) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void check_utf8(std::string_view s, std::string_view field) {
  if (!is_valid_utf8(s)) {
    throw core::InputError("", std::string(field), quoted(s),
                           "not valid UTF-8 (JSON strings must be)");
  }
}

JsonWriter::JsonWriter(std::ostream& out, Style style) : out_(out), style_(style) {
  buf_.reserve(kBufferSize + 256);
}

JsonWriter::~JsonWriter() {
  try {
    flush_buffer();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

void JsonWriter::put(std::string_view s) {
  buf_.append(s);
  if (buf_.size() >= kBufferSize) flush_buffer();
}

void JsonWriter::put(char c) {
  buf_.push_back(c);
  if (buf_.size() >= kBufferSize) flush_buffer();
}

void JsonWriter::flush_buffer() {
  if (buf_.empty()) return;
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void JsonWriter::newline_indent(std::size_t depth) {
  static constexpr std::string_view kIndent =
      "\n                                                                ";
  std::size_t spaces = 2 * depth;
  put(kIndent.substr(0, 1 + std::min(spaces, kIndent.size() - 1)));
  for (spaces -= std::min(spaces, kIndent.size() - 1); spaces > 0; --spaces) put(' ');
}

void JsonWriter::before_value() {
  if (done_) throw std::logic_error("JsonWriter: a second value after the root value");
  if (stack_.empty()) return;
  Level& top = stack_.back();
  if (top.object) {
    if (!have_key_) throw std::logic_error("JsonWriter: a value in an object needs a key first");
    have_key_ = false;
    return;
  }
  if (!top.empty) put(',');
  if (top.multiline) {
    newline_indent(multiline_depth_);
  } else if (!top.empty && style_ == Style::kPretty) {
    put(' ');
  }
  top.empty = false;
}

void JsonWriter::open(bool object, bool inline_array) {
  before_value();
  put(object ? '{' : '[');
  const bool inside_inline = !stack_.empty() && !stack_.back().object && !stack_.back().multiline;
  const bool multiline =
      style_ == Style::kPretty && !inline_array && !inside_inline && (stack_.empty() || !object);
  stack_.push_back(Level{object, multiline, true});
  if (multiline) ++multiline_depth_;
}

void JsonWriter::close(bool object) {
  if (stack_.empty() || stack_.back().object != object) {
    throw std::logic_error(object ? "JsonWriter: end_object without a matching begin_object"
                                  : "JsonWriter: end_array without a matching begin_array");
  }
  if (have_key_) throw std::logic_error("JsonWriter: a key without a value");
  const Level top = stack_.back();
  stack_.pop_back();
  if (top.multiline) {
    --multiline_depth_;
    if (!top.empty) newline_indent(multiline_depth_);
  }
  put(object ? '}' : ']');
  if (stack_.empty()) done_ = true;
}

JsonWriter& JsonWriter::begin_object() {
  open(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  close(true);
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  open(false);
  return *this;
}
JsonWriter& JsonWriter::begin_inline_array() {
  open(false, true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  close(false);
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  if (stack_.empty() || !stack_.back().object) {
    throw std::logic_error("JsonWriter: a key outside an object");
  }
  if (have_key_) throw std::logic_error("JsonWriter: two keys in a row");
  Level& top = stack_.back();
  if (!top.empty) put(',');
  if (top.multiline) {
    newline_indent(multiline_depth_);
  } else if (!top.empty && style_ == Style::kPretty) {
    put(' ');
  }
  top.empty = false;
  write_string(k);
  put(':');
  if (style_ == Style::kPretty) put(' ');
  have_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  write_string(s);
  if (stack_.empty()) done_ = true;
  return *this;
}

void JsonWriter::write_string(std::string_view s) {
  put('"');
  std::size_t i = 0;
  while (i < s.size()) {
    // The longest run that needs no escaping goes out in one piece.
    std::size_t run = i;
    while (run < s.size()) {
      const auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++run;
    }
    if (run > i) {
      put(s.substr(i, run - i));
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t len = utf8_sequence(s, i);
      if (len == 0) {
        throw core::InputError("", "", printable(s), "not valid UTF-8 (JSON strings must be)");
      }
      put(s.substr(i, len));
      i += len;
      continue;
    }
    switch (c) {
      case '"':
        put("\\\"");
        break;
      case '\\':
        put("\\\\");
        break;
      case '\n':
        put("\\n");
        break;
      case '\r':
        put("\\r");
        break;
      case '\t':
        put("\\t");
        break;
      case '\b':
        put("\\b");
        break;
      case '\f':
        put("\\f");
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        put(std::string_view(esc, sizeof esc));
      }
    }
    ++i;
  }
  put('"');
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  put(b ? "true" : "false");
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  put("null");
  if (stack_.empty()) done_ = true;
  return *this;
}

template <class Int>
JsonWriter& JsonWriter::integer(Int v) {
  before_value();
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  put(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  return integer(v);
}
JsonWriter& JsonWriter::value(std::uint64_t v) {
  return integer(v);
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) {
    throw std::invalid_argument("JsonWriter: JSON cannot hold NaN or infinity");
  }
  before_value();
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  put(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
  if (stack_.empty()) done_ = true;
  return *this;
}

void JsonWriter::finish() {
  if (!done_ || !stack_.empty() || have_key_) {
    throw std::logic_error("JsonWriter: finish() before the document is complete");
  }
  if (style_ == Style::kPretty) put('\n');
  flush_buffer();
  out_.flush();
}

}  // namespace flux::io
