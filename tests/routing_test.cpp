// MoE token routing (workload/routing.hpp; docs/model.md, "MoE routing"):
// uniform exact counts, zipf conservation, determinism and skew, the
// capacity factor, and flux.routing/v1 files (round trip and bad files).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "flux/core/error.hpp"
#include "flux/core/hash.hpp"
#include "flux/io/json_writer.hpp"
#include "flux/workload/routing.hpp"
#include "routing_shape.hpp"

namespace flux::workload {
namespace {

namespace fs = std::filesystem;

using testing::shape;

RoutingSpec zipf(double s, std::uint64_t seed = 1, double cf = 0, std::uint64_t iteration = 0) {
  RoutingSpec spec = RoutingSpec::parse("zipf:" + std::to_string(s));
  spec.zipf_s = s;
  spec.seed = seed;
  spec.capacity_factor = cf;
  spec.iteration = iteration;
  return spec;
}

// Every row conserves T * K; received totals what was sent.
void expect_conserved(const TokenMatrix& m, const RoutingShape& sh) {
  ASSERT_EQ(m.ep, sh.ep);
  ASSERT_EQ(m.tokens.size(), std::size_t{sh.ep} * sh.ep);
  std::uint64_t sent = 0, received = 0, dropped = 0;
  const std::uint64_t most = sh.tokens_per_rank * std::min(sh.top_k, sh.experts / sh.ep);
  for (std::uint32_t r = 0; r < sh.ep; ++r) {
    EXPECT_EQ(m.sent(r) + m.dropped[r], sh.assignments()) << "src " << r;
    sent += m.sent(r);
    received += m.received(r);
    dropped += m.dropped[r];
    for (std::uint32_t d = 0; d < sh.ep; ++d) EXPECT_LE(m.at(r, d), most);
  }
  EXPECT_EQ(received, sent);
  EXPECT_EQ(received, sh.assignments() * sh.ep - dropped);
}

TEST(Routing, UniformDivisible) {
  const RoutingShape sh = shape(4, 8, 2, 16);  // T * K = 32: 8 to each rank
  const Router router(RoutingSpec{}, sh);
  const TokenMatrix m = router.route(1, 1, 1);
  for (std::uint32_t s = 0; s < 4; ++s) {
    for (std::uint32_t d = 0; d < 4; ++d) EXPECT_EQ(m.at(s, d), 8u);
    EXPECT_EQ(m.dropped[s], 0u);
  }
  // Each expert of a rank gets 4.
  EXPECT_EQ(router.expert_counts(0, 0, 0, 3), std::vector<std::uint64_t>(8, 4));
}

TEST(Routing, UniformRemainderGoesToTheNextRanks) {
  const RoutingShape sh = shape(4, 4, 2, 5);  // 10 = 2 * 4 + 2
  const TokenMatrix m = Router(RoutingSpec{}, sh).route(0, 0, 0);
  const std::vector<std::uint64_t> want = {3, 3, 2, 2,   // src 0: ranks 0, 1 get one more
                                           2, 3, 3, 2,   // src 1: ranks 1, 2
                                           2, 2, 3, 3,   // src 2: ranks 2, 3
                                           3, 2, 2, 3};  // src 3: ranks 3, 0
  EXPECT_EQ(m.tokens, want);
  expect_conserved(m, sh);
}

TEST(Routing, ZipfConservesForManySeedsAndShapes) {
  const std::vector<RoutingShape> shapes = {
      shape(4, 8, 2, 16),       shape(8, 64, 8, 1000), shape(3, 9, 9, 7),  // K = experts: all at T
      shape(64, 256, 8, 16384), shape(1, 5, 3, 11),    shape(16, 16, 1, 3)};
  for (const RoutingShape& sh : shapes) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      for (double s : {0.3, 1.2, 4.0}) {
        const Router router(zipf(s, seed), sh);
        for (std::uint32_t l = 0; l < sh.moe_layers; ++l) {
          const TokenMatrix m = router.route(l, 1, 0);
          expect_conserved(m, sh);
          for (std::uint32_t r = 0; r < sh.ep; ++r) EXPECT_EQ(m.dropped[r], 0u);
        }
        const std::vector<std::uint64_t> c = router.expert_counts(1, 0, 1, 0);
        EXPECT_LE(*std::max_element(c.begin(), c.end()), sh.tokens_per_rank);
        std::uint64_t sum = 0;
        for (std::uint64_t x : c) sum += x;
        EXPECT_EQ(sum, sh.assignments());
        for (double cf : {0.5, 1.0, 1.3}) {  // with drops: still conserved, none above C
          const Router capped(zipf(s, seed, cf), sh);
          const std::uint64_t cap = expert_capacity(sh, cf);
          for (std::uint32_t src = 0; src < sh.ep; src += 5) {
            const std::vector<std::uint64_t> e = capped.expert_counts(0, 1, 1, src);
            EXPECT_LE(*std::max_element(e.begin(), e.end()), cap);
          }
          expect_conserved(capped.route(0, 1, 1), sh);
        }
      }
    }
  }
}

