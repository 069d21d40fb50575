#pragma once
// The option groups the CLI's subcommands share, registered on a CLI::App
// and parsed into the front end's structs (include/flux/frontend/), which
// resolve and run them; and the one-line message of a bad command line.
#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

#include "flux/frontend/scheduler_run.hpp"
#include "flux/frontend/system.hpp"
#include "flux/frontend/training.hpp"
#include "flux/frontend/workload_input.hpp"
#include "flux/workload/llama.hpp"

namespace flux::cli {

/// The system's options (--switches, --link-gbps, --tau, --scaleup-size,
/// ...: core::kSystemOptions) into `o`, every one but those in `skip`;
/// o.scaleup_size_given and scaleup_gbps_given record whether those were
/// given.
void add_system_options(CLI::App& app, frontend::SystemOptions& o,
                        std::initializer_list<std::string_view> skip = {});

/// The options of a scheduler run (`flux schedule`, `flux simulate`,
/// `flux evaluate`: sched::kSchedulerOptions, sched::kMilpOptions) into
/// `run`. `with_scheduler`: also --scheduler and --robust-jitter;
/// `with_milp_files`: also --export-milp and --solution.
void add_scheduler_options(CLI::App& app, frontend::SchedulerRun& run, bool with_scheduler,
                           bool with_milp_files);

/// The training job's options (`flux generate llama3` / `moe`, `flux
/// evaluate`) into `o`; with o.moe, --model names a MoE model and the MoE
/// options are added. `all`: every option (generate); otherwise --model,
/// --tp, --dp, --gpu (what evaluate records per row). `base` gives the
/// defaults shown.
void add_training_options(CLI::App& app, frontend::TrainingOptions& o,
                          const workload::TrainingConfig& base, bool all);

/// The Chakra import's options: --comm-groups, --gpu, --collective,
/// --drop-missing-deps.
void add_chakra_options(CLI::App& app, frontend::ChakraOptions& o);

/// The positional `workload` argument (a file or a Chakra prefix) and the
/// import options that apply to a prefix.
void add_workload_argument(CLI::App& app, std::string& input, frontend::ChakraOptions& chakra);

/// For an optional path option: an empty path given on purpose is an
/// error ("an empty path"), not "no file".
CLI::Validator non_empty_path();

/// A command-line parse error as one line: which argument, what is wrong
/// and where the help is ("--bogus: unknown option (flux schedule --help)").
std::string usage_error(const CLI::App& app, const CLI::ParseError& e, int argc,
                        const char* const* argv);

}  // namespace flux::cli
