#include "flux/io/json_reader.hpp"

#include <algorithm>
#include <cstring>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/io/input_file.hpp"

namespace flux::io {
namespace {

using Json = nlohmann::json;
constexpr std::uint64_t kMaxUint = 0x7fff'ffff'ffff'ffffULL;  // 2^63 - 1
constexpr std::size_t kMaxQuoted = 80;
constexpr std::size_t kReadBuffer = 1 << 20;

const char* kind_problem(Kind k) {
  switch (k) {
    case Kind::kObject:
    case Kind::kMap:
      return "must be an object";
    case Kind::kArray:
      return "must be an array";
    case Kind::kString:
      return "must be a string";
    case Kind::kUint:
      return "must be a non-negative integer";
    case Kind::kTime:
    case Kind::kSignedTime:
      return "must be a number of seconds";
    case Kind::kNumber:
      return "must be a number";
    case Kind::kNonNegative:
      return "must be a non-negative number";
  }
  return "has the wrong type";
}

std::string join(const std::string& path, std::string_view key) {
  std::string k(key.substr(0, kMaxQuoted));
  return path.empty() ? k : path + "." + k;
}

enum class Token : std::uint8_t { kNull, kBool, kInt, kUint, kFloat, kString };

struct Scalar {
  Token token = Token::kNull;
  std::string_view text;  // the string, or the token as written
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
};

// nlohmann SAX consumer: tracks the nesting, the root "format" key and the
// schema, and forwards converted leaves to the Handler.
class SaxReader final : public Cursor {
 public:
  SaxReader(const Schema& schema, Handler& handler) : schema_(schema), handler_(handler) {
    for (const Field& f : schema_.nodes[0].fields) {
      if (f.name == "format") format_node_ = f.node;
    }
    format_ok_ = schema_.format.empty();
  }

  bool null() { return scalar(Scalar{Token::kNull, "null"}); }
  bool boolean(bool b) { return scalar(Scalar{Token::kBool, b ? "true" : "false"}); }
  bool number_integer(Json::number_integer_t v) {
    scratch_ = std::to_string(v);
    return scalar(Scalar{Token::kInt, scratch_, v, 0, static_cast<double>(v)});
  }
  bool number_unsigned(Json::number_unsigned_t v) {
    scratch_ = std::to_string(v);
    return scalar(Scalar{Token::kUint, scratch_, 0, v, static_cast<double>(v)});
  }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return scalar(Scalar{Token::kFloat, s, 0, 0, v});
  }
  bool string(Json::string_t& s) { return scalar(Scalar{Token::kString, s}); }
  bool binary(Json::binary_t& /*b*/) {
    throw core::InputError("", path(), "", "binary values are not JSON");
  }

  bool start_object(std::size_t /*elements*/) { return open(true); }
  bool start_array(std::size_t /*elements*/) { return open(false); }
  bool end_object() { return close(true); }
  bool end_array() { return close(false); }

  bool key(Json::string_t& k) {
    if (depth_ == 1) at_format_ = k == "format" && !schema_.format.empty();
    if (!skipping()) guarded([&] { schema_key(k); });
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const Json::exception& ex) {
    std::string what = ex.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (const auto p = what.find("] "); !what.empty() && what[0] == '[' && p != std::string::npos) {
      what.erase(0, p + 2);
    }
    throw core::InputError("", skipping() ? "" : path(), "",
                           "malformed JSON at byte " + std::to_string(position) + ": " + what);
  }

  [[nodiscard]] std::string path() const override {
    std::string p;
    // In begin() and end() of a container, its own path: no element or key.
    const std::size_t frames = stack_.size() - (at_edge_ && !stack_.empty() ? 1 : 0);
    for (std::size_t i = 0; i < frames; ++i) {
      const Frame& f = stack_[i];
      const Node& n = schema_.nodes[static_cast<std::size_t>(f.node)];
      if (n.kind == Kind::kArray) {
        p += '[';
        p += std::to_string(f.index);
        p += ']';
      } else if (n.kind == Kind::kMap) {
        if (f.has_key) p = join(p, io::quoted(f.key));
      } else if (f.field >= 0) {
        p = join(p, n.fields[static_cast<std::size_t>(f.field)].name);
      }
    }
    return p;
  }

  [[nodiscard]] std::string_view key() const override {
    for (auto f = stack_.rbegin(); f != stack_.rend(); ++f) {
      if (node(f->node).kind == Kind::kMap) return f->key;
    }
    return {};
  }

  // After the whole document: the format must have been seen; then the first
  // error recorded while it was not yet known is the one to report.
  void finish() {
    if (!format_ok_) {
      throw core::InputError("", "format", "",
                             "missing: a " + std::string(schema_.format) +
                                 " file is a JSON object with \"format\": \"" +
                                 std::string(schema_.format) + "\"");
    }
    if (pending_) throw *pending_;
  }

