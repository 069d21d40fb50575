#include "flux/trace/save.hpp"

#include "json_reader.hpp"

namespace flux::trace {

void save_file(const std::filesystem::path& file, const std::function<void(std::ostream&)>& write) {
  detail::save_atomically(file, write);
}

}  // namespace flux::trace
