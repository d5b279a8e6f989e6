// The type ids candor's JFR files use, and the fixed entries of the small constant pools.
// Ids are candor's own (a reader learns them from each chunk's metadata); they are the same in
// every chunk, and so are the ids of constant-pool entries, as the JDK's parser expects
// (it reuses an entry resolved in an earlier chunk of the file when the id comes back).
#pragma once
#include <cstdint>

#include "base/Vocabulary.h"

namespace candor::jfr {

enum TypeId : uint64_t {
  kMetadataEvent = 0,    // the metadata event
  kCheckpointEvent = 1,  // the constant-pool event

  kBoolean = 4,
  kChar = 5,
  kFloat = 6,
  kDouble = 7,
  kByte = 8,
  kShort = 9,
  kInt = 10,
  kLong = 11,

  kString = 20,
  kClass = 21,
  kThread = 22,
  kThreadGroup = 23,
  kClassLoader = 24,
  kFrameType = 25,
  kThreadState = 26,
  kStackTrace = 27,
  kStackFrame = 28,
  kMethod = 29,
  kPackage = 30,
  kSymbol = 31,

  kExecutionSample = 100,   // jdk.ExecutionSample: one per recorded CPU tick
  kFailedTick = 101,        // candor.FailedTick: one per failed tick, with its bucket
  kProfilerSettings = 102,  // candor.ProfilerSettings: at the start of every chunk
  kProfilerCounters = 103,  // candor.ProfilerCounters: at every dump and at stop
  kWallClockSample = 104,   // candor.WallClockSample: one per recorded wall tick (event=wall)
  kSafepointSample = 105,   // candor.SafepointSample (event=safepoint)
  kHandshakeSample = 106,   // candor.HandshakeSample (event=handshake)
  kObjectAllocationSample = 107,  // jdk.ObjectAllocationSample: one per recorded allocation sample (alloc=)
  kJavaMonitorEnter = 108,  // jdk.JavaMonitorEnter: one per recorded monitor wait (lock=)
  kThreadPark = 109,        // jdk.ThreadPark: one per recorded park on a java.util.concurrent lock (lock=)

  kLabel = 200,
  kCategory = 201,
  kDescription = 202,
  kTimestamp = 203,
  kTimespan = 204,
};

// jdk.types.FrameType entries. AsyncGetCallTrace does not say whether a Java frame was
// interpreted, compiled or inlined: Java frames are written as "JIT compiled", native methods as
// "Native". "Interpreted" and "Inlined" are declared for readers that expect them.
enum FrameTypeId : uint32_t {
  kFrameInterpreted = 1,
  kFrameJitCompiled = 2,
  kFrameInlined = 3,
  kFrameNative = 4,
  kFrameCpp = 5,
  kFrameKernel = 6,
};

// The event type of a recorded sample of each kind (a lock wait's depends on its state).
inline TypeId sampleEventType(SampleKind k) {
  switch (k) {
    case SampleKind::kCpu: return kExecutionSample;
    case SampleKind::kWall: return kWallClockSample;
    case SampleKind::kSafepoint: return kSafepointSample;
    case SampleKind::kHandshake: return kHandshakeSample;
    case SampleKind::kAlloc: return kObjectAllocationSample;
    case SampleKind::kLock: return kJavaMonitorEnter;
    case SampleKind::kCount: break;
  }
  return kExecutionSample;
}

// jdk.types.ThreadState entries: one per candor ThreadState (key = state + 1), named as JVMTI /
// the JDK name them where there is such a state. A CPU-time tick only hits a running thread:
// its samples are always STATE_RUNNABLE.
inline uint64_t threadStateKey(ThreadState s) { return static_cast<uint64_t>(s) + 1; }
inline const char* threadStateJfrName(ThreadState s) {
  static_assert(static_cast<int>(ThreadState::kCount) == 9, "name the new thread state here");
  static const char* const kNames[] = {
      "STATE_UNKNOWN",                   // unknown
      "STATE_RUNNABLE",                  // running: in Java, used CPU since the last look
      "STATE_RUNNABLE_NO_CPU",           // runnable: in Java, no CPU since the last look
      "STATE_SLEEPING",                  // sleeping
      "STATE_BLOCKED_ON_MONITOR_ENTER",  // monitor
      "STATE_IN_OBJECT_WAIT",            // waiting
      "STATE_PARKED",                    // parked
      "STATE_IN_NATIVE",                 // native: in native code, using CPU
      "STATE_IN_NATIVE_NO_CPU",          // io: in native code without CPU (a blocking system call)
  };
  return kNames[static_cast<int>(s)];
}
constexpr uint64_t kStateRunnable = static_cast<uint64_t>(ThreadState::kRunning) + 1;

constexpr uint64_t kTicksPerSecond = 1'000'000'000;  // ticks are CLOCK_MONOTONIC nanoseconds
constexpr uint64_t kMetadataId = 0x63616e646f72;       // "candor": one metadata for every chunk

}  // namespace candor::jfr
