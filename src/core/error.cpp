#include "flux/core/error.hpp"

namespace flux::core {
namespace {

// The length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  }
  // Overlong forms, surrogates and code points past U+10FFFF.
  if (n == 3 && ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0))) return 0;
  if (n == 4 && ((c == 0xf0 && b(i + 1) < 0x90) || (c == 0xf4 && b(i + 1) >= 0x90))) return 0;
  return n;
}

std::string compose(const std::string& source, const std::string& field, const std::string& value,
                    const std::string& problem) {
  std::string msg;
  if (!source.empty()) {
    msg.append(printable(source, kMaxPathChars));
    msg.append(": ");
  }
  if (!field.empty()) {
    msg.append(printable(field, kMaxFieldChars));
    if (!value.empty()) {
      msg.append(" = ");
      msg.append(printable(value, kMaxValueChars));
    }
    msg.append(": ");
  } else if (!value.empty()) {
    msg.push_back('\'');
    msg.append(printable(value, kMaxValueChars));
    msg.append("': ");
  }
  msg += printable(problem, kMaxProblemChars);
  return msg;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_length(text, i);
    const auto c = static_cast<unsigned char>(text[i]);
    char piece[4] = {};
    std::size_t len = 0;
    if (n == 0 || c < 0x20 || c == 0x7f) {
      piece[len++] = '\\';
      if (c == '\n' || c == '\t' || c == '\r') {
        piece[len++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
      } else {
        piece[len++] = 'x';
        piece[len++] = kHex[c >> 4];
        piece[len++] = kHex[c & 15];
      }
    } else {
      for (; len < n; ++len) piece[len] = text[i + len];
    }
    i += n == 0 ? 1 : n;
    if (out.size() + len > max_bytes) {
      return out + "... (" + std::to_string(text.size()) + " bytes)";
    }
    out.append(piece, len);
  }
  return out;
}

InputError::InputError(std::string source, std::string field, std::string value,
                       std::string problem)
    : Error(compose(source, field, value, problem)),
      source_(std::move(source)),
      field_(std::move(field)),
      value_(std::move(value)),
      problem_(std::move(problem)) {}

InputError InputError::with_source(const std::string& source) const {
  if (!source_.empty()) return *this;
  return InputError(source, field_, value_, problem_);
}

}  // namespace flux::core
