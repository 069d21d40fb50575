// Chakra traces of the newer decompositions and of a chosen one: jobs
// generated with --collective bruck or hierarchical come back from their
// traces byte for byte (each COMM_COLL names its algorithm where they
// differ), and a --collective auto job written with a choice comes back as
// core::resolve(w, choice), its tasks numbered afresh; a trace read with
// --collective auto keeps every decomposition, as the generator does.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "flux/chakra/et.hpp"
#include "flux/chakra/export.hpp"
#include "flux/chakra/import.hpp"
#include "flux/core/choice.hpp"
#include "flux/core/error.hpp"
#include "flux/formats/workload_json.hpp"
#include "flux/workload/llama.hpp"
#include "flux/workload/moe.hpp"
#include "flux/workload/program.hpp"

#include "chakra_test_util.hpp"

namespace flux::chakra {
namespace {

using workload::Algorithm;

// A dense job whose TP groups of 4 span domains of 2 (hierarchical applies
// to them), and a MoE job with expert all-to-alls (Bruck applies).
workload::TrainingConfig dense(Algorithm a) {
  workload::TrainingConfig c;
  c.model.layers = 1;
  c.tp = 4;
  c.dp = 3;
  c.scaleup_size = 2;
  c.collective = a;
  return c;
}

workload::TrainingConfig moe(Algorithm a) {
  workload::TrainingConfig c;
  const workload::MoeModel m = workload::moe_model("mixtral-8x7b");
  c.model = m.model;
  c.moe = m.moe;
  c.model.layers = 1;
  c.seq = 1024;
  c.tp = 2;
  c.sequence_parallel = true;
  c.dp = 4;
  c.moe.ep = 4;
  c.scaleup_size = 4;
  c.collective = a;
  return c;
}

core::Workload through_trace(const core::Workload& w, const workload::Program& program,
                             CollectiveEncoding encoding, const core::Choice& choice,
                             ChakraTrace* trace = nullptr) {
  const ChakraTrace t = to_chakra(w, program, encoding, choice);
  std::vector<EtFile> files;
  for (const EtFile& f : t.ranks) files.push_back(parse_et(serialize_et(f, false), f.source));
  ImportOptions o;
  if (!t.groups.empty()) o.comm_groups = parse_comm_groups(comm_groups_json(t.groups), "g.json");
  ImportResult r = import_traces(files, o, "unused");
  EXPECT_TRUE(r.warnings.empty());
  if (trace != nullptr) *trace = t;
  return std::move(r.workload);
}

std::string file_of(const core::Workload& w) {
  std::ostringstream out;
  formats::write_workload(out, w);
  return out.str();
}

TEST(ChakraChoice, BruckAndHierarchicalJobsComeBackExactly) {
  for (const auto& c : {dense(Algorithm::kHierarchical), moe(Algorithm::kHierarchical),
                        moe(Algorithm::kBruck), moe(Algorithm::kRing)}) {
    workload::Program program;
    const core::Workload w = workload::generate_llama(c, &program);
    for (auto e : {CollectiveEncoding::kCommColl, CollectiveEncoding::kSendRecv}) {
      SCOPED_TRACE(w.name() + " " + std::string(to_string(c.collective)) +
                   (e == CollectiveEncoding::kCommColl ? " comm-coll" : " send-recv"));
      ChakraTrace t;
      EXPECT_EQ(file_of(through_trace(w, program, e, {}, &t)), file_of(w));
      expect_same_trace_from_program(c, e);
      if (e != CollectiveEncoding::kCommColl) continue;
      // Mixed algorithms (ring TP, hierarchical or Bruck elsewhere): each
      // COMM_COLL names its own; one algorithm: the rank's metadata says it.
      std::size_t named = 0, colls = 0;
      for (const EtNode& n : t.ranks[0].nodes) {
        if (n.type != static_cast<std::uint32_t>(NodeType::kCommColl)) continue;
        ++colls;
        named += n.collective.has_value() ? 1 : 0;
      }
      EXPECT_GT(colls, 0u);
      if (c.collective == Algorithm::kRing) {
        EXPECT_EQ(named, 0u);
        EXPECT_EQ(t.ranks[0].collective, "ring");
      } else {
        EXPECT_EQ(named, colls);
        EXPECT_EQ(t.ranks[0].collective, "");
      }
    }
  }
}

// The sends of `w` in order, without ids, and its deps by position.
using Send = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::string, core::TimePs,
                        core::TimePs>;
std::vector<Send> sends(const core::Workload& w) {
  std::vector<Send> out;
  for (const core::Task& t : w.tasks()) {
    out.emplace_back(t.src.value(), t.dst.value(), t.bytes,
                     t.label == core::kNoLabel ? "" : w.labels()[t.label], t.release_ps, t.tail_ps);
  }
  return out;
}
std::vector<std::tuple<std::uint32_t, std::uint32_t, core::TimePs>> deps(const core::Workload& w) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, core::TimePs>> out;
  for (const core::Dep& d : w.deps()) out.emplace_back(d.from.value(), d.to.value(), d.compute_ps);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ChakraChoice, AChosenDecompositionIsWrittenAsItsSends) {
  for (const auto& c : {dense(Algorithm::kAuto), moe(Algorithm::kAuto)}) {
    workload::Program program;
    const core::Workload w = workload::generate_llama(c, &program);
    ASSERT_TRUE(w.has_choices());
    // Each name everywhere, and a mix: group g on its alternative g mod size.
    std::vector<core::Choice> choices;
    for (const std::string& name : core::alternative_names(w)) {
      choices.push_back(core::uniform_choice(w, name));
    }
    core::Choice mixed(w.choices().size());
    for (std::size_t g = 0; g < mixed.size(); ++g) {
      mixed[g] = static_cast<std::uint32_t>(g % w.choices()[g].alternatives.size());
    }
    choices.push_back(mixed);
    for (const core::Choice& choice : choices) {
      const core::Workload resolved = core::resolve(w, choice);
      for (auto e : {CollectiveEncoding::kCommColl, CollectiveEncoding::kSendRecv}) {
        SCOPED_TRACE(w.name() + " " + core::describe_choice(w, choice) +
                     (e == CollectiveEncoding::kCommColl ? " comm-coll" : " send-recv"));
        const core::Workload back = through_trace(w, program, e, choice);
        EXPECT_FALSE(back.has_choices());
        EXPECT_EQ(sends(back), sends(resolved));
        ASSERT_EQ(back.num_tasks(), resolved.num_tasks());
        EXPECT_EQ(deps(back), deps(resolved));  // positions: the ids numbered afresh
      }
    }
  }
}

TEST(ChakraChoice, ImportingWithAutoKeepsEveryDecomposition) {
  // A trace of the ring job read with --collective auto is the job
  // generated with auto: the same sends, groups and deps, byte for byte.
  for (const auto& c : {dense(Algorithm::kRing), moe(Algorithm::kRing)}) {
    workload::Program program;
    const core::Workload ring = workload::generate_llama(c, &program);
    workload::TrainingConfig a = c;
    a.collective = Algorithm::kAuto;
    const core::Workload all = workload::generate_llama(a);
    ASSERT_TRUE(all.has_choices());
    const ChakraTrace t = to_chakra(ring, program, CollectiveEncoding::kCommColl);
    ImportOptions o;
    o.comm_groups = parse_comm_groups(comm_groups_json(t.groups), "g.json");
    o.collective = Algorithm::kAuto;
    const ImportResult r = import_traces(t.ranks, o, "unused");
    EXPECT_EQ(file_of(r.workload), file_of(all)) << all.name();
    // A fixed --collective still overrides what the trace recorded.
    o.collective = Algorithm::kDirect;
    workload::TrainingConfig d = c;
    d.collective = Algorithm::kDirect;
    EXPECT_EQ(file_of(import_traces(t.ranks, o, "unused").workload),
              file_of(workload::generate_llama(d)));
  }
}

TEST(ChakraChoice, AChoiceIsNeededExactlyWhenThereAreGroups) {
  workload::Program program;
  const core::Workload w = workload::generate_llama(moe(Algorithm::kAuto), &program);
  const auto problem = [&](const core::Choice& c) {
    try {
      to_chakra(w, program, CollectiveEncoding::kSendRecv, c);
    } catch (const core::InputError& e) {
      return e.field() + ": " + e.problem();
    }
    return std::string("no error");
  };
  EXPECT_NE(problem({}).find("a Chakra trace holds one algorithm per collective"),
            std::string::npos);
  EXPECT_NE(problem({0}).find("choice"), std::string::npos);  // one index, more groups
  core::Choice out_of_range(w.choices().size(), 0);
  out_of_range.back() = 7;
  EXPECT_NE(problem(out_of_range).find("no such alternative"), std::string::npos);
  workload::Program fixed_program;
  const core::Workload fixed = workload::generate_llama(moe(Algorithm::kRing), &fixed_program);
  EXPECT_THROW(to_chakra(fixed, fixed_program, CollectiveEncoding::kSendRecv, core::Choice{0}),
               core::InputError);
}

}  // namespace
}  // namespace flux::chakra
