// The table of live temporary files. A signal handler may run on any thread
// at any moment, so the table is chunks of atomic slots that are never freed
// (a handler may be walking them); each slot holds a C string of its own.
// A handler first raises `dying`; from then on strings are leaked rather
// than freed, so the one it may be unlinking stays valid (seq_cst order).
#include "temporaries.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "flux/io/output.hpp"

namespace flux::io {
namespace {

constexpr int kSlots = 64;

struct Chunk {
  std::atomic<char*> slots[kSlots] = {};
  std::atomic<Chunk*> next{nullptr};
};

static_assert(std::atomic<char*>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "a signal handler needs lock-free atomics");

Chunk g_first;                     // process-wide: see temporaries.hpp
std::mutex g_grow;                 // only to append chunks; never taken by the handler
std::atomic<bool> g_dying{false};  // set by remove_temporaries

}  // namespace

namespace detail {

void* register_temporary(const std::string& path) {
  char* copy = new char[path.size() + 1];
  std::memcpy(copy, path.c_str(), path.size() + 1);
  for (;;) {
    Chunk* last = &g_first;
    for (Chunk* c = &g_first; c != nullptr; c = c->next.load()) {
      for (auto& slot : c->slots) {
        char* expected = nullptr;
        if (slot.load() == nullptr && slot.compare_exchange_strong(expected, copy)) return &slot;
      }
      last = c;
    }
    const std::lock_guard<std::mutex> lock(g_grow);
    while (last->next.load() != nullptr) last = last->next.load();
    last->next.store(new Chunk);  // NOLINT: never freed, a handler may be reading it
  }
}

void unregister_temporary(void* entry) noexcept {
  // Once dying, the entry stays: unlinking a renamed temporary's old name
  // again does nothing, and its string stays reachable.
  if (entry == nullptr || g_dying.load()) return;
  char* path = static_cast<std::atomic<char*>*>(entry)->exchange(nullptr);
  if (!g_dying.load()) delete[] path;
}

}  // namespace detail

void remove_temporaries() noexcept {
  g_dying.store(true);
  for (Chunk* c = &g_first; c != nullptr; c = c->next.load()) {
    for (auto& slot : c->slots) {
      if (const char* path = slot.load()) ::unlink(path);
    }
  }
}

}  // namespace flux::io
