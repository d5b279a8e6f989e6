// Clock readings in nanoseconds. clock_gettime is async-signal-safe (and a vDSO call for the
// monotonic and realtime clocks), so these may be used on the signal-handler path.
#pragma once
#include <time.h>

#include <cstdint>

namespace candor {

inline uint64_t clockNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

inline uint64_t monotonicNs() { return clockNs(CLOCK_MONOTONIC); }

}  // namespace candor
