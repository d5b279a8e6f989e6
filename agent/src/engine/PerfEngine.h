// `cpu`: a perf_events software CPU clock per thread. The kernel signals the owning thread on
// every counter overflow (F_SETOWN_EX + F_SETSIG + O_ASYNC), so no re-arm is needed, and
// intervals below the 4 ms kernel tick are honoured (hrtimer-driven).
//
// Kernel time. Where perf allows it (root, CAP_PERFMON, perf_event_paranoid <= 1) the event
// counts kernel mode too: an overflow in a system call is recorded with the kernel's callchain
// and its signal arrives when the call returns, on the Java stack that made it. Where it does
// not, an event must exclude the kernel, and an overflow that fires in kernel mode is dropped
// (the period restarts): the handler reads the thread's CPU clock at every tick and counts the
// ticks that fit in the gap since the previous one but never came (KernelTime::kEstimated).
//
// Where that kernel time goes. The next tick finds the thread in user code again, often in other
// code than the system call that spent the time (on a server, the next request's). So each thread
// also gets a POSIX CPU-time timer on the same signal, at the same interval: it counts user and
// kernel time, and when it expires in the kernel its signal waits until the system call returns,
// on the stack that made it (what ctimer sees, at the 4 ms kernel tick). The handler records the
// thread's owed kernel ticks there, with [kernel_unsampled] on top of the C frames (libc's call),
// and only when the timer finds the thread just past (or, restarted, at) a `syscall` instruction;
// a timer signal in user code records nothing. A thread's timer stops in the kernel about as often
// as it spends time there, so where the owed ticks land follows where the kernel time was spent.
// Kernel time that no system call returns to (page faults) waits for the next one; a debt past
// kOwedAtTickIntervals intervals is paid at the next tick, so none grows unbounded, and lands on
// the thread's last system-call site (kKernelDebtBci: the consumer, SampleAccounting, knows it).
// Much of a debt is time the timer cannot find: a context switch runs with interrupts off, so no
// tick, and no expiry, is seen there. Paid where the tick was, it went to whatever code ran hot
// (ServerAccuracyTest unprivileged, on a guest whose switches cost much: regex 3-5 points high,
// its stacks 10-12% [kernel_unsampled] against 4-5% kernel time where the kernel is sampled).
// Placement needs cstack (the native modules, to check the instruction) and a walk in the handler
// (walk=vm or agct).
//
// Settling. A thread's debt is counted from its arming when it is armed on itself (ThreadStart),
// not from its first tick, which a thread shorter than an interval never gets. What a thread still
// owes when it ends or the session stops, a signal asks it to pay (settleThisThread, settleThreads:
// the debt is in its own thread-local mark): where the thread is then (an idle pool thread: its
// park) is not where the time went, so its kernel debt is split as above: to its last system-call
// site and its last recorded stack (kKernelWhereItRanCode), or, where the kernel is not placed at
// system calls, stackless cpu_unsampled ticks with the rest of its debt. Its last part of an interval is
// pooled with other threads' into whole ticks. This holds in every mode, kernel sampled or not: a
// per-thread perf timer overflows only after an interval of the thread's own CPU, so without it
// about half the CPU of threads that live for less than that went without a tick.
//
// Each thread's event gets a small sample ring (PerfTickRing) holding the time of every overflow
// and, with kernel sampling, the kernel callchain: the handler reads it without a system call,
// so it knows how many ticks a signal stands for (merged signals), how late it came (sampling
// latency), and the kernel frames.
#pragma once
#include <atomic>
#include <utility>

#include "engine/Engine.h"
#include "engine/SettleRequests.h"

namespace candor {

class PerfEngine : public Engine {
 public:
  explicit PerfEngine(int signal) : Engine(signal) {}
  EngineKind kind() const override { return EngineKind::kCpu; }
  KernelTime kernelTime() const override { return kernelSampled_ ? KernelTime::kSampled : KernelTime::kEstimated; }
  std::string kernelTimeReason() const override { return kernelReason_; }
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  void readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) override;
  int32_t kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max) override;
  void releaseTicks_signalSafe(const CpuTickBatch& batch) override;
  uint64_t kernelTicksAtSyscall_signalSafe() override;
  void settleThisThread(int tid) override;
  void settleThreads(const std::vector<int>& tids) override;

  static constexpr int64_t kOwedAtTickIntervals = 16;

  // Whether this machine lets us open a perf CPU clock for our own thread; `why` if not.
  static bool available(std::string* why);

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  // Ticks the kernel dropped in kernel mode since this thread's last tick (kEstimated only), to
  // be recorded now: all of them, or, placing at system calls, only a debt past the bound.
  uint64_t unsampledKernelTicks_signalSafe(uint64_t ticksNow, int64_t payAboveNs) const;
  // Of `owed` kernel ticks paid now, those that go to the thread's last system-call site (the
  // rest stay where the thread is): by its context switches since its last payment.
  uint64_t splitKernelDebt_signalSafe(uint64_t owed);
  // This thread's {voluntary, involuntary} context switches since its last payment; marks now.
  static std::pair<uint64_t, uint64_t> takeSwitches_signalSafe();

  bool kernelSampled_ = false;
  bool placeAtSyscalls_ = false;
  bool settles_ = false;  // threads settle their debt as they end and as the session stops
  std::string kernelReason_;
  uint32_t ringPages_ = 0;  // data pages of each thread's ring; 0: no ring
  uint64_t session_ = 0;    // tells this session's per-thread CPU marks from a previous one's

  void armCpuTimer(int tid, ThreadTimer* timer);
  // Signal-handler path, a settle request: the cpu_unsampled ticks of the thread's last part.
  uint64_t settleLastPart_signalSafe();

  SettleRequests settleRequests_;
};

}  // namespace candor
