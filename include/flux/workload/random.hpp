#pragma once
// Random DAGs of sends (`flux generate random`): a synthetic family for
// testing and benchmarking the schedulers on workloads that are not LLM
// rings. The knobs shape what matters to an OCS scheduler: repeated (src,
// dst) pairs (circuit reuse, `locality`), several sends on one port at once
// (port contention: level width against `ranks`), and compute gaps around
// the reconfiguration delay (`compute`, `compute_spread`, chosen against the
// tau given at schedule time). A workload carries no system: tau, switches
// and the link rate come with `flux schedule`, so "tau relative to the
// transfers" is `--tau` chosen as a multiple of `transfer`.
//
// The generative process, exactly (docs/model.md, "Random DAGs"): sends
// v = 0 .. N-1 in D = min(depth, N) levels of equal size (level k: [floor(kN/D),
// floor((k+1)N/D))). Each send's endpoints are, with probability
// `locality`, those of one of the previous `ranks` sends (uniform), else a
// uniform ordered pair of distinct ranks. Its transfer time at 800 Gb/s is
// `transfer * spread^(2u-1)`, u uniform (bytes = time / 10 ps). A send of
// level k >= 1 has 1 .. fan_in parents (uniform count; repeats dropped),
// each from level k-1, or with probability `skip` from levels 0 .. k-2; each
// edge carries compute `compute * compute_spread^(2u-1)`. Sends without
// parents get a release, sends without children a tail, both
// `release|tail * compute_spread^(2u-1)`. Every draw is a splitmix64 output
// addressed by (send, purpose), so the result depends on the seed alone (no
// std::*_distribution; only exact or correctly rounded arithmetic: sqrt,
// ldexp, llround): bit for bit the same on every platform.
#include <cstdint>
#include <string>
#include <tuple>

#include "flux/core/option.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"

namespace flux::workload {

struct RandomOptions {
  std::uint32_t ranks = 8;   ///< accelerators, n
  std::uint32_t sends = 64;  ///< sends, N
  std::uint64_t seed = 1;    ///< same seed (and options), same workload
  std::uint32_t depth = 8;   ///< levels D (1: every send independent; at most sends)
  std::uint32_t fan_in = 2;  ///< most parents of a send of level >= 1
  double skip = 0.25;        ///< probability a parent comes from levels 0 .. k-2
  double locality = 0.5;     ///< probability a send repeats a recent send's pair
  core::TimePs transfer_ps = 10 * core::kPsPerUs;  ///< median transfer time at 800 Gb/s
  double size_spread = 4;                          ///< transfers in [median / x, median * x]
  core::TimePs compute_ps = 10 * core::kPsPerUs;   ///< median compute of an edge
  double compute_spread = 4;    ///< compute, release and tail in [median / x, median * x]
  core::TimePs release_ps = 0;  ///< median release of a send without parents
  core::TimePs tail_ps = 0;     ///< median tail of a send without children

  /// Throws core::InputError naming the field: a value out of its bounds
  /// (kRandomOptions).
  void validate() const;
  /// The levels: depth, or sends when there are fewer sends.
  [[nodiscard]] std::uint32_t levels() const { return depth < sends ? depth : sends; }
  /// An upper bound on the deps generated (for refusing a job that would
  /// not fit in memory before generating it).
  [[nodiscard]] std::uint64_t max_deps() const;
  /// The workload's name: "random-r<ranks>-n<sends>", each knob that differs
  /// from its default ("-d4", "-f3", "-k0.1", "-l0.9", "-t1us", "-x2",
  /// "-c0", "-y1", "-rl5us", "-tl1ms"), then "-s<seed>".
  [[nodiscard]] std::string name() const;
};

/// The options of a random DAG: names, flags, help and bounds
/// (core/option.hpp). The bounds keep every product within range: bytes at
/// most 1000 s * 1000 / 10 ps = 1e17, a compute at most 1e6 s, below
/// core::kMaxTimePs; deps at most (2^26 - 1) * 64, below the 2^32 a
/// workload indexes.
inline constexpr auto kRandomOptions = std::tuple{
    core::NumberOption<RandomOptions, std::uint32_t>{"ranks", "--ranks", "accelerators",
                                                     &RandomOptions::ranks, 2, 1u << 20},
    core::NumberOption<RandomOptions, std::uint32_t>{"sends", "--sends", "number of sends",
                                                     &RandomOptions::sends, 1, 1u << 26},
    core::NumberOption<RandomOptions, std::uint64_t>{
        "seed", "--seed", "random seed: same seed and options, same workload, on every platform",
        &RandomOptions::seed, 0, core::kMaxSeed},
    core::NumberOption<RandomOptions, std::uint32_t>{
        "depth", "--depth",
        "levels the sends are spread over, equally (1: all independent; --sends when above it)",
        &RandomOptions::depth, 1, 1u << 26},
    core::NumberOption<RandomOptions, std::uint32_t>{
        "fan_in", "--fan-in", "most parents of a send (1 .. this many, uniform)",
        &RandomOptions::fan_in, 1, 64},
    core::NumberOption<RandomOptions, double>{
        "skip", "--skip",
        "probability that a parent comes from an older level than the previous one",
        &RandomOptions::skip, 0.0, 1.0},
    core::NumberOption<RandomOptions, double>{
        "locality", "--locality",
        "probability that a send repeats the (src, dst) pair of one of the previous --ranks sends "
        "(circuit reuse)",
        &RandomOptions::locality, 0.0, 1.0},
    core::NumberOption<RandomOptions, core::TimePs>{
        "transfer", "--transfer",
        "median transfer time at 800 Gb/s (bytes = time / 10 ps); choose --tau against it",
        &RandomOptions::transfer_ps, 10, 1000 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
    core::NumberOption<RandomOptions, double>{
        "size_spread", "--size-spread",
        "transfer times log-uniform in [median / this, median * this]", &RandomOptions::size_spread,
        1.0, 1000.0},
    core::NumberOption<RandomOptions, core::TimePs>{
        "compute", "--compute", "median compute on an edge", &RandomOptions::compute_ps, 0,
        1000 * core::kPsPerS, false, false, core::OptionUnit::kPicoseconds},
    core::NumberOption<RandomOptions, double>{
        "compute_spread", "--compute-spread",
        "compute, release and tail log-uniform in [median / this, median * this]",
        &RandomOptions::compute_spread, 1.0, 1000.0},
    core::NumberOption<RandomOptions, core::TimePs>{
        "release", "--release", "median release (compute before it) of a send without parents",
        &RandomOptions::release_ps, 0, 1000 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
    core::NumberOption<RandomOptions, core::TimePs>{
        "tail", "--tail", "median tail (compute after it) of a send without children",
        &RandomOptions::tail_ps, 0, 1000 * core::kPsPerS, false, false,
        core::OptionUnit::kPicoseconds},
};

/// Generates the random DAG of `o` (validated first). Deterministic: the
/// same options give the same workload, bit for bit, on every platform.
core::Workload generate_random(const RandomOptions& o);

}  // namespace flux::workload
