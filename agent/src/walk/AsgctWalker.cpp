#include "walk/AsgctWalker.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "concurrent/Clock.h"
#include "jvm/Jvm.h"
#include "store/TickBuckets.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

void AsgctWalker::takeSample_signalSafe(void* ucontext, SampleKind kind, ThreadState state, int64_t latencyNs,
                                        uint64_t intendedNs) {
  if (remote_ != nullptr) {  // it counts the tick and gets it walked on its own thread
    auto tid = static_cast<int32_t>(syscall(SYS_gettid));
    remote_->takeSample_signalSafe(ucontext, Jvm::currentEnv_signalSafe(tid), tid, kind, state, latencyNs, intendedNs);
    return;
  }
  int k = static_cast<int>(kind);
  counters_.ticks[k].fetch_add(1, std::memory_order_relaxed);
  SampleSlot* slot = ring_.tryClaim_signalSafe();
  if (slot == nullptr) {
    counters_.dropped[k].fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slot->timeNs = monotonicNs();  // vDSO, no syscall
  slot->tid = static_cast<int32_t>(syscall(SYS_gettid));
  slot->kind = static_cast<uint8_t>(kind);
  slot->state = static_cast<uint8_t>(state);
  slot->latencyNs = intendedNs != 0 ? static_cast<int64_t>(slot->timeNs - intendedNs) : latencyNs;
  JNIEnv* env = Jvm::currentEnv_signalSafe(slot->tid);
  if (env == nullptr) {
    slot->numFrames = kNotJavaThreadCode;
  } else if (ownWalker_) {
    slot->numFrames = VmStackWalker::walk_signalSafe(env, ucontext, slot->frames, static_cast<int32_t>(ring_.depth()));
  } else {
    ASGCT_CallTrace trace = {env, 0, slot->frames};
    Jvm::asgct()(&trace, static_cast<jint>(ring_.depth()), ucontext);
    slot->numFrames = trace.num_frames;
  }
  ring_.publish_signalSafe(slot);
}

}  // namespace candor
