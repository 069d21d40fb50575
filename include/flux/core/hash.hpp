#pragma once
// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): a counter-based 64-bit generator whose output is fixed
// by its arithmetic, so seeded draws are the same on every platform.
#include <cstdint>

namespace flux::core {

inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15;

/// splitmix64's output function (the finaliser applied to the state).
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

/// The draw of a splitmix64 generator whose state is `state` before the step.
constexpr std::uint64_t splitmix64(std::uint64_t state) {
  return splitmix64_mix(state + kSplitMixGamma);
}

}  // namespace flux::core
