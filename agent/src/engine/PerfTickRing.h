// The sample ring of a thread's `cpu` perf event, read by that thread's own signal handler
// without a system call. The kernel writes one record per counter overflow: its time
// (PERF_SAMPLE_TIME, CLOCK_MONOTONIC), whether it interrupted kernel code (the header's cpumode)
// and, when kernel sampling is allowed, the kernel callchain (PERF_SAMPLE_CALLCHAIN without the
// user part). So the handler knows how many ticks a signal stands for, how late it is, and what
// the kernel was doing. A table from the event's fd to its ring lets the handler, which is given
// the fd in siginfo (F_SETSIG), find it.
//
// Ownership argument for the handler: a table entry names the thread (tid) the ring belongs to.
// The handler uses a ring only when that tid is its own thread. Such a ring is unmapped only by
// that same thread (ThreadEnd, which clears the entry before unmapping, so a handler
// interrupting it sees either a valid ring or none) or after every handler has finished
// (profiling stop). A stale si_fd whose number another thread's event has reused fails the tid
// check. Only the owning thread's handler reads a ring, and handlers of one thread do not nest
// (the signal is blocked while its handler runs), so each ring has one reader.
#pragma once
#include <cstdint>

#include "base/Vocabulary.h"
#include "engine/CpuTickBatch.h"

namespace candor {

class PerfTickRing {
 public:
  // Maps the ring of `fd` (`dataPages`, a power of two) and registers it for `tid`. Returns the
  // mapping or nullptr (e.g. over perf_event_mlock_kb: then that thread's ticks are one per
  // signal, with no kernel frames and no latency; nothing else changes). `callchain`: the event
  // samples PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN, else PERF_SAMPLE_TIME alone.
  static void* map(int fd, int tid, uint32_t dataPages, bool callchain);
  // Unregisters and unmaps.
  static void unmap(int fd, void* ring);

  // Signal-handler path: fills `batch` with the records written since the last read of the
  // ring of `fd`, when that ring belongs to the calling thread; leaves batch->fromRing false
  // otherwise. The records stay in the ring until release_signalSafe.
  static void read_signalSafe(int fd, int callingTid, CpuTickBatch* batch);
  // Signal-handler path: the kernel frames of record `i` of a batch read above, innermost first,
  // as {kKernelFrameBci, ip} frames; returns how many (at most `max`).
  static int32_t kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max);
  // Signal-handler path: gives the records of `batch` back to the kernel.
  static void release_signalSafe(const CpuTickBatch& batch);
};

}  // namespace candor
