#pragma once
// The memory a job may use: what the machine has available
// (/proc/meminfo), a job refused before it starts when its estimate is
// larger, and a sweep's memory budget as given.
#include <cstdint>
#include <string>

#include "flux/core/error.hpp"

namespace flux::frontend {

/// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
std::uint64_t available_memory();

/// Throws `where` (its file, field and value; its problem is the advice)
/// when `need` bytes exceed the memory available, with both amounts.
void refuse_if_too_large(std::uint64_t need, const core::InputError& where);

/// "8GiB", "512M", "12G", "50%" (of MemAvailable), or a number of bytes;
/// empty: 80% of MemAvailable. Throws core::InputError naming
/// --memory-budget.
std::uint64_t parse_memory_budget(const std::string& text);

}  // namespace flux::frontend
