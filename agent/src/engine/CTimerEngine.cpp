#include "engine/CTimerEngine.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "base/Ordering.h"
#include "engine/SmoothedWeight.h"

namespace candor {

namespace {
// This thread's signals so far, for their weights (initial-exec: no allocation on first touch).
__thread SmoothedWeight::Local tHistory __attribute__((tls_model("initial-exec")));
std::atomic<uint64_t> gSessions{0};

itimerspec periodic(long long ns, bool oneShot) {
  itimerspec spec = {};
  spec.it_value.tv_sec = ns / 1'000'000'000;
  spec.it_value.tv_nsec = ns % 1'000'000'000;
  if (!oneShot) spec.it_interval = spec.it_value;
  return spec;
}
}  // namespace

clockid_t threadCpuClock(int tid) {
  // MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) from the kernel's posix-timers.h.
  return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);
}

bool CTimerEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  sigevent sev = {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signal_;
  sev._sigev_un._tid = tid;
  timer_t id;
  if (syscall(__NR_timer_create, threadCpuClock(tid), &sev, &id) != 0) {
    *why = std::string("timer_create: ") + strerror(errno);
    return false;
  }
  // With jitter each expiry re-arms a one-shot timer from the handler.
  itimerspec spec = periodic(nextIntervalNs_signalSafe(), jitterPct_ > 0);
  if (syscall(__NR_timer_settime, id, 0, &spec, nullptr) != 0) {
    *why = std::string("timer_settime: ") + strerror(errno);
    syscall(__NR_timer_delete, id);
    return false;
  }
  timer->timer = id;
  timer->armed = true;
  return true;
}

void CTimerEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  syscall(__NR_timer_delete, timer->timer);
  timer->armed = false;
}

bool CTimerEngine::startEngine(const Options&, std::string*) {
  session_ = addPlain(gSessions, uint64_t{1}) + 1;  // the threads' histories of an earlier session are stale
  return true;
}

void CTimerEngine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  Engine::readTicks_signalSafe(info, tid, batch);
  // Only the timer's own signals carry an overrun (a signal sent by other code is a tick).
  if (info->si_code != SI_TIMER) return;
  SmoothedWeight::Local& history = tHistory;
  if (history.session != session_) history = {session_, 0, 0, 0};
  uint64_t stoodFor = 1 + static_cast<uint64_t>(std::max(0, info->si_overrun));
  batch->unrecorded = history.weigh_signalSafe(stoodFor) - 1;
}

void CTimerEngine::rearm_signalSafe(const siginfo_t* info) {
  // Raw syscalls: the kernel's timer id travels in si_timerid, and glibc's timer_t wrapper
  // would not accept it.
  itimerspec spec = periodic(nextIntervalNs_signalSafe(), true);
  syscall(__NR_timer_settime, info->si_timerid, 0, &spec, nullptr);
}

int64_t CTimerEngine::latency_signalSafe(const siginfo_t* info) {
  itimerspec now = {};
  if (syscall(__NR_timer_gettime, info->si_timerid, &now) != 0) return -1;
  int64_t remaining = now.it_value.tv_sec * 1'000'000'000LL + now.it_value.tv_nsec;
  return remaining > 0 && remaining <= intervalNs_ ? intervalNs_ - remaining : -1;
}

}  // namespace candor
