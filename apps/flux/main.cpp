// flux: the command-line front end. Each subcommand is a thin layer over the
// library; errors from the library arrive as exceptions and are reported here,
// once, with a non-zero exit code.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "cli_common.hpp"
#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/core/format.hpp"
#include "outputs.hpp"

int main(int argc, char** argv) {
  CLI::App app{"flux: workload-aware optical circuit switch scheduling for LLM training"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flux 0.1.0");
  flux::cli::register_generate(app);
  flux::cli::register_info(app);
  flux::cli::register_schedule(app);
  flux::cli::register_simulate(app);
  flux::cli::register_evaluate(app);
  flux::cli::register_validate(app);
  flux::cli::register_import(app);
  flux::cli::register_unfold(app);
  const std::uint64_t memory_cap = flux::cli::limit_address_space();
  flux::cli::remove_temporaries_on_signals();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    std::cerr << "flux: error: " << flux::cli::usage_error(app, e, argc, argv) << "\n";
    return 2;
  } catch (const flux::core::InputError& e) {
    std::cerr << "flux: error: " << e.what() << "\n";
    return 2;
  } catch (const flux::core::Error& e) {
    std::cerr << "flux: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "flux: error: out of memory";
    if (memory_cap != 0) {
      std::cerr << " (" << flux::core::format_bytes(static_cast<double>(memory_cap))
                << " of address space, the memory available when flux started, plus 1 GiB)";
    }
    std::cerr << ": make the job smaller, or fold it (flux generate llama3 --fold-dp)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flux: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
