#include "output/jfr/JfrRecorder.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/Log.h"
#include "base/Vocabulary.h"
#include "concurrent/Clock.h"
#include "jvm/ClassNames.h"
#include "output/OutputFile.h"
#include "output/jfr/JfrChunkWriter.h"
#include "output/jfr/JfrMetadata.h"
#include "output/jfr/JfrTypes.h"

namespace candor {

namespace {

std::string signalText(const Options& o) {
  int sig = o.signal != 0 ? o.signal : (o.engine == EngineKind::kItimer ? SIGPROF : SIGVTALRM);
  return signalName(sig);
}

// The options in effect, as an option string.
std::string optionsText(const Options& o) {
  std::string s = "event=" + eventsName(o);
  auto ns = [](int64_t v) { return std::to_string(v) + "ns"; };
  if (o.cpuEngine) s += ",interval=" + ns(o.intervalNs) + ",signal=" + signalText(o);
  if (o.sampler != SamplerMode::kNone) s += (o.cpuEngine ? ",wallinterval=" : ",interval=") + ns(o.samplerIntervalNs);
  if (o.sampler == SamplerMode::kWall) {
    s += ",wallthreads=" + std::to_string(o.wallThreads);
    s += std::string(",wallsignal=") + signalName(o.wallSignal != 0 ? o.wallSignal : SIGURG);
  }
  if (o.jitterPct > 0) s += ",jitter=" + std::to_string(o.jitterPct);
  if (o.allThreads) s += ",allthreads";
  if (o.perCpu == PerCpu::kYes) s += ",percpu";
  if (o.threads || o.states) s += std::string(",split=") + (o.threads ? "thread" : "") + (o.threads && o.states ? "+" : "") + (o.states ? "state" : "");
  if (!o.threadFilter.empty()) s += ",threads=" + o.threadFilter;
  for (size_t i = 0; i < o.tidFilter.size(); i++) s += (i == 0 ? ",tid=" : ":") + std::to_string(o.tidFilter[i]);
  if (o.lines) s += ",lines";
  s += ",depth=" + std::to_string(o.depth) + ",ringsize=" + std::to_string(o.ringSize);
  for (const std::string& f : o.files) s += ",file=" + f;
  if (!o.statsFile.empty()) s += ",stats=" + o.statsFile;
  if (o.loopNs > 0) s += ",loop=" + ns(o.loopNs);
  return s;
}
}  // namespace

JfrRecorder::JfrRecorder(const Options& options, std::string path, const TraceStore& store, FrameNamer& names,
                         ThreadRegistry& threads, const LabelSets* labels)
    : options_(options), path_(std::move(path)), store_(store), frameNames_(names), threads_(threads), labels_(labels) {}

JfrRecorder::~JfrRecorder() {
  if (fd_ >= 0) close(fd_);
}

bool JfrRecorder::open(std::string* why) {
  fd_ = openOutputFile(path_, why);
  if (fd_ < 0) return false;
  uint64_t mono = clockNs(CLOCK_MONOTONIC);
  uint64_t real = clockNs(CLOCK_REALTIME);
  epochOffsetNs_ = static_cast<int64_t>(real - mono);
  fileStartNs_ = mono;
  startChunk(mono);
  return true;
}

void JfrRecorder::startChunk(uint64_t nowNs) {
  events_.clear();
  if (events_.capacity() > 2 * kChunkBytes) events_.shrinkTo(kChunkBytes);
  chunkStartNs_ = nowNs;
  minTicks_ = nowNs;
  maxTicks_ = nowNs;
  tickEvents_ = 0;
  addSettingsEvent(nowNs);
}

void JfrRecorder::noteTime(uint64_t ticks) {
  minTicks_ = std::min(minTicks_, ticks);
  maxTicks_ = std::max(maxTicks_, ticks);
}

void JfrRecorder::addSettingsEvent(uint64_t ticks) {
  scratch_.clear();
  scratch_.putVarLong(jfr::kProfilerSettings);
  scratch_.putVarLong(ticks);
  scratch_.putString(eventsName(options_));
  scratch_.putString(options_.cpuEngine ? signalText(options_) : "");
  scratch_.putVarLong(static_cast<uint64_t>(options_.cpuEngine ? options_.intervalNs : options_.samplerIntervalNs));
  scratch_.putVarLong(options_.sampler != SamplerMode::kNone ? static_cast<uint64_t>(options_.samplerIntervalNs) : 0);
  scratch_.putString(optionsText(options_));
  events_.putEvent(scratch_);
}

void JfrRecorder::onDrained(const SampleSlot& slot, uint32_t traceId, int32_t outcome) {
  if (fd_ < 0) return;
  auto kind = static_cast<SampleKind>(slot.kind < kKinds ? slot.kind : 0);
  auto state = static_cast<ThreadState>(slot.state < kStates ? slot.state : 0);
  scratch_.clear();
  if (traceId != kNoTrace && isValueKind(kind)) {
    // The class is the trace's innermost frame (walk/JvmtiWalker); JFR names it in the event.
    const StoredFrame& leaf = store_.frame(traceId);
    std::string sig = ClassNames::instance().signature(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(leaf.method)));
    std::string internal = sig.size() > 2 && sig.front() == 'L' && sig.back() == ';' ? sig.substr(1, sig.size() - 2) : sig;
    uint64_t classKey = pools_.useClass(internal.empty() ? "candor/UnknownClass" : internal);
    if (kind == SampleKind::kAlloc) {
      scratch_.putVarLong(jfr::kObjectAllocationSample);
      scratch_.putVarLong(slot.timeNs);
      scratch_.putVarLong(jfr::ConstantPools::threadKey(slot.tid));
      scratch_.putVarLong(jfr::ConstantPools::traceKey(traceId));
      scratch_.putVarLong(classKey);
      scratch_.putVarLong(slot.value);
      pools_.putLabels(scratch_, slot.labels);
    } else {  // a lock wait ends when the sample is taken: it began `value` ns earlier
      scratch_.putVarLong(state == ThreadState::kParked ? jfr::kThreadPark : jfr::kJavaMonitorEnter);
      scratch_.putVarLong(slot.timeNs - slot.value);
      scratch_.putVarLong(slot.value);
      scratch_.putVarLong(jfr::ConstantPools::threadKey(slot.tid));
      scratch_.putVarLong(jfr::ConstantPools::traceKey(traceId));
      scratch_.putVarLong(classKey);
      pools_.putLabels(scratch_, slot.labels);
    }
    pools_.useTrace(traceId);
    pools_.useThread(slot.tid);
    events_.putEvent(scratch_);
    noteTime(slot.timeNs);
    tickEvents_ += 1;
    return;
  }
  if (traceId != kNoTrace) {
    scratch_.putVarLong(jfr::sampleEventType(kind));
    scratch_.putVarLong(slot.timeNs);
    scratch_.putVarLong(jfr::ConstantPools::threadKey(slot.tid));
    scratch_.putVarLong(jfr::ConstantPools::traceKey(traceId));
    scratch_.putVarLong(kind == SampleKind::kCpu ? jfr::kStateRunnable : jfr::threadStateKey(state));
    pools_.putLabels(scratch_, slot.labels);
    pools_.useTrace(traceId);
  } else {
    scratch_.putVarLong(jfr::kFailedTick);
    scratch_.putVarLong(slot.timeNs);
    scratch_.putVarLong(jfr::ConstantPools::threadKey(slot.tid));
    scratch_.putString(bucketName(bucketForCode(outcome)));
    scratch_.putString(sampleKindName(kind));
    pools_.putLabels(scratch_, slot.labels);
  }
  pools_.useThread(slot.tid);
  // A slot of weight n stands for n ticks (merged overflows, estimated kernel time): n events, so
  // readers that count events count ticks.
  for (uint32_t i = 0; i < slot.weight; i++) events_.putEvent(scratch_);
  noteTime(slot.timeNs);
  tickEvents_ += slot.weight;
}

