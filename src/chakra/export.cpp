// Program + workload -> Chakra traces (export.hpp). Each rank keeps the ids
// of the nodes its compute waits for (`waits`), mirroring the generator's
// frontier (workload/lowering.hpp): compute and collective launches depend
// on them; a collective awaited at once replaces them by the rank's
// terminal nodes, or adds those when the frontier is not replaced; one
// awaited at the end is remembered for the next compute step that waits for
// the outstanding ones (the optimizer); one joined later (a pipeline
// receive, a ring-attention step, an FSDP prefetch) adds its terminal nodes
// at its join step. Point-to-point sends and ring steps are always COMM_SEND
// / COMM_RECV pairs. Node ids come from one counter in program order (the
// same id on every rank of a COMP or COMM_COLL step), so that the importer,
// which visits ready nodes by (id, rank), creates tasks in the generator's
// order.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <unordered_map>

#include "flux/chakra/export.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/error.hpp"
#include "flux/io/save.hpp"
#include "flux/workload/builder.hpp"
#include "flux/workload/collectives.hpp"

namespace flux::chakra {
namespace {

using core::TaskIndex;
using workload::CollectiveKind;
using workload::Program;
using workload::ProgramCollective;

// The shortest decimal that reads back as v.
std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::int64_t comm_type_of(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce:
      return static_cast<std::int64_t>(CommType::kAllReduce);
    case CollectiveKind::kReduceScatter:
      return static_cast<std::int64_t>(CommType::kReduceScatter);
    case CollectiveKind::kAllGather:
      return static_cast<std::int64_t>(CommType::kAllGather);
    case CollectiveKind::kAllToAll:
      return static_cast<std::int64_t>(CommType::kAllToAll);
    case CollectiveKind::kSend:  // always written as COMM_SEND / COMM_RECV
    case CollectiveKind::kShift:
      break;
  }
  return 0;
}

// A Chakra trace runs one decomposition per collective.
[[noreturn]] void refuse_choice() {
  throw core::InputError("", "collective", "auto",
                         "a Chakra trace holds one algorithm per collective: export the "
                         "decompositions a schedule chose (--choice SCHEDULE), or generate the "
                         "job with a fixed --collective");
}

class Exporter {
 public:
  // `w`: the workload `p` made, or null (each collective's sends are then
  // made again where they are written).
  Exporter(const core::Workload* w, const Program& p, CollectiveEncoding encoding,
           std::span<const std::uint32_t> choice)
      : w_(w),
        p_(p),
        encoding_(encoding),
        choice_(choice.begin(), choice.end()),
        waits_(p.ranks),
        outstanding_(p.ranks) {}

  ChakraTrace run();

 private:
  EtNode& add(std::uint32_t r, std::uint64_t id, NodeType type, std::string_view name,
              std::vector<std::uint64_t> deps) {
    EtNode& n = out_.ranks[r].nodes.emplace_back();
    n.id = id;
    n.type = static_cast<std::uint32_t>(type);
    n.name = std::string(name);
    n.data_deps = std::move(deps);
    n.is_cpu_op = false;
    return n;
  }
  void compute(const workload::ProgramOp& op);
  void comm_coll(std::uint32_t c, std::uint64_t id, workload::Await await);
  void send_recv(std::uint32_t c, workload::Await await);
  // Collective c's sends, tasks [first, first + c's count) of `w` with
  // `tasks` its members' initial and terminal ones, as COMM_SEND / COMM_RECV.
  void sends_of(std::uint32_t c, workload::Await await, const core::Workload& w,
                std::uint32_t first, const workload::CollectiveTasks& tasks);
  void member_waits(std::uint32_t c, std::size_t pos, std::vector<std::uint64_t> nodes,
                    workload::Await await);
  void join_later(std::uint32_t c);
  // The program describes w_'s tasks, and the choice is one of w_'s.
  void check_workload() const;
  std::string label(const ProgramCollective& pc) const {
    if (pc.spec.label == core::kNoLabel) return {};
    return w_ != nullptr ? w_->labels()[pc.spec.label] : p_.labels.at(pc.spec.label);
  }

