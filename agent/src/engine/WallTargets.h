// The table through which the wall sampler tells a thread's signal handler what it decided:
// the sampler fills a thread's entry, then sends the signal with the entry's index as the
// sigqueue value; the handler reads the entry and clears `pending`. A thread is never signalled
// again while its entry is pending, so no signal is merged away and no tick is lost unseen.
// Fixed-size static storage: the handler only indexes it, after a bounds check.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Vocabulary.h"

namespace candor {

struct WallTarget {
  std::atomic<bool> pending{false};
  std::atomic<uint8_t> state{0};           // ThreadState the sampler saw
  std::atomic<uint64_t> intendedNs{0};     // the tick's scheduled time
  // Sampler-thread-only bookkeeping.
  int tid = 0;
  uint64_t lastCpuNs = 0;                  // CPU time at the previous tick
  ThreadState lastState = ThreadState::kUnknown;  // state seen at the previous tick
  uint64_t cpuAtLastSampleNs = UINT64_MAX; // CPU time when last sampled (UINT64_MAX: never)
  ThreadState stateAtLastSample = ThreadState::kUnknown;
};

class WallTargets {
 public:
  static constexpr int kCapacity = 1 << 16;
  // Ordinary threads: reserve an entry for `tid`; -1 when the table is full.
  static int acquire(int tid);
  static void release(int index);
  static void releaseAll();
  static WallTarget& at(int index) { return entries_[index]; }
  // Signal-handler path: the entry for a sigqueue value, or nullptr if it is not one of ours.
  static WallTarget* find_signalSafe(int index) {
    return index >= 0 && index < kCapacity ? &entries_[index] : nullptr;
  }

 private:
  static WallTarget entries_[kCapacity];
};

}  // namespace candor
