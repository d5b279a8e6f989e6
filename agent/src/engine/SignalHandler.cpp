#include "engine/SignalHandler.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#include "control/Options.h"

namespace candor {

namespace {
std::atomic<bool> gRunning{false};
std::atomic<int> gInflight{0};
Engine* gEngine = nullptr;       // written only while gRunning is false and no handler runs
AsgctWalker* gWalker = nullptr;
bool gJitter = false;
int gInstalled[65] = {};
}  // namespace

bool SignalHandler::install(int sig, std::string* why) {
  if (sig <= 0 || sig > 64) {
    *why = "bad signal number";
    return false;
  }
  if (gInstalled[sig]) return true;
  struct sigaction old = {};
  sigaction(sig, nullptr, &old);
  bool foreign = (old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != nullptr
                                             : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
  if (foreign) {
    *why = std::string("another handler for ") + signalName(sig) +
           " is installed (another profiler or library); choose a free one with signal=, e.g. signal=SIGURG";
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
  gInstalled[sig] = 1;
  return true;
}

void SignalHandler::activate(Engine* engine, AsgctWalker* walker, bool jitter) {
  gEngine = engine;
  gWalker = walker;
  gJitter = jitter;
  gRunning.store(true, std::memory_order_seq_cst);
}

void SignalHandler::deactivate() {
  gRunning.store(false, std::memory_order_seq_cst);
  while (gInflight.load(std::memory_order_seq_cst) != 0) sched_yield();
  gEngine = nullptr;
  gWalker = nullptr;
}

void SignalHandler::onSignal_signalSafe(int, siginfo_t* info, void* ucontext) {
  int savedErrno = errno;
  gInflight.fetch_add(1, std::memory_order_seq_cst);
  if (gRunning.load(std::memory_order_seq_cst)) {
    if (gJitter) gEngine->rearm_signalSafe(info);
    gWalker->takeSample_signalSafe(ucontext);
  }
  gInflight.fetch_sub(1, std::memory_order_release);
  errno = savedErrno;
}

}  // namespace candor