  // Whether task t is written: with a choice, only the chosen alternative's
  // sends of each group.
  [[nodiscard]] bool kept(TaskIndex t) const {
    if (choice_.empty()) return true;
    const auto alt = w_->alternative_of(t);
    return !alt || choice_[alt->first] == alt->second;
  }
  // The algorithm collective c runs: the program's, or the chosen one.
  workload::Algorithm algorithm(const ProgramCollective& pc) const;

  const core::Workload* w_;
  const Program& p_;
  CollectiveEncoding encoding_;
  core::Choice choice_;
  bool one_algorithm_ = false;  // every collective runs the same (said once, per rank)
  ChakraTrace out_;
  std::uint64_t next_id_ = 0;
  std::vector<std::vector<std::uint64_t>> waits_;
  std::vector<std::vector<std::uint64_t>> outstanding_;
  // Collectives launched to be joined later: per member, its terminal nodes
  // (empty once joined).
  std::unordered_map<std::uint32_t, std::vector<std::vector<std::uint64_t>>> deferred_;
  std::map<std::vector<core::Rank>, std::string> group_names_;
  std::unordered_map<std::uint64_t, std::int64_t> tags_;  // src * n + dst -> next comm_tag
};

void Exporter::compute(const workload::ProgramOp& op) {
  const std::uint64_t id = next_id_++;
  const char* name = op.after_outstanding ? "final compute" : "compute";
  auto one = [&](std::uint32_t r) {
    std::vector<std::uint64_t> deps = waits_[r];
    if (op.after_outstanding) {
      deps.insert(deps.end(), outstanding_[r].begin(), outstanding_[r].end());
      outstanding_[r].clear();
    }
    EtNode& n = add(r, id, NodeType::kComp, name, std::move(deps));
    n.duration_micros =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(op.compute_ps) / 1e6));
    n.duration_ps = op.compute_ps;
    waits_[r] = {id};
  };
  if (op.ranks.empty()) {
    for (std::uint32_t r = 0; r < p_.ranks; ++r) one(r);
  } else {
    for (const std::uint32_t r : op.ranks) one(r);
  }
}

workload::Algorithm Exporter::algorithm(const ProgramCollective& pc) const {
  if (pc.spec.algorithm != workload::Algorithm::kAuto) return pc.spec.algorithm;
  if (w_ == nullptr) refuse_choice();
  for (std::uint32_t k = 0; k < pc.num_tasks; ++k) {
    if (const auto alt = w_->alternative_of(TaskIndex(pc.first_task + k))) {
      return workload::algorithm_from_string(
          w_->choices()[alt->first].alternatives[choice_.at(alt->first)].name);
    }
  }
  throw core::InputError("", "collectives", std::to_string(pc.first_task),
                         "a collective of several decompositions without a choice group");
}

void Exporter::member_waits(std::uint32_t c, std::size_t pos, std::vector<std::uint64_t> nodes,
                            workload::Await await) {
  const ProgramCollective& pc = p_.collectives[c];
  const std::uint32_t r = pc.spec.group[pos].value();
  const bool now =
      await == workload::Await::kNow || (await == workload::Await::kSenderNow && pos == 0);
  if (now) {
    if (pc.replaced(pos)) waits_[r].clear();
    waits_[r].insert(waits_[r].end(), nodes.begin(), nodes.end());
  } else if (await == workload::Await::kAtEnd) {
    outstanding_[r].insert(outstanding_[r].end(), nodes.begin(), nodes.end());
  } else {
    auto& members = deferred_[c];
    members.resize(pc.spec.group.size());
    members[pos] = std::move(nodes);
  }
}

void Exporter::join_later(std::uint32_t c) {
  auto it = deferred_.find(c);
  if (it == deferred_.end()) return;
  const ProgramCollective& pc = p_.collectives[c];
  for (std::size_t pos = 0; pos < it->second.size(); ++pos) {
    std::vector<std::uint64_t>& into = waits_[pc.spec.group[pos].value()];
    into.insert(into.end(), it->second[pos].begin(), it->second[pos].end());
  }
  deferred_.erase(it);
}

