#include "engine/ITimerEngine.h"

#include <errno.h>
#include <string.h>
#include <sys/time.h>

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
