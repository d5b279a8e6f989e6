// What kind of sample a tick is (which mechanism took it), and the thread state it saw.
#pragma once
#include <cstdint>

namespace candor {

enum class SampleKind : uint8_t {
  kCpu = 0,        // CPU-time engine signal (cpu, ctimer, itimer)
  kWall = 1,       // wall-clock sampler: tgkill/sigqueue to a chosen thread
  kSafepoint = 2,  // JVMTI GetThreadListStackTraces (global safepoint)
  kHandshake = 3,  // JVMTI GetStackTrace per thread (per-thread handshake)
  kCount = 4,
};

inline const char* sampleKindName(SampleKind k) {
  static const char* const kNames[] = {"cpu", "wall", "safepoint", "handshake"};
  return kNames[static_cast<int>(k)];
}

enum class ThreadState : uint8_t {
  kUnknown = 0,
  kRunning = 1,    // in Java, used CPU since the last look
  kRunnable = 2,   // in Java, but no CPU since the last look (waiting for a core)
  kSleeping = 3,   // Thread.sleep
  kMonitor = 4,    // blocked entering a monitor (synchronized)
  kWaiting = 5,    // Object.wait and other waits
  kParked = 6,     // LockSupport.park (j.u.c locks, pools)
  kNative = 7,     // in native code, using CPU
  kIo = 8,         // in native code without CPU: blocked in a system call (I/O)
  kCount = 9,
};

inline const char* threadStateName(ThreadState s) {
  static const char* const kNames[] = {"unknown", "running", "runnable", "sleeping", "monitor",
                                       "waiting", "parked",  "native",   "io"};
  return kNames[static_cast<int>(s)];
}

inline bool isIdleState(ThreadState s) {
  return s == ThreadState::kSleeping || s == ThreadState::kMonitor || s == ThreadState::kWaiting ||
         s == ThreadState::kParked || s == ThreadState::kIo;
}

}  // namespace candor
