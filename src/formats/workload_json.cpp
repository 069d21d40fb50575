// flux.workload/v2 (and v1): streaming reader (schema-driven SAX, no DOM) and writer.
#include "flux/formats/workload_json.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/io/gzip.hpp"
#include "flux/io/json_reader.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/io/save.hpp"

namespace flux::formats {
namespace {

using io::Field;
using io::Kind;
using io::Node;

constexpr std::uint64_t kMaxRank = 0xffff'fffeULL;  // core::Rank reserves 2^32-1
constexpr std::size_t kMaxTasks = 0xffff'fffeULL;   // core::TaskIndex likewise

// Schema nodes; the numbers index kNodes.
enum NodeId : int {
  kRoot,
  kFormat,
  kName,
  kAccelerators,
  kTasks,
  kTask,
  kTaskId,
  kSrc,
  kDst,
  kBytes,
  kLabel,
  kRelease,
  kTail,
  kDeps,
  kDep,
  kFrom,
  kTo,
  kCompute,
  kFold,
  kFoldCopies,
  kFoldBlockRanks,
  kScaleupSize,
  kScaleupGbps,
  kChoices,
  kChoice,
  kChoiceLabel,
  kAlternatives,
  kAlternative,
  kAlternativeName,
  kAlternativeTasks,
  kAlternativeTask,
  kNumNodes
};

// Versions (io::Field::since): 0 = flux.workload/v1, 1 = v2 (choices).
constexpr std::uint8_t kV2 = 1;
constexpr std::array<Field, 9> kRootFields = {{{"format", kFormat, true},
                                               {"name", kName, true},
                                               {"accelerators", kAccelerators, true},
                                               {"fold", kFold, false},
                                               {"scaleup_size", kScaleupSize, false},
                                               {"scaleup_gbps", kScaleupGbps, false},
                                               {"tasks", kTasks, true},
                                               {"deps", kDeps, true},
                                               {"choices", kChoices, false, kV2}}};
constexpr std::array<Field, 2> kChoiceFields = {
    {{"label", kChoiceLabel, false}, {"alternatives", kAlternatives, true}}};
constexpr std::array<Field, 2> kAlternativeFields = {
    {{"name", kAlternativeName, true}, {"tasks", kAlternativeTasks, true}}};
constexpr std::array<Field, 2> kFoldFields = {
    {{"copies", kFoldCopies, true}, {"block_ranks", kFoldBlockRanks, true}}};
constexpr std::array<Field, 7> kTaskFields = {{{"id", kTaskId, true},
                                               {"src", kSrc, true},
                                               {"dst", kDst, true},
                                               {"bytes", kBytes, true},
                                               {"label", kLabel, false},
                                               {"release_s", kRelease, false},
                                               {"tail_s", kTail, false}}};
constexpr std::array<Field, 3> kDepFields = {
    {{"from", kFrom, true}, {"to", kTo, true}, {"compute_s", kCompute, true}}};

constexpr std::array<Node, kNumNodes> kNodes = {{
    {Kind::kObject, kRootFields},          // kRoot
    {Kind::kString},                       // kFormat
    {Kind::kString},                       // kName
    {Kind::kUint},                         // kAccelerators
    {Kind::kArray, {}, kTask},             // kTasks
    {Kind::kObject, kTaskFields},          // kTask
    {Kind::kUint},                         // kTaskId
    {Kind::kUint},                         // kSrc
    {Kind::kUint},                         // kDst
    {Kind::kUint},                         // kBytes
    {Kind::kString},                       // kLabel
    {Kind::kTime},                         // kRelease
    {Kind::kTime},                         // kTail
    {Kind::kArray, {}, kDep},              // kDeps
    {Kind::kObject, kDepFields},           // kDep
    {Kind::kUint},                         // kFrom
    {Kind::kUint},                         // kTo
    {Kind::kTime},                         // kCompute
    {Kind::kObject, kFoldFields},          // kFold
    {Kind::kUint},                         // kFoldCopies
    {Kind::kUint},                         // kFoldBlockRanks
    {Kind::kUint},                         // kScaleupSize
    {Kind::kNumber},                       // kScaleupGbps
    {Kind::kArray, {}, kChoice},           // kChoices
    {Kind::kObject, kChoiceFields},        // kChoice
    {Kind::kString},                       // kChoiceLabel
    {Kind::kArray, {}, kAlternative},      // kAlternatives
    {Kind::kObject, kAlternativeFields},   // kAlternative
    {Kind::kString},                       // kAlternativeName
    {Kind::kArray, {}, kAlternativeTask},  // kAlternativeTasks
    {Kind::kUint},                         // kAlternativeTask
}};

constexpr std::array<std::string_view, 1> kOlderFormats = {kWorkloadFormatV1};
constexpr io::Schema kSchema{kNodes, kWorkloadFormat, kOlderFormats};

// A choice group as written: task ids, resolved to indices at the end.
struct RawAlternative {
  std::string name;
  std::vector<std::uint64_t> ids;
};
struct RawChoice {
  std::uint32_t label = core::kNoLabel;
  std::vector<RawAlternative> alternatives;
};

// A dep as written: task ids, resolved to indices once the tasks are known.
struct RawDep {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  core::TimePs compute_ps = 0;
};

// Builds WorkloadData as the document streams by. Deps are resolved as they
// arrive when "tasks" came first (as Flux writes it), else buffered.
class WorkloadHandler final : public io::Handler {
 public:
  void begin(int node, const io::Cursor& /*at*/) override {
    if (node == kTask) {
      task_ = core::Task{};
    } else if (node == kChoice) {
      choices_.emplace_back();
    } else if (node == kAlternative) {
      choices_.back().alternatives.emplace_back();
    } else if (node == kDeps) {
      if (tasks_done_) index_ids();
    }
  }

