#pragma once
// Writing any output file atomically: the content goes to a temporary file
// next to the target, which is renamed over it only when complete.
#include <filesystem>
#include <functional>
#include <ostream>
#include <utility>
#include <vector>

namespace flux::trace {

/// Calls `write` on a stream to a temporary file next to `file`, then renames
/// it over `file`. On any error (thrown by `write` or by I/O) the temporary
/// file is removed, `file` is untouched and the error propagates; I/O errors
/// are core::InputError naming `file`.
void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write);

/// Several files as one: every file is written to its temporary first, and
/// only when all are complete are they renamed into place. An error while
/// writing (or a target that is a directory, refused up front) leaves every
/// target untouched and no temporary file behind.
void save_files(
    const std::vector<std::pair<std::filesystem::path, std::function<void(std::ostream&)>>>& files);

}  // namespace flux::trace
