#include "jvm/Jvm.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <cstdio>
#include <atomic>
#include <cstring>

#include "base/Log.h"
#include "base/Ordering.h"
#include "jvm/VmStructsTable.h"

namespace candor {

JavaVM* Jvm::vm_ = nullptr;
jvmtiEnv* Jvm::jvmti_ = nullptr;
AsyncGetCallTraceFn Jvm::asgct_ = nullptr;
ThreadBitmap Jvm::javaThreads_;

bool Jvm::init(JavaVM* vm) {
  if (jvmti_ != nullptr) return true;
  vm_ = vm;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti_), JVMTI_VERSION_1_2) != JNI_OK) {
    logError("cannot get a JVMTI environment; profiling is off");
    return false;
  }
  asgct_ = reinterpret_cast<AsyncGetCallTraceFn>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
  if (asgct_ == nullptr) {
    logError("this JVM does not export AsyncGetCallTrace (not HotSpot?); profiling is off");
    jvmti_ = nullptr;
    return false;
  }
  jvmtiCapabilities caps = {};
  caps.can_generate_all_class_hook_events = 1;
  caps.can_get_line_numbers = 1;
  caps.can_get_source_file_name = 1;
  // Enabling CompiledMethodLoad makes HotSpot record debug info at non-safepoint pcs
  // (the default of DebugNonSafepoints becomes true), which AGCT needs for exact attribution.
  caps.can_generate_compiled_method_load_events = 1;
  if (jvmti_->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
    logError("cannot get the JVMTI capabilities it needs; profiling is off");
    jvmti_ = nullptr;
    return false;
  }
  return true;
}

JNIEnv* Jvm::currentEnv_signalSafe(int tid) {
  if (!javaThreads_.contains_signalSafe(tid)) return nullptr;
  // On a registered Java thread HotSpot's thread-local is already set up: GetEnv only reads it.
  JNIEnv* env = nullptr;
  if (vm_ == nullptr || vm_->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return nullptr;
  return env;
}

JNIEnv* Jvm::currentEnv() {
  JNIEnv* env = nullptr;
  if (vm_ == nullptr || vm_->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK) return nullptr;
  return env;
}

namespace {
thread_local bool tAgentThread = false;  // ordinary TLS: never read from a signal handler
}
void Jvm::markAgentThread() { tAgentThread = true; }
bool Jvm::isAgentThread() { return tAgentThread; }

const Jvm::OsThreadOffsets& Jvm::osThreadOffsets() {
  static const OsThreadOffsets offsets = [] {
    const VmStructsTable& t = VmStructsTable::process();
    OsThreadOffsets o;
    o.osthread = t.fieldOffset("JavaThread", "_osthread");
    if (o.osthread < 0) o.osthread = t.fieldOffset("Thread", "_osthread");
    o.threadId = t.fieldOffset("OSThread", "_thread_id");
    return o;
  }();
  return offsets;
}

uintptr_t Jvm::javaThreadOf(JNIEnv* env, jthread thread) {
  // Looked up once: it is called at every thread start, and java.lang.Thread is never unloaded.
  // The id is the whole of what is shared (two threads may both look it up: the same value).
  static std::atomic<jfieldID> cached{nullptr};
  jfieldID eetop = lp(cached);
  if (eetop == nullptr) {
    jclass cls = env->FindClass("java/lang/Thread");
    if (cls == nullptr) {
      env->ExceptionClear();
      return 0;
    }
    eetop = env->GetFieldID(cls, "eetop", "J");
    env->DeleteLocalRef(cls);
    if (eetop == nullptr) {
      env->ExceptionClear();
      return 0;
    }
    sp(cached, eetop);
  }
  return static_cast<uintptr_t>(env->GetLongField(thread, eetop));
}

int Jvm::osThreadId(JNIEnv* env, jthread thread) {
  int64_t osthreadOff = osThreadOffsets().osthread;
  int64_t tidOff = osThreadOffsets().threadId;
  if (osthreadOff < 0 || tidOff < 0) return 0;
  auto javaThread = reinterpret_cast<const char*>(javaThreadOf(env, thread));
  if (javaThread == nullptr) return 0;  // not started or already gone
  auto osThread = *reinterpret_cast<const char* const*>(javaThread + osthreadOff);
  if (osThread == nullptr) return 0;
  int tid = *reinterpret_cast<const int*>(osThread + tidOff);
  // The thread may have exited between GetAllThreads and here: accept only our own live tasks.
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d", tid);
  struct stat st;
  return tid > 0 && stat(path, &st) == 0 ? tid : 0;
}

}  // namespace candor
