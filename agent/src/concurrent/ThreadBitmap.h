// A set of OS thread ids that a signal handler can test: one bit per possible tid (Linux's
// pid_max is at most 2^22), set and cleared with atomic bit operations by ordinary threads.
// 512 KB of zero-initialized static storage, touched only where tids fall.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class ThreadBitmap {
 public:
  static constexpr uint32_t kMaxTid = 1u << 22;

  void add(int tid) {
    if (valid(tid)) orOrdered(word(tid), bit(tid));
  }
  void remove(int tid) {
    if (valid(tid)) andOrdered(word(tid), ~bit(tid));
  }
  // Signal-handler path: one load.
  bool contains_signalSafe(int tid) const {
    return valid(tid) && (lv(words_[uint32_t(tid) >> 6]) & bit(tid)) != 0;
  }
  void clear() {
    for (auto& w : words_) sp(w, 0);
  }

 private:
  static bool valid(int tid) { return tid > 0 && uint32_t(tid) < kMaxTid; }
  static uint64_t bit(int tid) { return uint64_t(1) << (uint32_t(tid) & 63); }
  std::atomic<uint64_t>& word(int tid) { return words_[uint32_t(tid) >> 6]; }
  std::atomic<uint64_t> words_[kMaxTid / 64] = {};
};

}  // namespace candor
