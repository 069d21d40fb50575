#pragma once
// error_of(f): the message of the core::InputError `f` throws, or "no error"
// (the sweep tests' check of one-line refusals).
#include <functional>
#include <string>

#include "flux/core/error.hpp"

namespace flux::test {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace flux::test
