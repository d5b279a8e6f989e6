// `itimer`: the classic process-wide setitimer(ITIMER_PROF). SIGPROF goes to whichever thread
// is running when the process's CPU timer expires, and the kernel checks that timer only at its
// tick (check_cpu_itimer, at most one signal per CPU per tick), moving the expiry by one interval
// per signal: under the tick, signals come at the tick's rate and the timer falls ever further
// behind, so after a busy spell it fires at every check, even one that stands for less than an
// interval. Pending signals merge too. So each signal claims the whole intervals of the process's
// CPU (CLOCK_PROCESS_CPUTIME_ID, the clock ITIMER_PROF counts) completed since the last claim, and
// weighs not that count but the average of the signals before it plus an eighth of their debt
// (engine/SmoothedWeight.h: a count that follows the stack it lands on would put short bursts'
// CPU on long ones). A signal that claims none still joins that history; when signals come faster
// than intervals the history weighs some at 0, and those are no tick: which ones never depends on
// the stack. The ticks sum to the process's CPU over the interval (2 busy threads at 1 ms here:
// 500 signals, 2,000 ticks per second), while the stacks stay at the tick's resolution. Signals
// that others send (kill) are a tick each.
#pragma once
#include <atomic>
#include <cstdint>

#include "engine/Engine.h"
#include "engine/SmoothedWeight.h"

namespace candor {

class ITimerEngine : public Engine {
 public:
  ITimerEngine() : Engine(SIGPROF) {}
  EngineKind kind() const override { return EngineKind::kItimer; }
  bool perThread() const override { return false; }
  void stop() override;
  bool armThread(int, ThreadTimer*, std::string*) override { return true; }
  void disarmThread(ThreadTimer*) override {}
  void readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) override;
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;

  // Handler path: moves `claimed` up to `due` intervals and returns how many this call moved it by
  // (0 when other signals already stand for them all). Callers racing on `claimed` each get a
  // disjoint share, which together make up the largest `due` any of them saw.
  static uint64_t claimIntervals_signalSafe(std::atomic<uint64_t>& claimed, uint64_t due);

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  // Handler path: the intervals of process CPU completed since the last signal's, claimed for this one.
  uint64_t claimProcessIntervals_signalSafe();

  uint64_t startCpuNs_ = 0;  // written before the timer is armed, read by handlers
  // Intervals of process CPU since start that signals have claimed. Handlers on several CPUs race
  // for it with a relaxed CAS that only arbitrates: the one that moves it owns the intervals it
  // passed; nothing else is published through it.
  std::atomic<uint64_t> intervalsClaimed_{0};
  SmoothedWeight::Shared history_;  // the signals' intervals and weights so far
};

}  // namespace candor
