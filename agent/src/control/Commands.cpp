#include "control/Commands.h"

#include <dlfcn.h>
#include <jvmti.h>

#include <cstdio>
#include <mutex>

#include "base/Log.h"
#include "base/Version.h"
#include "control/Profiler.h"
#include "engine/AllocSampler.h"
#include "engine/LockSampler.h"
#include "jvm/Jvm.h"
#include "jvm/MethodPreloader.h"
#include "output/OutputFile.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

namespace {

std::mutex gInitMutex;  // attach (Attach Listener thread) and the Java API may race to initialize
bool gInitialized = false;
Options gStartAtInit;
bool gStartAtInitWanted = false;

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

void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv* env, jthread) { Profiler::instance().onThreadEnd(env); }

// AGCT refuses to walk unless ClassLoad events are enabled; the callback itself has nothing to do.
void JNICALL onClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL onClassPrepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) {
  MethodPreloader::onClassPrepare(jvmti, klass);
}

// Enabled only so that HotSpot records debug info at non-safepoint pcs (DebugNonSafepoints).
void JNICALL onCompiledMethodLoad(jvmtiEnv*, jmethodID, jint, const void*, jint, const jvmtiAddrLocationMap*,
                                  const void*) {}

// Code that walk=vm may have cached decodes of is gone (its memory may hold another nmethod soon).
void JNICALL onCompiledMethodUnload(jvmtiEnv*, jmethodID, const void* codeAddr) {
  VmStackWalker::onCompiledMethodUnload(codeAddr);
}

// Enabled only by walk=vm: names and ranges of generated stubs for its stub frames.
void JNICALL onDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  VmStackWalker::onDynamicCode(name, address, length);
}

// Once JVMTI holds pointers to our callbacks the library must never be unmapped. HotSpot
// dlcloses an attached agent whose Agent_OnAttach returned JNI_ERR, which for the first attach
// (JVMTI set up, then the command failed) would leave JVMTI calling into freed code.
void pinLibrary() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&pinLibrary), &info) == 0 || info.dli_fname == nullptr) return;
  dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);  // marks the loaded copy NODELETE
}

}  // namespace

bool initJvmti(JavaVM* vm, bool live) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  if (gInitialized) return true;
  if (!Jvm::init(vm)) return false;
  pinLibrary();
  jvmtiEnv* jvmti = Jvm::jvmti();
  jvmtiEventCallbacks callbacks = {};
  callbacks.VMInit = onVMInit;
  callbacks.VMDeath = onVMDeath;
  callbacks.ThreadStart = onThreadStart;
  callbacks.ThreadEnd = onThreadEnd;
  callbacks.ClassLoad = onClassLoad;
  callbacks.ClassPrepare = onClassPrepare;
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  callbacks.CompiledMethodUnload = onCompiledMethodUnload;
  callbacks.DynamicCodeGenerated = onDynamicCodeGenerated;
  callbacks.SampledObjectAlloc = AllocSampler::onSample;  // enabled only while alloc= samples
  callbacks.MonitorContendedEnter = LockSampler::onContendedEnter;  // these two only while lock= records
  callbacks.MonitorContendedEntered = LockSampler::onContendedEntered;
  jvmti->SetEventCallbacks(&callbacks, sizeof callbacks);
  const jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT,      JVMTI_EVENT_VM_DEATH,      JVMTI_EVENT_THREAD_START,
                               JVMTI_EVENT_THREAD_END,   JVMTI_EVENT_CLASS_LOAD,    JVMTI_EVENT_CLASS_PREPARE,
                               JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD};
  for (jvmtiEvent e : events) jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr);
  if (live) MethodPreloader::preloadLoadedClasses(jvmti);  // VMInit is long past
  gInitialized = true;
  return true;
}

void startAtVMInit(const Options& options) {
  gStartAtInit = options;
  gStartAtInitWanted = options.command == Command::kStart;
}

void reply(const Options& options, const std::string& line) {
  if (options.replyFile.empty()) return;
  std::string why;
  if (!writeOutputFile(options.replyFile, line + "\n", &why)) {
    logError("cannot write the reply to %s: %s", options.replyFile.c_str(), why.c_str());
  }
}

CommandResult runCommand(const Options& options) {
  Profiler& profiler = Profiler::instance();
  std::string why;
  bool ok = true;
  switch (options.command) {
    case Command::kHelp:
      fputs(optionsHelp().c_str(), stdout);
      fflush(stdout);
      return {true, "ok help"};
    case Command::kVersion: return {true, versionLine()};
    case Command::kNone:  // attaching with only settings means: start with them
    case Command::kStart: ok = profiler.start(options, &why); break;
    case Command::kStop: ok = profiler.stop(&why); break;
    case Command::kDump: ok = profiler.dump(options.files, &why); break;
    case Command::kStatus: return {true, profiler.status()};
  }
  return {ok, ok ? "ok" : "error: " + why};
}

}  // namespace candor
