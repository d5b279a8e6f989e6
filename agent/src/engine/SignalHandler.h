// Owns the process's handler for the sampling signal and the handshake that makes stopping
// safe: a handler announces itself in `inflight` before it looks at `running`, and stop()
// clears `running` before it waits for `inflight` to reach zero (a Dekker-style pair of
// seq_cst operations), so no handler can touch the ring after stop() returns.
#pragma once
#include <atomic>
#include <string>

#include "engine/Engine.h"
#include "walk/AsgctWalker.h"

namespace candor {

class SignalHandler {
 public:
  // Installs candor's handler for `sig` unless another handler is there already (then false,
  // and `why` names the problem). Installing twice for the same signal is a no-op.
  static bool install(int sig, std::string* why);

  // Points the handler at the current session and lets it sample.
  static void activate(Engine* engine, AsgctWalker* walker, bool jitter);
  // Stops sampling and waits until no handler is still running; pending signals that arrive
  // later are ignored.
  static void deactivate();

 private:
  static void onSignal_signalSafe(int sig, siginfo_t* info, void* ucontext);
};

}  // namespace candor
