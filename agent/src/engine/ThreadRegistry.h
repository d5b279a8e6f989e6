// The threads a session samples: which are armed, what they are called, what kind they are, and
// how much CPU they used while armed (the denominator of "samples per CPU-second"). For the
// sampler-thread modes it also keeps each Java thread's jthread (a JNI global reference) and
// its WallTargets entry. Called from JVMTI thread events, the control, writer and sampler
// threads; never from a signal handler.
#pragma once
#include <jvmti.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "base/Options.h"
#include "engine/Engine.h"

namespace candor {

enum class ThreadKind { kJava, kCompiler, kGc, kVm, kOther };
const char* threadKindName(ThreadKind k);
// Classifies a JVM-internal thread by its OS name (/proc/self/task/TID/comm).
ThreadKind classifyNativeThread(const std::string& comm);

struct ThreadRecord {
  int tid = 0;
  std::string name;
  ThreadKind kind = ThreadKind::kJava;
  ThreadTimer timer;
  uint64_t cpuAtArmNs = 0;
  uint64_t cpuNs = 0;  // CPU used while armed, up to the last disarm (or snapshot)
  bool live = true;
  bool armed = true;   // false: the engine could not arm it (e.g. no file descriptor left); its CPU is not profiled
  jthread ref = nullptr;  // global reference, Java threads only, when a sampler runs
  int wallIndex = -1;     // WallTargets entry, when a sampler runs
  bool endedBeforeInterval = false;  // loop=: ended in an earlier interval, kept one more (retireEnded)
};

// What the sampler thread needs of one thread for one tick.
struct SamplerTarget {
  int tid;
  jthread ref;
  int wallIndex;
};

class ThreadRegistry {
 public:
  // Starts a session. `engine` may be null (no CPU engine); `withSampler` keeps jthreads.
  void begin(Engine* engine, const Options& options, bool withSampler);
  // Registers (and arms) a thread unless it is known already or filtered out.
  void add(int tid, const std::string& name, ThreadKind kind, JNIEnv* env = nullptr, jthread thread = nullptr);
  void remove(int tid, JNIEnv* env);
  // Arms every thread of the process not yet known (allthreads), naming it from /proc.
  void addAllProcessThreads();
  // Disarms everything and settles CPU times; the records stay for the report.
  void end(JNIEnv* env);

  // Sampler thread: the live Java threads it may sample. Global references of threads that
  // ended are deleted here, by the sampler itself, so a reference it still holds from its
  // previous tick is never freed under it.
  void samplerTargets(JNIEnv* env, std::vector<SamplerTarget>* out);

  // A copy of every record, live CPU times brought up to date.
  std::vector<ThreadRecord> snapshot();
  // The CPU every thread used while armed, up to now: what the session's CPU ticks stand for.
  // One clock read per live thread (about 1 µs each).
  uint64_t armedCpuNs();
  size_t armedCount();
  // The live threads whose timer is armed; all live threads.
  std::vector<int> armedTids();
  std::vector<int> liveTids();
  // loop=, as an interval closes (its report written): forgets the threads that ended before it,
  // whose CPU and ticks an earlier report holds, and marks those that ended in it. A marked record
  // still names a late sample of its thread in the next interval, which does not list it otherwise.
  // So the registry holds the live threads and two intervals' ends, not every thread the JVM ever
  // started: a service that starts threads by the thousand keeps it (and each interval's report)
  // bounded for days, as pid_max bounds nothing much (4M tids on large machines).
  void retireEnded();
  void clear();

 private:
  bool passesFilter(int tid, const std::string& name) const;
  // CPU used while armed: settled periods plus the current one.
  static uint64_t cpuSoFar(const ThreadRecord& r);
  // Takes the thread out of the engine and keeps the CPU it used while armed (under mutex_).
  void disarm(ThreadRecord& r);
  void releaseSamplerState(ThreadRecord& r, JNIEnv* env);

  std::mutex mutex_;
  bool active_ = false;
  Engine* engine_ = nullptr;
  bool withSampler_ = false;
  std::unique_ptr<std::regex> nameFilter_;
  std::vector<int> tidFilter_;
  std::map<int, ThreadRecord> threads_;
  uint64_t retiredCpuNs_ = 0;  // CPU of the records retireEnded forgot: armedCpuNs stays a running total
  std::vector<jthread> deadRefs_;  // deleted by the sampler thread (see samplerTargets)
  bool warned_ = false;
};

uint64_t threadCpuNs(int tid);

}  // namespace candor
