// Opening perf_events software CPU clocks, shared by the engines that use them (`cpu`'s
// PerfEngine, walk=copy's PerfRingEngine). Ordinary threads only.
#pragma once
#include <linux/perf_event.h>

#include <string>

namespace candor {

// A disabled PERF_COUNT_SW_CPU_CLOCK of `periodNs` for one thread, user space only; callers add
// sample types, rings and kernel sampling on top.
perf_event_attr perfCpuClockAttr(long long periodNs);
// perf_event_open for thread `tid` (0: the caller), close-on-exec; -1 with errno on failure.
int perfEventOpen(perf_event_attr* attr, int tid);
// perf_event_open of every thread that runs on `cpu` (pid -1), close-on-exec; -1 with errno.
int perfEventOpenOnCpu(perf_event_attr* attr, int cpu);
// "what failed: strerror", with a hint at perf_event_paranoid when permission was refused.
std::string perfOpenError(const char* what, int err);

}  // namespace candor
