#include "walk/SignalWalker.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/Clock.h"
#include "jvm/Jvm.h"
#include "walk/SlotFill.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

void SignalWalker::takeSample_signalSafe(void* ucontext, SampleKind kind, ThreadState state, int64_t latencyNs,
                                        uint64_t intendedNs) {
  uint64_t now = monotonicNs();  // vDSO, no syscall
  auto tid = static_cast<int32_t>(syscall(SYS_gettid));
  int64_t latency = intendedNs != 0 ? static_cast<int64_t>(now - intendedNs) : latencyNs;
  bool cpu = kind == SampleKind::kCpu;
  if (cpu && throttle_.skip_signalSafe(tid, now)) {
    recordCode_signalSafe(kWalkThrottledCode, tid, kind, state, now, latency);
    return;
  }
  JNIEnv* env = Jvm::currentEnv_signalSafe(tid);
  if (remote_ != nullptr) {  // it counts the tick and gets it walked on its own thread
    remote_->takeSample_signalSafe(ucontext, env, tid, kind, state, latency, now);
    if (cpu) {
      uint64_t end = monotonicNs();
      throttle_.charge_signalSafe(tid, end, end - now, WalkThrottle::Cost::kWait);
    }
    return;
  }
  bool timeCpu = cpu && throttle_.suspect_signalSafe(tid);
  uint64_t cpuStart = timeCpu ? clockNs(CLOCK_THREAD_CPUTIME_ID) : 0;
  uint64_t end = walkHere_signalSafe(ucontext, env, tid, kind, state, latency, now);
  if (cpu) {
    if (timeCpu) throttle_.charge_signalSafe(tid, end, clockNs(CLOCK_THREAD_CPUTIME_ID) - cpuStart, WalkThrottle::Cost::kCpuTime);
    else throttle_.charge_signalSafe(tid, end, end - now, WalkThrottle::Cost::kClock);
  }
}

uint64_t SignalWalker::walkHere_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind, ThreadState state,
                                      int64_t latencyNs, uint64_t timeNs) {
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, kind);
  if (slot == nullptr) return monotonicNs();
  fillHeader_signalSafe(slot, tid, kind, state, timeNs, latencyNs);
  if (env == nullptr) {
    slot->numFrames = kNotJavaThreadCode;
  } else if (ownWalker_) {
    slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
      return VmStackWalker::walk_signalSafe(env, ucontext, frames, max);
    }, &hints_, tid);
  } else {
    slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
      ASGCT_CallTrace trace = {env, 0, frames};
      Jvm::asgct()(&trace, max, ucontext);
      return trace.num_frames;
    }, &hints_, tid);
  }
  uint64_t end = monotonicNs();
  slot->handlerNs = static_cast<uint32_t>(std::min<uint64_t>(end - timeNs, UINT32_MAX));
  ring_.publish_signalSafe(slot);
  return end;
}

void SignalWalker::recordCode_signalSafe(int32_t code, int32_t tid, SampleKind kind, ThreadState state,
                                        uint64_t timeNs, int64_t latencyNs) {
  addPlain(counters_.ticks[static_cast<int>(kind)], 1);
  recordCodeInRing_signalSafe(ring_, counters_, code, tid, kind, state, timeNs, latencyNs);
}

}  // namespace candor
