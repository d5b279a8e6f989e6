// Allocation samples: JVMTI SampledObjectAlloc (JDK 11+). HotSpot picks, per thread, one
// allocation every N bytes on average (a random, exponentially distributed gap, N =
// alloc=), and calls back on the allocating thread after the object exists. The callback takes
// the thread's stack with GetStackTrace and the object's class, and hands both to the sink with
// the bytes the sample stands for.
//
// Weight. A sample stands for more than its own object: with a gap of mean N, an object of size
// s is sampled with probability 1 - exp(-s/N), so weighting it by s / (1 - exp(-s/N)) makes the
// expected sum of weights equal to the bytes allocated (the estimator async-profiler and the
// JDK's heap sampling use too). Small objects weigh about N; an object far larger than N weighs
// its size. TLAB-driven sampling (JFR's) was not chosen: HotSpot exposes it to no agent.
//
// Thread context: start/stop on a command thread; onSample in the JVMTI callback on any Java
// thread (an ordinary thread: it may lock, allocate and call JVMTI, but it runs on the
// application's allocation path, so it stays short). stop() disables the event and then waits
// for callbacks still running, so the sink outlives every use of it.
#pragma once
#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "engine/SampleSinks.h"

namespace candor {

class AllocSampler {
 public:
  // Adds the capability (also on attach: HotSpot always offers it), sets the mean interval and
  // enables the event; false with a one-line reason.
  static bool start(jvmtiEnv* jvmti, int64_t intervalBytes, uint32_t maxDepth, JvmtiSampleSink* sink,
                    std::string* why);
  // Disables the event and waits until no callback uses the sink. Idempotent.
  static void stop(jvmtiEnv* jvmti);

  // The JVMTI SampledObjectAlloc callback (set by control/Commands with the others).
  static void JNICALL onSample(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object, jclass klass,
                               jlong size);

  // The bytes a sample of an object of `size` bytes stands for at mean interval `interval`.
  static uint64_t weightOf(uint64_t size, uint64_t interval);
};

}  // namespace candor