 private:
  struct Frame {
    int node = 0;
    int field = -1;                           // object: the current key's field
    std::uint64_t index = 0;                  // array: the element being read
    std::uint32_t seen = 0;                   // object: keys seen so far, by field
    std::string key;                          // map: the current key
    bool has_key = false;                     // map: a key was read
    std::set<std::string, std::less<>> keys;  // map: every key so far
  };

  [[nodiscard]] bool skipping() const { return pending_.has_value(); }

  // Runs one schema step. Before the format is known to be right, an error
  // is only recorded: the file may be of another format, which is the error
  // to report. The schema is not followed after an error.
  template <class F>
  void guarded(F&& step) {
    try {
      step();
    } catch (const core::InputError& e) {
      if (format_ok_) throw;
      pending_.emplace(e);
    }
  }

  [[noreturn]] static void format_error(const std::string& value, const std::string& problem) {
    throw core::InputError("", "format", value, problem);
  }

  void check_format(const Scalar& s) {
    const std::string want(schema_.format);
    if (s.token != Token::kString) {
      format_error(std::string(s.text), "must be the string \"" + want + "\"");
    }
    const auto& older = schema_.older_formats;
    version_ = older.size();
    for (std::size_t i = 0; i < older.size(); ++i) {
      if (s.text == older[i]) version_ = i;
    }
    if (version_ == older.size() && s.text != schema_.format) {
      const std::string_view family = schema_.format.substr(0, schema_.format.find('/') + 1);
      if (s.text.substr(0, family.size()) == family) {
        std::string known;
        for (const std::string_view f : older) known.append("\"").append(f).append("\", ");
        format_error(quoted(s.text),
                     "unsupported version: this reader knows " + known + "\"" + want + "\"");
      }
      format_error(quoted(s.text), "not a " + want + " file: expected \"" + want + "\"");
    }
    format_ok_ = true;
    version_known_ = true;
    // Keys of a later version, seen before the format said which it is.
    for (const auto& [where, node_id, since] : later_keys_) {
      if (since > version_) throw unknown_key(where, node(node_id));
    }
    later_keys_.clear();
    if (pending_) throw *pending_;
    handler_.version(version_);
  }

  // "unknown key" at `where` in an object of node `n`, listing the keys of
  // the file's version (all of them while it is not known).
  [[nodiscard]] core::InputError unknown_key(const std::string& where, const Node& n) const {
    std::string known;
    for (const Field& field : n.fields) {
      if (version_known_ && field.since > version_) continue;
      known += known.empty() ? "" : ", ";
      known += field.name;
    }
    const std::string_view format = version_known_ && version_ < schema_.older_formats.size()
                                        ? schema_.older_formats[version_]
                                        : schema_.format;
    return core::InputError("", where, "",
                            "unknown key (" + std::string(format) + " allows here: " + known + ")");
  }

  bool scalar(const Scalar& s) {
    if (depth_ == 1 && at_format_) check_format(s);
    if (!skipping()) guarded([&] { schema_scalar(s); });
    return true;
  }

  bool open(bool object) {
    if (depth_ == 1 && at_format_) {
      format_error(object ? "{...}" : "[...]",
                   "must be the string \"" + std::string(schema_.format) + "\"");
    }
    ++depth_;
    if (!skipping()) guarded([&] { schema_open(object); });
    return true;
  }

  bool close(bool object) {
    --depth_;
    if (!skipping()) guarded([&] { schema_close(object); });
    return true;
  }

  [[nodiscard]] const Node& node(int id) const {
    return schema_.nodes[static_cast<std::size_t>(id)];
  }

  [[nodiscard]] int expected_node() const {
    if (stack_.empty()) return 0;
    const Frame& f = stack_.back();
    const Node& n = node(f.node);
    return n.kind == Kind::kObject ? n.fields[static_cast<std::size_t>(f.field)].node : n.element;
  }

  void value_done() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (node(f.node).kind == Kind::kArray) {
      ++f.index;
    } else {
      f.field = -1;
    }
  }

  [[nodiscard]] std::string field_name() const {
    std::string p = path();
    return p.empty() ? "(document)" : p;
  }

  void schema_open(bool object) {
    const int id = expected_node();
    const Kind kind = node(id).kind;
    if (object ? kind != Kind::kObject && kind != Kind::kMap : kind != Kind::kArray) {
      throw core::InputError("", field_name(), object ? "{...}" : "[...]",
                             kind_problem(node(id).kind));
    }
    Frame frame;
    frame.node = id;
    stack_.push_back(std::move(frame));
    at_edge_ = true;
    handler_.begin(id, *this);
    at_edge_ = false;
  }

  void schema_close(bool object) {
    const Frame& f = stack_.back();
    const Node& n = node(f.node);
    if (object) {
      for (std::size_t i = 0; i < n.fields.size(); ++i) {
        if (n.fields[i].required && ((f.seen >> i) & 1u) == 0) {
          throw core::InputError("", join(path(), n.fields[i].name), "",
                                 "missing (a required key)");
        }
      }
    }
    at_edge_ = true;
    handler_.end(f.node, *this);
    at_edge_ = false;
    stack_.pop_back();
    value_done();
  }

