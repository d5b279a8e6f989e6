// `itimer`: the classic process-wide setitimer(ITIMER_PROF). SIGPROF goes to whichever thread
// is running when the process's CPU timer expires; pending signals merge, so several busy
// threads lose ticks, and the rate stops at the kernel tick.
#pragma once
#include "engine/Engine.h"

namespace candor {

class ITimerEngine : public Engine {
 public:
  ITimerEngine() : Engine(SIGPROF) {}
  EngineKind kind() const override { return EngineKind::kItimer; }
  bool perThread() const override { return false; }
  void stop() override;
  bool armThread(int, ThreadTimer*, std::string*) override { return true; }
  void disarmThread(ThreadTimer*) override {}
  void rearm_signalSafe(const siginfo_t* info) override;
  int64_t latency_signalSafe(const siginfo_t* info) override;

 protected:
  bool startEngine(const Options& options, std::string* why) override;
};

}  // namespace candor
