// `cpu`: a perf_events software CPU clock per thread. The kernel signals the owning thread on
// every counter overflow (F_SETOWN_EX + F_SETSIG + O_ASYNC), so no re-arm is needed, and
// intervals below the 4 ms kernel tick are honoured (hrtimer-driven).
//
// Sampling latency: the counter tells no expiry time (the hrtimer behind the CPU clock restarts
// from when it fired, so count % period drifts). With jitter off every thread's event also gets
// a one-page sample ring holding only PERF_SAMPLE_TIME in CLOCK_MONOTONIC, written by the kernel
// at the overflow; the handler reads the newest record without a system call (PerfTimeRing).
#pragma once
#include "engine/Engine.h"

namespace candor {

class PerfEngine : public Engine {
 public:
  explicit PerfEngine(int signal) : Engine(signal) {}
  EngineKind kind() const override { return EngineKind::kCpu; }
  bool armThread(int tid, ThreadTimer* timer, std::string* why) override;
  void disarmThread(ThreadTimer* timer) override;
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;
  bool measuresLatency() const override { return withTimeRing_; }

  // Whether this machine lets us open a perf CPU clock for our own thread; `why` if not.
  static bool available(std::string* why);

 protected:
  bool startEngine(const Options& options, std::string* why) override;

 private:
  bool withTimeRing_ = false;
};

}  // namespace candor
