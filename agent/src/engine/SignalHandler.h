// Owns the process's handlers for the sampling signals and the handshake that makes stopping
// safe: a handler announces itself in `inflight` before it looks at `running`, and stop()
// clears `running` before it waits for `inflight` to reach zero (a Dekker-style pair of
// seq_cst operations), so no handler can touch the ring after stop() returns.
//
// Two signals may be live at once: the CPU engine's (cpu, ctimer, itimer) and the wall
// sampler's, which carries a WallTargets index as its sigqueue value.
#pragma once
#include <signal.h>

#include <atomic>
#include <string>

#include "engine/Engine.h"
#include "engine/SampleSinks.h"

namespace candor {

class SignalHandler {
 public:
  // Installs candor's handler for `sig` unless another handler is there already (then false,
  // and `why` names the problem; also when another one took the place of candor's since a
  // previous session). Installing twice for the same signal is a no-op.
  static bool install(int sig, std::string* why);

  // Points the handlers at the current session and lets them sample. `cpuEngine` may be null
  // (no CPU engine), `wallSignal` 0 (no wall sampler).
  static void activate(Engine* cpuEngine, int wallSignal, SignalSampleSink* sink);
  // Stops sampling and waits until no handler is still running; pending signals that arrive
  // later are ignored.
  static void deactivate();
  // A signal candor installed whose handler is no longer candor's, or 0: another profiler or
  // library loaded later took it over (install() refuses only a handler that was there first),
  // and that signal's ticks no longer reach candor. One sigaction query per installed signal;
  // for the writer thread, not the handler path.
  static int replacedSignal();
  // Whether `sig`, which candor installed, now has another handler (as replacedSignal()).
  static bool isReplaced(int sig);

 private:
  static void onSignal_signalSafe(int sig, siginfo_t* info, void* ucontext);
  static bool isOurs(const struct sigaction& action);
};

}  // namespace candor