  void end(int node, const io::Cursor& at) override {
    switch (node) {
      case kTask:
        if (data_.tasks.size() >= kMaxTasks) {
          throw core::InputError("", at.path(), "", "too many tasks (at most 2^32-2)");
        }
        data_.tasks.push_back(task_);
        break;
      case kTasks:
        tasks_done_ = true;
        data_.tasks.shrink_to_fit();
        break;
      case kDep:
        if (tasks_done_) {
          data_.deps.push_back(resolve(dep_, at.path()));
        } else {
          deferred_.push_back(dep_);
        }
        break;
      default:
        break;
    }
  }

  void leaf(int node, const io::Leaf& v, const io::Cursor& at) override {
    switch (node) {
      case kName:
        data_.name = v.text;
        break;
      case kAccelerators:
        if (v.u > kMaxRank + 1)
          throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^32-1");
        data_.accelerators = static_cast<std::uint32_t>(v.u);
        break;
      case kFoldCopies:
        data_.fold.copies = fold_value(v, at);
        break;
      case kFoldBlockRanks:
        data_.fold.block_ranks = fold_value(v, at);
        break;
      case kScaleupSize:
        data_.scaleup_size = fold_value(v, at);
        if (data_.scaleup_size == 0) {
          throw core::InputError("", at.path(), "0", "must be at least 1 (omit it when unknown)");
        }
        break;
      case kScaleupGbps:
        if (!(v.d > 0 && v.d <= 1e9)) {
          throw core::InputError("", at.path(), std::string(v.text),
                                 "must be in (0, 1e9] Gb/s (omit it when unknown)");
        }
        data_.scaleup_gbps = v.d;
        break;
      case kTaskId:
        task_.id = v.u;
        break;
      case kSrc:
        task_.src = rank(v, at);
        break;
      case kDst:
        task_.dst = rank(v, at);
        break;
      case kBytes:
        task_.bytes = v.u;
        break;
      case kLabel:
        task_.label = intern(v.text);
        break;
      case kRelease:
        task_.release_ps = v.ps;
        break;
      case kTail:
        task_.tail_ps = v.ps;
        break;
      case kFrom:
        dep_.from = v.u;
        break;
      case kTo:
        dep_.to = v.u;
        break;
      case kCompute:
        dep_.compute_ps = v.ps;
        break;
      case kChoiceLabel:
        choices_.back().label = intern(v.text);
        break;
      case kAlternativeName:
        choices_.back().alternatives.back().name = v.text;
        break;
      case kAlternativeTask:
        choices_.back().alternatives.back().ids.push_back(v.u);
        break;
      default:
        break;
    }
  }

