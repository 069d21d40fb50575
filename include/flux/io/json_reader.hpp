#pragma once
// A schema-driven streaming JSON reader on top of
// nlohmann's SAX interface. No DOM is built; the reader walks a fixed schema
// (objects with known keys, arrays of one element type, typed leaves),
// checks every structural rule itself and hands converted leaf values to a
// Handler, which fills the caller's data structures as they stream by.
//
// Errors are core::InputError naming the JSON path ("tasks[3].bytes"), the
// value as written and the problem. The root's "format" key is checked as
// soon as it is seen, wherever it is: a file of another format or version is
// reported as such, not by whatever its first unexpected key happens to be.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "flux/core/time.hpp"

namespace flux::io {

enum class Kind : std::uint8_t {
  kObject,
  kArray,
  kString,
  kUint,         ///< integer 0 .. 2^63-1
  kTime,         ///< seconds >= 0, finite, converted to picoseconds
  kSignedTime,   ///< seconds of either sign, finite, converted to picoseconds
  kNumber,       ///< any number
  kNonNegative,  ///< number >= 0
  kMap,          ///< an object with any keys (each once), every value of node `element`
};

struct Field {
  std::string_view name;
  int node = -1;  ///< index into Schema::nodes
  bool required = true;
  /// The first format version that has this key: an index into
  /// Schema::older_formats, or older_formats.size() for Schema::format. A
  /// file of an earlier version that has it gets "unknown key". Keys added
  /// in a version are optional.
  std::uint8_t since = 0;
};

struct Node {
  Kind kind = Kind::kString;
  std::span<const Field> fields = {};  ///< kObject: its keys (at most 32)
  int element = -1;                    ///< kArray, kMap: the node of every element or value
};

struct Schema {
  std::span<const Node> nodes;  ///< nodes[0] is the root, an object with a "format" key
  /// The only accepted value of "format"; empty for a foreign format that
  /// has no such key (ASTRA-sim's communicator groups), whose root is then
  /// any object or map.
  std::string_view format;
  /// Earlier versions this reader still reads, oldest first: versions 0 ..
  /// older_formats.size() - 1; `format` is the last version. Files of an
  /// older version are read with the fields whose `since` is at most it.
  std::span<const std::string_view> older_formats = {};
};

/// One converted leaf value.
struct Leaf {
  std::string_view text;  ///< kString: the string; numbers: the token as written
  std::uint64_t u = 0;    ///< kUint
  double d = 0;           ///< kTime, kSignedTime (seconds), kNumber, kNonNegative
  core::TimePs ps = 0;    ///< kTime, kSignedTime
};

/// Where the reader is, for error messages from a Handler.
class Cursor {
 public:
  virtual ~Cursor() = default;
  /// JSON path of the current value, e.g. "tasks[3].bytes"; inside begin()
  /// and end() of an object, the object's path ("tasks[3]").
  [[nodiscard]] virtual std::string path() const = 0;
  /// The key of the innermost map member being read ("" outside maps).
  [[nodiscard]] virtual std::string_view key() const = 0;
};

/// Receives the document in order. May throw core::InputError (without a
/// source); the reader attributes it to the file.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void begin(int /*node*/, const Cursor& /*at*/) {}
  virtual void end(int /*node*/, const Cursor& /*at*/) {}
  virtual void leaf(int node, const Leaf& value, const Cursor& at) = 0;
  /// The file's format version (an index as in Field::since), once its
  /// "format" key is read and accepted (wherever it is in the document).
  virtual void version(std::size_t /*index*/) {}
};

/// Streams `text` through `schema` into `handler`. Throws core::InputError
/// with `source` as its source.
void read_json(std::string_view text, std::string_view source, const Schema& schema,
               Handler& handler);
/// Same, reading the file as a stream (never loaded whole into memory); a
/// gzip-compressed file (recognised by its magic bytes) is inflated as it is
/// read.
void read_json_file(const std::filesystem::path& file, const Schema& schema, Handler& handler);

/// A string for error messages: quoted, escaped, cut after 80 characters.
std::string quoted(std::string_view s);

}  // namespace flux::io
