#include "engine/SignalHandler.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/Options.h"
#include "base/Ordering.h"
#include "engine/WallTargets.h"
#include "jvm/AgentThread.h"

namespace candor {

namespace {
std::atomic<bool> gRunning{false};
std::atomic<int> gInflight{0};
// Written only while gRunning is false and no handler runs.
Engine* gCpuEngine = nullptr;
int gCpuSignal = 0;
int gWallSignal = 0;
pid_t gPid = 0;
SignalSampleSink* gSink = nullptr;
std::atomic<bool> gInstalled[65] = {};  // set by a start command, read by the writer's check

void onCpuTick_signalSafe(siginfo_t* info, void* ucontext) {
  auto tid = static_cast<int32_t>(syscall(SYS_gettid));
  CpuTickBatch batch;
  gCpuEngine->readTicks_signalSafe(info, tid, &batch);
  gSink->takeCpuTicks_signalSafe(ucontext, tid, batch, *gCpuEngine);
  gCpuEngine->releaseTicks_signalSafe(batch);
}

void onWallTick_signalSafe(siginfo_t* info, void* ucontext) {
  // Only our own sigqueue carries a target index; anything else is not a tick of ours.
  if (info->si_code != SI_QUEUE || info->si_pid != gPid) return;
  WallTarget* target = WallTargets::find_signalSafe(info->si_value.sival_int);
  if (target == nullptr) return;
  auto state = static_cast<ThreadState>(lv(target->state));
  uint64_t intended = lp(target->intendedNs);
  gSink->takeSample_signalSafe(ucontext, SampleKind::kWall, state, -1, intended);
  so(target->pending, false);
}
}  // namespace

bool SignalHandler::install(int sig, std::string* why) {
  if (sig <= 0 || sig > 64) {
    *why = "bad signal number";
    return false;
  }
  struct sigaction old = {};
  sigaction(sig, nullptr, &old);
  if (gInstalled[sig] && isOurs(old)) return true;  // a second session on the same signal
  bool foreign = (old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != nullptr
                                             : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
  if (foreign) {
    *why = std::string("another handler for ") + signalName(sig) +
           " is installed (another profiler or library); choose a free one with signal= or wallsignal=";
    return false;
  }
  struct sigaction sa = {};
  sa.sa_sigaction = onSignal_signalSafe;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, nullptr) != 0) {
    *why = std::string("sigaction: ") + strerror(errno);
    return false;
  }
  gInstalled[sig] = true;
  AgentThread::addSamplingSignal(sig);  // candor's own threads never take it
  return true;
}

bool SignalHandler::isOurs(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == onSignal_signalSafe;
}

int SignalHandler::replacedSignal() {
  for (int sig = 1; sig <= 64; sig++) {
    if (isReplaced(sig)) return sig;
  }
  return 0;
}

bool SignalHandler::isReplaced(int sig) {
  if (sig <= 0 || sig > 64 || !gInstalled[sig]) return false;
  struct sigaction now = {};
  return sigaction(sig, nullptr, &now) == 0 && !isOurs(now);
}

void SignalHandler::activate(Engine* cpuEngine, int wallSignal, SignalSampleSink* sink) {
  gCpuEngine = cpuEngine;
  gCpuSignal = cpuEngine != nullptr ? cpuEngine->signal() : 0;
  gWallSignal = wallSignal;
  gPid = getpid();
  gSink = sink;
  sv(gRunning, true);
}

void SignalHandler::deactivate() {
  sv(gRunning, false);
  while (lvSc(gInflight) != 0) sched_yield();
  gCpuEngine = nullptr;
  gSink = nullptr;
}

void SignalHandler::onSignal_signalSafe(int sig, siginfo_t* info, void* ucontext) {
  int savedErrno = errno;
  addSc(gInflight, 1);
  if (lvSc(gRunning)) {
    if (sig == gWallSignal && sig != 0) onWallTick_signalSafe(info, ucontext);
    else if (sig == gCpuSignal && sig != 0) onCpuTick_signalSafe(info, ucontext);
  }
  subOrdered(gInflight, 1);
  errno = savedErrno;
}

}  // namespace candor
