#include <gtest/gtest.h>

#include <string>

#include "flux/core/error.hpp"
#include "flux/core/workload.hpp"

namespace flux::core {
namespace {

Task make_task(std::uint64_t id, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
  Task t;
  t.id = id;
  t.src = Rank(src);
  t.dst = Rank(dst);
  t.bytes = bytes;
  return t;
}

// A diamond 0 -> {1, 2} -> 3 on 4 accelerators.
WorkloadData diamond() {
  WorkloadData d;
  d.name = "diamond";
  d.accelerators = 4;
  d.tasks = {make_task(0, 0, 1, 100), make_task(1, 1, 2, 200), make_task(2, 1, 3, 300),
             make_task(3, 2, 3, 400)};
  d.deps = {{TaskIndex(0), TaskIndex(1), 5},
            {TaskIndex(0), TaskIndex(2), 0},
            {TaskIndex(2), TaskIndex(3), 7},
            {TaskIndex(1), TaskIndex(3), 0}};
  return d;
}

// Expects the constructor to throw an InputError on `field` with `value`.
void expect_error(WorkloadData d, const std::string& field, const std::string& value,
                  const std::string& problem_part) {
  try {
    Workload w(std::move(d));
    FAIL() << "no error for " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field);
    EXPECT_EQ(e.value(), value);
    EXPECT_NE(std::string(e.what()).find(problem_part), std::string::npos) << e.what();
  }
}

TEST(Workload, BuildsAdjacencyAndTopologicalOrder) {
  Workload w(diamond());
  EXPECT_EQ(w.num_tasks(), 4u);
  EXPECT_EQ(w.num_deps(), 4u);
  EXPECT_EQ(w.total_bytes(), 1000u);
  ASSERT_EQ(w.out_edges(TaskIndex(0)).size(), 2u);
  EXPECT_EQ(w.out_edges(TaskIndex(0))[0].to, TaskIndex(1));
  EXPECT_EQ(w.out_edges(TaskIndex(0))[0].compute_ps, 5);
  EXPECT_EQ(w.out_edges(TaskIndex(0))[1].to, TaskIndex(2));
  EXPECT_EQ(w.in_edge_ids(TaskIndex(3)).size(), 2u);
  EXPECT_TRUE(w.out_edges(TaskIndex(3)).empty());
  // Kahn with a FIFO seeded in index order: 0, 1, 2, 3.
  ASSERT_EQ(w.topo_order().size(), 4u);
  for (std::uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(w.topo_order()[k], TaskIndex(k));
    EXPECT_EQ(w.topo_position(TaskIndex(k)), k);
  }
  for (const Dep& e : w.deps()) EXPECT_LT(w.topo_position(e.from), w.topo_position(e.to));
}

TEST(Workload, FindsDenseAndSparseIds) {
  Workload dense(diamond());
  EXPECT_EQ(dense.find(2), TaskIndex(2));
  EXPECT_FALSE(dense.find(4).has_value());
  WorkloadData d = diamond();
  d.tasks[0].id = 1000;
  d.tasks[3].id = 7;
  Workload sparse(std::move(d));
  EXPECT_EQ(sparse.find(1000), TaskIndex(0));
  EXPECT_EQ(sparse.find(7), TaskIndex(3));
  EXPECT_FALSE(sparse.find(0).has_value());
}

TEST(Workload, LabelsAndRoundTripOfData) {
  WorkloadData d = diamond();
  d.labels = {"tp", "dp"};
  d.tasks[1].label = 1;
  Workload w(std::move(d));
  EXPECT_EQ(w.label(TaskIndex(1)), "dp");
  EXPECT_EQ(w.label(TaskIndex(0)), "");
  Workload again(w.data());
  EXPECT_EQ(again.num_deps(), 4u);
  EXPECT_EQ(again.label(TaskIndex(1)), "dp");
}

TEST(WorkloadErrors, NoAccelerators) {
  WorkloadData d = diamond();
  d.accelerators = 0;
  expect_error(d, "accelerators", "0", "at least one");
}

TEST(WorkloadErrors, EndpointsOutOfRange) {
  WorkloadData d = diamond();
  d.tasks[2].src = Rank(4);
  expect_error(d, "tasks[2].src", "4", "out of range");
  d = diamond();
  d.tasks[3].dst = Rank(9);
  expect_error(d, "tasks[3].dst", "9", "out of range");
}

TEST(WorkloadErrors, SelfSend) {
  WorkloadData d = diamond();
  d.tasks[1].dst = Rank(1);
  expect_error(d, "tasks[1].dst", "1", "equals src");
}

TEST(WorkloadErrors, ZeroBytes) {
  WorkloadData d = diamond();
  d.tasks[0].bytes = 0;
  expect_error(d, "tasks[0].bytes", "0", "at least one byte");
}

TEST(WorkloadErrors, NegativeTimes) {
  WorkloadData d = diamond();
  d.tasks[1].release_ps = -kPsPerUs;
  expect_error(d, "tasks[1].release_s", "-1e-06 s", "between 0 and 9.2e6 s");
  d = diamond();
  d.tasks[2].tail_ps = -1;
  expect_error(d, "tasks[2].tail_s", "-1e-12 s", "between 0 and 9.2e6 s");
  d = diamond();
  d.deps[2].compute_ps = -kPsPerMs;
  expect_error(d, "deps[2].compute_s", "-0.001 s", "between 0 and 9.2e6 s");
}

TEST(WorkloadErrors, TimesBeyondTheOneLimit) {
  WorkloadData d = diamond();
  d.tasks[1].release_ps = core::kMaxTimePs;  // the limit itself is fine
  EXPECT_NO_THROW(Workload{d});
  d.tasks[1].release_ps = core::kMaxTimePs + 1;
  expect_error(d, "tasks[1].release_s", "9200000 s", "between 0 and 9.2e6 s");
}

TEST(WorkloadErrors, TotalBytesBeyond64Bits) {
  WorkloadData d = diamond();
  for (core::Task& t : d.tasks) t.bytes = std::uint64_t{1} << 62;
  expect_error(d, "tasks[3].bytes", "4611686018427387904", "pass 2^64-1");
}

TEST(WorkloadErrors, DuplicateId) {
  WorkloadData d = diamond();
  d.tasks[3].id = 1;
  expect_error(d, "tasks[3].id", "1", "duplicate id (also tasks[1])");
}

TEST(WorkloadErrors, DepNamingMissingTask) {
  WorkloadData d = diamond();
  d.deps[1].to = TaskIndex(17);
  expect_error(d, "deps[1].to", "17", "no such task");
  d = diamond();
  d.deps[0].from = TaskIndex(4);
  expect_error(d, "deps[0].from", "4", "no such task");
}

TEST(WorkloadErrors, UnknownLabel) {
  WorkloadData d = diamond();
  d.tasks[0].label = 3;
  expect_error(d, "tasks[0].label", "3", "label table");
}

TEST(WorkloadErrors, CycleIsReportedByIds) {
  WorkloadData d = diamond();
  for (std::size_t i = 0; i < d.tasks.size(); ++i) d.tasks[i].id = 10 + i;
  d.deps.push_back({TaskIndex(3), TaskIndex(2), 0});  // 12 -> 13 -> 12
  expect_error(d, "deps", "13 -> 12 -> 13", "cycle");
}

TEST(WorkloadErrors, LongerCycleAndSelfLoop) {
  WorkloadData d = diamond();
  d.deps.push_back({TaskIndex(3), TaskIndex(0), 0});
  try {
    Workload w(std::move(d));
    FAIL();
  } catch (const InputError& e) {
    // One of the two cycles through 0 -> {1|2} -> 3 -> 0.
    EXPECT_TRUE(e.value() == "0 -> 1 -> 3 -> 0" || e.value() == "0 -> 2 -> 3 -> 0" ||
                e.value() == "3 -> 0 -> 1 -> 3" || e.value() == "3 -> 0 -> 2 -> 3" ||
                e.value() == "1 -> 3 -> 0 -> 1" || e.value() == "2 -> 3 -> 0 -> 2")
        << e.value();
  }
  d = diamond();
  d.deps.push_back({TaskIndex(2), TaskIndex(2), 0});
  expect_error(d, "deps", "2 -> 2", "cycle");
}

TEST(Workload, EmptyWorkloadIsValid) {
  WorkloadData d;
  d.accelerators = 2;
  Workload w(std::move(d));
  EXPECT_EQ(w.num_tasks(), 0u);
  EXPECT_TRUE(w.topo_order().empty());
}

}  // namespace
}  // namespace flux::core
