#pragma once
// gnuplot run by a front end (flux evaluate, flux sweep, flux.sweep): the
// script on its standard input, the plots written to descriptors the caller
// holds (so they are renamed into place only when complete).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "flux/io/save.hpp"

namespace flux::frontend {

/// Runs gnuplot on `script` (its standard input), with `outputs[k]` as its
/// descriptor 3 + k; false when gnuplot is not installed. Throws
/// core::Error when gnuplot fails.
bool run_gnuplot(const std::string& script, const std::vector<int>& outputs);

/// Refuses a plot gnuplot did not finish (it exits 0 on a full disk): empty,
/// or not ending as its format must (`end`, trailing whitespace aside).
void check_plot(const io::OutputFile& plot, const std::filesystem::path& file,
                std::string_view end);

/// The end of every PNG: its last chunk, IEND (length 0, type, CRC).
inline constexpr char kPngEnd[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', '\xAE', '\x42', '\x60', '\x82'};
inline constexpr std::string_view kPngEndView(kPngEnd, sizeof kPngEnd);

}  // namespace flux::frontend
