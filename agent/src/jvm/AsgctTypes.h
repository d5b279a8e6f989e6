// AsyncGetCallTrace's types: exported by libjvm.so but not declared in jvmti.h.
#pragma once
#include <jni.h>

namespace candor {

struct ASGCT_CallFrame {
  jint lineno;          // bci for Java frames; -3 for a native method
  jmethodID method_id;
};

struct ASGCT_CallTrace {
  JNIEnv* env_id;
  jint num_frames;      // > 0 frames, or an error code <= 0
  ASGCT_CallFrame* frames;
};

using AsyncGetCallTraceFn = void (*)(ASGCT_CallTrace*, jint depth, void* ucontext);

constexpr jint kAsgctNativeFrameBci = -3;

}  // namespace candor