TEST(Routing, ZipfIsDeterministicAndEachAddressDiffers) {
  const RoutingShape sh = shape(8, 64, 4, 4096);
  const TokenMatrix a = Router(zipf(1.2, 7), sh).route(1, 1, 1);
  EXPECT_EQ(a, Router(zipf(1.2, 7), sh).route(1, 1, 1));
  EXPECT_NE(a, Router(zipf(1.2, 8), sh).route(1, 1, 1));        // seed
  EXPECT_NE(a, Router(zipf(1.2, 7, 0, 1), sh).route(1, 1, 1));  // iteration
  EXPECT_EQ(Router(zipf(1.2, 7, 0, 1), sh).route(1, 1, 1),
            Router(zipf(1.2, 7, 0, 1), sh).route(1, 1, 1));
  const Router r(zipf(1.2, 7), sh);
  EXPECT_NE(a, r.route(0, 1, 1));  // layer
  EXPECT_NE(a, r.route(1, 0, 1));  // group
  EXPECT_NE(a, r.route(1, 1, 0));  // micro-batch
}

// The bits of one draw, pinned: any platform or compiler must give these.
TEST(Routing, ZipfBitsArePinned) {
  const RoutingShape sh = shape(8, 64, 8, 16384);
  const TokenMatrix m = Router(zipf(1.2, 42, 1.0, 3), sh).route(1, 0, 1);
  std::uint64_t h = 0;
  for (std::uint64_t x : m.tokens) h = core::splitmix64(h ^ x);
  for (std::uint64_t x : m.dropped) h = core::splitmix64(h ^ x);
  EXPECT_EQ(h, 3768322942898369884u) << "row 0: " << m.at(0, 0) << " " << m.at(0, 1);
}

TEST(Routing, ZipfSkewIsReal) {
  // DeepSeek-V3-like: 256 experts, top-8, EP 64, 16k tokens per rank.
  const RoutingShape sh = shape(64, 256, 8, 16384);
  const TokenMatrix m = Router(zipf(1.2, 1), sh).route(0, 0, 0);
  std::uint64_t most = 0, least = ~std::uint64_t{0};
  for (std::uint32_t d = 0; d < sh.ep; ++d) {
    most = std::max(most, m.received(d));
    least = std::min(least, m.received(d));
  }
  const double mean = static_cast<double>(sh.assignments());  // per rank when uniform
  RecordProperty("most_over_mean", std::to_string(most / mean));
  RecordProperty("least_over_mean", std::to_string(least / mean));
  // Measured: 8.29 and 0.12; the cap at T per expert and source bounds the
  // hottest rank (4 experts) at 32 times the mean.
  EXPECT_GT(most / mean, 8.0);
  EXPECT_LT(most / mean, 8.6);
  EXPECT_LT(least / mean, 0.2);
}

