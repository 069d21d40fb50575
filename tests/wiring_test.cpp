// core::Wiring (docs/model.md, "Wiring") and flux.wiring/v1: rails counted
// and checked against their definition pair by pair, every query against
// brute force over the ports, the file read back as written, and each bad
// entry named.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/wiring.hpp"
#include "flux/formats/wiring_json.hpp"

namespace flux::core {
namespace {

// Every query of `w` agrees with its ports(): attached, switches_of and
// joining derived by brute force.
void expect_consistent(const Wiring& w) {
  std::vector<std::set<std::uint32_t>> of(w.accelerators());
  std::uint64_t used = 0;
  for (std::uint32_t k = 0; k < w.switches(); ++k) {
    const std::vector<Rank> ports = w.ports(SwitchId{k});
    ASSERT_LE(ports.size(), w.radix()) << "switch " << k;
    used += ports.size();
    for (std::size_t i = 0; i < ports.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(ports[i - 1], ports[i]);
      }
      of[ports[i].value()].insert(k);
    }
  }
  EXPECT_EQ(used, w.ports_used());
  for (std::uint32_t a = 0; a < w.accelerators(); ++a) {
    std::vector<SwitchId> want;
    for (std::uint32_t k : of[a]) want.emplace_back(k);
    EXPECT_EQ(w.switches_of(Rank{a}), want) << "rank " << a;
    for (std::uint32_t k = 0; k < w.switches(); ++k) {
      EXPECT_EQ(w.attached(SwitchId{k}, Rank{a}), of[a].contains(k));
    }
    for (std::uint32_t b = 0; b < w.accelerators(); ++b) {
      std::vector<SwitchId> both;
      for (std::uint32_t k : of[a]) {
        if (of[b].contains(k)) both.emplace_back(k);
      }
      EXPECT_EQ(w.joining(Rank{a}, Rank{b}), both) << a << " " << b;
    }
  }
  EXPECT_FALSE(w.attached(SwitchId{w.switches()}, Rank{0}));
  EXPECT_FALSE(w.attached(SwitchId{0}, Rank{w.accelerators()}));
  if (!w.grouped()) return;
  // Grouped: a rank's switches are its group's, one per plane, and two
  // ranks share a switch iff they share a group.
  for (std::uint32_t a = 0; a < w.accelerators(); ++a) {
    const std::uint32_t g = w.group_of(Rank{a});
    ASSERT_LT(g, w.groups());
    std::vector<SwitchId> mine;
    for (std::uint32_t p = 0; p < w.planes(); ++p) mine.push_back(w.switch_of(g, p));
    std::sort(mine.begin(), mine.end());
    EXPECT_EQ(mine, w.switches_of(Rank{a})) << "rank " << a;
    for (std::uint32_t b = 0; b < w.accelerators(); ++b) {
      EXPECT_EQ(w.group_of(Rank{b}) == g, !w.joining(Rank{a}, Rank{b}).empty()) << a << " " << b;
    }
  }
}

TEST(Wiring, FullIsTheCrossbarOfThePaper) {
  const Wiring w = Wiring::full(6, 2);
  EXPECT_EQ(w.kind(), WiringKind::kFull);
  EXPECT_EQ(w.switches(), 2u);
  EXPECT_EQ(w.radix(), 6u);
  EXPECT_EQ(w.joining(Rank{0}, Rank{5}).size(), 2u);
  expect_consistent(w);
}

// 4 domains of 4, radix 2: 2 pods; planes x rails x pods switches; a pair
// shares a switch iff same local index and same pod, then on every plane.
TEST(Wiring, RailsFollowTheirDefinition) {
  for (std::uint32_t planes : {1u, 2u}) {
    const Wiring w = Wiring::rails(16, 4, planes, 2);
    EXPECT_EQ(w.kind(), WiringKind::kRails);
    EXPECT_EQ(w.pods(), 2u);
    EXPECT_EQ(w.switches(), planes * 4 * 2);
    for (std::uint32_t a = 0; a < 16; ++a) {
      for (std::uint32_t b = 0; b < 16; ++b) {
        const bool joined = a % 4 == b % 4 && a / 4 / 2 == b / 4 / 2;
        EXPECT_EQ(w.joining(Rank{a}, Rank{b}).size(), joined ? planes : 0u) << a << " " << b;
      }
    }
    expect_consistent(w);
  }
  // One pod when the domains fit the radix; a last pod part full.
  EXPECT_EQ(Wiring::rails(16, 4, 1, 4).pods(), 1u);
  const Wiring odd = Wiring::rails(20, 4, 1, 2);  // 5 domains: pods of 2, 2, 1
  EXPECT_EQ(odd.pods(), 3u);
  EXPECT_EQ(odd.ports(SwitchId{8}).size(), 1u);  // pod 2, rail 0: domain 4 only
  expect_consistent(odd);
  // Domains of one: every accelerator on rail 0, pods of `radix` of them.
  const Wiring flat = Wiring::rails(10, 1, 1, 4);
  EXPECT_EQ(flat.switches(), 3u);
  expect_consistent(flat);
}

TEST(Wiring, RailsRefuseWhatCannotBeWired) {
  const auto field_of = [](auto make) {
    try {
      make();
    } catch (const InputError& e) {
      return std::string(e.field()) + ": " + e.problem();
    }
    return std::string("no error");
  };
  EXPECT_EQ(field_of([] { (void)Wiring::rails(10, 4, 1, 8); }).substr(0, 13), "scaleup_size:");
  EXPECT_EQ(field_of([] { (void)Wiring::rails(8, 4, 1, 1); }).substr(0, 10), "ocs_radix:");
  EXPECT_EQ(field_of([] { (void)Wiring::rails(8, 4, 0, 4); }).substr(0, 9), "switches:");
  EXPECT_EQ(field_of([] { (void)Wiring::full(0, 1); }).substr(0, 13), "accelerators:");
}

TEST(Wiring, FromPortsChecksEveryEntry) {
  using P = std::vector<std::vector<Rank>>;
  const Wiring w = Wiring::from_ports(5, 3, P{{Rank{4}, Rank{0}}, {Rank{1}, Rank{2}, Rank{0}}, {}});
  EXPECT_EQ(w.kind(), WiringKind::kExplicit);
  EXPECT_EQ(w.ports(SwitchId{0}), (std::vector<Rank>{Rank{0}, Rank{4}}));  // sorted
  EXPECT_EQ(w.joining(Rank{0}, Rank{4}), std::vector<SwitchId>{SwitchId{0}});
  EXPECT_TRUE(w.joining(Rank{3}, Rank{0}).empty());  // 3 is on no switch
  EXPECT_TRUE(w.switches_of(Rank{3}).empty());
  expect_consistent(w);
  const auto message = [](P ports, std::uint32_t radix) {
    try {
      (void)Wiring::from_ports(5, radix, std::move(ports));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(P{{Rank{0}}, {Rank{1}, Rank{5}}}, 3),
            "switches[1].ports[1] = 5: not an accelerator (there are 5)");
  EXPECT_EQ(message(P{{Rank{2}, Rank{1}, Rank{2}}}, 3),
            "switches[0].ports[2] = 2: on this switch twice");
  EXPECT_EQ(message(P{{Rank{0}}, {Rank{0}, Rank{1}, Rank{2}}}, 2),
            "switches[1].ports = 3 ports: more than the radix, 2");
  EXPECT_EQ(message(P{}, 2), "switches = 0 switches: must be between 1 and 1048576");
}

// Grouped wiring files: the groups found, or the first reason there are none.
TEST(Wiring, FilesAreGroupedOrSayWhyNot) {
  using P = std::vector<std::vector<Rank>>;
  const Wiring two = Wiring::from_ports(5, 3,
                                        P{{Rank{3}, Rank{0}},
                                          {Rank{1}, Rank{2}, Rank{4}},
                                          {Rank{0}, Rank{3}},
                                          {},
                                          {Rank{4}, Rank{2}, Rank{1}}});
  ASSERT_TRUE(two.grouped()) << two.grouping_problem();
  EXPECT_EQ(two.planes(), 2u);
  EXPECT_EQ(two.groups(), 2u);
  EXPECT_EQ(two.group_of(Rank{3}), 0u);  // numbered by their lowest rank
  EXPECT_EQ(two.group_of(Rank{2}), 1u);
  EXPECT_EQ(two.switch_of(1, 1), SwitchId{4});
  expect_consistent(two);
  EXPECT_TRUE(Wiring::rails(16, 4, 2, 2).grouped());
  EXPECT_EQ(Wiring::rails(16, 4, 2, 2).groups(), 8u);
  const auto problem = [](P ports) {
    return Wiring::from_ports(4, 4, std::move(ports)).grouping_problem();
  };
  EXPECT_EQ(problem(P{{Rank{0}, Rank{1}, Rank{2}}}), "accelerator 3 is on no switch");
  EXPECT_EQ(problem(P{{Rank{1}, Rank{2}, Rank{3}}}), "accelerator 0 is on no switch");
  EXPECT_EQ(problem(P{{Rank{0}, Rank{1}}, {Rank{2}, Rank{3}}, {Rank{0}, Rank{1}}}),
            "accelerator 2 is on 1 switches, accelerator 0 on 2");
  EXPECT_EQ(
      problem(P{{Rank{0}, Rank{1}}, {Rank{2}, Rank{3}}, {Rank{1}, Rank{2}}, {Rank{0}, Rank{3}}}),
      "accelerators 0 and 1 share switch 0 but not all their switches");
}

TEST(WiringFile, WrittenAndReadBackAlike) {
  for (const Wiring& w : {Wiring::rails(12, 2, 2, 4), Wiring::full(4, 3),
                          Wiring::from_ports(4, 2, {{Rank{3}, Rank{1}}, {Rank{0}}})}) {
    std::ostringstream out;
    formats::write_wiring(out, w);
    const Wiring back = formats::parse_wiring(out.str(), "w.json");
    EXPECT_EQ(back.kind(), WiringKind::kExplicit);
    ASSERT_EQ(back.switches(), w.switches());
    EXPECT_EQ(back.accelerators(), w.accelerators());
    EXPECT_EQ(back.radix(), w.radix());
    for (std::uint32_t k = 0; k < w.switches(); ++k) {
      EXPECT_EQ(back.ports(SwitchId{k}), w.ports(SwitchId{k}));
    }
    expect_consistent(back);
  }
}

// Memory follows the ports listed: a file declaring four billion
// accelerators on one small switch is read at once.
TEST(WiringFile, ManyAcceleratorsFewPorts) {
  const Wiring w = formats::parse_wiring(
      R"({"format": "flux.wiring/v1", "accelerators": 4000000000, "radix": 2,
          "switches": [{"ports": [3999999999, 7]}]})",
      "w.json");
  EXPECT_EQ(w.accelerators(), 4000000000u);
  EXPECT_EQ(w.joining(Rank{7}, Rank{3999999999}), std::vector<SwitchId>{SwitchId{0}});
  EXPECT_TRUE(w.switches_of(Rank{8}).empty());
  EXPECT_EQ(w.ports_used(), 2u);
}

