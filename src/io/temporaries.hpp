#pragma once
// The table of live temporary files (output.hpp, remove_temporaries): the one
// piece of process-wide state in Flux, so that a signal handler can unlink
// them. Private to io.
#include <string>

namespace flux::io::detail {

/// Adds `path` to the table; returns its entry for unregister_temporary.
void* register_temporary(const std::string& path);

/// Removes the entry (after the file was renamed or removed).
void unregister_temporary(void* entry) noexcept;

}  // namespace flux::io::detail
