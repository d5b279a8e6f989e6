// A sampling engine makes the kernel deliver a signal to a thread after every `interval` of that
// thread's CPU time. Engines differ in how: perf events, POSIX CPU timers, or setitimer; and in
// what they see of the CPU time a thread spends in the kernel (KernelTime).
#pragma once
#include <signal.h>
#include <time.h>

#include <string>
#include <vector>

#include "base/Options.h"
#include "base/Vocabulary.h"
#include "engine/CpuTickBatch.h"

namespace candor {

// Picks a jittered interval; async-signal-safe (a lock-free splitmix64 over an atomic counter).
long long jitteredInterval_signalSafe(long long intervalNs, int jitterPct);

// The per-thread timer an engine armed: a perf fd or a POSIX timer.
struct ThreadTimer {
  int fd = -1;
  timer_t timer = nullptr;
  void* ring = nullptr;  // perf: the sample ring, if mapped
  int tid = 0;           // percpu: the thread, which has neither fd nor ring
  uintptr_t javaThread = 0;  // walk=copy: the thread's JavaThread when the registry knows it (0: not)
  uint64_t cpuAtArmNs = 0;   // percpu: the thread's CPU clock as the registry arms it
  uint64_t cpuAtDisarmNs = 0;  // percpu: its clock as disarming settled it, after its last samples were read (0: not read)
  bool armed = false;
  bool cpuTimerArmed = false;  // perf, kernel estimated: `timer` places its kernel time (PerfEngine.h)
};

// How a session's CPU ticks cover time spent in the kernel.
enum class KernelTime {
  kSampled,    // ticks fire in the kernel too, with the kernel's callchain (perf, kernel allowed)
  kEstimated,  // perf drops ticks that fire in the kernel; they are counted from the CPU clock
  kAtSyscallExit,  // POSIX CPU timers: a tick in the kernel is taken when the system call returns
};
const char* kernelTimeName(KernelTime k);

class Engine {
 public:
  explicit Engine(int signal) : signal_(signal) {}
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // The signal it sends; 0 for an engine that sends none (walk=copy).
  int signal() const { return signal_; }
  // Whether timers are armed thread by thread (false: one process-wide timer).
  virtual bool perThread() const { return true; }
  virtual KernelTime kernelTime() const { return KernelTime::kAtSyscallExit; }
  // Why the engine covers kernel time the way it does, for the one log line at start.
  virtual std::string kernelTimeReason() const { return "its timer counts user and system CPU time"; }

  // Process-wide setup: keeps the interval and jitter, then the engine's own setup; on failure
  // `why` says what went wrong in one line.
  bool start(const Options& options, std::string* why) {
    intervalNs_ = options.intervalNs;
    jitterPct_ = options.jitterPct;
    return startEngine(options, why);
  }
  virtual void stop() {}
  virtual bool armThread(int tid, ThreadTimer* timer, std::string* why) = 0;
  virtual void disarmThread(ThreadTimer* timer) = 0;

  // Signal-handler path, on the signalled thread `tid`: what the signal stands for (CpuTickBatch).
  // The default: one tick, its latency measured on one tick in eight (a system call), the next
  // interval re-armed when jitter is on.
  virtual void readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch);
  // Signal-handler path: the kernel frames of record `i` of `batch`, innermost first.
  virtual int32_t kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max) {
    return 0;
  }
  // Signal-handler path: after the handler has recorded `batch`.
  virtual void releaseTicks_signalSafe(const CpuTickBatch& batch) {}
  // Signal-handler path, a `cpuTimer` batch that found the thread returning from a system call:
  // the thread's kernel ticks not yet recorded, to be recorded here (and counted as recorded).
  virtual uint64_t kernelTicksAtSyscall_signalSafe() { return 0; }

  // Ordinary threads: what only a thread's own handler can reach (its debt of kernel ticks) is
  // recorded before its timer goes: on the ending thread itself, or for every thread at stop
  // (before the handlers are deactivated; waits briefly for them).
  virtual void settleThisThread(int tid) {}
  virtual void settleThreads(const std::vector<int>& tids) {}

 protected:
  virtual bool startEngine(const Options& options, std::string* why) { return true; }
  // Signal-handler path, jitter on: choose the next interval at random.
  virtual void rearm_signalSafe(const siginfo_t* info) {}
  // Signal-handler path: the thread's CPU time between the timer's expiry and now (the engine's
  // sampling latency), or -1 if it cannot tell. Costs a system call.
  virtual int64_t latency_signalSafe(const siginfo_t* info) { return -1; }
  // The interval until the next tick: the configured one, jittered when asked (signal-safe).
  long long nextIntervalNs_signalSafe() const { return jitteredInterval_signalSafe(intervalNs_, jitterPct_); }

  const int signal_;
  long long intervalNs_ = 0;
  int jitterPct_ = 0;
};

}  // namespace candor
