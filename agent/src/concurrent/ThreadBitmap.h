// A set of OS thread ids that a signal handler can test: one bit per possible tid (Linux's
// pid_max is at most 2^22), set and cleared with atomic bit operations by ordinary threads.
// 512 KB of zero-initialized static storage, touched only where tids fall.
#pragma once
#include <atomic>
#include <cstdint>

namespace candor {

class ThreadBitmap {
 public:
  static constexpr uint32_t kMaxTid = 1u << 22;

  void add(int tid) {
    if (valid(tid)) word(tid).fetch_or(bit(tid), std::memory_order_release);
  }
  void remove(int tid) {
    if (valid(tid)) word(tid).fetch_and(~bit(tid), std::memory_order_release);
  }
  // Signal-handler path: one load.
  bool contains_signalSafe(int tid) const {
    return valid(tid) && (words_[uint32_t(tid) >> 6].load(std::memory_order_acquire) & bit(tid)) != 0;
  }
  void clear() {
    for (auto& w : words_) w.store(0, std::memory_order_relaxed);
  }

 private:
  static bool valid(int tid) { return tid > 0 && uint32_t(tid) < kMaxTid; }
  static uint64_t bit(int tid) { return uint64_t(1) << (uint32_t(tid) & 63); }
  std::atomic<uint64_t>& word(int tid) { return words_[uint32_t(tid) >> 6]; }
  std::atomic<uint64_t> words_[kMaxTid / 64] = {};
};

}  // namespace candor
