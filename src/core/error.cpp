#include "flux/core/error.hpp"

namespace flux::core {
namespace {

std::string compose(const std::string& source, const std::string& field, const std::string& value,
                    const std::string& problem) {
  std::string msg;
  if (!source.empty()) msg += source + ": ";
  if (!field.empty()) {
    msg += field;
    if (!value.empty()) msg += " = " + value;
    msg += ": ";
  } else if (!value.empty()) {
    msg += "'" + value + "': ";
  }
  msg += problem;
  return msg;
}

}  // namespace

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
