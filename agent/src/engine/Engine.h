// A sampling engine makes the kernel deliver a signal to a thread after every `interval` of that
// thread's CPU time. Engines differ in how: perf events, POSIX CPU timers, or setitimer.
#pragma once
#include <signal.h>
#include <time.h>

#include <string>

#include "base/Options.h"

namespace candor {

// The per-thread timer an engine armed: a perf fd or a POSIX timer.
struct ThreadTimer {
  int fd = -1;
  timer_t timer = nullptr;
  void* ring = nullptr;  // perf: the sample-time ring, if mapped
  bool armed = false;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  virtual int signal() const = 0;
  // Whether timers are armed thread by thread (false: one process-wide timer).
  virtual bool perThread() const = 0;

  // Process-wide setup; on failure `why` says what went wrong in one line.
  virtual bool start(const Options& options, std::string* why) = 0;
  virtual void stop() = 0;
  virtual bool armThread(int tid, ThreadTimer* timer, std::string* why) = 0;
  virtual void disarmThread(ThreadTimer* timer) = 0;

  // Signal-handler path, only when jitter is on: choose the next interval at random.
  virtual void rearm_signalSafe(const siginfo_t* info) = 0;
  // Signal-handler path, jitter off: the thread's CPU time between the timer's expiry and now
  // (the engine's sampling latency), or -1 if it cannot tell. Costs a system call.
  virtual int64_t latency_signalSafe(const siginfo_t* info) = 0;
  // Whether latency_signalSafe can ever answer; if not, the handler does not ask.
  virtual bool measuresLatency() const { return true; }
};

// Picks a jittered interval; async-signal-safe (a lock-free splitmix64 over an atomic counter).
long long jitteredInterval_signalSafe(long long intervalNs, int jitterPct);

}  // namespace candor
