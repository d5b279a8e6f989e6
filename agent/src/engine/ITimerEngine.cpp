#include "engine/ITimerEngine.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>

#include "base/Ordering.h"
#include "concurrent/Clock.h"

namespace candor {

namespace {
int setProfTimer(long long ns, bool oneShot) {
  itimerval v = {};
  v.it_value.tv_sec = ns / 1'000'000'000;
  v.it_value.tv_usec = (ns % 1'000'000'000) / 1000;
  if (!oneShot) v.it_interval = v.it_value;
  return setitimer(ITIMER_PROF, &v, nullptr);
}
}  // namespace

bool ITimerEngine::startEngine(const Options& options, std::string* why) {
  startCpuNs_ = clockNs(CLOCK_PROCESS_CPUTIME_ID);
  sp(intervalsClaimed_, 0);  // no handler runs before the timer is armed
  history_.reset();
  if (setProfTimer(nextIntervalNs_signalSafe(), jitterPct_ > 0) != 0) {
    *why = std::string("setitimer: ") + strerror(errno);
    return false;
  }
  return true;
}

void ITimerEngine::stop() {
  itimerval off = {};
  setitimer(ITIMER_PROF, &off, nullptr);
}

void ITimerEngine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  Engine::readTicks_signalSafe(info, tid, batch);
  if (info->si_code != SI_KERNEL) return;  // not the timer's: a tick of its own
  uint64_t weight = history_.weigh_signalSafe(claimProcessIntervals_signalSafe());
  if (weight == 0) {
    batch->noTick = true;  // signals come faster than intervals: the history says this one weighs none
  } else {
    batch->unrecorded = weight - 1;
  }
}

uint64_t ITimerEngine::claimProcessIntervals_signalSafe() {
  uint64_t cpuNs = clockNs(CLOCK_PROCESS_CPUTIME_ID);  // clock_gettime: async-signal-safe (POSIX)
  uint64_t due = cpuNs > startCpuNs_ ? (cpuNs - startCpuNs_) / static_cast<uint64_t>(intervalNs_) : 0;
  return claimIntervals_signalSafe(intervalsClaimed_, due);
}

uint64_t ITimerEngine::claimIntervals_signalSafe(std::atomic<uint64_t>& claimed, uint64_t due) {
  uint64_t seen = lp(claimed);
  do {
    if (due <= seen) return 0;  // other signals (or the timer's lag) already stand for them
  } while (!casPlain(claimed, seen, due));
  return due - seen;
}

void ITimerEngine::rearm_signalSafe(const siginfo_t*) {
  setProfTimer(nextIntervalNs_signalSafe(), true);
}

int64_t ITimerEngine::latency_signalSafe(const siginfo_t*) {
  itimerval now = {};
  if (getitimer(ITIMER_PROF, &now) != 0) return -1;
  int64_t remaining = now.it_value.tv_sec * 1'000'000'000LL + now.it_value.tv_usec * 1000LL;
  return remaining > 0 && remaining <= intervalNs_ ? intervalNs_ - remaining : -1;
}

}  // namespace candor
