// `ctimer`: a POSIX timer on each thread's CPU clock (timer_create(CLOCK_THREAD_CPUTIME_ID)),
// signalling that thread. Limited by the kernel tick: at most HZ signals per CPU-second.
#pragma once
#include "engine/Engine.h"

namespace candor {

class CTimerEngine : public Engine {
 public:
  explicit CTimerEngine(int signal) : signal_(signal) {}
  EngineKind kind() const override { return EngineKind::kCtimer; }
  int signal() const override { return signal_; }
  bool perThread() const override { return true; }
  bool start(const Options& options, std::string* why) override;
  void stop() override {}
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;

 private:
  int signal_;
  long long intervalNs_ = 0;
  int jitterPct_ = 0;
};

// The CPU clock of any thread of this process (Linux encodes the tid in the clock id).
clockid_t threadCpuClock(int tid);

}  // namespace candor
