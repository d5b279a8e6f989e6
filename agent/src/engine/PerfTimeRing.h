// A perf event's smallest sample ring (metadata page + one data page) that holds only the
// time of each overflow, and a table from the event's fd to its ring so that the signal handler,
// which is given the fd in siginfo (F_SETSIG), can find it.
//
// Ownership argument for the handler: a table entry names the thread (tid) the ring belongs to.
// The handler uses a ring only when that tid is its own thread. Such a ring is unmapped only by
// that same thread (ThreadEnd, which clears the entry before unmapping, so a handler interrupting
// it sees either a valid ring or none) or after every handler has finished (profiling stop). A
// stale si_fd whose number another thread's event has reused fails the tid check.
#pragma once
#include <cstdint>

namespace candor {

class PerfTimeRing {
 public:
  // mmap flags and attributes for perf_event_attr: sample_type etc. are set by the caller.
  static constexpr int kDataPages = 1;

  // Maps the ring of `fd` (an event opened with PERF_SAMPLE_TIME) and registers it for `tid`.
  // Returns the mapping or nullptr (e.g. over perf_event_mlock_kb: then latency is not measured
  // for that thread, nothing else changes).
  static void* map(int fd, int tid);
  // Unregisters and unmaps.
  static void unmap(int fd, void* ring);

  // Signal-handler path: consumes every record of the ring of `fd` and returns now minus the
  // newest sample's time, or -1 when `fd` has no ring of the calling thread or no new sample.
  static int64_t latencyOfNewest_signalSafe(int fd, int callingTid);
};

}  // namespace candor
