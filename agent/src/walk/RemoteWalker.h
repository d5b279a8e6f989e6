// walk=remote: the sampled thread's handler hands its interrupted context to a walker thread and
// waits while that thread walks its stack (RemoteWalkChannel). The walker writes the result into
// the sample ring itself, as one more producer. What it costs and buys: two futex calls and a
// context switch or two per sample, against a walk that cannot fault on the application's
// thread and may take as long as a deep stack needs.
#pragma once
#include <jni.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/SampleRing.h"
#include "store/SampleAccounting.h"
#include "walk/DeepStackHints.h"
#include "walk/RemoteWalkChannel.h"

namespace candor {

class RemoteWalker {
 public:
  // Walks the (stopped) thread whose JNIEnv is `env`, interrupted with `ucontext`; returns the
  // frame count or an AGCT-style code. Runs on the walker thread, inside its own crash guard.
  using WalkFn = int32_t (*)(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max);
  static constexpr int64_t kHandlerTimeoutNs = 10'000'000;  // the longest a sampled thread waits

  RemoteWalker(SampleRing& ring, HandlerCounters& counters, WalkFn walk)
      : ring_(ring), counters_(counters), walk_(walk) {}
  ~RemoteWalker() { stop(); }

  void start();
  // Call after SignalHandler::deactivate(): no handler may be waiting any more.
  void stop();

  // Signal-handler path: counts `weight` ticks and gets them walked, or records why not
  // (remote_busy: every request slot taken; remote_timeout: no walker within the timeout).
  // `timeNs`: when the tick was taken; `latencyNs`: its sampling latency (-1: unknown).
  // `unsampledKernel` more ticks (KernelTime::kEstimated) go on top of the walked Java stack.
  void takeSample_signalSafe(void* ucontext, JNIEnv* env, int32_t tid, SampleKind kind, ThreadState state,
                             int64_t latencyNs, uint64_t timeNs, uint32_t weight = 1, uint64_t unsampledKernel = 0);

  uint64_t walks() const { return lp(walks_); }
  uint64_t spinsSatisfied() const { return channel_.spinsSatisfied(); }
  uint64_t futexWaits() const { return channel_.futexWaits(); }

 private:
  void run();

  SampleRing& ring_;
  HandlerCounters& counters_;
  WalkFn walk_;
  RemoteWalkChannel channel_;
  std::thread thread_;
  std::atomic<uint64_t> walks_{0};
  DeepStackHints hints_;  // written by the walker thread only
};

}  // namespace candor
