// The JVM as the agent sees it: JavaVM, the JVMTI environment, AsyncGetCallTrace.
#pragma once
#include <jni.h>
#include <jvmti.h>

#include "base/Vocabulary.h"
#include "concurrent/ThreadBitmap.h"

namespace candor {

class Jvm {
 public:
  // Acquires a JVMTI environment and the capabilities candor needs; false with a logged reason.
  static bool init(JavaVM* vm);

  static JavaVM* vm() { return vm_; }
  static jvmtiEnv* jvmti() { return jvmti_; }
  static AsyncGetCallTraceFn asgct() { return asgct_; }

  // Signal-handler path: the JNIEnv of the current thread (`tid`), or nullptr for a thread that
  // candor has not registered as a Java thread. GetEnv reads libjvm's thread-local storage; on
  // a thread that never touched it (the launcher's first thread, a native library's pool) that
  // first read makes the dynamic loader allocate, which a signal handler must never cause.
  static JNIEnv* currentEnv_signalSafe(int tid);
  // Registry side: threads on which the handler may call GetEnv.
  static ThreadBitmap& javaThreads() { return javaThreads_; }
  // The JNIEnv of the current thread (ordinary code).
  static JNIEnv* currentEnv();

  // The OS thread id of a live java.lang.Thread, via eetop and VMStructs; 0 when unknown.
  static int osThreadId(JNIEnv* env, jthread thread);
  // The JavaThread* of a started, live java.lang.Thread (its eetop field), or 0.
  static uintptr_t javaThreadOf(JNIEnv* env, jthread thread);
  // Where a JavaThread keeps its OSThread (JDK 17 declares _osthread in JavaThread, JDK 25 in
  // Thread) and where that keeps the OS thread id; -1 when this JVM does not say.
  struct OsThreadOffsets {
    int64_t osthread = -1;
    int64_t threadId = -1;
  };
  static const OsThreadOffsets& osThreadOffsets();

  // candor's own threads (writer, sampler) mark themselves so that ThreadStart skips them.
  static void markAgentThread();
  static bool isAgentThread();

 private:
  static JavaVM* vm_;
  static jvmtiEnv* jvmti_;
  static AsyncGetCallTraceFn asgct_;
  static ThreadBitmap javaThreads_;
};

}  // namespace candor
