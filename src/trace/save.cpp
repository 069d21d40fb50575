#include "flux/trace/save.hpp"

#include <memory>

#include "flux/core/error.hpp"
#include "json_reader.hpp"

namespace flux::trace {

void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
  detail::save_atomically(file, write);
}

void save_files(
    const std::vector<std::pair<std::filesystem::path, std::function<void(std::ostream&)>>>&
        files) {
  // What would make a rename fail once others are done: checked first.
  for (const auto& entry : files) {
    if (std::filesystem::is_directory(entry.first)) {
      throw core::InputError(entry.first.string(), "", "", "is a directory");
    }
  }
  std::vector<std::unique_ptr<detail::TempFile>> temps;
  for (const auto& [file, write] : files) {
    temps.push_back(std::make_unique<detail::TempFile>(file));
    write(temps.back()->stream());
    temps.back()->close();
  }
  for (auto& t : temps) t->commit();
}

}  // namespace flux::trace
