#pragma once
// Checks on outputs a front end names beyond a single file (the rules for
// one are flux::io's, include/flux/io/output.hpp): a Chakra trace prefix.
#include <string>

namespace flux::frontend {

/// A Chakra trace prefix as an output (PREFIX.<rank>.et, PREFIX.json): not
/// empty, not "-" (many files), in a directory that can be written. Throws
/// core::InputError naming `option`.
void check_output_prefix(const std::string& prefix, const std::string& option);

}  // namespace flux::frontend
