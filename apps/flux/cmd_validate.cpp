// flux validate w.json s.json: the independent validator on a schedule file.
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/schedule_json.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/schedule/validator.hpp"
#include "report.hpp"

namespace flux::cli {

void register_validate(CLI::App& app) {
  auto files = std::make_shared<std::pair<std::string, std::string>>();
  auto* cmd = app.add_subcommand("validate", "check a schedule against its workload");
  cmd->add_option("workload", files->first, "workload file")->required();
  cmd->add_option("schedule", files->second, "schedule file")->required();
  cmd->callback([files] {
    const core::Workload w = formats::read_workload(files->first);
    const schedule::Schedule s = formats::read_schedule(files->second);
    const schedule::ValidationReport r =
        blame_workload(files->first, [&] { return schedule::validate(w, s); });
    if (!r.ok()) {
      for (const std::string& v : r.violations) std::printf("violation: %s\n", v.c_str());
      throw core::InputError(files->second, "", "",
                             "invalid schedule: " + std::to_string(r.violation_count) +
                                 " violation(s), the first ones listed above");
    }
    std::printf("%s: valid schedule of %s, iteration time %s\n", files->second.c_str(),
                w.name().c_str(), core::format_duration(s.makespan_ps).c_str());
  });
}

}  // namespace flux::cli
