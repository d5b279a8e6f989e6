// walk=remote: the sampled thread's signal handler publishes its interrupted context and waits
// while a separate walker thread walks its stack (the sampled thread stays stopped in its handler,
// so its stack does not change under the walker). The walker may take its
// time and write any depth, and a fault while walking happens on the walker, never on the
// application's thread.
//
// A fixed array of request slots, each a small state machine on one atomic word:
//
//   kFree --claim (handler, CAS)--> kClaimed --publish (handler, so)--> kPublished
//   kPublished --take (walker, CAS)--> kWalking --complete (walker, so)--> kDone
//   kPublished --give up (handler, CAS, after its timeout)--> kAbandoned
//   kDone / kAbandoned --release (handler, so)--> kFree
//
// Ordering argument. The handler fills the request with plain stores, then so(state, kPublished)
// (release); the walker's CAS kPublished→kWalking is an acquire, so it sees the whole request.
// The walker writes its result, then so(state, kDone); the handler's lv(state) == kDone (acquire)
// sees the result. The handler leaves the handler (and its stack, which the walker reads) only in
// kDone or kAbandoned; the CAS from kPublished decides exactly once whether the walker or the
// timeout owns the request, so the walker never reads a stack that is running again. The slot is
// reused only after the handler's so(state, kFree), which the next claimant's CAS acquires.
//
// Waiting: the handler spins briefly (both threads on different CPUs: a round trip of a few µs),
// then sleeps on a futex on the state word, since with 2 vCPUs the walker may need the CPU the
// handler spins on. The walker sleeps on a futex on a request counter.
#pragma once
#include <jni.h>

#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

struct RemoteRequest {
  enum State : uint32_t { kFree, kClaimed, kPublished, kWalking, kDone, kAbandoned };
  std::atomic<uint32_t> state{kFree};
  // Filled by the handler before publishing.
  void* ucontext = nullptr;  // lives on the waiting thread's stack
  JNIEnv* env = nullptr;
  int32_t tid = 0;
  uint8_t kind = 0;
  uint8_t threadState = 0;
  int64_t latencyNs = -1;
  uint64_t intendedNs = 0;
  uint64_t timeNs = 0;
  uint32_t weight = 1;           // ticks the walked stack stands for (counted by the handler)
  uint64_t unsampledKernel = 0;  // kernel ticks perf did not sample, charged to the walked stack
  // Filled by the walker before completing.
  int32_t result = 0;
};

class RemoteWalkChannel {
 public:
  static constexpr int kSlots = 64;

  // Signal-handler path: a free request, or nullptr when all are taken (the caller counts the
  // tick as a failure).
  RemoteRequest* claim_signalSafe();
  // Signal-handler path: publishes `r` and waits until the walker completed it (true) or,
  // if no walker took it within `timeoutNs`, abandons it (false). Copies the walker's result
  // to `*result` (when not null), then releases the slot: `r` must not be touched afterwards.
  bool publishAndWait_signalSafe(RemoteRequest* r, int64_t timeoutNs, int32_t* result = nullptr);

  // Walker thread: the next published request (now kWalking), or nullptr after `timeoutNs`
  // without one or once stop() was called.
  RemoteRequest* take(int64_t timeoutNs);
  // Walker thread: hands the request back to its waiting handler.
  void complete(RemoteRequest* r);
  void stop();
  bool stopped() const { return lv(stopped_); }

  // Counters (relaxed; read for the stats).
  uint64_t spinsSatisfied() const { return lp(spinsSatisfied_); }
  uint64_t futexWaits() const { return lp(futexWaits_); }

 private:
  RemoteRequest slots_[kSlots];
  std::atomic<uint32_t> published_{0};  // futex word of the walker: bumped on every publish
  std::atomic<bool> stopped_{false};
  std::atomic<uint32_t> scanStart_{0};
  std::atomic<uint64_t> spinsSatisfied_{0};
  std::atomic<uint64_t> futexWaits_{0};
};

}  // namespace candor
