// Reading a sweep file's text into one JSON tree (document.hpp): the size
// limit, TOML through toml++ (its own nesting bound of 256), JSON through
// nlohmann with a callback that bounds its nesting and refuses duplicate
// keys before the tree is built.
#include "document.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/io/input_file.hpp"
#include "flux/sweep/expr.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::sweep {
namespace detail {
namespace {

// A TOML document as JSON, with the line of every value by its path.
Json from_toml(const toml::node& n, const std::string& path, std::map<std::string, int>& lines) {
  lines[path] = static_cast<int>(n.source().begin.line);
  if (const auto* t = n.as_table()) {
    Json j = Json::object();
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      j[key] = from_toml(v, path.empty() ? key : path + "." + key, lines);
    }
    return j;
  }
  if (const auto* a = n.as_array()) {
    Json j = Json::array();
    for (std::size_t i = 0; i < a->size(); ++i) {
      j.push_back(from_toml((*a)[i], path + "[" + std::to_string(i) + "]", lines));
    }
    return j;
  }
  if (const auto* s = n.as_string()) return Json(s->get());
  if (const auto* i = n.as_integer()) return Json(i->get());
  if (const auto* f = n.as_floating_point()) return Json(f->get());
  if (const auto* b = n.as_boolean()) return Json(b->get());
  throw core::InputError("", path, "", "dates and times have no meaning in a sweep file");
}

// JSON read with nlohmann's DOM parser (itself not recursive), watched by a
// callback that refuses nesting deeper than kMaxSweepDepth before it is
// built (dump() for an error message recurses) and a duplicate key (as
// TOML and every other flux reader do), naming the path.
Json parse_json(std::string_view text) {
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
    std::size_t index = 0;  // arrays: elements begun
  };
  std::vector<Frame> frames;
  const auto path = [&frames] {
    std::string p;
    for (const Frame& f : frames) {
      if (f.object) {
        p += (p.empty() ? "" : ".") + f.key;
      } else if (f.index > 0) {
        p += "[" + std::to_string(f.index - 1) + "]";
      }
    }
    return p;
  };
  const auto element = [&frames] {
    if (!frames.empty() && !frames.back().object) ++frames.back().index;
  };
  using Event = nlohmann::detail::parse_event_t;
  const Json::parser_callback_t watch = [&](int, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        element();
        if (frames.size() >= kMaxSweepDepth) {
          throw core::InputError("", shown(path()), "",
                                 "nested deeper than " + std::to_string(kMaxSweepDepth) +
                                     " levels, the limit of a sweep file");
        }
        frames.push_back(Frame{event == Event::object_start, {}, {}, 0});
        break;
      case Event::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          throw core::InputError("", shown(path()), "", "duplicate key");
        }
        break;
      }
      case Event::value:
        element();
        break;
      case Event::object_end:
      case Event::array_end:
        frames.pop_back();
        break;
    }
    return true;
  };
  return Json::parse(text, watch);
}

}  // namespace

void check_size(std::string_view text, const std::string& source) {
  if (text.size() > kMaxSweepFileBytes) {
    throw core::InputError(source, "", "",
                           "larger than " + std::to_string(kMaxSweepFileBytes >> 20) +
                               " MiB, the limit of a sweep file");
  }
}

Json read_document(std::string_view text, const std::string& source, bool json,
                   std::map<std::string, int>& lines) {
  check_size(text, source);
  Json root;
  if (json) {
    try {
      root = parse_json(text);
    } catch (const Json::parse_error& e) {
      throw core::InputError(source, "byte " + std::to_string(e.byte), "", "not valid JSON");
    } catch (const Json::out_of_range&) {  // 1e400: nlohmann's error 406, without a byte
      throw core::InputError(source, "", "", "not valid JSON: a number too large for a double");
    } catch (const core::InputError& e) {
      throw e.with_source(source);
    }
  } else {
    try {
      const toml::table t = toml::parse(text, source);
      root = from_toml(t, "", lines);
    } catch (const toml::parse_error& e) {
      // One line whatever toml++ says: InputError escapes its newlines.
      throw core::InputError(source, "line " + std::to_string(e.source().begin.line), "",
                             "not valid TOML: " + std::string(e.description()));
    } catch (const core::InputError& e) {
      throw e.with_source(source);
    }
  }
  return root;
}

}  // namespace detail

std::string SweepSpec::read_text(const std::filesystem::path& file) {
  // The one input file of io: a directory, a NUL in the path or an
  // unreadable file refused naming it (gzip is inflated as it is read).
  io::InputFile in(file);
  // At most one byte over the limit: a device that never ends (/dev/zero)
  // is refused after 1 MiB.
  std::string text(kMaxSweepFileBytes + 1, '\0');
  const std::streamsize n =
      in.bytes().sgetn(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(n, 0)));
  detail::check_size(text, file.string());
  return text;
}

}  // namespace flux::sweep
