// Which threads' last stack did not fit a ring slot. Their next walk goes straight into a spill
// buffer, so a deep stack is walked once per sample instead of twice (into the slot until it is
// full, then again into the buffer).
//
// One entry per thread, indexed by tid and holding the tid while its stacks are deep; written by
// whoever walks that thread (its own handler, or the remote walker while the thread waits for it).
// Tids that collide modulo kEntries only cost a walk made the slow way, never a wrong stack.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class DeepStackHints {
 public:
  // Signal-handler path.
  bool expectDeep_signalSafe(int32_t tid) const { return lp(entry(tid)) == tid; }

  // Signal-handler path: the stack just walked was (not) deeper than a slot.
  void note_signalSafe(int32_t tid, bool deep) {
    std::atomic<int32_t>& e = entry(tid);
    if (deep) sp(e, tid);
    else if (lp(e) == tid) sp(e, 0);
  }

 private:
  static constexpr uint32_t kEntries = 4096;
  std::atomic<int32_t>& entry(int32_t tid) { return entries_[static_cast<uint32_t>(tid) % kEntries]; }
  const std::atomic<int32_t>& entry(int32_t tid) const { return entries_[static_cast<uint32_t>(tid) % kEntries]; }
  std::atomic<int32_t> entries_[kEntries] = {};
};

}  // namespace candor