void JfrRecorder::maybeFlush() {
  if (fd_ < 0) return;
  uint64_t now = clockNs(CLOCK_MONOTONIC);
  if (events_.size() >= kChunkBytes || (tickEvents_ > 0 && now - chunkStartNs_ >= kChunkAgeNs)) {
    if (writeChunk(false)) startChunk(now);
  }
}

void JfrRecorder::flush(const ProfileReport& report, bool final) {
  if (fd_ < 0) return;
  uint64_t now = clockNs(CLOCK_MONOTONIC);
  scratch_.clear();
  scratch_.putVarLong(jfr::kProfilerCounters);
  scratch_.putVarLong(now);
  scratch_.putVarLong(report.ticks);
  scratch_.putVarLong(report.recorded);
  scratch_.putVarLong(report.dropped);
  // Per kind, so that a reader puts each kind's drops beside that kind's samples (an allocation's
  // in bytes), not every drop beside the CPU samples.
  std::string byKind;
  for (const KindReport& k : report.kinds) {
    if (k.dropped == 0) continue;
    byKind += (byKind.empty() ? "" : ",") + k.name + "=" + std::to_string(k.dropped);
    if (k.name == "alloc") byKind += ":" + std::to_string(report.alloc.dropped);
    if (k.name == "lock") byKind += ":" + std::to_string(report.lock.dropped);
  }
  scratch_.putString(byKind);
  scratch_.putVarLong(report.failuresTotal());
  scratch_.putVarLong(report.durationNs);
  scratch_.putVarLong(report.processCpuNs);
  events_.putEvent(scratch_);
  noteTime(now);
  if (!writeChunk(final)) return;
  if (final) {
    close(fd_);
    fd_ = -1;
    if (!quiet_) {
      logInfo("wrote %s (%llu chunks, largest %llu kB)", path_.c_str(), static_cast<unsigned long long>(fileChunks_),
              static_cast<unsigned long long>((largestChunk_ + 1023) / 1024));
    }
    if (onFileDone_) {
      onFileDone_(path_, static_cast<int64_t>((fileStartNs_ + epochOffsetNs_) / 1'000'000'000),
                  static_cast<int64_t>((now + epochOffsetNs_) / 1'000'000'000));
    }
  } else {
    startChunk(clockNs(CLOCK_MONOTONIC));
    logInfo("wrote %s", path_.c_str());
  }
}

void JfrRecorder::discard() {
  if (fd_ < 0) return;
  close(fd_);
  fd_ = -1;
  if (chunks_ == 0) unlink(path_.c_str());
}

jfr::ThreadName JfrRecorder::threadName(int tid) {
  auto it = threadNames_.find(tid);
  if (it != threadNames_.end()) return it->second;
  return {"[tid=" + std::to_string(tid) + "]", false};
}

bool JfrRecorder::writeChunk(bool finalChunk) {
  uint64_t now = clockNs(CLOCK_MONOTONIC);
  uint64_t start = std::min(chunkStartNs_, minTicks_);
  uint64_t end = std::max(now, maxTicks_);

  // Names as the registry knows them now (a tid's name may change when the tid is reused).
  threadNames_.clear();
  for (const ThreadRecord& r : threads_.snapshot()) threadNames_[r.tid] = {r.name, r.kind == ThreadKind::kJava};

  jfr::Buffer metadata;
  jfr::writeMetadataEvent(metadata, start);
  jfr::PoolSources src;
  src.store = &store_;
  src.names = &frameNames_;
  src.thread = [this](int tid) { return threadName(tid); };
  src.maxDepth = options_.depth;
  src.labels = labels_;
  jfr::Buffer checkpoint;
  pools_.writeCheckpoint(checkpoint, end, src);

  jfr::ChunkHeader h;
  h.startNanos = start + epochOffsetNs_;
  h.durationNanos = end - start;
  h.startTicks = start;
  h.ticksPerSecond = jfr::kTicksPerSecond;
  h.finalChunk = finalChunk;
  std::string why;
  uint64_t bytes = jfr::writeChunk(fd_, h, metadata, events_, checkpoint, &why);
  if (bytes == 0) {
    fail("cannot write", why);
    return false;
  }
  chunks_++;
  fileChunks_++;
  largestChunk_ = std::max(largestChunk_, bytes);
  return true;
}

std::string JfrRecorder::stamp(int64_t epochSeconds) {
  time_t t = static_cast<time_t>(epochSeconds);
  tm local;
  localtime_r(&t, &local);
  char text[32];
  strftime(text, sizeof text, "%Y%m%d-%H%M%S", &local);
  return text;
}

std::string JfrRecorder::rotatedName(const std::string& path, int64_t epochSeconds) {
  std::string base = path.size() > 4 && path.compare(path.size() - 4, 4, ".jfr") == 0 ? path.substr(0, path.size() - 4)
                                                                                        : path;
  return base + "-" + stamp(epochSeconds) + ".jfr";
}

void JfrRecorder::rotate(uint64_t nowNs, int64_t startedAt) {
  if (fd_ < 0 || !writeChunk(true)) return;
  close(fd_);
  fd_ = -1;
  std::string target = rotatedName(path_, startedAt);
  struct stat st;
  for (int n = 2; lstat(target.c_str(), &st) == 0 && n < 1000; n++) {
    target = rotatedName(path_, startedAt);
    target.insert(target.size() - 4, "-" + std::to_string(n));
  }
  std::string why;
  if (rename(path_.c_str(), target.c_str()) != 0) {
    // Keep appending chunks to the same file rather than lose what it holds.
    logError("cannot rename %s to %s: %s; recording goes on in %s", path_.c_str(), target.c_str(), strerror(errno),
             path_.c_str());
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) why = strerror(errno);
  } else {
    if (!quiet_) logInfo("wrote %s (%llu chunks)", target.c_str(), static_cast<unsigned long long>(fileChunks_));
    if (onFileDone_) {
      onFileDone_(target, startedAt, static_cast<int64_t>((nowNs + epochOffsetNs_) / 1'000'000'000));
    }
    fd_ = openOutputFile(path_, &why);
    // A new file is a new recording: its pools' ids start afresh, so that the ids of methods and
    // classes the run no longer uses do not pile up over days of rotation. (Appending to the old
    // file, above, keeps them: an id there must keep its meaning.)
    pools_ = jfr::ConstantPools();
  }
  if (fd_ < 0) {
    logError("cannot record %s: %s; JFR recording stopped", path_.c_str(), why.c_str());
    return;
  }
  fileStartNs_ = nowNs;
  fileChunks_ = 0;
  startChunk(nowNs);
}

void JfrRecorder::fail(const char* what, const std::string& why) {
  logError("%s %s: %s; JFR recording stopped", what, path_.c_str(), why.c_str());
  close(fd_);
  fd_ = -1;
  events_.clear();
  events_.shrinkTo(0);
}

}  // namespace candor
