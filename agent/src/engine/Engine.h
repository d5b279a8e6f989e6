// A sampling engine makes the kernel deliver a signal to a thread after every `interval` of that
// thread's CPU time. Engines differ in how: perf events, POSIX CPU timers, or setitimer.
#pragma once
#include <signal.h>
#include <time.h>

#include <string>

#include "base/Options.h"

namespace candor {

// Picks a jittered interval; async-signal-safe (a lock-free splitmix64 over an atomic counter).
long long jitteredInterval_signalSafe(long long intervalNs, int jitterPct);

// The per-thread timer an engine armed: a perf fd or a POSIX timer.
struct ThreadTimer {
  int fd = -1;
  timer_t timer = nullptr;
  void* ring = nullptr;  // perf: the sample-time ring, if mapped
  bool armed = false;
};

class Engine {
 public:
  explicit Engine(int signal) : signal_(signal) {}
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // The signal it sends; 0 for an engine that sends none (walk=copy).
  int signal() const { return signal_; }
  // Whether timers are armed thread by thread (false: one process-wide timer).
  virtual bool perThread() const { return true; }

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

  // Signal-handler path, only when jitter is on: choose the next interval at random.
  virtual void rearm_signalSafe(const siginfo_t* info) = 0;
  // Signal-handler path, jitter off: the thread's CPU time between the timer's expiry and now
  // (the engine's sampling latency), or -1 if it cannot tell. Costs a system call.
  virtual int64_t latency_signalSafe(const siginfo_t* info) = 0;
  // Whether latency_signalSafe can ever answer; if not, the handler does not ask.
  virtual bool measuresLatency() const { return true; }

 protected:
  virtual bool startEngine(const Options& options, std::string* why) { return true; }
  // The interval until the next tick: the configured one, jittered when asked (signal-safe).
  long long nextIntervalNs_signalSafe() const { return jitteredInterval_signalSafe(intervalNs_, jitterPct_); }

  const int signal_;
  long long intervalNs_ = 0;
  int jitterPct_ = 0;
};

}  // namespace candor
