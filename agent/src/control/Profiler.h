// The profiler's state machine: idle → running → idle, driven by `start`, `stop`, `dump` and
// the JVM's lifecycle events. Owns one session's engine, ring, store and writer thread.
#pragma once
#include <jvmti.h>

#include <array>
#include <memory>
#include <unordered_map>
#include <mutex>
#include <string>

#include "base/Options.h"
#include "control/Pusher.h"
#include "control/ReportBuilder.h"
#include "control/WriterThread.h"
#include "engine/Engine.h"
#include "engine/LostSignalTicks.h"
#include "engine/ThreadRegistry.h"
#include "engine/ThreadSampler.h"
#include "jvm/MethodResolver.h"
#include "output/FrameNamer.h"
#include "output/jfr/JfrRecorder.h"
#include "store/LabelSets.h"
#include "store/SampleAccounting.h"
#include "store/TraceStore.h"
#include "walk/JvmtiWalker.h"
#include "walk/RingReader.h"
#include "walk/SignalWalker.h"

namespace candor {

class Profiler {
 public:
  static Profiler& instance();

  // Commands; each returns false with a one-line reason in `why`.
  bool start(const Options& options, std::string* why);
  bool stop(std::string* why);
  // Writes the outputs without stopping: to `files` when given, else to the session's outputs.
  bool dump(const std::vector<std::string>& files, std::string* why);
  std::string status();

  // JVMTI events.
  void onThreadStart(jvmtiEnv* jvmti, JNIEnv* env, jthread thread);
  void onThreadEnd(JNIEnv* env = nullptr);
  void onVMDeath();

  // Candor.label scopes: the process's label sets, whether or not a session runs.
  LabelSets& labels() { return labels_; }

 private:
  class UndoLadder;
  Profiler() = default;
  static bool failForTest(const char* step, std::string* why);
  // percpu: the interval its timers run at for `requestedNs` (see the definition).
  static long long perCpuIntervalNs(long long requestedNs);
  std::unique_ptr<Engine> createEngine(const Options& options, std::string* why);
  // The steps of start() after the engine, each pushing its undo.
  bool startRecordingLocked(const Options& options, UndoLadder& undo, std::string* why);
  void startWalkers(JNIEnv* env, UndoLadder& undo);
  bool startEventSamplers(JNIEnv* env, UndoLadder& undo, std::string* why);
  void logStarted(const Options& asked);
  bool startPush(UndoLadder& undo, std::string* why);
  static std::string defaultServiceName();
  // Under storeMutex_: the outputs of the current interval (or session) to `paths`; with a
  // `stamp`, each to x-STAMP.ext instead of x.ext (loop= rotation).
  void writeOutputsLocked(bool final, const std::vector<std::string>& paths, const std::string& stamp);
  // Under storeMutex_: the interval's (or session's) counts, clocks and state for its report; at
  // stop (`final`) every tick taken, else those already in their buckets.
  SessionTotals totalsLocked(bool final) const;
  MemoryReport memoryLocked() const;  // under storeMutex_
  // loop=, on the writer thread under storeMutex_: writes the interval's outputs, rotates the
  // .jfr, and starts the next interval with an empty store.
  void rotateIntervalLocked(uint64_t nowNs);
  bool checkOutputs(const Options& options, std::string* why);
  std::vector<std::string> outputPaths() const;  // the session's files, stats last
  void armLiveJavaThreads(JNIEnv* env);
  // The CPU engine's timers, as the start line and status name them: per-thread, per-cpu, process.
  const char* timersName() const;
  bool drainStep();         // writer thread: ring → store, resolve new methods; true if busy
  // Writer thread, about once a second: whether another handler took candor's signals over since.
  void watchSignals();
  void logDroppedHint();  // at stop, when more than 1% of the ticks were dropped
  void logRateHint(const ProfileReport& r);  // at stop, when ctimer/itimer sample coarser than asked
  // allthreads, or a process-wide timer (itimer), whose signals land on GC and JIT threads too:
  // every thread of the process is registered, so their ticks get their kind's root ([GC], ...).
  bool namesAllThreads() const { return options_.allThreads || (engine_ && !engine_->perThread()); }
  void logReplacedSignal();  // once per signal taken over
  // Writer thread about once a second, and stop(): charges the CPU ticks a taken-over CPU signal
  // no longer brings to signal_lost (LostSignalTicks).
  void settleLostSignalTicks();
  uint64_t drainLocked();
  void writeOutputs(bool final, const std::vector<std::string>& paths);

  std::mutex commandMutex_;  // serializes start/stop/dump/status
  bool running_ = false;
  Options options_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<SampleRing> ring_;
  std::unique_ptr<SignalWalker> walker_;
  std::unique_ptr<JvmtiWalker> jvmtiWalker_;
  std::unique_ptr<RemoteWalker> remoteWalker_;  // walk=remote only
  std::unique_ptr<RingReader> ringReader_;      // walk=copy only
  std::unique_ptr<ThreadSampler> sampler_;
  int wallSignal_ = 0;
  HandlerCounters counters_;
  ThreadRegistry registry_;
  WriterThread writer_;

  std::mutex storeMutex_;  // the store, accounting and resolver: writer thread vs commands
  TraceStore store_;
  SampleAccounting accounting_{store_};
  std::unique_ptr<MethodResolver> resolver_;
  std::unique_ptr<FrameNamer> names_;
  bool namesPreloaded_ = false;
  std::unique_ptr<JfrRecorder> jfr_;
  LabelSets labels_;
  std::unique_ptr<Pusher> pusher_;  // push= only
  std::string pushDir_;             // push= without a .jfr output: where candor records the intervals it sends

  // loop=: every output covers one interval. What the counters (cumulative for the session) and
  // the clocks said when the current interval began; the interval's report subtracts it. `ticks`
  // is what earlier intervals accounted for (recorded + failed + dropped), so that ticks taken but
  // not yet drained at a rotation count in the interval that drains them.
  struct IntervalBase {
    std::array<uint64_t, kKinds> ticks{}, dropped{}, droppedValue{};
    uint64_t merged = 0, estimated = 0, wallNs = 0, cpuNs = 0;
    uint64_t recorded = 0, failed = 0;  // of all kinds, earlier intervals: status adds the current one's
    std::unordered_map<int, uint64_t> threadCpuNs;
  };
  IntervalBase base_;
  uint64_t startWallNs_ = 0;
  uint64_t startCpuNs_ = 0;
  uint64_t endWallNs_ = 0;
  uint64_t endCpuNs_ = 0;
  uint64_t spillLentSeen_ = 0;  // writer thread: spill buffers lent as of the last drain step
  int replacedSignalLogged_ = 0;  // writer thread: the signal whose takeover was logged, once
  std::mutex lostSignalMutex_;    // the writer's settlement vs stop()'s last one
  std::unique_ptr<LostSignalTicks> lostSignal_;  // a CPU engine with a signal only
};

}  // namespace candor
