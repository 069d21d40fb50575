#pragma once
// Typed exceptions thrown at API boundaries for bad input. The CLI catches
// them once and prints what(); the library never exits.
#include <stdexcept>
#include <string>

namespace flux::core {

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
