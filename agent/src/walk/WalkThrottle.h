// Keeps stack walking from eating a thread alive. A walk costs about 30-50 ns a frame, so on a
// stack tens of thousands of frames deep (depth= is unlimited by default) one walk can take as
// long as the sampling interval: the thread would spend nearly all its CPU time in the handler,
// every tick of that CPU time would bring the next signal, and the application would crawl. When
// a thread's walk takes more CPU time than the budget (half its interval), its ticks for the next
// twice that time are not walked but recorded as the named failure `walk_throttled`, so walks
// cost that thread at most about a third of its time, and the user sees how many ticks it cost.
// With walk=remote the thread does not walk; it waits for the walker, and its CPU clock stands
// still meanwhile, so there is no storm, only a stall: there the budget is a longer wait (two
// intervals), so that only stacks deep enough to stall the thread are throttled.
//
// One entry per thread, indexed by tid, written only by the thread itself (in its handler). Two
// live threads whose tids collide modulo kEntries may overwrite each other's entry; the damage is
// bounded to a tick throttled or walked by mistake, never a wrong stack.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

class WalkThrottle {
 public:
  // What a cost passed to charge_signalSafe measures.
  enum class Cost {
    kClock,    // the walk in the handler, by the monotonic clock: may include preemption
    kCpuTime,  // the walk in the handler, in the thread's own CPU time
    kWait,     // walk=remote: how long the thread waited for the walker (its CPU time says nothing)
  };

  // Ordinary thread, before the handlers are active (0: never throttle). `budgetNs`: the walk
  // cost in the handler that throttles; `waitBudgetNs`: the same for walk=remote's waits.
  void setBudgetNs(uint64_t budgetNs, uint64_t waitBudgetNs) {
    budgetNs_ = budgetNs;
    waitBudgetNs_ = waitBudgetNs;
  }

  // Signal-handler path: whether this thread's tick at `nowNs` falls in its throttled time.
  bool skip_signalSafe(int32_t tid, uint64_t nowNs) const {
    if (budgetNs_ == 0) return false;
    const Entry& e = entries_[static_cast<uint32_t>(tid) % kEntries];
    return lp(e.tid) == tid && nowNs < lp(e.resumeNs);
  }

  // Signal-handler path: whether this thread's last walk looked slow by the clock, so this walk
  // should be timed in the thread's own CPU time too (a system call, so only for suspects).
  bool suspect_signalSafe(int32_t tid) const {
    const Entry& e = entries_[static_cast<uint32_t>(tid) % kEntries];
    return budgetNs_ != 0 && lp(e.tid) == tid && lp(e.suspect);
  }

  // Signal-handler path: a walk of this thread ended at endNs and cost costNs. A clock reading
  // also counts time the thread spent preempted inside its handler, so a slow one only makes the
  // thread a suspect; a slow CPU-time reading throttles. A wait (walk=remote) throttles when it
  // is the second slow one in a row.
  void charge_signalSafe(int32_t tid, uint64_t endNs, uint64_t costNs, Cost kind) {
    if (budgetNs_ == 0) return;
    Entry& e = entries_[static_cast<uint32_t>(tid) % kEntries];
    bool mine = lp(e.tid) == tid;
    if (costNs <= (kind == Cost::kWait ? waitBudgetNs_ : budgetNs_)) {
      if (mine) sp(e.suspect, false);
      return;
    }
    if (!mine) {
      sp(e.tid, tid);
      sp(e.resumeNs, 0);
      sp(e.suspect, false);
    }
    if (kind == Cost::kCpuTime || (kind == Cost::kWait && lp(e.suspect))) {
      sp(e.resumeNs, endNs + 2 * costNs);
    }
    sp(e.suspect, true);
  }

 private:
  static constexpr uint32_t kEntries = 4096;
  struct Entry {
    std::atomic<int32_t> tid{0};
    std::atomic<bool> suspect{false};  // the last walk was over the budget
    std::atomic<uint64_t> resumeNs{0};
  };
  uint64_t budgetNs_ = 0;
  uint64_t waitBudgetNs_ = 0;
  Entry entries_[kEntries];
};

}  // namespace candor
