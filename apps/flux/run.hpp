#pragma once
// The whole command line as one function (run.cpp).
#include <cstdint>

namespace flux::cli {

/// Parses `argv` (argv[0] is the program), runs the command and reports any
/// error as one line on stderr. Returns the exit code: 0, 2 for bad input
/// (a bad command line included), 1 for other Flux errors and out of
/// memory, 3 for internal errors. `memory_cap`: the address-space cap in
/// force, named in the out-of-memory message (0: none).
int run(int argc, const char* const* argv, std::uint64_t memory_cap);

}  // namespace flux::cli
