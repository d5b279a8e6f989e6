// Opening perf_events software CPU clocks, shared by the engines that use them (`cpu`'s
// PerfEngine, walk=copy's PerfRingEngine), and reading their kernel callchains. Ordinary
// threads only, but for callchainKernelFrames_signalSafe.
#pragma once
#include <linux/perf_event.h>

#include <cstdint>
#include <string>

#include "base/Vocabulary.h"

namespace candor {

// A disabled PERF_COUNT_SW_CPU_CLOCK of `periodNs` for one thread, user space only; callers add
// sample types, rings and kernel sampling on top.
perf_event_attr perfCpuClockAttr(long long periodNs);
// perf_event_open for thread `tid` (0: the caller), close-on-exec; -1 with errno on failure.
// A descriptor numbered at or above half of the process's file limit (RLIMIT_NOFILE) is given back
// and refused with EMFILE: a timer per thread takes one descriptor per thread, and a server with
// more threads than its limit allows would otherwise lose every descriptor it has left to candor
// (its next open, accept or class load fails). The kernel hands out the lowest free number, so
// the number tells how full the table is; the threads refused are not sampled, and their CPU is
// shown as the CPU of threads candor did not sample.
int perfEventOpen(perf_event_attr* attr, int tid);
// perf_event_open of every thread that runs on `cpu` (pid -1), close-on-exec; -1 with errno.
int perfEventOpenOnCpu(perf_event_attr* attr, int cpu);
// "what failed: strerror", with a hint at perf_event_paranoid when permission was refused.
std::string perfOpenError(const char* what, int err);

// Signal-handler path: the kernel frames of a sample's callchain of `count` ips, innermost first,
// `ipAt(k)` reading the k-th; perf's context markers (PERF_CONTEXT_KERNEL, ...) are skipped.
template <typename IpAt>
inline int32_t callchainKernelFrames_signalSafe(uint64_t count, IpAt&& ipAt, ASGCT_CallFrame* out, int32_t max) {
  int32_t n = 0;
  for (uint64_t k = 0; k < count && n < max; k++) {
    uint64_t ip = ipAt(k);
    if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;
    out[n++] = {kKernelFrameBci, reinterpret_cast<jmethodID>(ip)};
  }
  return n;
}

}  // namespace candor
