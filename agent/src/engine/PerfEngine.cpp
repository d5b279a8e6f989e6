#include "engine/PerfEngine.h"

#include "engine/PerfEvents.h"
#include "engine/PerfTimeRing.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace candor {

namespace {
int openCpuClock(int tid, long long periodNs, bool withTime) {
  // User space only: ticks that expire in the kernel are not delivered; the next one in user
  // space is.
  perf_event_attr attr = perfCpuClockAttr(periodNs);
  if (withTime) {  // only when the ring is mapped: records cost the kernel a little per tick
    attr.sample_type = PERF_SAMPLE_TIME;
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
  }
  return perfEventOpen(&attr, tid);
}
}  // namespace

bool PerfEngine::available(std::string* why) {
  int fd = openCpuClock(0, 10'000'000, false);
  if (fd < 0) {
    *why = perfOpenError("perf_event_open failed", errno);
    return false;
  }
  close(fd);
  return true;
}

bool PerfEngine::startEngine(const Options& options, std::string* why) {
  withTimeRing_ = jitterPct_ == 0;  // jittered ticks have no schedule to be late against
  return available(why);
}

bool PerfEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  int fd = openCpuClock(tid, nextIntervalNs_signalSafe(), withTimeRing_);
  if (fd < 0) {
    *why = std::string("perf_event_open: ") + strerror(errno);
    return false;
  }
  f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signal_) != 0 ||
      fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
    *why = std::string("cannot route perf signals to the thread: ") + strerror(errno);
    close(fd);
    return false;
  }
  if (withTimeRing_) timer->ring = PerfTimeRing::map(fd, tid);
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  timer->fd = fd;
  timer->armed = true;
  return true;
}

void PerfEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  ioctl(timer->fd, PERF_EVENT_IOC_DISABLE, 0);
  PerfTimeRing::unmap(timer->fd, timer->ring);  // before close: the fd number may be reused at once
  timer->ring = nullptr;
  close(timer->fd);
  timer->fd = -1;
  timer->armed = false;
}

void PerfEngine::rearm_signalSafe(const siginfo_t* info) {
  // F_SETSIG signals carry the fd that overflowed; ioctl is async-signal-safe.
  unsigned long long period = static_cast<unsigned long long>(nextIntervalNs_signalSafe());
  ioctl(info->si_fd, PERF_EVENT_IOC_PERIOD, &period);
}

int64_t PerfEngine::latency_signalSafe(const siginfo_t* info) {
  // From the kernel's record of the overflow (its hrtimer interrupt) to now: signal delivery
  // and scheduling delay, in wall time on CLOCK_MONOTONIC.
  return PerfTimeRing::latencyOfNewest_signalSafe(info->si_fd, static_cast<int>(syscall(SYS_gettid)));
}

}  // namespace candor
