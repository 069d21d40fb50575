#pragma once
// What only a process of its own does (main.cpp): cap its address space,
// and remove the temporary files being written when a signal ends it.
#include <cstdint>

namespace flux::cli {

/// Installs SIGINT, SIGTERM and SIGHUP handlers that remove the temporary
/// files being written (io::remove_temporaries) and then let the signal
/// kill the process as it would have (exit status 128 + signal).
void remove_temporaries_on_signals();

/// Caps the process's address space at the memory available now plus
/// 1 GiB (frontend::available_memory), so that a job too large for the
/// machine ends in std::bad_alloc (reported by run()) instead of the
/// kernel's out-of-memory killer. Does nothing under sanitizers (they
/// reserve terabytes of address space) or when a lower limit is already
/// set. Returns the cap, 0 if none was set.
std::uint64_t limit_address_space();

}  // namespace flux::cli