TEST(Routing, CapacityDropsAtTheSourceLikeMegatron) {
  const RoutingShape sh = shape(64, 256, 8, 16384);
  // ceil(16384 * 8 / 256 * cf)
  EXPECT_EQ(expert_capacity(sh, 1.0), 512u);
  EXPECT_EQ(expert_capacity(sh, 1.25), 640u);
  EXPECT_EQ(expert_capacity(sh, 0), 0u);
  EXPECT_EQ(expert_capacity(shape(4, 8, 2, 5), 1.0), 2u);  // ceil(10 / 8)

  const Router router(zipf(1.2, 1, 1.0), sh);
  EXPECT_EQ(router.capacity(), 512u);
  const TokenMatrix m = router.route(0, 0, 0);
  expect_conserved(m, sh);
  std::uint64_t dropped = 0;
  for (std::uint64_t d : m.dropped) dropped += d;
  RecordProperty("dropped_fraction",
                 std::to_string(static_cast<double>(dropped) / (64.0 * sh.assignments())));
  EXPECT_GT(dropped, 64u * sh.assignments() / 4);  // most popular experts far above capacity
  const std::uint32_t local = sh.experts / sh.ep;
  for (std::uint32_t s = 0; s < sh.ep; s += 9) {
    const std::vector<std::uint64_t> c = router.expert_counts(0, 0, 0, s);
    EXPECT_LE(*std::max_element(c.begin(), c.end()), 512u);
    for (std::uint32_t d = 0; d < sh.ep; ++d) {
      std::uint64_t sum = 0;
      for (std::uint32_t l = 0; l < local; ++l) sum += c[d * local + l];
      EXPECT_EQ(m.at(s, d), sum);
    }
  }
  // Uniform routing under cf = 1 drops nothing; under cf 0.5 exactly half.
  const TokenMatrix u = Router(
                            [] {
                              RoutingSpec s;
                              s.capacity_factor = 0.5;
                              return s;
                            }(),
                            sh)
                            .route(0, 0, 0);
  for (std::uint32_t s = 0; s < sh.ep; ++s) EXPECT_EQ(u.dropped[s], sh.assignments() / 2);
}

TEST(Routing, SpecParseAndToStringRoundTrip) {
  for (const char* text : {"uniform", "zipf:1.2", "zipf:0.1", "zipf:3", "file:a/b c.json"}) {
    const RoutingSpec s = RoutingSpec::parse(text);
    EXPECT_EQ(s.to_string(), text);
    const RoutingSpec t = RoutingSpec::parse(s.to_string());
    EXPECT_EQ(t.kind, s.kind);
    EXPECT_EQ(t.zipf_s, s.zipf_s);
    EXPECT_EQ(t.file, s.file);
  }
  RoutingSpec odd;
  odd.kind = RoutingKind::kZipf;
  odd.zipf_s = 1.0 / 3;  // shortest form that reads back exactly
  EXPECT_EQ(RoutingSpec::parse(odd.to_string()).zipf_s, odd.zipf_s);
  EXPECT_EQ(RoutingSpec::parse("zipf:1.2").kind, RoutingKind::kZipf);
  EXPECT_EQ(RoutingSpec::parse("zipf:1.2").zipf_s, 1.2);
}

TEST(Routing, SpecParseErrorsNameTheField) {
  for (const char* text : {"zipfian", "", "Uniform", "zipf:0", "zipf:-1", "zipf:abc", "zipf:nan",
                           "zipf:inf", "zipf:", "zipf:1.2x", "zipf: 1", "zipf:1001", "file:"}) {
    try {
      (void)RoutingSpec::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.field(), "routing") << text;
      EXPECT_EQ(e.value(), text);
    }
  }
  RoutingSpec s;
  for (double cf : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1.5e6}) {
    s.capacity_factor = cf;
    try {
      s.validate();
      ADD_FAILURE() << "accepted cf " << cf;
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.field(), "capacity_factor");
    }
  }
  s.capacity_factor = kMaxCapacityFactor;  // the bound itself, as the option's
  EXPECT_NO_THROW(s.validate());
  RoutingSpec f = RoutingSpec::parse("file:r.json");
  f.capacity_factor = 1;
  EXPECT_THROW(f.validate(), core::InputError);
}

class RoutingFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flux_routing_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(RoutingFiles, RoundTripReplaysTheDraw) {
  const RoutingShape sh = shape(8, 32, 4, 1000, 3);
  const Router drawn(zipf(1.2, 5, 1.1, 2), sh);
  const RoutingFile r = routing_file(drawn, 1, 1);
  ASSERT_EQ(r.layers.size(), 3u);
  const fs::path p = dir_ / "r.json";
  save_routing(p, r);
  const RoutingFile back = read_routing(p);
  EXPECT_EQ(back, r);
  const Router replay(RoutingSpec::parse("file:" + p.string()), sh);
  for (std::uint32_t l = 0; l < 3; ++l) {
    EXPECT_EQ(replay.route(l, 0, 0), drawn.route(l, 1, 1));
    EXPECT_EQ(replay.route(l, 1, 1), drawn.route(l, 1, 1));  // every group, micro-batch
  }
  EXPECT_THROW((void)replay.expert_counts(0, 0, 0, 0), std::logic_error);
}

// A file of several training iterations: `layers` is iteration 0, each of
// `iterations` the next; a job asking for one beyond is refused, and a bad
// matrix in an iteration is named by it.
TEST_F(RoutingFiles, IterationsReplayEachTrainingIteration) {
  const RoutingShape sh = shape(8, 32, 4, 1000, 3);
  RoutingSpec drift = RoutingSpec::parse("zipf-drift:1.2:0.3");
  RoutingFile r = routing_file(Router(drift, sh), 0, 0);
  for (std::uint64_t i = 1; i <= 3; ++i) {
    drift.iteration = i;
    r.iterations.push_back(routing_file(Router(drift, sh), 0, 0).layers);
  }
  const fs::path p = dir_ / "it.json";
  save_routing(p, r);
  EXPECT_EQ(read_routing(p), r);
  for (std::uint64_t i = 0; i <= 3; ++i) {
    RoutingSpec file = RoutingSpec::parse("file:" + p.string());
    file.iteration = i;
    drift.iteration = i;
    EXPECT_EQ(Router(file, sh).route(2, 1, 0), Router(drift, sh).route(2, 0, 0)) << i;
  }
  RoutingSpec beyond = RoutingSpec::parse("file:" + p.string());
  beyond.iteration = 4;
  try {
    (void)Router(beyond, sh);
    ADD_FAILURE() << "iteration 4 accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              p.string() + ": iterations = 3: the file routes iterations 0 .. 3, not iteration 4");
  }
  const fs::path bad = write("bad-it.json", R"({"format": "flux.routing/v1", "ep": 2,
      "experts": 4, "top_k": 2, "tokens_per_rank": 3, "moe_layers": 1,
      "layers": [{"tokens": [[3, 3], [4, 2]]}],
      "iterations": [{"layers": [{"tokens": [[3, 3], [4, 2]]}]},
                     {"layers": [{"tokens": [[3, 3]]}]}]})");
  try {
    (void)read_routing(bad);
    ADD_FAILURE() << "a bad iteration accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.field(), "iterations[1].layers[0].tokens") << e.what();
    EXPECT_EQ(e.value(), "1 rows") << e.what();
  }
}

TEST_F(RoutingFiles, ExampleInDocsReads) {
  const RoutingFile r = read_routing(fs::path(FLUX_SOURCE_DIR) / "docs/examples/routing.json");
  EXPECT_EQ(r.ep, 4u);
  EXPECT_EQ(r.layers.size(), 2u);
}

// A file with ep 2, experts 4, top_k 2, tokens_per_rank 3 (T * K = 6).
std::string file_text(const std::string& layers, const std::string& head = "\"moe_layers\": 1") {
  return R"({"format": "flux.routing/v1", "ep": 2, "experts": 4, "top_k": 2,
             "tokens_per_rank": 3, )" +
         head + ", \"layers\": [" + layers + "]}";
}

