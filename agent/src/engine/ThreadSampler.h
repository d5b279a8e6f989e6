// candor's sampler thread, for the modes that pick threads on a wall-clock schedule:
//   wall       signal each chosen thread (sigqueue); its handler walks itself with AGCT
//   safepoint  JVMTI GetThreadListStackTraces: the classic, safepoint-biased sampler
//   handshake  JVMTI GetStackTrace per chosen thread: a per-thread handshake, no global pause
// Every tick has a fixed intended time (start + k·interval); the sleep is absolute, so the
// time a tick takes is compensated, and the latency of each sample is measured from its
// intended time (no coordinated omission).
// Selection is a partial safepoint: not every thread each tick, but threads that used CPU since
// the last tick first (they are where the CPU goes), then the others in proportion to how many
// they are, chosen at random so that no idle thread is systematically left out.
#pragma once
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/Options.h"
#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "engine/SampleSinks.h"
#include "engine/ThreadRegistry.h"
#include "jvm/JvmtiFrames.h"
#include "store/LatencyHistogram.h"

namespace candor {

struct SamplerStats {
  uint64_t ticks = 0;           // ticks run
  uint64_t missedTicks = 0;     // scheduled ticks skipped because the sampler fell behind
  uint64_t signalsSent = 0;
  uint64_t skippedPending = 0;  // chosen while its previous signal was undelivered: recorded as runnable
  uint64_t signalFailures = 0;  // sigqueue failed (the thread had just exited)
  uint64_t repeated = 0;        // idle since its last sample: recorded without a signal
  uint64_t runningSeen = 0;     // Σ over ticks of threads that used CPU since the last tick
  uint64_t runningSampled = 0;  // … of which were chosen that tick
  uint64_t candidatesMax = 0;   // most threads considered in one tick
  uint64_t elapsedNs = 0;       // from the first tick to stop
  LatencyHistogram tickCpuNs;   // the sampler's own CPU per tick
  LatencyHistogram callNs;      // duration of each JVMTI stack call (safepoint: the pause)
};

class ThreadSampler {
 public:
  ThreadSampler(const Options& options, ThreadRegistry& registry, JvmtiSampleSink& sink);
  ~ThreadSampler();
  void start();
  void stop();
  // A copy of the counters; safe while running (histograms are copied between ticks).
  SamplerStats stats();
  // The writer found the wall signal taken over by another handler: from now on no signal is
  // sent (it would go to that handler), and each wall tick that needed one is signal_lost.
  void wallSignalTaken() { so(wallSignalTaken_, true); }

 private:
  void run(JNIEnv* env);
  void tick(JNIEnv* env, uint64_t intendedNs);
  ThreadState classify(const SamplerTarget& t, uint64_t cpuNow, bool* usedCpu);
  void sampleWall(const SamplerTarget& t, ThreadState state, uint64_t cpuNow, uint64_t intendedNs);
  void sampleHandshake(const SamplerTarget& t, ThreadState state, uint64_t intendedNs);
  void sampleSafepoint(const std::vector<size_t>& chosen, uint64_t intendedNs);
  uint64_t nextRandom();
  // CPU a thread must use between two looks to count as busy. Sampling a thread costs it CPU
  // (signal delivery and the walk, tens of µs here), which must not make an idle thread busy.
  uint64_t busyThresholdNs() const;

  Options options_;
  ThreadRegistry& registry_;
  JvmtiSampleSink& sink_;
  int wallSignal_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> wallSignalTaken_{false};
  std::mutex statsMutex_;
  SamplerStats stats_;
  uint64_t random_ = 0x853c49e6748fea9bULL;
  // Per-tick scratch, reused to avoid allocating every tick.
  std::vector<SamplerTarget> targets_;
  std::vector<ThreadState> states_;
  std::vector<uint64_t> cpu_;
  std::vector<size_t> busy_, idle_, chosen_;
  JvmtiFrames frames_;                  // handshake mode; grows with the deepest stack seen
  uint32_t safepointDepth_ = 0;         // frames asked of GetThreadListStackTraces; grows likewise
};

}  // namespace candor
