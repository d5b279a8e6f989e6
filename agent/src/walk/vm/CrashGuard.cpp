#include "base/Ordering.h"
#include "walk/vm/CrashGuard.h"

#include <string.h>

#include <mutex>

namespace candor {

namespace {
// Initial-exec TLS: reading it in a signal handler never allocates. volatile: the compiler
// must not drop the stores around the walk (nothing else reads it but the SIGSEGV handler).
__thread sigjmp_buf* volatile tJump __attribute__((tls_model("initial-exec"))) = nullptr;

struct sigaction gPrevious[2];  // the JVM's SIGSEGV and SIGBUS handlers, by slotOf()
bool gInstalled = false;
std::mutex gInstallMutex;

int slotOf(int sig) { return sig == SIGBUS ? 1 : 0; }
}  // namespace

std::atomic<uint64_t> CrashGuard::caught_{0};

bool CrashGuard::install(std::string* why) {
  std::lock_guard<std::mutex> lock(gInstallMutex);
  if (gInstalled) return true;
  struct sigaction sa = {};
  sa.sa_sigaction = onFault_signalSafe;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGSEGV, SIGBUS};
  for (int sig : sigs) {
    if (sigaction(sig, &sa, &gPrevious[slotOf(sig)]) != 0) {
      *why = std::string("sigaction: ") + strerror(errno);
      return false;
    }
  }
  gInstalled = true;
  return true;
}

bool CrashGuard::installed() {
  std::lock_guard<std::mutex> lock(gInstallMutex);
  return gInstalled;
}

void CrashGuard::arm_signalSafe(sigjmp_buf* jb) {
  tJump = jb;
  signalFence();
}

void CrashGuard::disarm_signalSafe() {
  signalFence();
  tJump = nullptr;
}

void CrashGuard::bail_signalSafe() {
  sigjmp_buf* jb = tJump;
  if (jb == nullptr) return;
  tJump = nullptr;
  addPlain(caught_, uint64_t{1});
  siglongjmp(*jb, 1);
}

void CrashGuard::onFault_signalSafe(int sig, siginfo_t* info, void* ucontext) {
  sigjmp_buf* jb = tJump;
  if (jb != nullptr) {
    tJump = nullptr;  // a fault while unwinding must not loop back here
    addPlain(caught_, 1);
    siglongjmp(*jb, 1);
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