TEST(WiringFile, BadFilesNameTheFileAndTheEntry) {
  const auto message = [](const std::string& text) {
    try {
      (void)formats::parse_wiring(text, "w.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = R"({"format": "flux.wiring/v1", "accelerators": 4, "radix": 2, )";
  EXPECT_EQ(message(head + R"("switches": [{"ports": [0, 1]}, {"ports": [2, 9]}]})"),
            "w.json: switches[1].ports[1] = 9: not an accelerator (there are 4)");
  EXPECT_EQ(message(head + R"("switches": [{"ports": [0, 1, 2]}]})"),
            "w.json: switches[0].ports = 3 ports: more than the radix, 2");
  EXPECT_EQ(message(head + R"("switches": [{"ports": [1, 1]}]})"),
            "w.json: switches[0].ports[1] = 1: on this switch twice");
  EXPECT_NE(message(head + R"("switches": [{"ports": [-1]}]})").find("switches[0].ports[0]"),
            std::string::npos);
  EXPECT_NE(message(head + R"("switches": [{"port": [1]}]})").find("port"), std::string::npos);
  EXPECT_NE(
      message(R"({"format": "flux.wiring/v2", "accelerators": 4, "radix": 2, "switches": []})")
          .find("flux.wiring/v1"),
      std::string::npos);
  EXPECT_EQ(message(head + R"("switches": [{"ports": [4294967296]}]})"),
            "w.json: switches[0].ports[0] = 4294967296: too large: at most 2^32-1");
}

}  // namespace
}  // namespace flux::core
