// The user-space part of a sampled thread's stack, as every signal-driven walker records it:
// its C/C++ frames first (cstack=: libc, JNI libraries, libjvm; NativeStack), then its Java
// frames (candor's own walker, or AsyncGetCallTrace). A thread without a JNIEnv (a JVM thread,
// allthreads) has C frames only. Signal-handler path, and walk=remote's walker thread, which
// walks a thread stopped in its handler.
#pragma once
#include <jni.h>

#include <cstdint>

#include "base/Vocabulary.h"

namespace candor {

// Walks the thread interrupted with `ucontext` (`env`: its JNIEnv, or null) into `frames`;
// returns the frame count or a failure code. `ownWalker`: walk=vm's walker, else AGCT.
int32_t walkUserStack_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max, bool ownWalker);
// Whether the interrupted thread was just returning from a system call (`syscall` right before
// its pc), or about to restart one (at it): native code only, whose text is mapped readable.
bool stoppedAtSystemCall_signalSafe(const void* ucontext);
// Whether two bytes of code are x86-64's `syscall` instruction (0f 05).
inline bool isSyscallInstruction(uint8_t first, uint8_t second) { return first == 0x0f && second == 0x05; }
// The same with the own walker: walk=remote's walk function.
int32_t walkUserStackOwn_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max);

}  // namespace candor
