// The one way candor starts a thread of its own (writer, sampler, remote walker, ring reader, pusher),
// so every such thread runs the same prologue before its body:
//   - it is marked as an agent thread (Jvm::isAgentThread), so ThreadStart never registers it
//     for sampling;
//   - its OS name says what it is (`candor writer`, ... as top and /proc show it);
//   - candor's sampling signals are blocked on it: a process-wide timer (itimer) or a stray
//     signal must never run the handler on a thread that is itself draining or walking, and a
//     thread's mask is inherited by any thread it creates;
//   - optionally it is attached to the JVM as a daemon (JVMTI/JNI calls need it) and detached
//     when its body returns.
// Ordinary threads only.
#pragma once
#include <jni.h>
#include <signal.h>

#include <functional>
#include <thread>

namespace candor {

class AgentThread {
 public:
  // A sampling signal candor uses this session (SignalHandler::install calls it); blocked on
  // every agent thread started from now on. SIGPROF and SIGVTALRM are always blocked.
  static void addSamplingSignal(int sig);
  // The sampling signals so far (SIGPROF, SIGVTALRM and every one added).
  static void samplingSignals(sigset_t* out);

  // Starts `body` on a new thread after the prologue. `env` is null unless attachToJvm (and the
  // attach worked; a body that needs JNI must check).
  static std::thread start(const char* name, bool attachToJvm, std::function<void(JNIEnv* env)> body);
};

}  // namespace candor
