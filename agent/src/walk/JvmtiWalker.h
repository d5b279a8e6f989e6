// Stacks taken by JVMTI from the sampler thread (event=safepoint, event=handshake), wall
// samples repeated without a signal, and allocation and lock samples (on the thread they are
// about). Ordinary thread: JVMTI calls may block and allocate. The
// results go through the same ring and accounting as signal-handler samples.
#pragma once
#include <jvmti.h>

#include <vector>

#include "concurrent/Clock.h"
#include "concurrent/SampleRing.h"
#include "engine/SampleSinks.h"
#include "store/SampleAccounting.h"

namespace candor {

class JvmtiWalker : public JvmtiSampleSink {
 public:
  JvmtiWalker(SampleRing& ring, HandlerCounters& counters) : ring_(ring), counters_(counters) {}

  void record(int tid, SampleKind kind, ThreadState state, uint64_t intendedNs, const jvmtiFrameInfo* frames,
              int count, jvmtiError error, bool cut = false) override;
  void recordRepeat(int tid, ThreadState state, uint64_t intendedNs) override;
  void recordSignalLost(int tid, ThreadState state, uint64_t intendedNs, uint32_t weight) override;
  void recordValued(int tid, SampleKind kind, ThreadState state, const jvmtiFrameInfo* frames, int count,
                    jvmtiError error, uint32_t classId, uint64_t value, bool cut) override;

 private:
  SampleRing& ring_;
  HandlerCounters& counters_;
};

}  // namespace candor
