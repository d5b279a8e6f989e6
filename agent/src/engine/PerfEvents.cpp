#include "engine/PerfEvents.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace candor {

perf_event_attr perfCpuClockAttr(long long periodNs) {
  perf_event_attr attr = {};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = static_cast<__u64>(periodNs);
  attr.disabled = 1;
  // perf_event_paranoid=2 allows user-space-only events to unprivileged users.
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return attr;
}

int perfEventOpen(perf_event_attr* attr, int tid) {
  int fd = static_cast<int>(syscall(__NR_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
  struct rlimit files = {};
  if (fd >= 0 && getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(fd) >= files.rlim_cur / 2) {
    close(fd);
    errno = EMFILE;
    return -1;
  }
  return fd;
}

int perfEventOpenOnCpu(perf_event_attr* attr, int cpu) {
  return static_cast<int>(syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string perfOpenError(const char* what, int err) {
  std::string why = std::string(what) + ": " + strerror(err);
  if (err == EACCES || err == EPERM) why += " (see /proc/sys/kernel/perf_event_paranoid)";
  struct rlimit files = {};
  if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &files) == 0) {
    why += " (candor keeps its perf descriptors below half of the file limit, " + std::to_string(files.rlim_cur) +
           ", to leave the application the rest: threads beyond that are not sampled; raise the limit,"
           " ulimit -n, or use event=ctimer, which needs none)";
  }
  return why;
}

}  // namespace candor
