// `ctimer`: a POSIX timer on each thread's CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID)),
// signalling that thread. Limited by the kernel tick: at most HZ signals per CPU-second.
#pragma once
#include "engine/Engine.h"

namespace candor {

class CTimerEngine : public Engine {
 public:
  explicit CTimerEngine(int signal) : Engine(signal) {}
  EngineKind kind() const override { return EngineKind::kCtimer; }
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;
};

// The CPU clock of any thread of this process (Linux encodes the tid in the clock id).
clockid_t threadCpuClock(int tid);

}  // namespace candor