  void schema_key(std::string_view k) {
    Frame& f = stack_.back();
    const Node& n = node(f.node);
    if (n.kind == Kind::kMap) {
      f.key = std::string(k);
      f.has_key = true;
      if (!f.keys.insert(f.key).second) throw core::InputError("", path(), "", "duplicate key");
      return;
    }
    for (std::size_t i = 0; i < n.fields.size(); ++i) {
      if (n.fields[i].name != k) continue;
      if ((f.seen >> i) & 1u) throw core::InputError("", join(path(), k), "", "duplicate key");
      const std::uint8_t since = n.fields[i].since;
      if (since > 0 && version_known_ && since > version_) throw unknown_key(join(path(), k), n);
      if (since > 0 && !version_known_ &&
          std::none_of(later_keys_.begin(), later_keys_.end(),
                       [&](const LaterKey& l) { return l.since == since; })) {
        later_keys_.push_back({join(path(), k), f.node, since});
      }
      f.seen |= 1u << i;
      f.field = static_cast<int>(i);
      return;
    }
    throw unknown_key(join(path(), k), n);
  }

  void schema_scalar(const Scalar& s) {
    const int id = expected_node();
    const Kind kind = node(id).kind;
    const bool number =
        s.token == Token::kInt || s.token == Token::kUint || s.token == Token::kFloat;
    const std::string value = s.token == Token::kString ? quoted(s.text) : std::string(s.text);
    auto fail = [&](const std::string& problem) {
      throw core::InputError("", field_name(), value, problem);
    };
    Leaf leaf;
    leaf.text = s.text;
    switch (kind) {
      case Kind::kObject:
      case Kind::kMap:
      case Kind::kArray:
        fail(kind_problem(kind));
        break;
      case Kind::kString:
        if (s.token != Token::kString) fail(kind_problem(kind));
        break;
      case Kind::kUint:
        if (!number) fail(kind_problem(kind));
        if (s.token == Token::kInt) {
          if (s.i < 0) fail("must not be negative");
          leaf.u = 0;  // "-0"
        } else if (s.token == Token::kFloat) {
          if (!s.text.empty() && s.text[0] == '-') fail("must not be negative");
          if (s.text.find_first_of(".eE") != std::string_view::npos) fail("must be an integer");
          fail("too large: at most 2^63-1");
        } else {
          if (s.u > kMaxUint) fail("too large: at most 2^63-1");
          leaf.u = s.u;
        }
        break;
      case Kind::kTime:
      case Kind::kSignedTime:
        if (!number) fail(kind_problem(kind));
        if (kind == Kind::kTime && s.d < 0) fail(std::string(core::kTimeRangeProblem));
        if (!core::representable_seconds(s.d)) {
          fail(kind == Kind::kTime ? std::string(core::kTimeRangeProblem)
                                   : "must be between -9.2e6 and 9.2e6 s");
        }
        leaf.d = s.d;
        leaf.ps = core::seconds_to_ps(s.d);
        break;
      case Kind::kNumber:
      case Kind::kNonNegative:
        if (!number) fail(kind_problem(kind));
        if (kind == Kind::kNonNegative && s.d < 0) fail("must not be negative");
        leaf.d = s.d;
        break;
    }
    if (id != format_node_) handler_.leaf(id, leaf, *this);
    value_done();
  }

  const Schema& schema_;
  Handler& handler_;
  int format_node_ = -1;
  std::vector<Frame> stack_;
  std::size_t depth_ = 0;   // open containers, followed even after an error
  bool at_format_ = false;  // the last key of the root object was "format"
  bool format_ok_ = false;
  std::size_t version_ = 0;     // the file's format version, once version_known_
  bool version_known_ = false;  // (format_ok_ also holds for a format-less schema)
  struct LaterKey {
    std::string where;
    int node;
    std::uint8_t since;
  };
  std::vector<LaterKey> later_keys_;  // before "format": the first key of each version > 0
  bool at_edge_ = false;              // in Handler::begin() or end(): path() is the container's
  std::optional<core::InputError> pending_;
  std::string scratch_;
};

}  // namespace

std::string quoted(std::string_view s) {
  std::string out = "\"";
  std::size_t shown = 0;
  for (char ch : s) {
    if (++shown > kMaxQuoted) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

void read_json(std::string_view text, std::string_view source, const Schema& schema,
               Handler& handler) {
  SaxReader reader(schema, handler);
  try {
    Json::sax_parse(text.begin(), text.end(), &reader);
    reader.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(std::string(source));
  }
}

void read_json_file(const std::filesystem::path& file, const Schema& schema, Handler& handler) {
  InputFile input(file, kReadBuffer);
  std::istream in(&input.bytes());
  SaxReader reader(schema, handler);
  try {
    Json::sax_parse(in, &reader);
    if (in.bad()) throw core::InputError("", "", "", "read error");
    reader.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(input.source());
  }
}

}  // namespace flux::io