  // After the document: resolves buffered deps and validates the graph.
  core::Workload finish() {
    if (!deferred_.empty()) {
      index_ids();
      data_.deps.reserve(deferred_.size());
      for (std::size_t j = 0; j < deferred_.size(); ++j) {
        data_.deps.push_back(resolve(deferred_[j], "deps[" + std::to_string(j) + "]"));
      }
      deferred_ = {};
    }
    if (!choices_.empty()) {
      index_ids();
      for (std::size_t g = 0; g < choices_.size(); ++g) {
        core::ChoiceGroup& group = data_.choices.emplace_back();
        group.label = choices_[g].label;
        for (std::size_t a = 0; a < choices_[g].alternatives.size(); ++a) {
          RawAlternative& raw = choices_[g].alternatives[a];
          core::Alternative& alt = group.alternatives.emplace_back();
          alt.name = std::move(raw.name);
          alt.tasks.reserve(raw.ids.size());
          for (std::size_t k = 0; k < raw.ids.size(); ++k) {
            const auto v = index_of(raw.ids[k]);
            if (!v) {
              throw core::InputError("",
                                     "choices[" + std::to_string(g) + "].alternatives[" +
                                         std::to_string(a) + "].tasks[" + std::to_string(k) + "]",
                                     std::to_string(raw.ids[k]), "no task has this id");
            }
            alt.tasks.emplace_back(*v);
          }
        }
      }
      choices_ = {};
    }
    data_.deps.shrink_to_fit();
    label_index_ = {};
    return core::Workload(std::move(data_));
  }

 private:
  static core::Rank rank(const io::Leaf& v, const io::Cursor& at) {
    if (v.u > kMaxRank) {
      throw core::InputError("", at.path(), std::string(v.text), "out of range (at most 2^32-2)");
    }
    return core::Rank(static_cast<std::uint32_t>(v.u));
  }

  static std::uint32_t fold_value(const io::Leaf& v, const io::Cursor& at) {
    if (v.u > 0xffffffffu) {
      throw core::InputError("", at.path(), std::string(v.text), "too large: at most 2^32-1");
    }
    return static_cast<std::uint32_t>(v.u);
  }

  std::uint32_t intern(std::string_view label) {
    auto [it, inserted] = label_index_.try_emplace(std::string(label),
                                                   static_cast<std::uint32_t>(data_.labels.size()));
    if (inserted) data_.labels.emplace_back(label);
    return it->second;
  }

  // Prepares id -> index lookups; ids equal to positions need no table.
  void index_ids() {
    const auto& tasks = data_.tasks;
    dense_ = true;
    for (std::size_t i = 0; i < tasks.size() && dense_; ++i) dense_ = tasks[i].id == i;
    if (dense_) return;
    ids_.clear();
    ids_.reserve(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      ids_.emplace_back(tasks[i].id, static_cast<std::uint32_t>(i));
    }
    std::sort(ids_.begin(), ids_.end());
  }

  [[nodiscard]] std::optional<std::uint32_t> index_of(std::uint64_t id) const {
    if (dense_) {
      if (id < data_.tasks.size()) return static_cast<std::uint32_t>(id);
      return std::nullopt;
    }
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), std::make_pair(id, 0u));
    if (it == ids_.end() || it->first != id) return std::nullopt;
    return it->second;
  }

  [[nodiscard]] core::Dep resolve(const RawDep& d, const std::string& path) const {
    const auto from = index_of(d.from);
    if (!from)
      throw core::InputError("", path + ".from", std::to_string(d.from), "no task has this id");
    const auto to = index_of(d.to);
    if (!to) throw core::InputError("", path + ".to", std::to_string(d.to), "no task has this id");
    return core::Dep{core::TaskIndex(*from), core::TaskIndex(*to), d.compute_ps};
  }

