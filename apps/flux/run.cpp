// The command line as a function: the flux binary's main() and the
// command-line fuzz target (fuzz/fuzz_cli.cpp) run the same code. Errors from
// the library arrive as exceptions and are reported here, once, as one line
// with an exit code.
#include "run.hpp"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/core/format.hpp"

namespace flux::cli {
namespace {

// Every error is one line, whatever a message carries (another program's
// output, a value read from a file).
std::string one_line(const char* what) {
  return core::printable(what, 4 * core::kMaxProblemChars);
}

}  // namespace

int run(int argc, const char* const* argv, std::uint64_t memory_cap) {
  CLI::App app{"flux: workload-aware optical circuit switch scheduling for LLM training"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flux 0.1.0");
  register_generate(app);
  register_info(app);
  register_schedule(app);
  register_simulate(app);
  register_evaluate(app);
  register_validate(app);
  register_import(app);
  register_unfold(app);
  register_sweep(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::cerr << "flux: error: " << one_line(usage_error(app, e, argc, argv).c_str()) << "\n";
    return 2;
  } catch (const core::InputError& e) {
    std::cerr << "flux: error: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const core::Error& e) {
    std::cerr << "flux: error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "flux: error: out of memory";
    if (memory_cap != 0) {
      std::cerr << " (" << core::format_bytes(static_cast<double>(memory_cap))
                << " of address space, the memory available when flux started, plus 1 GiB)";
    }
    std::cerr << ": make the job smaller, or fold it (flux generate llama3 --fold-dp)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flux: internal error: " << one_line(e.what()) << "\n";
    return 3;
  }
  return 0;
}

}  // namespace flux::cli
