#include "engine/PerfEngine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/PerfEvents.h"
#include "engine/PerfTickRing.h"

namespace candor {

namespace {

// Per thread, for KernelTime::kEstimated: the thread's CPU time at its last tick. Initial-exec
// TLS: no allocation on first touch in a handler. `session` tells stale marks of an earlier
// session (or of none) from this one's.
struct CpuMark {
  uint64_t session;
  uint64_t cpuNs;
  int64_t debtNs;  // CPU time the ticks so far fell short of (may be negative: a tick came early)
};
__thread CpuMark tCpuMark __attribute__((tls_model("initial-exec")));
std::atomic<uint64_t> gSessions{0};

perf_event_attr cpuClock(long long periodNs, bool kernel, bool ring) {
  perf_event_attr attr = perfCpuClockAttr(periodNs);
  if (kernel) {
    attr.exclude_kernel = 0;
    attr.exclude_callchain_user = 1;  // the handler walks user space itself
    attr.sample_max_stack = kMaxKernelFrames;
  }
  if (ring) {  // records cost the kernel a little per tick: only when a ring reads them
    attr.sample_type = PERF_SAMPLE_TIME | (kernel ? PERF_SAMPLE_CALLCHAIN : 0);
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
  }
  return attr;
}

bool canSampleKernel(std::string* why) {
  if (const char* off = getenv("CANDOR_TEST_NO_KERNEL_SAMPLING"); off != nullptr && strcmp(off, "1") == 0) {
    *why = "kernel sampling turned off by CANDOR_TEST_NO_KERNEL_SAMPLING";
    return false;
  }
  perf_event_attr attr = cpuClock(10'000'000, true, true);
  int fd = perfEventOpen(&attr, 0);
  if (fd < 0) {
    *why = perfOpenError("perf refuses kernel sampling to this process", errno);
    return false;
  }
  close(fd);
  return true;
}
}  // namespace

bool PerfEngine::available(std::string* why) {
  perf_event_attr attr = perfCpuClockAttr(10'000'000);
  int fd = perfEventOpen(&attr, 0);
  if (fd < 0) {
    *why = perfOpenError("perf_event_open failed", errno);
    return false;
  }
  close(fd);
  return true;
}

bool PerfEngine::startEngine(const Options& options, std::string* why) {
  if (!available(why)) return false;
  std::string refused;
  kernelSampled_ = canSampleKernel(&refused);
  kernelReason_ = kernelSampled_ ? "perf allows kernel sampling (root, CAP_PERFMON or perf_event_paranoid <= 1)"
                                 : refused + "; ticks perf drops in the kernel are counted from each thread's CPU clock";
  // A ring for the kernel's callchains, or for the tick times (latency) when ticks follow a
  // schedule; jittered, unprivileged ticks need none.
  ringPages_ = kernelSampled_ ? 2 : (jitterPct_ == 0 ? 1 : 0);
  session_ = addPlain(gSessions, uint64_t{1}) + 1;
  return true;
}

bool PerfEngine::armThread(int tid, ThreadTimer* timer, std::string* why) {
  perf_event_attr attr = cpuClock(nextIntervalNs_signalSafe(), kernelSampled_, ringPages_ > 0);
  int fd = perfEventOpen(&attr, tid);
  if (fd < 0) {
    *why = perfOpenError("perf_event_open", errno);
    return false;
  }
  f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, signal_) != 0 ||
      fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
    *why = std::string("cannot route perf signals to the thread: ") + strerror(errno);
    close(fd);
    return false;
  }
  if (ringPages_ > 0) timer->ring = PerfTickRing::map(fd, tid, ringPages_, kernelSampled_);
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  timer->fd = fd;
  timer->armed = true;
  return true;
}

void PerfEngine::disarmThread(ThreadTimer* timer) {
  if (!timer->armed) return;
  ioctl(timer->fd, PERF_EVENT_IOC_DISABLE, 0);
  PerfTickRing::unmap(timer->fd, timer->ring);  // before close: the fd number may be reused at once
  timer->ring = nullptr;
  close(timer->fd);
  timer->fd = -1;
  timer->armed = false;
}

void PerfEngine::readTicks_signalSafe(const siginfo_t* info, int tid, CpuTickBatch* batch) {
  if (jitterPct_ > 0) {
    // F_SETSIG signals carry the fd that overflowed; ioctl is async-signal-safe.
    unsigned long long period = static_cast<unsigned long long>(nextIntervalNs_signalSafe());
    ioctl(info->si_fd, PERF_EVENT_IOC_PERIOD, &period);
  }
  PerfTickRing::read_signalSafe(info->si_fd, tid, batch);
  // Even where the kernel is sampled, the event's clock misses kernel time the thread's CPU clock
  // counts: the scheduler's work around each context switch (about 5% of a 200-thread server's
  // CPU here). The gap since the thread's last tick says how many ticks that time was worth.
  batch->unsampledKernel = unsampledKernelTicks_signalSafe(batch->ticks());
}

uint64_t PerfEngine::unsampledKernelTicks_signalSafe(uint64_t ticksNow) const {
  // Ticks come every interval of the event's clock, and those that fire in the kernel are dropped
  // when the kernel may not be sampled; the thread's CPU clock counts on regardless. What the
  // ticks that arrived fall short of that clock is kernel time no tick covered. It is kept as a
  // per-thread debt, so fractions of an interval add up (a few % of context-switch time spread
  // over every gap), and paid out as whole ticks. The first tick of a thread only sets the mark.
  if (ticksNow == 0) return 0;  // an earlier handler took this signal's ticks and set the mark
  uint64_t cpu = clockNs(CLOCK_THREAD_CPUTIME_ID);
  CpuMark last = tCpuMark;
  auto interval = static_cast<int64_t>(intervalNs_);
  if (last.session != session_ || cpu <= last.cpuNs || interval <= 0) {
    tCpuMark = CpuMark{session_, cpu, 0};
    return 0;
  }
  int64_t debt = last.debtNs + static_cast<int64_t>(cpu - last.cpuNs) - static_cast<int64_t>(ticksNow) * interval;
  if (debt < -interval) debt = -interval;  // ticks that came early settle at most one interval ahead
  uint64_t owed = debt >= interval ? static_cast<uint64_t>(debt / interval) : 0;
  tCpuMark = CpuMark{session_, cpu, debt - static_cast<int64_t>(owed) * interval};
  return owed;
}

int32_t PerfEngine::kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max) {
  return PerfTickRing::kernelFrames_signalSafe(batch, i, out, max);
}

void PerfEngine::releaseTicks_signalSafe(const CpuTickBatch& batch) { PerfTickRing::release_signalSafe(batch); }

}  // namespace candor
