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
#include "walk/UserStack.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

namespace {
uint32_t clampWeight(uint64_t w) { return w > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(w); }
}  // namespace

void SignalWalker::takeSample_signalSafe(void* ucontext, SampleKind kind, ThreadState state, int64_t latencyNs,
                                         uint64_t intendedNs) {
  uint64_t now = monotonicNs();  // vDSO, no syscall
  auto tid = static_cast<int32_t>(syscall(SYS_gettid));
  Tick t{tid, kind, state, now, intendedNs != 0 ? static_cast<int64_t>(now - intendedNs) : latencyNs};
  if (kind == SampleKind::kCpu && throttle_.skip_signalSafe(tid, now)) {
    recordCode_signalSafe(kWalkThrottledCode, t);
    return;
  }
  walk_signalSafe(ucontext, Jvm::currentEnv_signalSafe(tid), t, 0);
}

void SignalWalker::takeCpuTicks_signalSafe(void* ucontext, int32_t tid, const CpuTickBatch& batch, Engine& engine) {
  if (batch.cpuTimer) {
    takeKernelAtSyscall_signalSafe(ucontext, tid, batch, engine);
    return;
  }
  uint64_t ticks = batch.ticks();
  if (ticks == 0) return;  // an earlier handler of this thread read this signal's ticks
  if (ticks > 1) addPlain(counters_.merged, ticks - 1);
  if (batch.unsampledKernel > 0) addPlain(counters_.estimated, batch.unsampledKernel);
  uint64_t now = monotonicNs();
  Tick t{tid, SampleKind::kCpu, ThreadState::kRunning, now, batch.latencyNs};
  int newest = batch.fromRing ? batch.records - 1 : -1;
  if (newest >= 0) {  // the newest record gets the walk; older ones their own slots
    // Records without kernel frames have the same stack as a newest one without: they go in its
    // weight. So a walk slower than the interval (a deep stack) is not copied once per merged tick.
    if (batch.record[newest].ipCount == 0) {
      for (int i = 0; i < newest; i++) t.folded += batch.record[i].ipCount == 0 ? 1 : 0;
    }
    t.weight = clampWeight(1 + batch.unrecorded + static_cast<uint64_t>(t.folded));
    t.batch = &batch;
    t.record = newest;
    t.engine = &engine;
  } else {
    t.weight = clampWeight(ticks);
  }
  if (throttle_.skip_signalSafe(tid, now)) {
    t.weight = clampWeight(ticks + batch.unsampledKernel);
    recordCode_signalSafe(kWalkThrottledCode, t);
    return;
  }
  walk_signalSafe(ucontext, Jvm::currentEnv_signalSafe(tid), t, batch.unsampledKernel);
}

void SignalWalker::takeKernelAtSyscall_signalSafe(void* ucontext, int32_t tid, const CpuTickBatch& batch,
                                                  Engine& engine) {
  if (batch.settle) {
    // The thread pays what it still owes as it ends or the session stops. Where the thread is now
    // (an idle pool thread: its park) is not where that time went: put there, a 200-thread server's
    // last debts landed on idle stacks (ServerAccuracyTest, unprivileged: "other" 1.6-2.8 points
    // high). Its kernel debt goes where the consumer last found this thread: what blocking system
    // calls ran up at its last system-call site (kKernelDebtCode), what preemptions did on its last
    // recorded stack (kKernelWhereItRanCode); the last part of an interval, user or kernel time, is
    // stackless cpu_unsampled: the thread's CPU that no tick placed, with its weight.
    uint64_t now = monotonicNs();
    uint64_t stackless = batch.unsampledCpu + batch.unsampledKernel - batch.kernelDebt - batch.kernelWhereItRan;
    if (batch.kernelDebt > 0) {
      recordEstimatedCode_signalSafe(ring_, counters_, kKernelDebtCode, tid, now, clampWeight(batch.kernelDebt));
    }
    if (batch.kernelWhereItRan > 0) {
      recordEstimatedCode_signalSafe(ring_, counters_, kKernelWhereItRanCode, tid, now,
                                     clampWeight(batch.kernelWhereItRan));
    }
    if (stackless > 0) recordEstimatedCode_signalSafe(ring_, counters_, kCpuUnsampledCode, tid, now, clampWeight(stackless));
    return;
  }
  if (remote_ != nullptr || !stoppedAtSystemCall_signalSafe(ucontext)) return;  // in user code: none owed here
  uint64_t owed = engine.kernelTicksAtSyscall_signalSafe();
  if (owed == 0) return;
  addPlain(counters_.estimated, owed);
  uint64_t now = monotonicNs();
  Tick t{tid, SampleKind::kCpu, ThreadState::kRunning, now, -1};
  t.weight = clampWeight(owed);
  t.kernelSite = true;
  if (throttle_.skip_signalSafe(tid, now)) {
    recordCode_signalSafe(kWalkThrottledCode, t);
    return;
  }
  walk_signalSafe(ucontext, Jvm::currentEnv_signalSafe(tid), t, 0);
}

void SignalWalker::recordKernelOnTop_signalSafe(const SampleSlot* slot, uint64_t ticks, jint marker) {
  if (ticks == 0) return;
  recordOnTopOf_signalSafe(ring_, counters_, slot, firstJavaFrame(ring_.framesOf(slot), slot->numFrames),
                           clampWeight(ticks), [marker](ASGCT_CallFrame* top, int32_t) {
                             top[0] = {marker, nullptr};
                             return 1;
                           });
}

