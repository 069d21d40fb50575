#pragma once
// Internal: CBC's results on the watchdog's pipe (cbc.cpp). The child
// writes a frame for every improving incumbent and one for its final
// result; the parent keeps the complete ones. A frame:
//
//   magic u32 | kind u32 | payload bytes u64 | payload | FNV-1a 64 of the payload
//   payload:  status i32 | 0 i32 | nodes i64 | objective f64 | bound f64
//             | seconds f64 | count u64 | count column values f64
//
// in the machine's own byte order (both ends are this process). A kill can
// cut the last frame short: it is never complete, so never a result. The
// payload must hold no values (a final result without a solution) or
// exactly the model's columns; anything else (a wrong magic, length,
// checksum or status) marks the stream corrupt and ends it.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "solver.hpp"

namespace flux::sched {

enum class FrameKind : std::uint32_t { kIncumbent = 1, kFinal = 2 };

struct Frame {
  FrameKind kind = FrameKind::kFinal;
  MilpResult result;  ///< status, nodes, objective, bound, seconds, values
};

namespace frame_detail {

inline constexpr std::uint32_t kMagic = 0x4e494658;  // "XFIN"
inline constexpr std::size_t kHeaderBytes = 16;      // magic, kind, payload bytes
inline constexpr std::size_t kFixedBytes = 48;       // the payload before its values
inline constexpr std::size_t kChecksumBytes = 8;

inline std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <class T>
T get(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace frame_detail

/// The bytes of one frame.
inline std::string encode_frame(FrameKind kind, const MilpResult& r) {
  using namespace frame_detail;
  std::string payload;
  payload.reserve(kFixedBytes + r.values.size() * sizeof(double));
  put<std::int32_t>(payload, static_cast<std::int32_t>(r.status));
  put<std::int32_t>(payload, 0);
  put<std::int64_t>(payload, r.nodes);
  put<double>(payload, r.objective);
  put<double>(payload, r.bound);
  put<double>(payload, r.seconds);
  put<std::uint64_t>(payload, r.values.size());
  if (!r.values.empty()) {
    payload.append(reinterpret_cast<const char*>(r.values.data()),
                   r.values.size() * sizeof(double));
  }
  std::string out;
  out.reserve(kHeaderBytes + payload.size() + kChecksumBytes);
  put<std::uint32_t>(out, kMagic);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(kind));
  put<std::uint64_t>(out, payload.size());
  out.append(payload);
  put<std::uint64_t>(out, fnv1a(payload));
  return out;
}

/// Collects the bytes read from the pipe and hands out complete frames.
/// Holds at most the frame being read and the rest of one read.
class FrameReader {
 public:
  /// `columns`: the model's; the only value count a frame may carry besides 0.
  explicit FrameReader(std::size_t columns) : columns_(columns) {}

  void append(const char* data, std::size_t size) {
    if (!corrupt_) buffer_.append(data, size);
  }

  /// The next complete frame, if one is.
  std::optional<Frame> next() {
    using namespace frame_detail;
    if (corrupt_ || buffer_.size() < kHeaderBytes) return std::nullopt;
    const char* h = buffer_.data();
    const auto kind = get<std::uint32_t>(h + 4);
    const auto payload_bytes = get<std::uint64_t>(h + 8);
    const std::uint64_t full = kFixedBytes + static_cast<std::uint64_t>(columns_) * sizeof(double);
    if (get<std::uint32_t>(h) != kMagic ||
        (kind != static_cast<std::uint32_t>(FrameKind::kIncumbent) &&
         kind != static_cast<std::uint32_t>(FrameKind::kFinal)) ||
        (payload_bytes != kFixedBytes && payload_bytes != full)) {
      return fail();
    }
    const std::size_t frame_bytes = kHeaderBytes + payload_bytes + kChecksumBytes;
    if (buffer_.size() < frame_bytes) return std::nullopt;  // not complete yet
    const std::string_view payload(h + kHeaderBytes, payload_bytes);
    const char* p = payload.data();
    const auto status = get<std::int32_t>(p);
    const auto count = get<std::uint64_t>(p + 40);
    if (get<std::uint64_t>(h + kHeaderBytes + payload_bytes) != fnv1a(payload) ||
        count * sizeof(double) != payload_bytes - kFixedBytes || status < 0 ||
        status > static_cast<std::int32_t>(schedule::SolveStatus::kError) ||
        (kind == static_cast<std::uint32_t>(FrameKind::kIncumbent) && count != columns_)) {
      return fail();
    }
    Frame f;
    f.kind = static_cast<FrameKind>(kind);
    f.result.status = static_cast<schedule::SolveStatus>(status);
    f.result.nodes = static_cast<long>(get<std::int64_t>(p + 8));
    f.result.objective = get<double>(p + 16);
    f.result.bound = get<double>(p + 24);
    f.result.seconds = get<double>(p + 32);
    f.result.values.resize(count);
    if (count > 0) std::memcpy(f.result.values.data(), p + kFixedBytes, count * sizeof(double));
    buffer_.erase(0, frame_bytes);  // what is left: at most one read
    return f;
  }

  /// A frame was malformed: everything from it on is ignored.
  [[nodiscard]] bool corrupt() const { return corrupt_; }

 private:
  std::optional<Frame> fail() {
    corrupt_ = true;
    buffer_.clear();
    return std::nullopt;
  }

  std::size_t columns_;
  std::string buffer_;
  bool corrupt_ = false;
};

}  // namespace flux::sched
