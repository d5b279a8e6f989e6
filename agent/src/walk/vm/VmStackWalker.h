// walk=vm: the facade the sampling path uses instead of AsyncGetCallTrace. enable() runs once
// on an ordinary Java thread (profiling start): it reads the layout, measures where the JNIEnv
// sits inside the JavaThread, asks JVMTI for the names of generated stubs and installs the
// crash guard. Whatever fails leaves it off, with one log line, and candor uses AGCT.
#pragma once
#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "base/Vocabulary.h"
#include "walk/vm/StackCopy.h"

namespace candor {

class VmStackWalker {
 public:
  // Ordinary Java thread. True when walk=vm can be used; false after logging
  // "own stack walker unavailable: <what>; using AsyncGetCallTrace" once.
  static bool enable(jvmtiEnv* jvmti, JNIEnv* env);
  static bool enabled();

  // Signal-handler path: the stack of the current thread (whose JNIEnv is `env`) into
  // `frames`; returns the count or an AGCT-style code, kWalkFaultCode when a read faulted.
  // `cFramesEnd` (not null): the caller recorded the C frames above the Java ones (cstack), so a
  // leaf call into C code needs no `[stub] native leaf call` frame; when its pc is not 0 the Java
  // walk starts there, where the native unwinder reached the Java caller (FrameWalker.h).
  static int32_t walk_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max,
                                 const SampledRegs* cFramesEnd = nullptr);
  // walk=copy, on the ring reader (an ordinary thread): the stack of the JavaThread at `thread`
  // from a sample perf took without a signal (registers and stack copy, StackCopy.h), inside the
  // crash guard. Returns the count or a code as walk_signalSafe; copy->beyond() tells whether the
  // walk stopped where the copy ends.
  static int32_t walkCopy_signalSafe(uintptr_t thread, StackCopy* copy, ASGCT_CallFrame* frames, int32_t max);

  // JVMTI DynamicCodeGenerated: a stub's name and range (ordinary thread).
  static void onDynamicCode(const char* name, const void* address, jint length);
  // JVMTI CompiledMethodUnload: forgets the cached decodes of that nmethod (ordinary thread).
  static void onCompiledMethodUnload(const void* codeAddr);
  // One log line with the decode cache's counters since the last call, if it was used.
  static void logDecodeCacheStats();

 private:
  static bool prepare(jvmtiEnv* jvmti, JNIEnv* env, std::string* missing);
};

}  // namespace candor
