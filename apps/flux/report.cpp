// What the subcommands print and how their errors name the file at fault
// (report.hpp).
#include "report.hpp"

#include "flux/core/choice.hpp"

#include <iostream>

#include "flux/core/format.hpp"
#include "flux/io/output.hpp"

namespace flux::cli {

FILE* report_stream(const std::vector<std::string>& outputs) {
  for (const std::string& o : outputs) {
    if (o == io::kStdoutPath) return stderr;
  }
  return stdout;
}

std::string output_name(const std::string& path) {
  return path == io::kStdoutPath ? "standard output" : path;
}

std::string human_bytes(double b) {
  return core::format_bytes(b);
}

core::WorkloadSummary summary_before_writing(const core::Workload& w, const std::string& options) {
  try {
    return core::summarize(w, core::System{});
  } catch (const core::InputError& e) {
    // Every command reading the file would refuse it the same way: so is
    // its writing, before anything is written, naming what to change.
    throw core::InputError(e.source(), e.field(), e.value(),
                           e.problem() + "; nothing written: change " + options);
  }
}

void print_written(const std::string& where, const core::Workload& w) {
  print_written(where, w, core::summarize(w, core::System{}));
}

void print_written(const std::string& where, const core::Workload& w,
                   const core::WorkloadSummary& s) {
  std::cerr << "wrote " << where << ": " << w.name() << ", " << s.tasks << " sends, " << s.deps
            << " deps, " << human_bytes(static_cast<double>(s.total_bytes));
  if (!w.has_choices()) {
    std::cerr << "; critical path " << core::format_duration(s.critical_path_ps)
              << " on an ideal 800 Gb/s network\n";
    return;
  }
  // The sends of every alternative: the figures of one choice say more.
  const core::Workload first = core::resolve(w, core::Choice(w.choices().size(), 0));
  const core::WorkloadSummary f = core::summarize(first, core::System{});
  std::cerr << " in all the alternatives of " << w.choices().size()
            << " collectives; with the first of each (" << f.tasks << " sends), critical path "
            << core::format_duration(f.critical_path_ps) << " on an ideal 800 Gb/s network\n";
}

void print_notes(const std::vector<std::string>& notes) {
  for (const std::string& n : notes) std::cerr << n << "\n";
}

core::InputError invalid_schedule(const std::string& file, const schedule::ScheduleError& e) {
  std::string what = e.what();
  what = what.substr(0, what.find('\n'));  // "invalid schedule ...: N violations"
  if (!e.violations().empty()) what += ": " + e.violations().front();
  if (e.violation_count() > 1) {
    what += " (and " + std::to_string(e.violation_count() - 1) + " more; flux validate lists them)";
  }
  return core::InputError(file, "", "", what);
}

void print_routes(FILE* out, const core::Routed& routed, int width) {
  if (routed.forwarded_sends() != 0) {
    const std::uint64_t rx = routed.counts().received_sends;
    const std::uint64_t tx = routed.forwarded_sends() - rx;
    const std::string sides = rx == 0   ? "through a scale-up peer to their rail"
                              : tx == 0 ? "to a scale-up peer of their receiver, then through it"
                                        : "through a scale-up peer (" + std::to_string(tx) +
                                              " at the sender, " + std::to_string(rx) +
                                              " at the receiver)";
    std::fprintf(out, "%-*s%llu sends %s (%s)\n", width, "forwarded",
                 static_cast<unsigned long long>(routed.forwarded_sends()), sides.c_str(),
                 human_bytes(static_cast<double>(routed.forwarded_bytes())).c_str());
  }
  if (routed.packet_sends() != 0) {
    std::fprintf(out, "%-*s%llu sends over the packet fabric (%s)\n", width, "packet",
                 static_cast<unsigned long long>(routed.packet_sends()),
                 human_bytes(static_cast<double>(routed.packet_bytes())).c_str());
  }
}

}  // namespace flux::cli
