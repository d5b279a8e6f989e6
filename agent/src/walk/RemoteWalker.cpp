#include "walk/RemoteWalker.h"

#include "concurrent/Clock.h"
#include "jvm/Jvm.h"
#include "store/TickBuckets.h"

namespace candor {

void RemoteWalker::start() {
  thread_ = std::thread([this] { run(); });
}

void RemoteWalker::stop() {
  if (!thread_.joinable()) return;
  channel_.stop();
  thread_.join();
}

void RemoteWalker::run() {
  Jvm::markAgentThread();
  for (;;) {
    RemoteRequest* r = channel_.take(100'000'000);
    if (r == nullptr) {
      if (channel_.stopped()) return;  // stop() comes after the last handler has returned
      continue;
    }
    SampleSlot* slot = ring_.tryClaim_signalSafe();
    if (slot == nullptr) {
      counters_.dropped[r->kind].fetch_add(1, std::memory_order_relaxed);
    } else {
      slot->timeNs = r->timeNs;
      slot->tid = r->tid;
      slot->kind = r->kind;
      slot->state = r->threadState;
      slot->latencyNs = r->latencyNs;
      slot->numFrames = walk_(r->env, r->ucontext, slot->frames, static_cast<int32_t>(ring_.depth()));
      ring_.publish_signalSafe(slot);
      walks_.fetch_add(1, std::memory_order_relaxed);
    }
    channel_.complete(r);
  }
}

void RemoteWalker::recordCode_signalSafe(int32_t code, int32_t tid, SampleKind kind, ThreadState state,
                                         uint64_t timeNs, int64_t latencyNs) {
  SampleSlot* slot = ring_.tryClaim_signalSafe();
  if (slot == nullptr) {
    counters_.dropped[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slot->timeNs = timeNs;
  slot->tid = tid;
  slot->kind = static_cast<uint8_t>(kind);
  slot->state = static_cast<uint8_t>(state);
  slot->latencyNs = latencyNs;
  slot->numFrames = code;
  ring_.publish_signalSafe(slot);
}

void RemoteWalker::takeSample_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind,
                                         ThreadState state, int64_t latencyNs, uint64_t intendedNs) {
  counters_.ticks[static_cast<int>(kind)].fetch_add(1, std::memory_order_relaxed);
  uint64_t now = monotonicNs();
  int64_t latency = intendedNs != 0 ? static_cast<int64_t>(now - intendedNs) : latencyNs;
  if (env == nullptr) {
    recordCode_signalSafe(kNotJavaThreadCode, tid, kind, state, now, latency);
    return;
  }
  RemoteRequest* r = channel_.claim_signalSafe();
  if (r == nullptr) {
    recordCode_signalSafe(kRemoteBusyCode, tid, kind, state, now, latency);
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
    recordCode_signalSafe(kRemoteTimeoutCode, tid, kind, state, now, latency);
  }
}

}  // namespace candor