void Exporter::comm_coll(std::uint32_t c, std::uint64_t id, workload::Await await) {
  const ProgramCollective& pc = p_.collectives[c];
  auto [it, inserted] =
      group_names_.try_emplace(pc.spec.group, std::to_string(group_names_.size() + 1));
  if (inserted) {
    std::vector<std::uint32_t>& ranks = out_.groups[it->second];
    for (core::Rank r : pc.spec.group) ranks.push_back(r.value());
  }
  const std::string name = label(pc);
  const std::optional<std::string> own_algorithm =
      one_algorithm_ ? std::nullopt : std::optional(std::string(to_string(algorithm(pc))));
  for (std::size_t pos = 0; pos < pc.spec.group.size(); ++pos) {
    const std::uint32_t r = pc.spec.group[pos].value();
    EtNode& n = add(r, id, NodeType::kCommColl, name, waits_[r]);
    n.comm_type = comm_type_of(pc.spec.kind);
    n.comm_size = static_cast<std::int64_t>(pc.spec.bytes);
    if (pc.spec.kind == CollectiveKind::kAllGather) {
      // ASTRA-sim reads an ALL_GATHER's comm_size as each rank's input.
      const std::uint64_t p = pc.spec.group.size();
      n.comm_size = static_cast<std::int64_t>((pc.spec.bytes + p - 1) / p);
      if (pc.spec.bytes % p != 0) n.gathered_bytes = static_cast<std::int64_t>(pc.spec.bytes);
    }
    n.pg_name = it->second;
    n.collective = own_algorithm;
    if (await == workload::Await::kLater && !pc.replaced(pos)) {
      // The importer would hand the rank its frontier at the launch again
      // with the node; the generator, joining later, does not.
      throw core::InputError("", "collectives", name,
                             "cannot be written exactly as a COMM_COLL node joined after its "
                             "launch: use COMM_SEND/COMM_RECV (--chakra-collectives send-recv)");
    }
    member_waits(c, pos, {id}, await);
  }
}

void Exporter::send_recv(std::uint32_t c, workload::Await await) {
  const ProgramCollective& pc = p_.collectives[c];
  if (w_ != nullptr) return sends_of(c, await, *w_, pc.first_task, pc.tasks);
  // Its sends made again as the generator made them, on a builder of
  // their own (spec is the collective as lowered: the same sends).
  // (without its label: the nodes are named from the program's labels)
  workload::WorkloadBuilder b(p_.name, p_.ranks);
  workload::CollectiveSpec spec = pc.spec;
  spec.label = core::kNoLabel;
  std::vector<bool> replaces;
  workload::CollectiveSpec lowered;
  const workload::CollectiveTasks tasks = workload::lower_collective(b, spec, replaces, lowered);
  if (b.num_tasks() != pc.num_tasks) {
    throw core::InputError("", "collectives", std::to_string(pc.first_task),
                           "the program does not describe its sends");
  }
  const core::Workload w = std::move(b).build();
  sends_of(c, await, w, 0, tasks);
}