TEST_F(RoutingFiles, BadFilesNameFileFieldAndValue) {
  struct Case {
    std::string name, text, field, value;
  };
  const std::vector<Case> cases = {
      {"negative", file_text(R"({"tokens": [[3, 3], [4, -2]]})"), "layers[0].tokens[1][1]", "-2"},
      {"fraction", file_text(R"({"tokens": [[3, 3], [4, 1.5]]})"), "layers[0].tokens[1][1]", "1.5"},
      {"not_conserved", file_text(R"({"tokens": [[3, 3], [4, 1]]})"), "layers[0].tokens[1]",
       "sum 5"},
      {"not_conserved_dropped", file_text(R"({"tokens": [[3, 3], [4, 2]], "dropped": [0, 1]})"),
       "layers[0].tokens[1]", "sum 7"},
      {"too_many_for_a_rank", file_text(R"({"tokens": [[7, 0], [3, 3]]})"),
       "layers[0].tokens[0][0]", "7"},
      {"short_row", file_text(R"({"tokens": [[6], [3, 3]]})"), "layers[0].tokens[0]", "1 entries"},
      {"rows", file_text(R"({"tokens": [[3, 3]]})"), "layers[0].tokens", "1 rows"},
      {"layers", file_text(R"({"tokens": [[3, 3], [3, 3]]})", "\"moe_layers\": 2"), "layers",
       "1 layers"},
      {"string", file_text(R"({"tokens": [[3, "3"], [3, 3]]})"), "layers[0].tokens[0][1]", "\"3\""},
      {"experts",
       R"({"format": "flux.routing/v1", "ep": 2, "experts": 3, "top_k": 2, "tokens_per_rank": 3,
           "moe_layers": 1, "layers": [{"tokens": [[3, 3], [3, 3]]}]})",
       "experts", "3"},
  };
  for (const Case& c : cases) {
    const fs::path p = write(c.name + ".json", c.text);
    try {
      (void)read_routing(p);
      ADD_FAILURE() << c.name << " accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.source(), p.string()) << c.name;
      EXPECT_EQ(e.field(), c.field) << c.name << ": " << e.what();
      EXPECT_EQ(e.value(), c.value) << c.name << ": " << e.what();
    }
  }
  const fs::path good = write("good.json", file_text(R"({"tokens": [[3, 3], [4, 2]]})"));
  EXPECT_EQ(read_routing(good).layers[0].tokens, (std::vector<std::uint64_t>{3, 3, 4, 2}));

  // Malformed JSON and a missing file: errors naming the file.
  for (const fs::path& p :
       {write("malformed.json", "{\"format\": \"flux.routing/v1\", "), dir_ / "missing.json"}) {
    try {
      (void)read_routing(p);
      ADD_FAILURE() << p << " accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.source(), p.string()) << e.what();
    }
  }
}

TEST_F(RoutingFiles, FileMustMatchTheJob) {
  const fs::path p = write("r.json", file_text(R"({"tokens": [[3, 3], [4, 2]]})"));
  const RoutingSpec spec = RoutingSpec::parse("file:" + p.string());
  auto expect_field = [&](RoutingShape sh, const std::string& field, const std::string& value) {
    try {
      const Router r(spec, sh);
      ADD_FAILURE() << field << " accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.source(), p.string());
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_EQ(e.value(), value) << e.what();
    }
  };
  expect_field(shape(4, 4, 2, 3, 1), "ep", "2");
  expect_field(shape(2, 8, 2, 3, 1), "experts", "4");
  expect_field(shape(2, 4, 1, 3, 1), "top_k", "2");
  expect_field(shape(2, 4, 2, 6, 1), "tokens_per_rank", "3");
  expect_field(shape(2, 4, 2, 3, 2), "moe_layers", "1");  // the job has more layers
  const Router ok(spec, shape(2, 4, 2, 3, 1));
  EXPECT_EQ(ok.route(0, 1, 1).at(1, 0), 4u);
}

// The writer's one-line arrays (the matrix rows of flux.routing/v1).
TEST(JsonWriter, InlineArrayStaysOnOneLine) {
  std::ostringstream out;
  io::JsonWriter j(out);
  j.begin_array();
  j.begin_inline_array().value(1).value(2).end_array();
  j.begin_inline_array().begin_array().value(3).end_array().value(4).end_array();
  j.begin_array().value(5).end_array();
  j.end_array();
  j.finish();
  EXPECT_EQ(out.str(), "[\n  [1, 2],\n  [[3], 4],\n  [\n    5\n  ]\n]\n");
}

TEST(Routing, RouteOutsideTheShapeThrows) {
  const Router r(RoutingSpec{}, shape(4, 8, 2, 16));
  EXPECT_THROW((void)r.route(2, 0, 0), std::out_of_range);
  EXPECT_THROW((void)r.route(0, 2, 0), std::out_of_range);
  EXPECT_THROW((void)r.route(0, 0, 2), std::out_of_range);
}

}  // namespace
}  // namespace flux::workload
