// Lock waits (lock=THRESHOLD): a thread that waited at least THRESHOLD to enter a contended
// `synchronized` (JVMTI MonitorContendedEnter/Entered), or parked on a java.util.concurrent lock
// (Unsafe.park with a blocker that is an AbstractOwnableSynchronizer: ReentrantLock,
// ReentrantReadWriteLock, Semaphore...), becomes one sample: its stack when it got the lock, the
// lock's class, and the nanoseconds it waited. Condition waits, Object.wait and pool parks are
// waiting for work, not for a lock, and are not recorded (wall=state shows them).
//
// Parks. JVMTI has no park event, so Unsafe.park's native method is re-bound (JNI RegisterNatives)
// to a wrapper that times the original (HotSpot's Unsafe_Park, found in libjvm's symbol table).
// The wrapper stays bound for the process and passes through while no session records locks.
// HotSpot logs a warning on stdout when a platform native is re-bound; it is silenced for that
// one call through the VM.log diagnostic command (jni+resolve off, then back to warning).
//
// Thread context: start/stop on a command thread; the callbacks and the park wrapper on the
// waiting Java threads (ordinary threads: JNI and JVMTI calls are allowed; they run only after a
// wait, except for the blocker lookup before a park). stop() disables the monitor events and
// waits for callbacks in flight, so the sink outlives every use of it.
#pragma once
#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "engine/SampleSinks.h"

namespace candor {

class LockSampler {
 public:
  // Enables monitor events and the park wrapper; false with a one-line reason (no monitor
  // events). `unsafePark` is HotSpot's Unsafe_Park (control/ finds it); without it parks are not
  // timed and `parkWhy` says why (the caller logs it), monitors still are.
  static bool start(jvmtiEnv* jvmti, JNIEnv* env, int64_t thresholdNs, uint32_t maxDepth, JvmtiSampleSink* sink,
                    void* unsafePark, std::string* parkWhy, std::string* why);
  // Disables the monitor events, stops recording parks, and waits for callbacks in flight.
  static void stop(jvmtiEnv* jvmti);

  // JVMTI callbacks (set by control/Commands with the others).
  static void JNICALL onContendedEnter(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object);
  static void JNICALL onContendedEntered(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object);
};

}  // namespace candor
