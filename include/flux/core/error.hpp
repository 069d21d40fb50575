#pragma once
// Typed exceptions thrown at API boundaries for bad input. The CLI catches
// them once and prints what(); the library never exits.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace flux::core {

/// The longest parts of an error message, in bytes: a message stays one
/// readable line whatever the input held (a 1 MB value, a 50,000-level
/// JSON path).
inline constexpr std::size_t kMaxPathChars = 512;
inline constexpr std::size_t kMaxFieldChars = 160;
inline constexpr std::size_t kMaxValueChars = 80;
inline constexpr std::size_t kMaxProblemChars = 2000;

/// `text` as one line of valid UTF-8: control characters and bytes that are
/// not UTF-8 escaped (\n, \t, \r, \xNN), and text past `max_bytes` cut,
/// with "... (N bytes)" saying how long it was. Backslashes are kept as they
/// are (values escaped by their readers stay readable).
std::string printable(std::string_view text, std::size_t max_bytes);

/// Base of every error Flux reports.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input: a malformed file, an invalid field value, an infeasible option.
/// The message names where (file), which field, and the offending value:
///   "w.json: tasks[3].bytes = -5: must be a positive integer"
class InputError : public Error {
 public:
  InputError(std::string source, std::string field, std::string value, std::string problem);

  const std::string& source() const { return source_; }
  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& problem() const { return problem_; }

  /// Same error, attributed to `source` (e.g. a file name) if it had none.
  InputError with_source(const std::string& source) const;

 private:
  std::string source_, field_, value_, problem_;
};

/// A long computation ended early because its caller raised a stop flag
/// (the Python bindings' Ctrl-C): there is no result to report.
class Stopped : public Error {
 public:
  Stopped() : Error("stopped on request") {}
};

}  // namespace flux::core
