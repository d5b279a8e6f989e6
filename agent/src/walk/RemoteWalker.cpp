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
    // The handler counted the ticks.
    if (SampleSlot* slot = claimOrDrop_signalSafe(ring_, counters_, static_cast<SampleKind>(r->kind), r->weight)) {
      fillHeader_signalSafe(slot, r->tid, static_cast<SampleKind>(r->kind), static_cast<ThreadState>(r->threadState),
                            r->timeNs, r->latencyNs);
      slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
        return walk_(r->env, r->ucontext, frames, max);
      }, &hints_, r->tid);
      // The sampled thread has waited from its handler's start until now (the handoff included).
      slot->handlerNs = static_cast<uint32_t>(std::min<uint64_t>(monotonicNs() - r->timeNs, UINT32_MAX));
      if (r->unsampledKernel > 0) {  // counted here, as they are recorded
        recordOnTopOf_signalSafe(ring_, counters_, slot, firstJavaFrame(ring_.framesOf(slot), slot->numFrames),
                                 static_cast<uint32_t>(std::min<uint64_t>(r->unsampledKernel, UINT32_MAX)),
                                 [](ASGCT_CallFrame* top, int32_t) {
                                   top[0] = {kKernelUnsampledBci, nullptr};
                                   return 1;
                                 });
      }
      ring_.publish_signalSafe(slot);
      addPlain(walks_, 1);
    }
    channel_.complete(r);
  }
}

void RemoteWalker::takeSample_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind,
                                         ThreadState state, int64_t latency, uint64_t now, uint32_t weight,
                                         uint64_t unsampledKernel) {
  // Unwalked, the unsampled kernel ticks share the failure of the ticks they belong to.
  auto all = static_cast<uint32_t>(std::min<uint64_t>(weight + unsampledKernel, UINT32_MAX));
  if (env == nullptr) {
    addPlain(counters_.ticks[static_cast<int>(kind)], uint64_t{all});
    recordCodeInRing_signalSafe(ring_, counters_, kNotJavaThreadCode, tid, kind, state, now, latency, all);
    return;
  }
  RemoteRequest* r = channel_.claim_signalSafe();
  if (r == nullptr) {
    addPlain(counters_.ticks[static_cast<int>(kind)], uint64_t{all});
    recordCodeInRing_signalSafe(ring_, counters_, kRemoteBusyCode, tid, kind, state, now, latency, all);
    return;
  }
  addPlain(counters_.ticks[static_cast<int>(kind)], uint64_t{weight});
  r->ucontext = ucontext;
  r->env = env;
  r->tid = tid;
  r->kind = static_cast<uint8_t>(kind);
  r->threadState = static_cast<uint8_t>(state);
  r->latencyNs = latency;
  r->timeNs = now;
  r->weight = weight;
  r->unsampledKernel = unsampledKernel;
  // Walked: the walker has put the sample into the ring (or counted it dropped).
  if (!channel_.publishAndWait_signalSafe(r, kHandlerTimeoutNs)) {
    addPlain(counters_.ticks[static_cast<int>(kind)], unsampledKernel);
    recordCodeInRing_signalSafe(ring_, counters_, kRemoteTimeoutCode, tid, kind, state, now, latency, all);
  }
}

}  // namespace candor
