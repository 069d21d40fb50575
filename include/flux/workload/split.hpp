#pragma once
// Sends split into channels (docs/model.md, "Channels"). NCCL moves a
// point-to-point transfer over several channels, and a GPU with one link
// per OCS can spread one peer's bytes over several links; in Flux's task
// model a send uses one circuit on one switch, so a workload that wants that
// freedom says so: every send between scale-up domains becomes `channels`
// sends of the same pair, the bytes divided as evenly as bytes go (the first
// `bytes mod channels` parts one byte more; parts of 0 bytes are left out),
// each with the send's release and tail. Every dependency u -> v becomes one
// from every part of u to every part of v with the same compute, so a part
// waits for all of its parents' parts, as the whole send did. A scheduler
// may put the parts on different switches or one after another on one
// circuit (no reconfiguration between them: the same directed pair). Sends
// inside a scale-up domain stay whole (the electrical fabric has one port
// per direction: parts would only queue). Ids: part k of send id i is
// i * channels + k. The traffic matrix and the DAG's order are unchanged.
#include <cstdint>

#include "flux/core/workload.hpp"

namespace flux::workload {

/// The most channels a send may be split into.
inline constexpr std::uint32_t kMaxChannels = 64;

/// `w` with every send between scale-up domains of size `scaleup_size`
/// (1: every send) split into `channels` parts. channels == 1 returns a
/// copy. Throws core::InputError naming the field channels (0 or above
/// kMaxChannels; an id, task count or dependency count that would overflow)
/// or scaleup_size (0).
core::Workload split_sends(const core::Workload& w, std::uint32_t channels,
                           std::uint32_t scaleup_size);

}  // namespace flux::workload
