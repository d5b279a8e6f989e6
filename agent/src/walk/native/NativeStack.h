// cstack=: the C/C++ frames of a sampled thread, between its interrupted registers and its Java
// code (libc's system-call wrappers, JDK JNI libraries, libjvm's runtime), or all of a JVM
// thread's stack (allthreads). One module table for the process (NativeModules), built when
// profiling first starts with cstack on and refreshed by the writer thread as libraries load;
// it is never freed, since handlers may read it at any time (a few MB for a JVM's libraries).
//
// Frames are stored as {kNativeFrameBci, pc}, with pc − 1 for return addresses (every frame but
// the interrupted one), so that the writer names the call instruction's function even when a
// call ends its function.
#pragma once
#include <cstdint>
#include <string>

#include "base/Options.h"
#include "base/Vocabulary.h"
#include "walk/native/NativeModules.h"
#include "walk/native/NativeUnwinder.h"

namespace candor {

class NativeStack {
 public:
  // Ordinary thread, at profiling start: builds the tables (once) and sets the mode; with kNo,
  // or when the tables cannot be built (then false and `why`), the walk records nothing.
  static bool enable(CStackMode mode, std::string* why);
  static CStackMode mode();
  // Ordinary thread (the writer): adds libraries loaded since the last call; cheap otherwise.
  static void refresh();
  // Ordinary thread (it takes a lock; handlers use isNative_signalSafe): the module table.
  static const NativeModules& modules();

  // Signal-handler path: walks the C frames from *regs until a pc outside every native module
  // (Java code: the JIT's, the interpreter's, stubs) or the stack's root, writing at most `max`.
  // *regs is left at the first frame not recorded. Reads go through `mem`: live reads only
  // inside the crash guard. Returns the frames written.
  static int32_t walk_signalSafe(const NativeMemory& mem, NativeRegs* regs, ASGCT_CallFrame* frames, int32_t max);
  // Signal-handler path: whether a walk left at *regs stopped at the stack's root (the return
  // address is undefined there: clone, _start), so that no Java frame lies beyond it.
  static bool atRoot_signalSafe(const NativeRegs& regs);
  // Signal-handler path: whether pc lies in native code (a loaded module), not Java code.
  static bool isNative_signalSafe(uintptr_t pc);
};

}  // namespace candor
