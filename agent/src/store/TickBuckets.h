// The named buckets a tick can land in besides a recorded stack. AGCT error codes 0..-10 map to
// their own names; candor adds its own codes below them. `dropped` is counted apart (the tick
// never reached the ring), so it has no code.
#pragma once
#include <cstdint>

namespace candor {

enum class Bucket : int {
  kNoJavaFrame = 0,            // AGCT ticks_no_Java_frame
  kNoClassLoad = 1,            // -1
  kGcActive = 2,               // -2
  kUnknownNotJava = 3,         // -3
  kNotWalkableNotJava = 4,     // -4
  kUnknownJava = 5,            // -5
  kNotWalkableJava = 6,        // -6
  kUnknownState = 7,           // -7
  kThreadExit = 8,             // -8
  kDeopt = 9,                  // -9
  kSafepoint = 10,             // -10
  kNotJavaThread = 11,         // candor: signal hit a thread without a JNIEnv
  kWalkFault = 12,             // candor: the own walker (walk=vm) read bad memory; crash guard caught it
  kRemoteBusy = 13,            // candor: walk=remote, every request slot was taken
  kRemoteTimeout = 14,         // candor: walk=remote, no walker took the request within its timeout
  kUnknownError = 15,          // an AGCT code this build does not know
  kWalkThrottled = 16,         // candor: not walked, the thread's last walk took over half its interval
  kCount = 17,
};

// numFrames value a handler stores for a thread without a JNIEnv.
constexpr int32_t kNotJavaThreadCode = -1000;
// numFrames value of a wall sample of a thread that stayed idle since its last sample: the
// sampler records it without a signal, and the consumer repeats that thread's last result.
constexpr int32_t kRepeatLastCode = -1001;
// numFrames value of a walk=vm tick whose walk faulted and was caught by the crash guard.
constexpr int32_t kWalkFaultCode = -1002;
// numFrames values of walk=remote ticks that were not walked (RemoteWalker).
constexpr int32_t kRemoteBusyCode = -1003;
constexpr int32_t kRemoteTimeoutCode = -1004;
// numFrames value of a CPU tick not walked because its thread's walks cost too much (WalkThrottle).
constexpr int32_t kWalkThrottledCode = -1005;

inline Bucket bucketForCode(int32_t code) {
  if (code == kNotJavaThreadCode) return Bucket::kNotJavaThread;
  if (code == kWalkFaultCode) return Bucket::kWalkFault;
  if (code == kRemoteBusyCode) return Bucket::kRemoteBusy;
  if (code == kRemoteTimeoutCode) return Bucket::kRemoteTimeout;
  if (code == kWalkThrottledCode) return Bucket::kWalkThrottled;
  if (code <= 0 && code >= -10) return static_cast<Bucket>(-code);
  return Bucket::kUnknownError;
}

inline const char* bucketName(Bucket b) {
  static const char* const kNames[] = {
      "no_java_frame", "no_class_load", "gc_active",      "unknown_not_java", "not_walkable_not_java",
      "unknown_java",  "not_walkable_java", "unknown_state", "thread_exit",   "deopt",
      "safepoint",     "not_java_thread", "walk_fault",    "remote_busy",      "remote_timeout",
      "unknown_error", "walk_throttled"};
  return kNames[static_cast<int>(b)];
}

}  // namespace candor
