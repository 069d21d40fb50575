#pragma once
// The CLI's side of writing outputs (the rules are flux::io's, output.hpp):
// the signal handlers that remove temporaries, where a command's report
// goes, and the checks on a Chakra trace prefix.
#include <cstdio>
#include <string>
#include <vector>

namespace flux::cli {

/// Installs SIGINT, SIGTERM and SIGHUP handlers that remove the temporary
/// files being written (io::remove_temporaries) and then let the signal
/// kill the process as it would have (exit status 128 + signal).
void remove_temporaries_on_signals();

/// Where a command prints its report: standard error when one of its data
/// outputs is standard output ("-"), so that the data stays clean.
FILE* report_stream(const std::vector<std::string>& outputs);

/// An output as a report names it: "standard output" for "-".
std::string output_name(const std::string& path);

/// A Chakra trace prefix as an output (PREFIX.<rank>.et, PREFIX.json): not
/// empty, not "-" (many files), in a directory that can be written.
void check_output_prefix(const std::string& prefix, const std::string& option);

}  // namespace flux::cli
