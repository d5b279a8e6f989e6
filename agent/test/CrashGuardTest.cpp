// CrashGuard: a fault inside an armed region is caught and counted; a fault outside one still
// reaches the previous handler (here: none, so the process dies of SIGSEGV as it would have);
// chained behind a JVM-like handler, as libjsig makes it, no sampling signal runs inside it; a tick's
// handler that interrupts a guarded region on its thread hands the guard back to it.
#include "walk/vm/CrashGuard.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

using namespace candor;

namespace {
// Reads `addr` inside the guard; true when the read faulted and was caught.
bool faultsGuarded(uintptr_t addr) {
  CrashGuard::Region guard;
  volatile bool faulted = true;
  if (sigsetjmp(guard.jump, 0) == 0) {
    CrashGuard::arm_signalSafe(&guard);
    (void)*reinterpret_cast<volatile const int64_t*>(addr);
    CrashGuard::disarm_signalSafe(&guard);
    faulted = false;
  }
  return faulted;
}

// HotSpot's call_chained_handler: the chained handler runs with exactly its own sa_mask.
struct sigaction gChained;
void jvmLikeHandler(int sig, siginfo_t* info, void* ucontext) {
  sigset_t old;
  pthread_sigmask(SIG_SETMASK, &gChained.sa_mask, &old);
  gChained.sa_sigaction(sig, info, ucontext);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

std::atomic<int> gProfDepth{0}, gProfMaxDepth{0};
uintptr_t gFaultPage = 0;
// A tick's handler that walks: a second tick is pending when its guarded read faults.
void onProf(int, siginfo_t*, void*) {
  int depth = ++gProfDepth;
  if (depth > gProfMaxDepth) gProfMaxDepth = depth;
  static bool first = true;
  if (depth == 1 && first) {
    first = false;
    raise(SIGPROF);  // blocked while this handler runs: pending
    faultsGuarded(gFaultPage);
  }
  --gProfDepth;
}

// A page that is mapped but unreadable: SIGSEGV, not an unmapped-address coincidence.
uintptr_t protectedPage() {
  void* p = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? 0 : reinterpret_cast<uintptr_t>(p);
}
}  // namespace

TEST(CrashGuard, CatchesAndCountsFaultsInArmedRegion) {
  std::string why;
  ASSERT_TRUE(CrashGuard::install(&why)) << why;
  uint64_t before = CrashGuard::faultsCaught();
  uintptr_t page = protectedPage();
  ASSERT_NE(page, 0u);
  EXPECT_TRUE(faultsGuarded(0x10));
  EXPECT_TRUE(faultsGuarded(page));
  // SA_NODEFER: SIGSEGV is not left blocked after the longjmp, so faults keep being caught.
  for (int i = 0; i < 1000; i++) ASSERT_TRUE(faultsGuarded(page + 8 * (i % 512)));
  EXPECT_EQ(CrashGuard::faultsCaught() - before, 1002u);
  int64_t fine = 42;
  EXPECT_FALSE(faultsGuarded(reinterpret_cast<uintptr_t>(&fine)));
  EXPECT_EQ(CrashGuard::faultsCaught() - before, 1002u);
  munmap(reinterpret_cast<void*>(page), 4096);
}

TEST(CrashGuard, DoesNotSwallowFaultsOutsideArmedRegion) {
  std::string why;
  ASSERT_TRUE(CrashGuard::install(&why)) << why;
  uintptr_t page = protectedPage();
  ASSERT_NE(page, 0u);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    faultsGuarded(page);  // armed once and disarmed: the guard must not stay armed
    (void)*reinterpret_cast<volatile const int64_t*>(page);  // unarmed: must kill the child
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  // Swallowed, the child would go on to _exit(0). Not swallowed, the fault reaches the handler
  // before ours: the default one kills the child with SIGSEGV, ASan's reports it and exits 1.
  ASSERT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the fault was swallowed";
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  }
  munmap(reinterpret_cast<void*>(page), 4096);
}

TEST(CrashGuard, NoSamplingSignalRunsInsideTheChainedHandler) {
  std::string why;
  ASSERT_TRUE(CrashGuard::install(&why)) << why;
  gFaultPage = protectedPage();
  ASSERT_NE(gFaultPage, 0u);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // In front of the guard, as libjsig leaves the JVM's handler, which chains to ours.
    struct sigaction jvm = {};
    jvm.sa_sigaction = jvmLikeHandler;
    jvm.sa_flags = SA_SIGINFO;
    sigemptyset(&jvm.sa_mask);
    if (sigaction(SIGSEGV, &jvm, &gChained) != 0) _exit(10);
    struct sigaction prof = {};
    prof.sa_sigaction = onProf;
    prof.sa_flags = SA_SIGINFO;
    sigemptyset(&prof.sa_mask);
    if (sigaction(SIGPROF, &prof, nullptr) != 0) _exit(11);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, SIGPROF);
    sigaddset(&unblock, SIGSEGV);
    pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);  // whatever earlier tests left blocked
    raise(SIGPROF);
    _exit(gProfMaxDepth.load());  // 1: the pending tick ran after the first, not inside its fault
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 1) << "a tick's handler ran inside the guard's fault handler";
  munmap(reinterpret_cast<void*>(gFaultPage), 4096);
}

namespace {
std::atomic<int> gInnerFaults{0};
int64_t gReadable = 42;
// A wall tick's handler that walks: its own guarded reads, one faulting, one not.
void onInterruptingTick(int, siginfo_t*, void*) {
  gInnerFaults += faultsGuarded(gFaultPage) ? 1 : 0;
  gInnerFaults += faultsGuarded(reinterpret_cast<uintptr_t>(&gReadable)) ? 1 : 0;
}
}  // namespace

// A thread reads guarded in thread context (an ending thread reading its per-CPU rings) when a tick's
// handler interrupts it and walks with a guard of its own: after the handler, the interrupted reads
// are still guarded. With one jump buffer per thread the handler's disarm cleared it, and the next
// stray read of the thread killed the process (a JVM, under ThreadChurn with event=cpu,wall).
TEST(CrashGuard, ATickThatInterruptsAGuardedRegionHandsTheGuardBack) {
  std::string why;
  ASSERT_TRUE(CrashGuard::install(&why)) << why;
  gFaultPage = protectedPage();
  ASSERT_NE(gFaultPage, 0u);
  struct sigaction sa = {}, old = {};
  sa.sa_sigaction = onInterruptingTick;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGURG, &sa, &old), 0);
  uint64_t before = CrashGuard::faultsCaught();
  for (int i = 0; i < 100; i++) {
    CrashGuard::Region outer;
    volatile bool caught = true;
    if (sigsetjmp(outer.jump, 0) == 0) {
      CrashGuard::arm_signalSafe(&outer);
      raise(SIGURG);  // delivered here, inside the outer region
      (void)*reinterpret_cast<volatile const int64_t*>(gFaultPage);
      CrashGuard::disarm_signalSafe(&outer);
      caught = false;
    }
    ASSERT_TRUE(caught) << "round " << i;
  }
  EXPECT_EQ(gInnerFaults.load(), 100);
  EXPECT_EQ(CrashGuard::faultsCaught() - before, 200u);
  // And after them all no region is left armed: a fault outside any region is not swallowed.
  EXPECT_FALSE(faultsGuarded(reinterpret_cast<uintptr_t>(&gReadable)));
  sigaction(SIGURG, &old, nullptr);
  munmap(reinterpret_cast<void*>(gFaultPage), 4096);
}