  core::WorkloadData data_;
  core::Task task_;
  RawDep dep_;
  bool tasks_done_ = false;
  std::vector<RawDep> deferred_;  // deps seen before the tasks
  std::vector<RawChoice> choices_;
  bool dense_ = true;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ids_;  // sorted, when !dense_
  std::unordered_map<std::string, std::uint32_t> label_index_;
};

core::Workload build(WorkloadHandler& handler, const std::string& source) {
  try {
    return handler.finish();
  } catch (const core::InputError& e) {
    throw e.with_source(source);
  }
}

}  // namespace

core::Workload read_workload(const std::filesystem::path& file) {
  WorkloadHandler handler;
  io::read_json_file(file, kSchema, handler);
  return build(handler, file.string());
}

core::Workload parse_workload(std::string_view text, std::string_view source) {
  WorkloadHandler handler;
  io::read_json(text, source, kSchema, handler);
  return build(handler, std::string(source));
}

void write_workload(std::ostream& out, const core::Workload& w) {
  io::check_utf8(w.name(), "name");
  for (const std::string& label : w.labels()) io::check_utf8(label, "label");
  const std::span<const core::Task> tasks = w.tasks();
  io::JsonWriter j(out, io::JsonWriter::Style::kPretty);
  j.begin_object();
  // v1 without choice groups: those files stay as they were, byte for byte.
  j.member("format", w.has_choices() ? kWorkloadFormat : kWorkloadFormatV1);
  j.member("name", w.name());
  j.member("accelerators", w.accelerators());
  if (w.fold().folded()) {
    j.key("fold").begin_object();
    j.member("copies", w.fold().copies).member("block_ranks", w.fold().block_ranks);
    j.end_object();
  }
  if (w.scaleup_size() != 0) j.member("scaleup_size", w.scaleup_size());
  if (w.scaleup_gbps() != 0) j.member("scaleup_gbps", w.scaleup_gbps());
  j.key("tasks").begin_array();
  for (const core::Task& t : tasks) {
    j.begin_object();
    j.member("id", t.id);
    j.member("src", t.src.value());
    j.member("dst", t.dst.value());
    j.member("bytes", t.bytes);
    if (t.label != core::kNoLabel) j.member("label", w.labels()[t.label]);
    if (t.release_ps != 0) j.member("release_s", core::ps_to_seconds(t.release_ps));
    if (t.tail_ps != 0) j.member("tail_s", core::ps_to_seconds(t.tail_ps));
    j.end_object();
  }
  j.end_array();
  j.key("deps").begin_array();
  for (const core::Dep& e : w.deps()) {
    j.begin_object();
    j.member("from", tasks[e.from.value()].id);
    j.member("to", tasks[e.to.value()].id);
    j.member("compute_s", core::ps_to_seconds(e.compute_ps));
    j.end_object();
  }
  j.end_array();
  if (w.has_choices()) {
    j.key("choices").begin_array();
    for (const core::ChoiceGroup& g : w.choices()) {
      j.begin_object();
      if (g.label != core::kNoLabel) j.member("label", w.labels()[g.label]);
      j.key("alternatives").begin_array();
      for (const core::Alternative& a : g.alternatives) {
        j.begin_object();
        j.member("name", a.name);
        j.key("tasks").begin_inline_array();
        for (const core::TaskIndex v : a.tasks) j.value(tasks[v.value()].id);
        j.end_array();
        j.end_object();
      }
      j.end_array();
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
  j.finish();
}

void write_workload_as(std::ostream& out, const core::Workload& w,
                       const std::filesystem::path& file) {
  // A name ending in .gz asks for gzip. The fastest level: a large
  // workload's JSON is still 13 times smaller (level 6: 16 times, at twice
  // the time).
  if (file.extension() != ".gz") return write_workload(out, w);
  io::GzipOStream zout(out, 1);
  write_workload(zout, w);
  zout.finish();
}

void save_workload(const std::filesystem::path& file, const core::Workload& w) {
  try {
    io::save_atomically(file, [&](std::ostream& out) { write_workload_as(out, w, file); });
  } catch (const core::InputError& e) {
    throw e.with_source(file.string());
  }
}

}  // namespace flux::formats
