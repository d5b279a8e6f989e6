// JVMTI entry points: Agent_OnLoad (-agentpath at launch) and Agent_OnAttach (loaded into a
// running JVM; a second attach of the same library reaches this copy again, which is how
// stop/dump/status talk to an agent already loaded). A bad option never stops the JVM.
// The shared set-up and the commands are in Commands.cpp (also used by the Java API, JavaApi.cpp).
#include <jvmti.h>

#include <cstdio>
#include <string>

#include "base/Log.h"
#include "base/Version.h"
#include "control/Commands.h"
#include "control/OptionParser.h"

using namespace candor;

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* optionString, void*) {
  ParseResult parsed = parseOptions(optionString);
  if (!parsed.ok) {
    logError("%s; the JVM runs on without profiling", parsed.error.c_str());
    return JNI_OK;  // never stop the JVM for a bad option
  }
  setLogQuiet(parsed.options.quiet);
  if (parsed.options.command == Command::kHelp || parsed.options.command == Command::kVersion) {
    fputs(parsed.options.command == Command::kHelp ? optionsHelp().c_str() : (versionLine() + "\n").c_str(), stdout);
    fflush(stdout);
    return JNI_OK;
  }
  if (parsed.options.command == Command::kStop || parsed.options.command == Command::kDump ||
      parsed.options.command == Command::kStatus) {
    logError("'%s' needs a running profiler; at launch use 'start'", optionString);
    return JNI_OK;
  }
  if (!initJvmti(vm, false)) return JNI_OK;
  startAtVMInit(parsed.options);
  return JNI_OK;
}

// An attaching tool cannot read the target's stderr: with reply=FILE the agent also writes its
// one-line answer there, and JNI_ERR makes loadAgentPath throw AgentInitializationException.
extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* optionString, void*) {
  ParseResult parsed = parseOptions(optionString);
  if (!parsed.ok) {
    logError("%s", parsed.error.c_str());
    reply(parsed.options, "error: " + parsed.error);  // reply= may have been parsed before the bad option
    return JNI_ERR;  // the attaching tool learns that the options were rejected
  }
  // quiet belongs to the session: a later stop/dump/status without it must not undo it
  if (startsSession(parsed.options)) setLogQuiet(parsed.options.quiet);
  bool needsJvmti = parsed.options.command != Command::kHelp && parsed.options.command != Command::kVersion;
  if (needsJvmti && !initJvmti(vm, true)) {
    reply(parsed.options, "error: the agent cannot initialize JVMTI in this JVM (see its stderr)");
    return JNI_ERR;
  }
  CommandResult result = runCommand(parsed.options);
  if (!result.ok) logError("%s", result.answer.substr(result.answer.rfind("error: ", 0) == 0 ? 7 : 0).c_str());
  else if (parsed.options.command == Command::kStatus && parsed.options.replyFile.empty()) {
    logError("%s", result.answer.c_str());  // nowhere else to show it
  }
  reply(parsed.options, result.answer);
  return result.ok ? JNI_OK : JNI_ERR;
}

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}
