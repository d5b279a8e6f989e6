// `ctimer`: a POSIX timer on each thread's CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID)),
// signalling that thread. Limited by the kernel tick: at most HZ signals per CPU-second. Under
// the tick a signal stands for every interval that expired since the last one: the kernel counts
// the ones it could not signal (si_overrun), and the ticks count 1 + that, so they still sum to
// the thread's CPU over the interval (2 s of CPU at 1 ms here: 500 signals, 1,997 ticks). A signal
// weighs not its own count but its thread's average (engine/SmoothedWeight.h): a count that
// follows the stack it lands on would put short bursts' CPU on long ones.
//
// Under the tick the timers are armed at an eighth of the interval (probes). The kernel fires a
// thread's timer at a tick only if it has expired: armed at the interval, a tick in a burst shorter
// than the interval since the last signal found none (a thread alternating 0.2 ms and 8 ms bursts:
// 25.6-33.0% of its ticks in the short ones against 34% of its CPU, at 1 ms). A probe has expired at
// nearly every tick that finds the thread running, so the signals sample its CPU evenly, no more
// often than before (one per tick); each counts the probes since the last (1 + si_overrun), the
// intervals those complete join the history, and a signal the history weighs at 0 is no tick.
// Jittered, each expiry re-arms a one-shot timer (a probe's period, jittered, under the tick), which
// has no overrun: under the tick a signal stands for the whole intervals of the thread's CPU clock
// since the last it counted, and weighs by the same history. (Before 2026-12-03 jittered timers
// were armed at the interval, each signal one tick: at 1 ms a quarter of the CPU in stacks, the rest
// settled stackless.) Jitter cannot move a signal off the kernel's tick, only choose which ticks fire.
//
// Settling. The weights lag the thread's CPU by what its last signals have not yet weighed (a few
// intervals per thread: on a 200-thread server 9 of its ~70 ms each, the ticks 88.6% of the CPU),
// and a thread shorter than the tick may get no signal at all. As a thread ends or the session
// stops, a settle request (SettleRequests.h) has the thread's own handler charge its CPU since its
// timer started (its clock then, kept on the thread when it armed itself, or inferred from the
// first signal's count), less the intervals its ticks stood for, as stackless cpu_unsampled ticks:
// where that CPU went no signal saw; the last part of an interval is pooled with other threads'.
// A thread's weights scatter around its CPU (SmoothedWeight.h: its last signals' average is a few
// intervals off, either way); a deficit is settled, a surplus cannot be taken back, so the ticks of
// a 200-thread server ran 1.0-2.0% over its threads' CPU (per thread 1-5 intervals ahead on
// average, one 31 ahead). So a surplus is kept as a credit, in ns, that the next deficits draw on
// before they are charged (as percpu's settlement carries a balance across threads): the total
// follows the CPU, and what stays over is the credit left when no thread owed more after it.
#pragma once
#include <atomic>
#include <cstdint>

#include "engine/Engine.h"
#include "engine/SettleRequests.h"

namespace candor {

class CTimerEngine : public Engine {
 public:
  explicit CTimerEngine(int signal) : Engine(signal) {}
  EngineKind kind() const override { return EngineKind::kCtimer; }
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  void readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) override;
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;
  void settleThisThread(int tid) override;
  void settleThreads(const std::vector<int>& tids) override;

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  static constexpr uint64_t kProbesPerInterval = 8;
  // The kernel's tick: the coarse clocks' resolution.
  static long long kernelTickNs();
  // Signal-handler path, a settle request: the ticks the thread's CPU clock says it still owes.
  uint64_t owedTicks_signalSafe();
  // Signal-handler path: up to `owedNs` of the surplus credit, taken (a CAS loop: handlers of
  // settling threads race for it; nothing else is published through it).
  uint64_t takeCredit_signalSafe(uint64_t owedNs);
  // What a timer is armed at next: periodNs_, jittered.
  long long nextPeriodNs_signalSafe() const;

  uint64_t session_ = 0;  // tells this session's per-thread histories from an earlier one's
  // Set before any timer is armed, read by handlers.
  uint64_t probesPerInterval_ = 1;  // kProbesPerInterval under the tick, else 1
  long long periodNs_ = 0;          // what the timers are armed at: the interval / probesPerInterval_
  SettleRequests settleRequests_;
  std::atomic<uint64_t> creditNs_{0};  // settled threads' surpluses not yet drawn on (see above)
};

// The CPU clock of any thread of this process (Linux encodes the tid in the clock id).
clockid_t threadCpuClock(int tid);

}  // namespace candor
