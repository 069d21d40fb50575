#pragma once
// One register_* per subcommand; each adds itself to the app and runs from
// its callback (errors propagate as exceptions to main).
#include <CLI/CLI.hpp>

namespace flux::cli {

void register_generate(CLI::App& app);
void register_info(CLI::App& app);
void register_schedule(CLI::App& app);
void register_validate(CLI::App& app);
void register_simulate(CLI::App& app);
void register_evaluate(CLI::App& app);
void register_import(CLI::App& app);
void register_unfold(CLI::App& app);
void register_sweep(CLI::App& app);

}  // namespace flux::cli
