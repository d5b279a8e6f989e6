// `ctimer`: a POSIX timer on each thread's CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID)),
// signalling that thread. Limited by the kernel tick: at most HZ signals per CPU-second. Under
// the tick a signal stands for every interval that expired since the last one: the kernel counts
// the ones it could not signal (si_overrun), and the ticks count 1 + that, so they still sum to
// the thread's CPU over the interval (2 s of CPU at 1 ms here: 500 signals, 1,997 ticks). A signal
// weighs not its own count but its thread's average (engine/SmoothedWeight.h): a count that
// follows the stack it lands on would put short bursts' CPU on long ones. Jittered, each expiry
// re-arms a one-shot timer, which has no overrun: a tick per signal.
#pragma once
#include "engine/Engine.h"

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

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  uint64_t session_ = 0;  // tells this session's per-thread histories from an earlier one's
};

// The CPU clock of any thread of this process (Linux encodes the tid in the clock id).
clockid_t threadCpuClock(int tid);

}  // namespace candor