void Exporter::sends_of(std::uint32_t c, workload::Await await, const core::Workload& w,
                        std::uint32_t first, const workload::CollectiveTasks& tasks) {
  const ProgramCollective& pc = p_.collectives[c];
  const std::uint32_t count = pc.num_tasks;
  std::vector<std::uint64_t> send_id(count), recv_id(count);
  std::vector<bool> initial(count, false);
  for (std::size_t pos = 0; pos < pc.spec.group.size(); ++pos) {
    for (TaskIndex t : tasks.initial[pos]) initial[t.value() - first] = true;
  }
  const std::string name = label(pc);
  const std::uint64_t n = p_.ranks;
  for (std::uint32_t k = 0; k < count; ++k) {
    const TaskIndex t(first + k);
    if (!kept(t)) continue;  // another alternative's (its deps stay inside it)
    const core::Task& task = w.task(t);
    const std::uint32_t s = task.src.value();
    const std::uint32_t d = task.dst.value();
    send_id[k] = next_id_++;
    recv_id[k] = next_id_++;
    // A send waits for the earlier tasks of the collective that its sender
    // took part in (the receives that brought its data) and, if initial,
    // for the rank's frontier.
    std::vector<std::uint64_t> deps;
    for (std::uint32_t j : w.in_edge_ids(t)) {
      const core::Dep& e = w.deps()[j];
      const std::uint32_t u = e.from.value();
      if (u < first) continue;  // from the frontier: waits_ holds it
      const core::Task& from = w.task(e.from);
      if (e.compute_ps != 0 || (from.dst.value() != s && from.src.value() != s)) {
        throw core::InputError("", "deps",
                               std::to_string(from.id) + " -> " + std::to_string(task.id),
                               "cannot be written as Chakra nodes of rank " + std::to_string(s));
      }
      deps.push_back(from.dst.value() == s ? recv_id[u - first] : send_id[u - first]);
    }
    if (initial[k]) deps.insert(deps.end(), waits_[s].begin(), waits_[s].end());
    const std::int64_t tag = tags_[s * n + d]++;
    if (tag > 0x7fffffff) {
      throw core::InputError("", "comm_tag", std::to_string(tag), "above 2^31-1 sends on a pair");
    }
    for (const bool is_send : {true, false}) {
      EtNode& node = add(is_send ? s : d, is_send ? send_id[k] : recv_id[k],
                         is_send ? NodeType::kCommSend : NodeType::kCommRecv, name,
                         is_send ? std::move(deps) : std::vector<std::uint64_t>{});
      node.comm_src = s;
      node.comm_dst = d;
      node.comm_size = static_cast<std::int64_t>(task.bytes);
      node.comm_tag = tag;
    }
  }
  for (std::size_t pos = 0; pos < pc.spec.group.size(); ++pos) {
    const std::uint32_t r = pc.spec.group[pos].value();
    std::vector<std::uint64_t> nodes;
    for (TaskIndex t : tasks.terminal[pos]) {
      if (!kept(t)) continue;
      const std::uint32_t k = t.value() - first;
      nodes.push_back(w.task(t).src.value() == r ? send_id[k] : recv_id[k]);
    }
    member_waits(c, pos, std::move(nodes), await);
  }
}

ChakraTrace Exporter::run() {
  if (w_ != nullptr) check_workload();
  // The importer's default algorithm, when every collective used the same;
  // otherwise each COMM_COLL node names its own.
  one_algorithm_ = !p_.collectives.empty() &&
                   std::all_of(p_.collectives.begin(), p_.collectives.end(), [&](const auto& c) {
                     return algorithm(c) == algorithm(p_.collectives[0]);
                   });
  const std::string& name = w_ != nullptr ? w_->name() : p_.name;
  const std::uint32_t scaleup_size = w_ != nullptr ? w_->scaleup_size() : p_.scaleup_size;
  const double scaleup_gbps = w_ != nullptr ? w_->scaleup_gbps() : p_.scaleup_gbps;
  out_.ranks.resize(p_.ranks);
  for (std::uint32_t r = 0; r < p_.ranks; ++r) {
    out_.ranks[r].source = "rank " + std::to_string(r);
    out_.ranks[r].version = std::string(kSchemaVersion);
    out_.ranks[r].workload = name;
    if (scaleup_size != 0) out_.ranks[r].scaleup_size = std::to_string(scaleup_size);
    if (scaleup_gbps != 0) out_.ranks[r].scaleup_gbps = shortest(scaleup_gbps);
    if (one_algorithm_) {
      out_.ranks[r].collective = std::string(to_string(algorithm(p_.collectives[0])));
    }
  }
  for (const workload::ProgramOp& op : p_.ops) {
    switch (op.type) {
      case workload::ProgramOp::Type::kCompute:
        compute(op);
        break;
      case workload::ProgramOp::Type::kLaunch: {
        for (const std::uint32_t c : op.collectives) {
          const CollectiveKind kind = p_.collectives[c].spec.kind;
          // An all-to-all-v (MoE tokens) has no COMM_COLL form: one comm_size
          // cannot say its per-pair bytes.
          if (encoding_ == CollectiveEncoding::kSendRecv || kind == CollectiveKind::kSend ||
              kind == CollectiveKind::kShift || !p_.collectives[c].spec.pair_bytes.empty()) {
            send_recv(c, op.await);
            continue;
          }
          // One node id per collective, in program order: the importer,
          // visiting ready nodes by (id, rank), then completes the step's
          // collectives (on disjoint groups) in the generator's order.
          comm_coll(c, next_id_++, op.await);
        }
        break;
      }
      case workload::ProgramOp::Type::kJoin:
        for (const std::uint32_t c : op.collectives) join_later(c);
        break;
    }
  }
  return std::move(out_);
}

