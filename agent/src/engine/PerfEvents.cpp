#include "engine/PerfEvents.h"

#include <errno.h>
#include <string.h>
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
  return static_cast<int>(syscall(__NR_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

int perfEventOpenOnCpu(perf_event_attr* attr, int cpu) {
  return static_cast<int>(syscall(__NR_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string perfOpenError(const char* what, int err) {
  std::string why = std::string(what) + ": " + strerror(err);
  if (err == EACCES || err == EPERM) why += " (see /proc/sys/kernel/perf_event_paranoid)";
  return why;
}

}  // namespace candor
