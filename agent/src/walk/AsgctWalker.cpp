#include "walk/AsgctWalker.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jvm/Jvm.h"
#include "store/TickBuckets.h"

namespace candor {

void AsgctWalker::takeSample_signalSafe(void* ucontext) {
  counters_.ticks.fetch_add(1, std::memory_order_relaxed);
  SampleSlot* slot = ring_.tryClaim_signalSafe();
  if (slot == nullptr) {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);  // vDSO, no syscall
  slot->timeNs = uint64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  slot->tid = static_cast<int32_t>(syscall(SYS_gettid));
  JNIEnv* env = Jvm::currentEnv_signalSafe();
  if (env == nullptr) {
    slot->numFrames = kNotJavaThreadCode;
  } else {
    ASGCT_CallTrace trace = {env, 0, slot->frames};
    Jvm::asgct()(&trace, static_cast<jint>(ring_.depth()), ucontext);
    slot->numFrames = trace.num_frames;
  }
  ring_.publish_signalSafe(slot);
}

}  // namespace candor
