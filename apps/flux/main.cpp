// flux: the command-line front end (run.cpp). main() adds what only a
// process of its own should do (process.hpp): cap the address space, so
// that a job too large for the machine ends in an error rather than the
// kernel's out-of-memory killer, and remove temporary files on
// SIGINT/SIGTERM/SIGHUP.
#include "process.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  const std::uint64_t memory_cap = flux::cli::limit_address_space();
  flux::cli::remove_temporaries_on_signals();
  return flux::cli::run(argc, argv, memory_cap);
}
