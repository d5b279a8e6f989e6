#include "walk/UserStack.h"

#include <setjmp.h>
#include <ucontext.h>

#include "jvm/Jvm.h"
#include "walk/native/NativeStack.h"
#include "walk/vm/CrashGuard.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

namespace {
// The C frames from the interrupted registers up to Java code, read live inside the crash guard
// (a stray rbp or a bad unwind row must not fault the application's thread). A fault keeps no
// frame: the Java walk goes on from its own start. *end: where the unwinder stopped, when that is
// outside native code (the Java caller), else pc 0.
int32_t cFrames_signalSafe(void* ucontext, ASGCT_CallFrame* frames, int32_t max, SampledRegs* end) {
  *end = SampledRegs{0, 0, 0, 0};
  if (NativeStack::mode() == CStackMode::kNo) return 0;  // enabled only once the crash guard is installed
  auto uc = static_cast<const ucontext_t*>(ucontext);
  NativeRegs regs{static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]),
                  static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]),
                  static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP]), true};
  if (!NativeStack::isNative_signalSafe(regs.pc)) return 0;  // in Java code: nothing to do
  NativeMemory mem{&NativeMemory::direct_signalSafe, nullptr};
  CrashGuard::Region guard;
  volatile int32_t n = 0;  // survives a siglongjmp back here
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    n = NativeStack::walk_signalSafe(mem, &regs, frames, max);
    CrashGuard::disarm_signalSafe(&guard);
    if (n > 0 && !NativeStack::isNative_signalSafe(regs.pc)) *end = SampledRegs{regs.pc, regs.sp, regs.fp, 0};
  }
  return n;
}
}  // namespace

int32_t walkUserStack_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max, bool ownWalker) {
  SampledRegs cEnd;
  int32_t c = cFrames_signalSafe(ucontext, frames, max - 1, &cEnd);  // room for one Java frame at least
  if (env == nullptr) return c > 0 ? c : kNotJavaThreadCode;
  int32_t j;
  if (ownWalker) {
    j = VmStackWalker::walk_signalSafe(env, ucontext, frames + c, max - c, c > 0 ? &cEnd : nullptr);
  } else {
    ASGCT_CallTrace trace = {env, 0, frames + c};
    Jvm::asgct()(&trace, max - c, ucontext);
    j = trace.num_frames;
  }
  if (j > 0) return c + j;
  // C code with no Java frame under it (a thread attached from native code, the JVM's own work
  // on a Java thread) is a stack of its own; any other failure of the Java walk stays a failure.
  return c > 0 && j == kNoJavaFrameCode ? c : j;
}

bool stoppedAtSystemCall_signalSafe(const void* ucontext) {
  auto uc = static_cast<const ucontext_t*>(ucontext);
  auto pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  // JIT code makes no system calls; libc, libjvm and the vdso do, and a module's text is readable.
  // Only bytes on pc's own page are read: the thread resumes there, so it is mapped even if the
  // module table still holds a library unloaded since.
  if (!NativeStack::isNative_signalSafe(pc)) return false;
  auto syscallAt = [pc](uintptr_t at) {
    constexpr uintptr_t kPage = 4096;
    if (at / kPage != pc / kPage || (at + 1) / kPage != pc / kPage) return false;
    if (!NativeStack::isNative_signalSafe(at) || !NativeStack::isNative_signalSafe(at + 1)) return false;
    auto code = reinterpret_cast<const volatile uint8_t*>(at);
    return isSyscallInstruction(code[0], code[1]);
  };
  return syscallAt(pc - 2) || syscallAt(pc);
}

int32_t walkUserStackOwn_signalSafe(JNIEnv* env, void* ucontext, ASGCT_CallFrame* frames, int32_t max) {
  return walkUserStack_signalSafe(env, ucontext, frames, max, true);
}

}  // namespace candor
