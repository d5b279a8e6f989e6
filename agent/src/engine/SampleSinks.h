// Where ticks go once an engine or the sampler thread has taken them: to the walkers in walk/,
// the layer above. engine/ names only these interfaces, so its includes point down; walk/
// implements them (SignalWalker, JvmtiWalker) and control/ wires the two together.
#pragma once
#include <jvmti.h>

#include <cstdint>

#include "base/Vocabulary.h"
#include "engine/Engine.h"

namespace candor {

// A tick delivered by a signal, to be walked on the interrupted thread itself.
class SignalSampleSink {
 public:
  virtual ~SignalSampleSink() = default;
  // Signal-handler path. Counts the tick, then records it in the ring (a stack or a failure
  // code) or counts it as dropped. Latency is either known (`latencyNs` >= 0, CPU engines) or
  // runs from `intendedNs` (the sampler's schedule, wall) to now; -1 and 0 mean unknown.
  virtual void takeSample_signalSafe(void* ucontext, SampleKind kind, ThreadState state, int64_t latencyNs,
                                     uint64_t intendedNs) = 0;
  // Signal-handler path, for a CPU engine's signal on thread `tid`: the ticks `batch` stands
  // for (none, one or several), with the engine to read their kernel frames from.
  virtual void takeCpuTicks_signalSafe(void* ucontext, int32_t tid, const CpuTickBatch& batch, Engine& engine) = 0;
};

// Stacks the sampler thread took itself through JVMTI (ordinary thread).
class JvmtiSampleSink {
 public:
  virtual ~JvmtiSampleSink() = default;
  // One stack from GetStackTrace / GetThreadListStackTraces (frames leaf first), or an error.
  // `cut`: JVMTI stopped at the frame count it was asked for, so outer frames may be missing.
  virtual void record(int tid, SampleKind kind, ThreadState state, uint64_t intendedNs, const jvmtiFrameInfo* frames,
                      int count, jvmtiError error, bool cut = false) = 0;
  // A wall sample of a thread that has not run since its last sample: same outcome again.
  virtual void recordRepeat(int tid, ThreadState state, uint64_t intendedNs) = 0;
  // `weight` wall ticks that cannot be taken: another handler took the wall signal over
  // (signal_lost; no stack).
  virtual void recordSignalLost(int tid, ThreadState state, uint64_t intendedNs, uint32_t weight) = 0;
  // A weighted sample on the thread it is about: an allocation (engine/AllocSampler: the bytes it
  // stands for) or a lock wait (engine/LockSampler: the nanoseconds waited). Its stack from
  // GetStackTrace, and the allocated or locked object's class (jvm/ClassNames id, 0: unknown).
  virtual void recordValued(int tid, SampleKind kind, ThreadState state, const jvmtiFrameInfo* frames, int count,
                            jvmtiError error, uint32_t classId, uint64_t value, bool cut) = 0;
};

}  // namespace candor
