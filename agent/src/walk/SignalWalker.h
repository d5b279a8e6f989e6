// Capturing the stack of the thread a signal interrupted, inside its signal handler: with
// AsyncGetCallTrace (walk=agct), candor's own walker (walk=vm), or by handing the tick to the walker
// thread (walk=remote). Every outcome goes into the sample ring with the tick counted once.
#pragma once
#include "concurrent/SampleRing.h"
#include "engine/SampleSinks.h"
#include "store/SampleAccounting.h"
#include "walk/DeepStackHints.h"
#include "walk/RemoteWalker.h"
#include "walk/WalkThrottle.h"

namespace candor {

class SignalWalker : public SignalSampleSink {
 public:
  SignalWalker(SampleRing& ring, HandlerCounters& counters) : ring_(ring), counters_(counters) {}
  // walk=vm: fill the slot with candor's own walker (walk/vm/) instead of AGCT. Set before the
  // handlers are activated.
  void useOwnWalker(bool on) { ownWalker_ = on; }
  // walk=remote: hand every tick to the walker thread instead (set before activation).
  void useRemoteWalker(RemoteWalker* remote) { remote_ = remote; }

  // Never blocks or allocates (SignalSampleSink).
  void takeSample_signalSafe(void* ucontext, SampleKind kind, ThreadState state, int64_t latencyNs,
                             uint64_t intendedNs) override;

  // CPU ticks of a thread whose walks take longer than `budgetNs` (walk=remote: whose waits
  // for the walker take longer than `waitBudgetNs`) are throttled (WalkThrottle.h).
  void throttleWalksAbove(uint64_t budgetNs, uint64_t waitBudgetNs) { throttle_.setBudgetNs(budgetNs, waitBudgetNs); }

 private:
  // Returns the time it finished (monotonic ns), which also ends the slot's handler time.
  uint64_t walkHere_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind, ThreadState state,
                               int64_t latencyNs, uint64_t timeNs);
  void recordCode_signalSafe(int32_t code, int32_t tid, SampleKind kind, ThreadState state, uint64_t timeNs,
                             int64_t latencyNs);

  SampleRing& ring_;
  HandlerCounters& counters_;
  bool ownWalker_ = false;
  RemoteWalker* remote_ = nullptr;
  WalkThrottle throttle_;
  DeepStackHints hints_;
};

}  // namespace candor
