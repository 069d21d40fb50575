#pragma once
// Internal: the engine's event queue, a radix heap on event times (Ahuja,
// Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest path
// problem", J. ACM 37(2), 1990). The engine pops events in time order and
// never pushes one before the time last popped (Engine::push asserts it), so
// an event waits in the bucket of the highest bit in which its time differs
// from that time, and moves only to lower buckets: a push is O(1) and each
// event moves at most 64 times, against a binary heap's sift through
// log2(queue) levels of cache misses per pop. Events at the time last popped
// (bucket 0) are kept in a binary heap on their key, so that events come out
// in (time, key) order exactly, as Event::operator> orders them. Looking at
// the first event (top) moves nothing: the engine may look ahead and then
// push an event before it, at or after the time last popped.
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

namespace flux::sim::detail {

/// E: an event with a time `t` (non-negative integer) and an integer `key`;
/// ordered by (t, key).
template <class E>
class RadixEventQueue {
 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t size() const { return size_; }

  /// e.t is at least the time of the last event popped.
  void push(const E& e) {
    assert(e.t >= last_);
    ++size_;
    if (e.t == last_) {
      now_.push_back(e);
      std::push_heap(now_.begin(), now_.end(), later_key);
    } else {
      buckets_[bucket_of(e.t)].push_back(e);
      peeked_ = nullptr;
    }
  }

  /// The first event by (t, key); the queue must not be empty. Valid until
  /// the next push or pop.
  const E& top() {
    if (!now_.empty()) return now_.front();
    if (peeked_ == nullptr) {
      // The least (t, key) of the first non-empty bucket, found again after
      // each push into a bucket.
      const std::vector<E>& b = buckets_[first_bucket()];
      peeked_ = &b.front();
      for (const E& e : b) {
        if (e.t < peeked_->t || (e.t == peeked_->t && e.key < peeked_->key)) peeked_ = &e;
      }
    }
    return *peeked_;
  }

  void pop() {
    peeked_ = nullptr;
    if (now_.empty()) refill();
    std::pop_heap(now_.begin(), now_.end(), later_key);
    now_.pop_back();
    --size_;
  }

 private:
  static bool later_key(const E& a, const E& b) { return a.key > b.key; }
  [[nodiscard]] std::size_t bucket_of(std::int64_t t) const {
    const auto diff = static_cast<std::uint64_t>(t) ^ static_cast<std::uint64_t>(last_);
    return static_cast<std::size_t>(64 - std::countl_zero(diff));  // 1 .. 64
  }
  [[nodiscard]] std::size_t first_bucket() const {
    assert(size_ > 0 && now_.empty());
    std::size_t i = 1;
    while (buckets_[i].empty()) ++i;
    return i;
  }
  // The first non-empty bucket's least time becomes the time last popped;
  // its events go to bucket 0 (that time) or to lower buckets.
  void refill() {
    std::vector<E>& b = buckets_[first_bucket()];
    std::int64_t least = b.front().t;
    for (const E& e : b) least = std::min(least, e.t);
    last_ = least;
    for (const E& e : b) {
      if (e.t == last_) {
        now_.push_back(e);
      } else {
        buckets_[bucket_of(e.t)].push_back(e);  // a lower bucket than i
      }
    }
    b.clear();
    std::make_heap(now_.begin(), now_.end(), later_key);
  }

  std::array<std::vector<E>, 65> buckets_;
  std::vector<E> now_;     // the events at last_, a heap on key (least first)
  std::int64_t last_ = 0;  // the time of the last event popped (or refilled)
  std::size_t size_ = 0;
  const E* peeked_ = nullptr;  // top() of the buckets, while nothing was pushed or popped
};

}  // namespace flux::sim::detail
