#include "walk/RemoteWalker.h"

#include <algorithm>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/Clock.h"
#include "jvm/AgentThread.h"
#include "jvm/Jvm.h"
#include "walk/SlotFill.h"

namespace candor {

void RemoteWalker::start() {
  thread_ = AgentThread::start("candor walker", false, [this](JNIEnv*) { run(); });
}

void RemoteWalker::stop() {
  if (!thread_.joinable()) return;
  channel_.stop();
  thread_.join();
}

void RemoteWalker::run() {
  for (;;) {
    RemoteRequest* r = channel_.take(100'000'000);
    if (r == nullptr) {
      if (channel_.stopped()) return;  // stop() comes after the last handler has returned
      continue;
    }
    // The handler counted the tick.
    if (SampleSlot* slot = claimOrDrop_signalSafe(ring_, counters_, static_cast<SampleKind>(r->kind))) {
      fillHeader_signalSafe(slot, r->tid, static_cast<SampleKind>(r->kind), static_cast<ThreadState>(r->threadState),
                            r->timeNs, r->latencyNs);
      slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
        return walk_(r->env, r->ucontext, frames, max);
      }, &hints_, r->tid);
      // The sampled thread has waited from its handler's start until now (the handoff included).
      slot->handlerNs = static_cast<uint32_t>(std::min<uint64_t>(monotonicNs() - r->timeNs, UINT32_MAX));
      ring_.publish_signalSafe(slot);
      addPlain(walks_, 1);
    }
    channel_.complete(r);
  }
}

void RemoteWalker::takeSample_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind,
                                         ThreadState state, int64_t latency, uint64_t now) {
  addPlain(counters_.ticks[static_cast<int>(kind)], 1);
  if (env == nullptr) {
    recordCodeInRing_signalSafe(ring_, counters_, kNotJavaThreadCode, tid, kind, state, now, latency);
    return;
  }
  RemoteRequest* r = channel_.claim_signalSafe();
  if (r == nullptr) {
    recordCodeInRing_signalSafe(ring_, counters_, kRemoteBusyCode, tid, kind, state, now, latency);
    return;
  }
  r->ucontext = ucontext;
  r->env = env;
  r->tid = tid;
  r->kind = static_cast<uint8_t>(kind);
  r->threadState = static_cast<uint8_t>(state);
  r->latencyNs = latency;
  r->timeNs = now;
  // Walked: the walker has put the sample into the ring (or counted it dropped).
  if (!channel_.publishAndWait_signalSafe(r, kHandlerTimeoutNs)) {
    recordCodeInRing_signalSafe(ring_, counters_, kRemoteTimeoutCode, tid, kind, state, now, latency);
  }
}

}  // namespace candor
