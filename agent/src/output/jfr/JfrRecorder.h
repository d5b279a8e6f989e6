// Streams a session to a JFR recording (file=x.jfr): one jdk.ExecutionSample per recorded CPU
// tick (candor.WallClockSample, .SafepointSample, .HandshakeSample for the sampler modes), one
// candor.FailedTick per failed tick (with its bucket and kind), candor.ProfilerSettings at the
// start of every chunk and candor.ProfilerCounters at every dump and at stop, so the file keeps
// the accounting: samples + failed ticks + dropped = ticks.
//
// Events are buffered in memory and written as a chunk (metadata, events, the constant pools
// they reference) when the buffer reaches kChunkBytes or its first tick is kChunkAgeNs old, and
// at every dump and at stop: each chunk is complete, so the file can be read while the JVM runs,
// and the recorder's memory is bounded by one chunk whatever the length of the run.
//
// loop=DURATION: every DURATION the file is closed, renamed to x-YYYYmmdd-HHMMSS.jfr (local time
// at which that file began) and a new x.jfr is started, so x.jfr is always the newest.
//
// Writer thread only (called under the profiler's store lock), never the signal handler.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/Options.h"
#include "engine/ThreadRegistry.h"
#include "output/FrameNamer.h"
#include "output/ProfileReport.h"
#include "output/jfr/JfrBuffer.h"
#include "output/jfr/JfrConstantPool.h"
#include "store/SampleAccounting.h"
#include "store/TraceStore.h"

namespace candor {

class JfrRecorder : public DrainListener {
 public:
  static constexpr size_t kChunkBytes = 8u << 20;             // events buffered before a chunk is written
  static constexpr uint64_t kChunkAgeNs = 1'000'000'000;      // or when the chunk is this old

  // `labels` (may be null): where the label sets samples carry are resolved.
  JfrRecorder(const Options& options, std::string path, const TraceStore& store, FrameNamer& names,
              ThreadRegistry& threads, const LabelSets* labels = nullptr);
  ~JfrRecorder() override;

  // At start: creates the file; false with a one-line reason.
  bool open(std::string* why);
  void onDrained(const SampleSlot& slot, uint32_t traceId, int32_t outcome) override;
  // After every drain step: writes a chunk when the current one is big or old enough.
  void maybeFlush();
  // dump (final=false: flush what is buffered, keep recording) or stop (final=true: write the
  // settings and counters events and close the file).
  void flush(const ProfileReport& report, bool final);
  // A start that failed after open(): closes and removes the file, which holds no chunk yet.
  void discard();
  // loop=: closes the file as x-YYYYmmdd-HHMMSS.jfr and begins a new x.jfr (the profiler calls
  // it when an interval ends, before it empties the trace store the file's pools come from).
  // `startedAt`: the interval's start in epoch seconds, the stamp of the interval's other files,
  // so that one interval's files share one name even when the clocks' conversions straddle a second.
  void rotate(uint64_t nowNs, int64_t startedAt);

  const std::string& path() const { return path_; }
  size_t bufferBytes() const { return events_.capacity() + scratch_.capacity(); }
  size_t poolEntries() const { return pools_.stableEntries(); }
  // Called on the writer thread when a file is complete (rotated by loop=, or closed at stop):
  // its path and the span it covers in epoch seconds. push= queues it for sending.
  using FileDone = std::function<void(const std::string& file, int64_t fromSec, int64_t untilSec)>;
  void setOnFileDone(FileDone done) { onFileDone_ = std::move(done); }
  // No "wrote" log lines (files candor records for push= only, and deletes).
  void setQuiet(bool quiet) { quiet_ = quiet; }
  // For tests and logs.
  uint64_t chunksWritten() const { return chunks_; }
  // The largest chunk written: the high-water mark of the recorder's buffers.
  uint64_t largestChunkBytes() const { return largestChunk_; }
  size_t bufferedBytes() const { return events_.size(); }

  // x.jfr → x-YYYYmmdd-HHMMSS.jfr for a file that began at `epochSeconds` (local time).
  static std::string rotatedName(const std::string& path, int64_t epochSeconds);
  // "YYYYmmdd-HHMMSS", local time: the stamp of every loop= interval's files.
  static std::string stamp(int64_t epochSeconds);

 private:
  void startChunk(uint64_t nowNs);
  bool writeChunk(bool finalChunk);
  void addSettingsEvent(uint64_t ticks);
  void noteTime(uint64_t ticks);
  jfr::ThreadName threadName(int tid);
  void fail(const char* what, const std::string& why);

  Options options_;
  std::string path_;
  const TraceStore& store_;
  FrameNamer& frameNames_;
  ThreadRegistry& threads_;
  const LabelSets* labels_;

  FileDone onFileDone_;
  bool quiet_ = false;
  int fd_ = -1;
  int64_t epochOffsetNs_ = 0;  // CLOCK_REALTIME - CLOCK_MONOTONIC
  uint64_t fileStartNs_ = 0;   // monotonic
  jfr::Buffer events_;
  jfr::Buffer scratch_;
  jfr::ConstantPools pools_;
  uint64_t chunkStartNs_ = 0;
  uint64_t minTicks_ = 0;
  uint64_t maxTicks_ = 0;
  uint64_t tickEvents_ = 0;  // samples and failed ticks in the current chunk
  uint64_t chunks_ = 0;
  uint64_t fileChunks_ = 0;  // in the current file
  uint64_t largestChunk_ = 0;
  std::unordered_map<int, jfr::ThreadName> threadNames_;
};

}  // namespace candor
