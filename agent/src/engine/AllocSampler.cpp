#include "engine/AllocSampler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "base/Ordering.h"
#include "jvm/ClassNames.h"
#include "jvm/JvmtiFrames.h"

namespace candor {

namespace {

// The session's sink, its mean interval and depth; null while no session samples allocations.
// A callback announces itself in `gInFlight` before it reads the sink (both sequentially
// consistent), and stop() clears the sink before it waits for `gInFlight` to reach 0: either a
// callback sees null, or stop() sees it in flight and waits for it.
std::atomic<JvmtiSampleSink*> gSink{nullptr};
std::atomic<int> gInFlight{0};
uint64_t gInterval = 0;   // written by start() before gSink is published
uint32_t gMaxDepth = 0;   // likewise

}  // namespace

uint64_t AllocSampler::weightOf(uint64_t size, uint64_t interval) {
  if (interval == 0 || size == 0) return size;  // alloc=0: every allocation is sampled
  double p = -std::expm1(-static_cast<double>(size) / static_cast<double>(interval));
  return p > 0 ? static_cast<uint64_t>(std::llround(static_cast<double>(size) / p)) : size;
}

bool AllocSampler::start(jvmtiEnv* jvmti, int64_t intervalBytes, uint32_t maxDepth, JvmtiSampleSink* sink,
                         std::string* why) {
  jvmtiCapabilities caps = {};
  caps.can_generate_sampled_object_alloc_events = 1;
  if (jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
    *why = "this JVM does not offer allocation sampling to agents (can_generate_sampled_object_alloc_events)";
    return false;
  }
  if (jvmti->SetHeapSamplingInterval(static_cast<jint>(intervalBytes)) != JVMTI_ERROR_NONE) {
    *why = "the JVM refused the allocation sampling interval " + std::to_string(intervalBytes);
    return false;
  }
  gInterval = static_cast<uint64_t>(intervalBytes);
  gMaxDepth = maxDepth;
  sv(gSink, sink);
  if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr) != JVMTI_ERROR_NONE) {
    sv(gSink, nullptr);
    *why = "the JVM refused to enable SampledObjectAlloc events";
    return false;
  }
  return true;
}

void AllocSampler::stop(jvmtiEnv* jvmti) {
  if (jvmti != nullptr) jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
  sv(gSink, nullptr);
  while (lvSc(gInFlight) != 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

void JNICALL AllocSampler::onSample(jvmtiEnv* jvmti, JNIEnv*, jthread, jobject, jclass klass, jlong size) {
  addSc(gInFlight, 1);
  JvmtiSampleSink* sink = lvSc(gSink);
  if (sink != nullptr) {
    // The frames buffer is the thread's own, made on its first sample: no allocation after that.
    thread_local JvmtiFrames frames;  // the thread's own
    thread_local int tid = static_cast<int>(syscall(SYS_gettid));
    jint count = 0;
    bool cut = false;
    jvmtiError error = frames.stackTrace(jvmti, nullptr, gMaxDepth, &count, &cut);
    uint32_t classId = ClassNames::instance().intern(jvmti, klass);
    auto bytes = static_cast<uint64_t>(size < 0 ? 0 : size);
    sink->recordValued(tid, SampleKind::kAlloc, ThreadState::kRunning, frames.data(), count, error, classId,
                       weightOf(bytes, gInterval), cut);
  }
  subOrdered(gInFlight, 1);  // release: stop() (seq_cst load) sees every use of the sink before it
}

}  // namespace candor
