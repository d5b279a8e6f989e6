// Crash protection for reads of JVM memory on the walking path. A SIGSEGV/SIGBUS handler is
// chained in front of the JVM's: when the faulting thread has armed a jump buffer (only while
// it walks a stack) the handler counts the fault and siglongjmps back to the walker, which
// records the tick as `walk_fault`; every other fault goes to the previous handler untouched
// (the JVM relies on SIGSEGV for implicit null checks and safepoint polls).
//
// Cost: the walker uses sigsetjmp(env, 0), ~6 ns, no sigprocmask syscall. That leaves the mask
// alone, so the handler is installed with SA_NODEFER: a longjmp out of it must not leave
// SIGSEGV blocked, or the next fault would kill the process. Its mask holds candor's sampling
// signals, so no tick's handler runs inside it, also where libjsig makes it the JVM's chained
// handler (see install).
#pragma once
#include <setjmp.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "base/Ordering.h"

namespace candor {

class CrashGuard {
 public:
  // Installs the chained handlers once (ordinary thread, after the JVM installed its own).
  static bool install(std::string* why);
  static bool installed();

  // One guarded stretch of reads. Regions nest: a tick's handler can interrupt guarded reads on its
  // own thread (a thread that ends reads its per-CPU rings in thread context, with walk=copy's
  // walker, while the wall sampler's signal still reaches it), and its region must hand the guard
  // back to the one it interrupted, on the way out and after a caught fault alike. (A single
  // per-thread jump buffer, cleared by the handler's region, left the interrupted reads unguarded:
  // a JVM crashed in 45 s of ThreadChurn with event=cpu,wall as root.)
  struct Region {
    sigjmp_buf jump;
    Region* outer;  // the region this one interrupted on this thread, or null
  };

  // Signal-handler path: arm before the guarded reads, disarm after. Usage:
  //   CrashGuard::Region r;
  //   if (sigsetjmp(r.jump, 0) == 0) { CrashGuard::arm_signalSafe(&r); ...; CrashGuard::disarm_signalSafe(&r); }
  //   else { /* a fault was caught; the guard is back to r.outer's */ }
  static void arm_signalSafe(Region* region);
  static void disarm_signalSafe(Region* region);
  // Signal-handler path: when armed, leaves the guarded reads as a caught fault would (counted);
  // unarmed, returns.
  static void bail_signalSafe();

  // Faults caught since the process started.
  static uint64_t faultsCaught() { return lp(caught_); }

 private:
  static void onFault_signalSafe(int sig, siginfo_t* info, void* ucontext);
  static void forward_signalSafe(int sig, siginfo_t* info, void* ucontext);
  static std::atomic<uint64_t> caught_;
};

}  // namespace candor
