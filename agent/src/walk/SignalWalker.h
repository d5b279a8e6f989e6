// Capturing the stack of the thread a signal interrupted, inside its signal handler: with
// AsyncGetCallTrace (walk=agct), candor's own walker (walk=vm), or by handing the tick to the walker
// thread (walk=remote). Every outcome goes into the sample ring with its ticks counted once.
//
// A CPU signal may stand for several ticks (CpuTickBatch): the newest gets the walk, with its
// kernel frames on top when the kernel was sampled; each older one gets its own slot with its own
// kernel frames and a copy of the same user stack (the thread has not returned to user space in
// between: the signal was pending all along); ticks without a record add to the newest slot's
// weight. Kernel ticks perf would not sample (KernelTime::kEstimated) get one slot more: the
// [kernel_unsampled] marker on top of the Java part of the walked stack; those the engine places
// at system calls (a `cpuTimer` batch that stopped the thread at one) get the marker on top of the
// whole walked stack, the C frames of the call included, in a slot of their own.
#pragma once
#include "concurrent/SampleRing.h"
#include "engine/Engine.h"
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
  void takeCpuTicks_signalSafe(void* ucontext, int32_t tid, const CpuTickBatch& batch, Engine& engine) override;

  // CPU ticks of a thread whose walks take longer than `budgetNs` (walk=remote: whose waits
  // for the walker take longer than `waitBudgetNs`) are throttled (WalkThrottle.h).
  void throttleWalksAbove(uint64_t budgetNs, uint64_t waitBudgetNs) { throttle_.setBudgetNs(budgetNs, waitBudgetNs); }

 private:
  // One tick to walk: who, when, how many ticks it stands for, and what the kernel saw.
  struct Tick {
    int32_t tid;
    SampleKind kind;
    ThreadState state;
    uint64_t timeNs;
    int64_t latencyNs;
    uint32_t weight = 1;
    const CpuTickBatch* batch = nullptr;  // kernel frames of record `record` go on top
    int record = -1;
    int folded = 0;  // older records without kernel frames, counted in `weight` (see takeCpuTicks)
    Engine* engine = nullptr;
    bool kernelSite = false;  // owed kernel ticks at a system call: [kernel_unsampled] on top
  };
  // A `cpuTimer` batch: the thread's owed kernel ticks, if it stopped at a system call; a settle
  // request: its whole debt, stackless.
  void takeKernelAtSyscall_signalSafe(void* ucontext, int32_t tid, const CpuTickBatch& batch, Engine& engine);
  // Walks on this thread (or hands to the remote walker), charging the walk to the throttle for
  // CPU ticks; returns the slot it published or nullptr (dropped, remote, or a failure).
  void walk_signalSafe(void* ucontext, JNIEnv* env, const Tick& t, uint64_t unsampledKernel);
  // `ticks` of kernel time on top of the Java part of `slot`'s stack, under `marker`.
  void recordKernelOnTop_signalSafe(const SampleSlot* slot, uint64_t ticks, jint marker);
  // The older records of a batch not folded into `main`: their kernel frames over a copy of
  // `main`'s user frames; those without kernel frames share one copy.
  void recordOlderTicks_signalSafe(const SampleSlot* main, int32_t kernelFramesOfMain, const Tick& t);
  void recordCode_signalSafe(int32_t code, const Tick& t);

  SampleRing& ring_;
  HandlerCounters& counters_;
  bool ownWalker_ = false;
  RemoteWalker* remote_ = nullptr;
  WalkThrottle throttle_;
  DeepStackHints hints_;
};

}  // namespace candor