void SignalWalker::walk_signalSafe(void* ucontext, JNIEnv* env, const Tick& t, uint64_t unsampledKernel) {
  bool cpu = t.kind == SampleKind::kCpu;
  if (remote_ != nullptr) {  // it counts the ticks and gets them walked on its own thread
    uint64_t older = t.batch != nullptr ? static_cast<uint64_t>(t.record - t.folded) : 0;  // their kernel frames are not kept
    remote_->takeSample_signalSafe(ucontext, env, t.tid, t.kind, t.state, t.latencyNs, t.timeNs,
                                   clampWeight(t.weight + older), unsampledKernel);
    if (cpu) {
      uint64_t end = monotonicNs();
      throttle_.charge_signalSafe(t.tid, end, end - t.timeNs, WalkThrottle::Cost::kWait);
    }
    return;
  }
  bool timeCpu = cpu && throttle_.suspect_signalSafe(t.tid);
  uint64_t cpuStart = timeCpu ? clockNs(CLOCK_THREAD_CPUTIME_ID) : 0;
  SampleSlot* slot = claimForTick_signalSafe(ring_, counters_, t.kind, t.weight);
  int32_t kernelFrames = 0;
  if (slot != nullptr) {
    fillHeader_signalSafe(slot, t.tid, t.kind, t.state, t.timeNs, t.latencyNs);
    slot->site = t.kernelSite ? 1 : 0;
    slot->numFrames = fillFrames_signalSafe(ring_, slot, [&](ASGCT_CallFrame* frames, int32_t max) {
      kernelFrames = t.batch != nullptr
                         ? t.engine->kernelFrames_signalSafe(*t.batch, t.record, frames, std::min(max - 1, kMaxKernelFrames))
                         : 0;
      if (t.kernelSite) {  // a stack that failed to walk keeps what is known: kernel time
        frames[0] = {kKernelUnsampledBci, nullptr};
        int32_t n = walkUserStack_signalSafe(env, ucontext, frames + 1, max - 1, ownWalker_);
        return n > 0 ? 1 + n : 1;
      }
      int32_t n = walkUserStack_signalSafe(env, ucontext, frames + kernelFrames, max - kernelFrames, ownWalker_);
      return n > 0 ? kernelFrames + n : n;
    }, &hints_, t.tid);
    // The extra slots copy this one's frames: before it is published, while they are still ours.
    if (t.batch != nullptr) recordOlderTicks_signalSafe(slot, kernelFrames, t);
    // Of a debt (placed at system calls, owed too long), what blocking calls ran up goes to the
    // thread's last one, at the consumer (kKernelDebtBci); the rest stays on this stack.
    uint64_t toSite = t.batch != nullptr ? std::min(t.batch->kernelDebt, unsampledKernel) : 0;
    recordKernelOnTop_signalSafe(slot, unsampledKernel - toSite, kKernelUnsampledBci);
    recordKernelOnTop_signalSafe(slot, toSite, kKernelDebtBci);
  } else {  // the ring is full: the older and unsampled ticks go with this one
    uint64_t extra = (t.batch != nullptr ? static_cast<uint64_t>(t.record - t.folded) : 0) + unsampledKernel;
    addPlain(counters_.ticks[static_cast<int>(t.kind)], extra);
    addPlain(counters_.dropped[static_cast<int>(t.kind)], extra);
  }
  uint64_t end = monotonicNs();
  if (slot != nullptr) {
    slot->handlerNs = static_cast<uint32_t>(std::min<uint64_t>(end - t.timeNs, UINT32_MAX));
    ring_.publish_signalSafe(slot);
  }
  if (cpu) {
    if (timeCpu) throttle_.charge_signalSafe(t.tid, end, clockNs(CLOCK_THREAD_CPUTIME_ID) - cpuStart, WalkThrottle::Cost::kCpuTime);
    else throttle_.charge_signalSafe(t.tid, end, end - t.timeNs, WalkThrottle::Cost::kClock);
  }
}

void SignalWalker::recordOlderTicks_signalSafe(const SampleSlot* main, int32_t kernelFramesOfMain, const Tick& t) {
  uint32_t userOnly = 0;
  for (int i = 0; i < t.record; i++) {
    if (t.batch->record[i].ipCount == 0) {
      userOnly += t.folded > 0 ? 0 : 1;
      continue;
    }
    recordOnTopOf_signalSafe(ring_, counters_, main, kernelFramesOfMain, 1, [&](ASGCT_CallFrame* top, int32_t max) {
      return t.engine->kernelFrames_signalSafe(*t.batch, i, top, std::min(max, kMaxKernelFrames));
    });
  }
  if (userOnly > 0) {
    recordOnTopOf_signalSafe(ring_, counters_, main, kernelFramesOfMain, userOnly,
                             [](ASGCT_CallFrame*, int32_t) { return 0; });
  }
}

void SignalWalker::recordCode_signalSafe(int32_t code, const Tick& t) {
  addPlain(counters_.ticks[static_cast<int>(t.kind)], uint64_t{t.weight});
  recordCodeInRing_signalSafe(ring_, counters_, code, t.tid, t.kind, t.state, t.timeNs, t.latencyNs, t.weight);
}

}  // namespace candor
