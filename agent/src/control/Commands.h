// What every entry point shares: setting up JVMTI once per process, and running one command
// (start, stop, dump, status, help) on the agent. The JVMTI entry points (AgentEntry.cpp) and the
// Java API's JNI entry (JavaApi.cpp) reach the same copy of this state, so a JVM has one profiler
// however the agent got in: -agentpath, attach, or System.load from candor-api.
#pragma once
#include <jni.h>

#include <string>

#include "control/OptionParser.h"

namespace candor {

// Acquires JVMTI, installs the event callbacks and enables the events; only the first call does
// anything, later ones return its result. Thread-safe. `live`: the JVM is past VMInit (attach,
// JNI), so the classes loaded so far get their jmethodIDs now instead of at VMInit.
bool initJvmti(JavaVM* vm, bool live);

// Agent_OnLoad: start profiling with these options when the VM is initialized.
void startAtVMInit(const Options& options);

struct CommandResult {
  bool ok = false;
  std::string answer;  // one line: "ok", "ok help", "error: <why>", "idle" or "running ..."
};

// Runs options.command on an initialized agent in a live JVM (no command means start). Logs
// nothing itself: each entry point decides where the answer goes (stderr, reply file, Java).
CommandResult runCommand(const Options& options);

// Whether these options start a session (start, or settings only), whose settings such as
// `quiet` then apply until the next start.
inline bool startsSession(const Options& options) {
  return options.command == Command::kStart || options.command == Command::kNone;
}

// With reply=FILE (attaching tools cannot read the target's stderr): writes the answer there.
void reply(const Options& options, const std::string& line);

}  // namespace candor
