#pragma once
// Writing any output file atomically: the content goes to a temporary file
// next to the target, which is renamed over it only when complete.
#include <filesystem>
#include <functional>
#include <ostream>

namespace flux::trace {

/// Calls `write` on a stream to a temporary file next to `file`, then renames
/// it over `file`. On any error (thrown by `write` or by I/O) the temporary
/// file is removed, `file` is untouched and the error propagates; I/O errors
/// are core::InputError naming `file`.
void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);

}  // namespace flux::trace
