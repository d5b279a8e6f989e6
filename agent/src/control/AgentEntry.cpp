// JVMTI entry points: Agent_OnLoad (-agentpath at launch) and Agent_OnAttach (loaded into a
// running JVM; a second attach of the same library reaches this copy again, which is how
// stop/dump/status talk to an agent already loaded). A bad option never stops the JVM.
#include <jvmti.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "control/Log.h"
#include "control/Options.h"
#include "control/Profiler.h"
#include "jvm/Jvm.h"
#include "jvm/MethodPreloader.h"
#include "output/OutputFile.h"

using namespace candor;

namespace {

Options gStartAtInit;
bool gStartAtInitWanted = false;
bool gInitialized = false;

void JNICALL onVMInit(jvmtiEnv* jvmti, JNIEnv*, jthread) {
  MethodPreloader::preloadLoadedClasses(jvmti);
  if (!gStartAtInitWanted) return;
  std::string why;
  if (!Profiler::instance().start(gStartAtInit, &why)) logError("cannot start profiling: %s", why.c_str());
}

void JNICALL onVMDeath(jvmtiEnv*, JNIEnv*) { Profiler::instance().onVMDeath(); }

void JNICALL onThreadStart(jvmtiEnv* jvmti, JNIEnv* env, jthread thread) {
  Profiler::instance().onThreadStart(jvmti, env, thread);
}

void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv*, jthread) { Profiler::instance().onThreadEnd(); }

// AGCT refuses to walk unless ClassLoad events are enabled; the callback itself has nothing to do.
void JNICALL onClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL onClassPrepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) {
  MethodPreloader::onClassPrepare(jvmti, klass);
}

// Enabled only so that HotSpot records debug info at non-safepoint pcs (DebugNonSafepoints).
void JNICALL onCompiledMethodLoad(jvmtiEnv*, jmethodID, jint, const void*, jint, const jvmtiAddrLocationMap*,
                                  const void*) {}

bool initJvmti(JavaVM* vm) {
  if (gInitialized) return true;
  if (!Jvm::init(vm)) return false;
  jvmtiEnv* jvmti = Jvm::jvmti();
  jvmtiEventCallbacks callbacks = {};
  callbacks.VMInit = onVMInit;
  callbacks.VMDeath = onVMDeath;
  callbacks.ThreadStart = onThreadStart;
  callbacks.ThreadEnd = onThreadEnd;
  callbacks.ClassLoad = onClassLoad;
  callbacks.ClassPrepare = onClassPrepare;
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  jvmti->SetEventCallbacks(&callbacks, sizeof callbacks);
  const jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT,      JVMTI_EVENT_VM_DEATH,      JVMTI_EVENT_THREAD_START,
                               JVMTI_EVENT_THREAD_END,   JVMTI_EVENT_CLASS_LOAD,    JVMTI_EVENT_CLASS_PREPARE,
                               JVMTI_EVENT_COMPILED_METHOD_LOAD};
  for (jvmtiEvent e : events) jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr);
  gInitialized = true;
  return true;
}

// An attaching tool cannot read the target's stderr: with reply=FILE the agent also writes its
// one-line answer there ("ok ...", "error: ...", or the status line).
void reply(const Options& options, const std::string& line) {
  if (options.replyFile.empty()) return;
  std::string why;
  writeOutputFile(options.replyFile, line + "\n", &why);
}

// Runs a command on an agent that is already initialized and live; returns 0 or a JNI error.
jint runCommand(const Options& options) {
  Profiler& profiler = Profiler::instance();
  std::string why;
  bool ok = true;
  switch (options.command) {
    case Command::kHelp:
      fputs(optionsHelp().c_str(), stdout);
      fflush(stdout);
      reply(options, "ok help");
      return JNI_OK;
    case Command::kNone:  // attaching with only settings means: start with them
    case Command::kStart: ok = profiler.start(options, &why); break;
    case Command::kStop: ok = profiler.stop(&why); break;
    case Command::kDump: ok = profiler.dump(options.files, &why); break;
    case Command::kStatus: {
      std::string status = profiler.status();
      if (options.replyFile.empty()) logError("%s", status.c_str());
      reply(options, status);
      return JNI_OK;
    }
  }
  if (!ok) logError("%s", why.c_str());
  reply(options, ok ? "ok" : "error: " + why);
  return ok ? JNI_OK : JNI_ERR;
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* optionString, void*) {
  ParseResult parsed = parseOptions(optionString);
  if (!parsed.ok) {
    logError("%s; the JVM runs on without profiling", parsed.error.c_str());
    return JNI_OK;  // never stop the JVM for a bad option
  }
  setLogQuiet(parsed.options.quiet);
  if (parsed.options.command == Command::kHelp) {
    fputs(optionsHelp().c_str(), stdout);
    fflush(stdout);
    return JNI_OK;
  }
  if (parsed.options.command == Command::kStop || parsed.options.command == Command::kDump ||
      parsed.options.command == Command::kStatus) {
    logError("'%s' needs a running profiler; at launch use 'start'", optionString);
    return JNI_OK;
  }
  if (!initJvmti(vm)) return JNI_OK;
  gStartAtInit = parsed.options;
  gStartAtInitWanted = parsed.options.command == Command::kStart;
  return JNI_OK;
}

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* optionString, void*) {
  ParseResult parsed = parseOptions(optionString);
  if (!parsed.ok) {
    logError("%s", parsed.error.c_str());
    reply(parsed.options, "error: " + parsed.error);  // reply= may have been parsed before the bad option
    return JNI_ERR;  // the attaching tool learns that the options were rejected
  }
  setLogQuiet(parsed.options.quiet);
  if (parsed.options.command == Command::kHelp) return runCommand(parsed.options);
  if (!gInitialized) {
    if (!initJvmti(vm)) return JNI_ERR;
    MethodPreloader::preloadLoadedClasses(Jvm::jvmti());  // VMInit is long past
  }
  return runCommand(parsed.options);
}

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}
