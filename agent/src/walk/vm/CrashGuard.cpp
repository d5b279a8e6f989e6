#include "base/Ordering.h"
#include "walk/vm/CrashGuard.h"

#include <string.h>

#include <mutex>

#include "jvm/AgentThread.h"

namespace candor {

namespace {
// The innermost armed region of this thread. Initial-exec TLS: reading it in a signal handler never
// allocates. volatile: the compiler must not drop the stores around the walk (nothing else reads it
// but the SIGSEGV handler and the handlers of ticks that interrupt the region, on this thread).
__thread CrashGuard::Region* volatile tRegion __attribute__((tls_model("initial-exec"))) = nullptr;

struct sigaction gPrevious[2];  // the JVM's SIGSEGV and SIGBUS handlers, by slotOf()
bool gInstalled = false;
sigset_t gMask;  // the sampling signals the installed handler's mask holds
std::mutex gInstallMutex;

int slotOf(int sig) { return sig == SIGBUS ? 1 : 0; }
}  // namespace

std::atomic<uint64_t> CrashGuard::caught_{0};

bool CrashGuard::install(std::string* why) {
  std::lock_guard<std::mutex> lock(gInstallMutex);
  // The handler's mask holds candor's sampling signals. The kernel would keep them blocked anyway
  // (a fault in a walk happens inside the tick's handler), but with libjsig our handler is the
  // JVM's chained one, and HotSpot runs a chained handler with exactly its sa_mask (SIG_SETMASK):
  // an empty mask there let a pending tick in, whose handler walked the stack of the JVM's signal
  // handler and overwrote the guard of the walk that faulted; the JVM crashed (an itest's
  // exceptions-libjsig stress, walk=vm, 100 us). After a caught fault the walker goes on with that
  // mask (sigsetjmp(env, 0)) until its handler returns and the kernel restores the thread's own.
  sigset_t sampling;
  AgentThread::samplingSignals(&sampling);
  bool same = gInstalled;
  for (int sig = 1; sig < 64 && same; sig++) same = sigismember(&sampling, sig) == sigismember(&gMask, sig);
  if (same) return true;
  struct sigaction sa = {};
  sa.sa_sigaction = onFault_signalSafe;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
  sa.sa_mask = sampling;
  const int sigs[] = {SIGSEGV, SIGBUS};
  for (int sig : sigs) {
    struct sigaction now = {};
    // A later session with another signal= updates the mask of the handler that is still ours.
    if (gInstalled && (sigaction(sig, nullptr, &now) != 0 || now.sa_sigaction != onFault_signalSafe)) continue;
    if (sigaction(sig, &sa, gInstalled ? nullptr : &gPrevious[slotOf(sig)]) != 0) {
      *why = std::string("sigaction: ") + strerror(errno);
      return false;
    }
  }
  gMask = sampling;
  gInstalled = true;
  return true;
}

bool CrashGuard::installed() {
  std::lock_guard<std::mutex> lock(gInstallMutex);
  return gInstalled;
}

// A tick's handler that interrupts arm or disarm between their two steps sees either region in
// tRegion: each is complete (its outer set before it is published), and the handler's own region
// puts back exactly what it found.
void CrashGuard::arm_signalSafe(Region* region) {
  region->outer = tRegion;
  signalFence();
  tRegion = region;
  signalFence();
}

void CrashGuard::disarm_signalSafe(Region* region) {
  signalFence();
  tRegion = region->outer;
}

void CrashGuard::bail_signalSafe() {
  Region* region = tRegion;
  if (region == nullptr) return;
  tRegion = region->outer;
  addPlain(caught_, uint64_t{1});
  siglongjmp(region->jump, 1);
}

void CrashGuard::onFault_signalSafe(int sig, siginfo_t* info, void* ucontext) {
  Region* region = tRegion;
  if (region != nullptr) {
    tRegion = region->outer;  // a fault while unwinding must not loop back into this region
    addPlain(caught_, 1);
    siglongjmp(region->jump, 1);
  }
  forward_signalSafe(sig, info, ucontext);
}

void CrashGuard::forward_signalSafe(int sig, siginfo_t* info, void* ucontext) {
  const struct sigaction& prev = gPrevious[slotOf(sig)];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction != nullptr) {
      // Run the JVM's handler with the mask it asked for, as the kernel would have.
      sigset_t mask = prev.sa_mask, old;
      if (!(prev.sa_flags & SA_NODEFER)) sigaddset(&mask, sig);
      pthread_sigmask(SIG_BLOCK, &mask, &old);
      prev.sa_sigaction(sig, info, ucontext);
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
      return;
    }
  } else if (prev.sa_handler == SIG_IGN) {
    return;
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // No handler before ours: restore the default action; the faulting instruction runs again
  // when we return and the process dies as it would have without candor.
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}

}  // namespace candor
