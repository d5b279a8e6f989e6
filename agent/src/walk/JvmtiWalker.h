// Stacks taken by JVMTI from the sampler thread (event=safepoint, event=handshake) and wall
// samples repeated without a signal. Ordinary thread: JVMTI calls may block and allocate. The
// results go through the same ring and accounting as signal-handler samples.
#pragma once
#include <jvmti.h>

#include <vector>

#include "concurrent/Clock.h"
#include "concurrent/SampleRing.h"
#include "store/SampleAccounting.h"

namespace candor {

class JvmtiWalker {
 public:
  JvmtiWalker(SampleRing& ring, HandlerCounters& counters) : ring_(ring), counters_(counters) {}

  // One stack from GetStackTrace / GetThreadListStackTraces (frames leaf first), or an error.
  // `cut`: JVMTI stopped at the frame count it was asked for, so outer frames may be missing.
  void record(int tid, SampleKind kind, ThreadState state, uint64_t intendedNs, const jvmtiFrameInfo* frames,
              int count, jvmtiError error, bool cut = false);
  // A wall sample of a thread that has not run since its last sample: same outcome again.
  void recordRepeat(int tid, ThreadState state, uint64_t intendedNs);

 private:
  SampleRing& ring_;
  HandlerCounters& counters_;
};

}  // namespace candor
