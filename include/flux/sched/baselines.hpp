#pragma once
// The circuit-only baselines of the paper's section 4 and their building
// blocks: RotorNet's round-robin matchings (rotornet, rotornet-vlb), the
// Birkhoff-von Neumann decomposition of the iteration's traffic matrix (bvn).
// The methods are described at the top of src/sched/rotornet.cpp and
// src/sched/bvn.cpp. The schedulers themselves are in the registry
// (scheduler.hpp) under "rotornet", "rotornet-vlb", "bvn" and "ideal".
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "flux/core/ids.hpp"
#include "flux/core/system.hpp"
#include "flux/core/time.hpp"
#include "flux/core/workload.hpp"
#include "flux/schedule/schedule.hpp"

namespace flux::sched {

/// Circuits {a, b} with a < b that share no endpoint, sorted by (a, b).
using Matching = std::vector<std::pair<core::Rank, core::Rank>>;

/// Per-switch timelines describing one cycle [0, period_ps) that repeats.
struct PeriodicTimelines {
  std::vector<schedule::SwitchTimeline> timelines;  ///< one per switch
  core::TimePs period_ps = 0;                       ///< 0: no circuits at all
};

// ---------------------------------------------------------------- RotorNet

/// The round-robin 1-factorization of the complete graph K_n by the circle
/// method: n - 1 perfect matchings of n / 2 circuits for even n; for odd n a
/// dummy node makes it n + 1, giving n matchings of (n - 1) / 2 circuits, one
/// accelerator (the dummy's partner) idle in each. Every pair appears in
/// exactly one matching. Empty for n < 2.
std::vector<Matching> round_robin_matchings(std::uint32_t n);

/// The matchings RotorNet rotates through with scale-up domains of k
/// consecutive ranks (k divides n; k = 1: exactly round_robin_matchings(n)):
/// the 1-factorization of the complete d-partite graph between the d = n / k
/// domains, as the round-robin matchings of the domains times k shifts
/// (matching r k + h pairs rank i of domain A with rank (i + h) mod k of
/// domain B for every domain pair {A, B} of round r). No circuit inside a
/// domain; every cross-domain pair in exactly one matching. Empty for d = 1.
/// Throws core::InputError (field scaleup_size) when k does not divide n.
std::vector<Matching> rotornet_matchings(std::uint32_t n, std::uint32_t k);

/// RotorNet's slot: tau / (1 - duty_cycle) rounded to the picosecond, at
/// least tau + 1 ps. Throws core::InputError when tau == 0 (an empty slot),
/// when duty_cycle is outside (0, 1) or the slot does not fit in TimePs.
core::TimePs rotornet_slot_ps(core::TimePs tau_ps, double duty_cycle);

/// The most circuits rotornet_timelines() builds (over all switches, one
/// period): 2^28, about 8 GiB of intervals.
inline constexpr std::uint64_t kMaxRotornetCircuits = std::uint64_t{1} << 28;

/// The circuits of one RotorNet period for n accelerators, over all
/// switches: s x M matchings x the circuits of one (every cross-domain pair
/// once per switch), computed without building them. Assumes the domains
/// tile n (k divides n); saturates at UINT64_MAX.
std::uint64_t rotornet_circuits(std::uint32_t n, const core::System& system);

/// Bytes rotornet_timelines() allocates for them (intervals and matchings).
std::uint64_t rotornet_memory_bytes(std::uint32_t n, const core::System& system);

/// RotorNet's timelines for n accelerators: in slot k switch j shows matching
/// (k * s + j) mod M of rotornet_matchings(n, system.scaleup_size) (M of
/// them); every slot starts with tau of reconfiguration. Period M * slot;
/// no circuits and period 0 when M = 0 (one scale-up domain). Throws
/// core::InputError for n < 3, domains that do not tile n, more than
/// kMaxRotornetCircuits circuits (before building any: field accelerators,
/// with the count and size), and for the cases of rotornet_slot_ps().
PeriodicTimelines rotornet_timelines(std::uint32_t n, const core::System& system,
                                     double duty_cycle);

// --------------------------------------------------- Birkhoff-von Neumann

struct MatrixEntry {
  std::uint32_t row = 0;
  std::uint32_t col = 0;
  std::uint64_t value = 0;
};

/// A sparse n x n matrix of non-negative integers: the nonzero entries,
/// sorted by (row, col), no duplicates.
struct SparseMatrix {
  std::uint32_t n = 0;
  std::vector<MatrixEntry> entries;
};

/// The iteration's traffic on the OCS: bytes per (src, dst), summed over the
/// sends between different scale-up domains of `scaleup_size` consecutive
/// ranks (1: every send). Sends inside a domain use the electrical fabric.
SparseMatrix sparse_traffic_matrix(const core::Workload& w, std::uint32_t scaleup_size = 1);
/// The traffic on the OCS under `system`: the sends whose fabric
/// (System::fabric) is kOcs, neither scale-up nor packet.
SparseMatrix sparse_traffic_matrix(const core::Workload& w, const core::System& system);

/// `m` plus non-negative integers so that every row and every column sums to
/// L = the largest line sum of `m` (greedy; see src/sched/bvn.cpp): first
/// inside the domain-diagonal blocks of `scaleup_size` consecutive ranks (1:
/// the diagonal), entries that never become circuits, then across domains
/// only where a row and a column of different domains both fall short.
struct StuffedMatrix {
  SparseMatrix matrix;
  std::uint64_t line_sum = 0;  ///< L
};
/// Throws core::InputError for a malformed matrix (entry out of range,
/// unsorted or duplicate, zero value), a line sum beyond 2^64 or domains that
/// do not tile n.
StuffedMatrix stuff_matrix(const SparseMatrix& m, std::uint32_t scaleup_size = 1);
/// Under a wiring other than full (docs/model.md, "Wiring"): `m`'s entries
/// all lie inside `groups` (the wiring's groups, core::System::ocs_groups),
/// so each group's rows and columns sum alike; the diagonal first, then a
/// walk over each group's members, so no entry ever joins two groups.
/// Entries inside a domain stay non-circuits, as above. Throws
/// core::InputError also for an entry across groups.
StuffedMatrix stuff_matrix_in_groups(const SparseMatrix& m,
                                     std::span<const std::vector<core::Rank>> groups);

/// One term of a decomposition: weight * the permutation matrix of `perm`
/// (row i, column perm[i]).
struct BvnTerm {
  std::vector<std::uint32_t> perm;
  std::uint64_t weight = 0;
};

/// Integer Birkhoff-von Neumann decomposition of a matrix whose every row
/// and column sums to the same L: sum_k weight_k * P(perm_k) == m exactly,
/// weights positive and summing to L. Throws core::InputError for a
/// malformed matrix or unequal line sums.
std::vector<BvnTerm> bvn_decompose(const SparseMatrix& m);

/// The circuits of a permutation, i -> perm[i] as the undirected edge
/// {i, perm[i]} (fixed points give none; a 2-cycle gives one edge serving
/// both directions), split into matchings: none, 1 (only 2-cycles), 2
/// (alternating around even cycles) or 3 (odd cycles: alternate, the last
/// edge alone). With scale-up domains of `scaleup_size` consecutive ranks an
/// edge inside a domain (like a fixed point) gives no circuit; a cycle with
/// such edges falls into paths, each alternating over 2 matchings. Each
/// matching sorted by (a, b). Throws core::InputError for a perm that is no
/// permutation or domains that do not tile it.
std::vector<Matching> permutation_matchings(std::span<const std::uint32_t> perm,
                                            std::uint32_t scaleup_size = 1);

/// A bvn sub-slot: one switch-load of one term's matchings.
struct BvnSlot {
  core::TimePs start_ps = 0;  ///< reconfiguration starts
  core::TimePs end_ps = 0;    ///< start + tau + transmission(weight)
  std::uint32_t term = 0;     ///< index into the terms
  std::uint32_t first = 0;    ///< index of the first matching of the term it shows
  std::uint32_t count = 0;    ///< matchings shown (first .. first + count - 1)
};

struct BvnTimelines {
  PeriodicTimelines periodic;
  std::vector<BvnSlot> slots;  ///< in time order, back to back from 0
};

/// The bvn schedule of the terms on `system` for n accelerators (see
/// src/sched/bvn.cpp): per term ceil(c / s) sub-slots of tau +
/// transmission(weight) each, c = permutation_matchings(perm,
/// system.scaleup_size).size().
BvnTimelines bvn_timelines(std::span<const BvnTerm> terms, std::uint32_t n,
                           const core::System& system);

}  // namespace flux::sched