void Exporter::check_workload() const {
  const core::Workload& w = *w_;
  if (p_.ranks != w.accelerators()) {
    throw core::InputError("", "ranks", std::to_string(p_.ranks),
                           "the program is for another workload (" +
                               std::to_string(w.accelerators()) + " accelerators)");
  }
  std::uint64_t next_task = 0;
  for (const ProgramCollective& pc : p_.collectives) {
    if (pc.first_task != next_task || pc.tasks.initial.size() != pc.spec.group.size() ||
        pc.tasks.terminal.size() != pc.spec.group.size()) {
      throw core::InputError("", "collectives", std::to_string(pc.first_task),
                             "the program does not describe this workload's tasks");
    }
    next_task += pc.num_tasks;
  }
  if (next_task != w.num_tasks()) {
    throw core::InputError("", "tasks", std::to_string(w.num_tasks()),
                           "the program describes " + std::to_string(next_task) + " tasks");
  }
  if (w.has_choices()) core::check_choice(w, choice_);
}

}  // namespace

ChakraTrace to_chakra(const core::Workload& w, const workload::Program& program,
                      CollectiveEncoding encoding, std::span<const std::uint32_t> choice) {
  if (w.has_choices() && choice.empty()) refuse_choice();
  if (!w.has_choices() && !choice.empty()) {
    throw core::InputError("", "choice", std::to_string(choice.size()) + " entries",
                           "the workload has no collective in several decompositions");
  }
  return Exporter(&w, program, encoding, choice).run();
}

ChakraTrace to_chakra(const workload::Program& program, CollectiveEncoding encoding) {
  return Exporter(nullptr, program, encoding, {}).run();
}

std::vector<std::filesystem::path> save_chakra(const std::filesystem::path& prefix,
                                               const ChakraTrace& trace, bool gzip,
                                               std::vector<std::filesystem::path>* removed) {
  std::vector<std::pair<std::filesystem::path, std::function<void(std::ostream&)>>> files;
  std::vector<std::filesystem::path> written;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    written.emplace_back(prefix.string() + "." + std::to_string(r) + ".et");
    files.emplace_back(written.back(), [&trace, r, gzip](std::ostream& out) {
      const std::string bytes = serialize_et(trace.ranks[r], gzip);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    });
  }
  if (!trace.groups.empty()) {
    written.emplace_back(prefix.string() + ".json");
    const std::string json = comm_groups_json(trace.groups);
    files.emplace_back(written.back(), [json](std::ostream& out) { out << json; });
  }
  io::save_files(files);
  // The prefix now names this trace: rank files of an earlier, larger one
  // would be read with it (rank_files takes every P.<r>.et from 0 up).
  if (removed != nullptr) removed->clear();
  for (std::size_t r = trace.ranks.size();; ++r) {
    const std::filesystem::path stale(prefix.string() + "." + std::to_string(r) + ".et");
    struct stat st {};
    if (::lstat(stale.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) break;
    if (::unlink(stale.c_str()) != 0) {
      throw core::InputError(stale.string(), "", "",
                             std::string("cannot remove this rank file of an earlier trace: ") +
                                 std::strerror(errno) + " (the new trace is written)");
    }
    if (removed != nullptr) removed->push_back(stale);
  }
  return written;
}

}  // namespace flux::chakra
