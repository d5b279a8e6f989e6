#include "control/Profiler.h"

#include <malloc.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

#include "base/Log.h"
#include "base/ResidentBytes.h"
#include "concurrent/Clock.h"
#include "control/ReportBuilder.h"
#include "engine/AllocSampler.h"
#include "engine/CTimerEngine.h"
#include "engine/ITimerEngine.h"
#include "engine/LockSampler.h"
#include "engine/PerfEngine.h"
#include "engine/PerfRingEngine.h"
#include "engine/SignalHandler.h"
#include "jvm/Jvm.h"
#include "jvm/MethodPreloader.h"
#include "jvm/ModifiedUtf8.h"
#include "output/OtlpWriter.h"
#include "output/OutputFile.h"
#include "output/ReportFiles.h"
#include "walk/RemoteWalker.h"
#include "walk/SlotFill.h"
#include "walk/UserStack.h"
#include "walk/native/LibjvmSymbol.h"
#include "walk/native/NativeStack.h"
#include "walk/vm/CrashGuard.h"
#include "walk/vm/VmStackWalker.h"

namespace candor {

namespace {

int currentTid() { return static_cast<int>(syscall(SYS_gettid)); }

std::string threadName(jvmtiEnv* jvmti, JNIEnv* env, jthread thread) {
  jvmtiThreadInfo info = {};
  if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return "?";
  std::string name = info.name != nullptr ? standardUtf8(info.name) : "?";
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  if (env != nullptr) {
    if (info.thread_group != nullptr) env->DeleteLocalRef(info.thread_group);
    if (info.context_class_loader != nullptr) env->DeleteLocalRef(info.context_class_loader);
  }
  return name;
}

constexpr int kDrainPeriodMs = 5;
// Deep stacks sampled at once before the next ones are cut at kSlotDepth: the writer frees a
// buffer every drain (each 1 ms while any is lent), so this covers 32 deep samples between two
// drains, or a writer kept off the CPU for tens of milliseconds.
constexpr uint32_t kSpillBuffers = 32;  // SpillPool::kMaxBuffers
constexpr int kStepsPerSecond = 200;  // drain steps between once-a-second checks (allthreads, signals)
constexpr int kPerCpuDetunePerMille = 3;  // percpu: how much shorter than asked its interval is (perCpuIntervalNs)
}  // namespace

long long Profiler::perCpuIntervalNs(long long requestedNs) {
  // A CPU's timer ticks on a fixed grid of wall time. At an interval that divides the kernel's tick
  // (4 ms at HZ=250; 1 ms does), its ticks keep one phase against the tick, and against all the
  // tick paces (preemption, timer-wheel timeouts), for a whole run. On the Jetty server of
  // ServerAccuracyTest (JDK 17, as root) runs then leant each its own way: the regex endpoint's share
  // -1.6 to +2.3 points off the server's own measure. 0.3% shorter, the phase turns through every
  // value within a second (0.33 s at 1 ms against a 4 ms tick): the run-to-run standard deviation was
  // 0.4 / 0.57 / 0.45 points against 1.2 / 0.74 / 0.70 in three batches of alternating runs, the mean
  // unchanged (bench/results/RESULTS-server-phase.md).
  return requestedNs - requestedNs * kPerCpuDetunePerMille / 1000;
}

Profiler& Profiler::instance() {
  static Profiler* p = new Profiler();  // never destroyed: JVMTI callbacks may outlive exit
  return *p;
}

std::unique_ptr<Engine> Profiler::createEngine(const Options& options, std::string* why) {
  int sig = options.signal != 0 ? options.signal : SIGVTALRM;
  switch (options.engine) {
    case EngineKind::kCpu: {
      std::string perfWhy;
      if (options.perCpu != PerCpu::kNo) {  // auto: walk, stackcopy and jitter were not given
        uint32_t copyBytes = options.perCpu == PerCpu::kAuto ? kPerCpuStackCopy : options.stackCopyBytes;
        if (PerfRingEngine::available(copyBytes, true, &perfWhy)) {
          options_.perCpu = PerCpu::kYes;
          options_.walk = WalkMode::kCopy;
          options_.stackCopyBytes = copyBytes;
          options_.intervalNs = perCpuIntervalNs(options.intervalNs);
        } else {
          logInfo("%s (%s); using a timer per thread",
                  options.perCpu == PerCpu::kYes ? "percpu is not available" : "no per-CPU timers", perfWhy.c_str());
          if (options.perCpu == PerCpu::kYes) options_.walk = WalkMode::kVm;
          options_.perCpu = PerCpu::kNo;
        }
      }
      if (options_.walk == WalkMode::kCopy) {  // no signal, the reader walks perf's stack copies
        if (options_.perCpu != PerCpu::kYes && !PerfRingEngine::available(options.stackCopyBytes, false, &perfWhy)) {
          logInfo("walk=copy is not available (%s); using walk=vm", perfWhy.c_str());
          options_.walk = WalkMode::kVm;
        } else if (VmStackWalker::enable(Jvm::jvmti(), Jvm::currentEnv())) {
          return std::make_unique<PerfRingEngine>();
        } else {
          options_.walk = WalkMode::kAgct;  // enable() said why
          options_.perCpu = PerCpu::kNo;
        }
      }
      if (PerfEngine::available(&perfWhy)) return std::make_unique<PerfEngine>(sig);
      logInfo("event=cpu is not available (%s); falling back to event=ctimer", perfWhy.c_str());
      options_.engine = EngineKind::kCtimer;
      return std::make_unique<CTimerEngine>(sig);
    }
    case EngineKind::kCtimer: return std::make_unique<CTimerEngine>(sig);
    case EngineKind::kItimer: return std::make_unique<ITimerEngine>();
  }
  *why = "unknown engine";
  return nullptr;
}

std::vector<std::string> Profiler::outputPaths() const {
  std::vector<std::string> files = options_.files;
  if (files.empty() && options_.statsFile.empty() && options_.pushUrl.empty()) {
    files.push_back("candor-" + std::to_string(getpid()) + ".html");
  }
  if (!options_.statsFile.empty()) files.push_back(options_.statsFile);
  return files;
}

bool Profiler::checkOutputs(const Options& options, std::string* why) {
  int jfrFiles = 0;
  for (const std::string& path : outputPaths()) {
    std::string reason;
    if (!checkOutputWritable(path, &reason)) {
      *why = "cannot write " + path + ": " + reason;
      return false;
    }
    if (path != options.statsFile && outputFormatOf(path) == OutputFormat::kJfr) jfrFiles++;
  }
  if (jfrFiles > 1) {
    *why = "give at most one .jfr file";
    return false;
  }
  return true;
}

// The resources start() has taken so far, each with its undo; a failed start runs them in
// reverse (async-profiler's Profiler::start error ladder), a successful one keeps them.
class Profiler::UndoLadder {
 public:
  void push(std::function<void()> undo) { steps_.push_back(std::move(undo)); }
  void keep() { steps_.clear(); }
  ~UndoLadder() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) (*it)();
  }

 private:
  std::vector<std::function<void()>> steps_;
};

// Test hook: CANDOR_TEST_FAIL_START_AT=<step> makes that step of the first start fail, so a test
// can see every resource taken before it given back.
bool Profiler::failForTest(const char* step, std::string* why) {
  static const char* failAt = getenv("CANDOR_TEST_FAIL_START_AT");
  static bool failed = false;
  if (failed || failAt == nullptr || strcmp(failAt, step) != 0) return false;
  failed = true;
  *why = std::string("test hook: ") + step + " failed";
  return true;
}

bool Profiler::start(const Options& options, std::string* why) {
  std::lock_guard<std::mutex> lock(commandMutex_);
  // Validate first: nothing is taken until the request is known to be sound.
  if (running_) {
    *why = "profiling is already running; stop it first";
    return false;
  }
  JNIEnv* env = Jvm::currentEnv();
  if (env == nullptr || Jvm::jvmti() == nullptr) {
    *why = "the JVM is not ready for profiling";
    return false;
  }
  options_ = options;  // checkOutputs and the steps below read the session's options
  if (!checkOutputs(options, why)) return false;
  // Slots hold kSlotDepth frames; a deeper stack borrows one of kSpillBuffers buffers for up to
  // depth= frames (only the pages it fills are touched).
  bool deep = options.depth > kSlotDepth;
  auto ring = std::make_unique<SampleRing>(options.ringSize, std::min(options.depth, kSlotDepth),
                                           deep ? kSpillBuffers : 0, deep ? options.depth : 0);
  if (!ring->ok()) {
    *why = "cannot allocate the sample ring (ringsize x depth too large?)";
    return false;
  }

  // Then take each resource with its undo. Installed signal handlers stay: they are idle while
  // no session runs, and installing is idempotent.
  UndoLadder undo;
  engine_.reset();
  if (options.cpuEngine) {
    engine_ = createEngine(options, why);  // may fall back (options_ says to what)
    if (!engine_ || (engine_->signal() != 0 && !SignalHandler::install(engine_->signal(), why))) return false;
    if (failForTest("engine", why) || !engine_->start(options_, why)) return false;
    undo.push([this] { engine_->stop(); });
  }
  lostSignal_.reset(engine_ && engine_->signal() != 0 ? new LostSignalTicks(options_.intervalNs) : nullptr);
  wallSignal_ = 0;
  if (options.sampler == SamplerMode::kWall) {
    wallSignal_ = options.wallSignal != 0 ? options.wallSignal : SIGURG;
    if (!SignalHandler::install(wallSignal_, why)) return false;
  }
  {
    std::lock_guard<std::mutex> storeLock(storeMutex_);
    ring_ = std::move(ring);
    if (!startRecordingLocked(options, undo, why)) return false;
  }
  startWalkers(env, undo);
  if (!startEventSamplers(env, undo, why)) return false;
  if (failForTest("activate", why)) return false;
  // From here on nothing can fail: the session runs.
  undo.keep();
  registry_.clear();
  registry_.begin(engine_.get(), options_, options_.sampler != SamplerMode::kNone);
  startWallNs_ = clockNs(CLOCK_MONOTONIC);
  startCpuNs_ = clockNs(CLOCK_PROCESS_CPUTIME_ID);
  base_ = IntervalBase();
  base_.wallNs = startWallNs_;
  base_.cpuNs = startCpuNs_;
  SignalHandler::activate(engine_.get(), wallSignal_, walker_.get());
  running_ = true;
  armLiveJavaThreads(env);
  if (namesAllThreads()) registry_.addAllProcessThreads();
  writer_.start([this] { return drainStep(); }, kDrainPeriodMs);
  if (options_.sampler != SamplerMode::kNone) {
    sampler_ = std::make_unique<ThreadSampler>(options_, registry_, *jvmtiWalker_);
    sampler_->start();
  }
  logStarted(options);
  return true;
}

// Under storeMutex_: an empty store and accounting, the names resolver, and the recordings the
// session writes as it goes (.jfr, push=).
bool Profiler::startRecordingLocked(const Options& options, UndoLadder& undo, std::string* why) {
  store_.clear();
  accounting_.clear();
  bool page = false;  // the timeline is for the flame graph page only
  for (const std::string& path : options.files) page = page || outputFormatOf(path) == OutputFormat::kHtml;
  if (page || options.files.empty()) accounting_.timeline().start(monotonicNs());
  if (options.sampler != SamplerMode::kNone) {
    SampleKind kind = options.sampler == SamplerMode::kWall        ? SampleKind::kWall
                      : options.sampler == SamplerMode::kSafepoint ? SampleKind::kSafepoint
                                                                   : SampleKind::kHandshake;
    accounting_.setSchedule(kind, static_cast<uint64_t>(options.samplerIntervalNs));
  }
  if (!resolver_) {
    resolver_ = std::make_unique<MethodResolver>(Jvm::jvmti());
    names_ = std::make_unique<FrameNamer>(*resolver_);
  }
  jfr_.reset();
  accounting_.setListener(nullptr);
  for (const std::string& path : options.files) {
    if (outputFormatOf(path) != OutputFormat::kJfr) continue;
    jfr_ = std::make_unique<JfrRecorder>(options_, path, store_, *names_, registry_, &labels_);  // options_: the engine after any fallback
    if (!jfr_->open(why)) {
      *why = "cannot record " + path + ": " + *why;
      jfr_.reset();
      return false;
    }
    accounting_.setListener(jfr_.get());
    undo.push([this] {
      std::lock_guard<std::mutex> relock(storeMutex_);
      accounting_.setListener(nullptr);
      jfr_->discard();  // nothing was recorded: no half-written file is left behind
      jfr_.reset();
    });
  }
  return options.pushUrl.empty() || startPush(undo, why);
}

// The walkers the session's options ask for, each falling back (with a log line) to what this
// JVM and machine allow: the own walker to AGCT, C frames to none.
void Profiler::startWalkers(JNIEnv* env, UndoLadder& undo) {
  counters_.clear();
  walker_ = std::make_unique<SignalWalker>(*ring_, counters_);
  // walk=vm and walk=remote fall back to AGCT (with one log line) when this JVM lacks what the
  // own walker needs.
  if (options_.walk != WalkMode::kAgct && !VmStackWalker::enable(Jvm::jvmti(), env)) options_.walk = WalkMode::kAgct;
  // cstack=: C frames need the unwind tables and the crash guard; without them, Java frames only.
  std::string cstackWhy;
  if (options_.cstack != CStackMode::kNo &&
      (!CrashGuard::install(&cstackWhy) || !NativeStack::enable(options_.cstack, &cstackWhy))) {
    logInfo("native frames are not walked (%s); cstack=no", cstackWhy.c_str());
    options_.cstack = CStackMode::kNo;
  }
  if (options_.cstack == CStackMode::kNo) NativeStack::enable(CStackMode::kNo, &cstackWhy);
  // walk=copy: the handler walks only wall ticks (event=cpu,wall), with the own walker too.
  walker_->useOwnWalker(options_.walk == WalkMode::kVm || options_.walk == WalkMode::kCopy);
  auto interval = static_cast<uint64_t>(options_.cpuEngine ? options_.intervalNs : 0);
  walker_->throttleWalksAbove(interval / 2, 2 * interval);
  if (options_.walk == WalkMode::kRemote) {
    remoteWalker_ = std::make_unique<RemoteWalker>(*ring_, counters_, &walkUserStackOwn_signalSafe);
    remoteWalker_->start();
    walker_->useRemoteWalker(remoteWalker_.get());
    undo.push([this] {
      remoteWalker_->stop();
      remoteWalker_.reset();
    });
  }
  jvmtiWalker_ = std::make_unique<JvmtiWalker>(*ring_, counters_);
  labels_.keepHistory(options_.walk == WalkMode::kCopy);  // the reader reads each thread's set at its sample's time
  if (options_.walk == WalkMode::kCopy) {  // before any thread is armed: it reads their last samples
    ringReader_ = std::make_unique<RingReader>(*ring_, counters_, static_cast<PerfRingEngine&>(*engine_), labels_);
    ringReader_->start();
    undo.push([this] {
      ringReader_->stop();
      ringReader_.reset();
    });
  }
}

// alloc= and lock=: each may fail alone and the session runs without it, unless it was all the
// session asked for.
bool Profiler::startEventSamplers(JNIEnv* env, UndoLadder& undo, std::string* why) {
  if (options_.alloc) {  // allocation samples arrive on the allocating threads through the JVMTI walker
    std::string allocWhy;
    if (!AllocSampler::start(Jvm::jvmti(), options_.allocIntervalBytes, ring_->maxDepth(), jvmtiWalker_.get(),
                             &allocWhy)) {
      if (!options_.cpuEngine && options_.sampler == SamplerMode::kNone) {
        *why = allocWhy;
        return false;
      }
      logError("allocations are not sampled: %s; the other events run", allocWhy.c_str());
      options_.alloc = false;
    } else {
      undo.push([] { AllocSampler::stop(Jvm::jvmti()); });
    }
  }
  if (options_.lock) {  // lock waits arrive on the waiting threads through the JVMTI walker
    std::string lockWhy, parkWhy;
    void* unsafePark = findLibjvmSymbol("Unsafe_Park", &parkWhy);
    if (!LockSampler::start(Jvm::jvmti(), env, options_.lockThresholdNs, ring_->maxDepth(), jvmtiWalker_.get(),
                            unsafePark, &parkWhy, &lockWhy)) {
      if (!options_.cpuEngine && options_.sampler == SamplerMode::kNone && !options_.alloc) {
        *why = lockWhy;
        return false;
      }
      logError("lock waits are not recorded: %s; the other events run", lockWhy.c_str());
      options_.lock = false;
    } else {
      undo.push([] { LockSampler::stop(Jvm::jvmti()); });
      if (!parkWhy.empty()) logError("java.util.concurrent lock waits are not recorded (%s); monitors are", parkWhy.c_str());
    }
  }
  return true;
}

namespace {
std::string perMilleAsPercent(int perMille) {  // 3 -> "0.3%"
  return std::to_string(perMille / 10) + "." + std::to_string(perMille % 10) + "%";
}
}  // namespace

// The one line that says what runs: events, interval (and its detune), timers, walker, kernel mode.
void Profiler::logStarted(const Options& asked) {
  std::string kernel = engine_ ? std::string(" kernel=") + kernelTimeName(engine_->kernelTime()) + " (" +
                                    engine_->kernelTimeReason() + ")"
                              : "";
  std::string alloc = options_.alloc ? " alloc=" + std::to_string(options_.allocIntervalBytes) + "B" : "";
  if (options_.lock) alloc += " lock=" + std::to_string(options_.lockThresholdNs) + "ns";
  std::string detuned = options_.cpuEngine && options_.intervalNs != asked.intervalNs
                            ? " (" + perMilleAsPercent(kPerCpuDetunePerMille) + " under the " + std::to_string(asked.intervalNs) +
                                  "ns asked, each CPU's timer within " + perMilleAsPercent(PerfRingEngine::kCpuSpreadPerMille / 2) +
                                  " of that: per-CPU timers keep no fixed phase against the kernel's tick or each other)"
                            : "";
  logInfo("profiling started: event=%s interval=%lldns%s%s%s%s walk=%s cstack=%s%s, %zu threads", eventsName(options_).c_str(),
          static_cast<long long>(options_.cpuEngine ? options_.intervalNs : options_.samplerIntervalNs), detuned.c_str(),
          alloc.c_str(),
          engine_ ? (std::string(" timers=") + timersName()).c_str() : "", engine_ && engine_->signal() != 0 ? (std::string(" signal=") + signalName(engine_->signal())).c_str() : "",
          walkModeName(options_.walk), cstackModeName(options_.cstack), kernel.c_str(), registry_.armedCount());
}

const char* Profiler::timersName() const {
  if (!engine_) return "none";
  if (!engine_->perThread()) return "process";
  return options_.perCpu == PerCpu::kYes ? "per-cpu" : "per-thread";
}

void Profiler::armLiveJavaThreads(JNIEnv* env) {
  jvmtiEnv* jvmti = Jvm::jvmti();
  jint count = 0;
  jthread* threads = nullptr;
  if (jvmti->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return;
  int unknown = 0;
  for (jint i = 0; i < count; i++) {
    int tid = Jvm::osThreadId(env, threads[i]);
    if (tid > 0) registry_.add(tid, threadName(jvmti, env, threads[i]), ThreadKind::kJava, env, threads[i]);
    else unknown++;
    env->DeleteLocalRef(threads[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
  if (unknown > 0 && count > 0 && unknown == count) {
    // Without VMStructs we can still sample the current thread and every thread started later.
    registry_.add(currentTid(), "current", ThreadKind::kJava);
    logInfo("cannot map running Java threads to OS threads; only threads started from now on are sampled");
  }
}

void Profiler::onThreadStart(jvmtiEnv* jvmti, JNIEnv* env, jthread thread) {
  if (Jvm::isAgentThread()) return;
  registry_.add(currentTid(), threadName(jvmti, env, thread), ThreadKind::kJava, env, thread);
}

void Profiler::onThreadEnd(JNIEnv* env) {
  int tid = currentTid();
  labels_.forget(tid);
  registry_.remove(tid, env != nullptr ? env : Jvm::currentEnv());
}

// push=http://: every finished .jfr interval goes to the pusher; without a .jfr output candor
// records one of its own, quietly, in a private directory, and deletes each file once it is
// handled. push=otlp+http:// needs no recording: each interval's report is encoded as it is
// written (writeOutputsLocked).
bool Profiler::startPush(UndoLadder& undo, std::string* why) {
  pushDir_.clear();
  HttpUrl url;
  PushProtocol protocol = PushProtocol::kPyroscope;
  if (!parsePushUrl(options_.pushUrl, &protocol, &url, why)) return false;
  bool otlp = protocol == PushProtocol::kOtlp;
  if (!jfr_ && !otlp) {
    const char* tmp = getenv("TMPDIR");
    std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/candor-push-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) {
      *why = "cannot make a directory for push= (" + dir + "): " + strerror(errno);
      return false;
    }
    pushDir_ = dir;
    jfr_ = std::make_unique<JfrRecorder>(options_, dir + "/interval.jfr", store_, *names_, registry_, &labels_);
    jfr_->setQuiet(true);
    if (!jfr_->open(why)) {
      *why = "cannot record for push=: " + *why;
      jfr_.reset();
      rmdir(dir.c_str());
      return false;
    }
    accounting_.setListener(jfr_.get());
    undo.push([this] {
      std::lock_guard<std::mutex> relock(storeMutex_);
      accounting_.setListener(nullptr);
      jfr_->discard();
      jfr_.reset();
      rmdir(pushDir_.c_str());
    });
  }
  if (options_.service.empty()) options_.service = defaultServiceName();
  int64_t period = options_.cpuEngine ? options_.intervalNs : options_.samplerIntervalNs;
  pusher_ = std::make_unique<Pusher>();
  // Pyroscope's application name carries the static labels: service{env=prod,region=eu}
  std::string name = options_.service;
  for (size_t i = 0; i < options_.pushLabels.size(); i++) {
    name += (i == 0 ? "{" : ",") + options_.pushLabels[i].first + "=" + options_.pushLabels[i].second;
  }
  if (!options_.pushLabels.empty()) name += "}";
  if (!pusher_->start(options_.pushUrl, name, period > 0 ? 1e9 / static_cast<double>(period) : 100, why)) {
    pusher_.reset();
    return false;
  }
  bool own = !pushDir_.empty();
  Pusher* pusher = pusher_.get();
  if (!otlp) {
    jfr_->setOnFileDone([pusher, own](const std::string& file, int64_t from, int64_t until) {
      pusher->offer(file, from, until, own);
    });
  }
  undo.push([this] {
    if (jfr_) jfr_->setOnFileDone(nullptr);
    pusher_->stop(0);
    pusher_.reset();
  });
  return true;
}

// The application's name for push=: the main class's simple name or the jar's file name.
std::string Profiler::defaultServiceName() {
  char* command = nullptr;
  std::string name;
  if (Jvm::jvmti()->GetSystemProperty("sun.java.command", &command) == JVMTI_ERROR_NONE && command != nullptr) {
    name = command;
    Jvm::jvmti()->Deallocate(reinterpret_cast<unsigned char*>(command));
  }
  name = name.substr(0, name.find(' '));
  if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".jar") == 0) name.resize(name.size() - 4);
  else if (size_t dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
  std::string clean;
  for (char c : name) clean.push_back(strchr("{}=,\"", c) != nullptr ? '_' : c);
  return clean.empty() ? "java" : clean;
}

uint64_t Profiler::drainLocked() {
  uint64_t drained = accounting_.drain(*ring_);
  // Resolve names now, while the classes of these methods are surely still loaded.
  for (jmethodID m : store_.takeNewMethods()) resolver_->resolve(m);
  return drained;
}

bool Profiler::drainStep() {
  static int steps = 0;
  uint64_t drained;
  {
    std::lock_guard<std::mutex> lock(storeMutex_);
    if (!namesPreloaded_) {  // once per process, on the writer: symbol tables cost their memory at the start
      namesPreloaded_ = true;
      names_->preload(engine_ && engine_->kernelTime() == KernelTime::kSampled);
    }
    drained = drainLocked();
    if (jfr_) jfr_->maybeFlush();
    uint64_t now = clockNs(CLOCK_MONOTONIC);
    if (options_.loopNs > 0 && now - base_.wallNs >= static_cast<uint64_t>(options_.loopNs)) rotateIntervalLocked(now);
  }
  if (++steps % kStepsPerSecond == 0) {
    if (namesAllThreads()) registry_.addAllProcessThreads();
    watchSignals();
  } else if (steps % (kStepsPerSecond / 20) == 0 && lostSignal_ && lostSignal_->calibrating()) {
    settleLostSignalTicks();  // the rate a takeover will be measured at: known after the first 100 intervals of CPU
  }
  NativeStack::refresh();  // libraries loaded since (libnio comes with the first NIO call): ~1 µs if none
  // Hurry while the ring fills faster than one step per 5 ms keeps up with, or while deep stacks
  // borrow spill buffers (each is lent until a drain gives it back).
  uint64_t lent = ring_->spill().lent();
  bool spilled = lent != spillLentSeen_;
  spillLentSeen_ = lent;
  return drained > ring_->capacity() / 8 || spilled;
}

void Profiler::watchSignals() {
  logReplacedSignal();
  settleLostSignalTicks();
  if (sampler_ && wallSignal_ != 0 && SignalHandler::isReplaced(wallSignal_)) sampler_->wallSignalTaken();
}

void Profiler::logReplacedSignal() {
  int sig = SignalHandler::replacedSignal();
  if (sig == 0 || sig == replacedSignalLogged_) return;
  replacedSignalLogged_ = sig;
  bool cpu = engine_ && sig == engine_->signal();
  logError("another handler replaced candor's for %s (a profiler or library loaded after candor): its ticks no"
           " longer reach candor, which counts them as signal_lost, without stacks%s; run one profiler at a time,"
           " or give candor a free signal (signal=, wallsignal=)",
           signalName(sig), cpu ? " (how many: from the threads' CPU clocks)" : " (and sends no more)");
}

void Profiler::settleLostSignalTicks() {
  if (!lostSignal_) return;
  std::lock_guard<std::mutex> lock(lostSignalMutex_);
  bool taken = SignalHandler::isReplaced(engine_->signal());
  auto cpu = static_cast<int>(SampleKind::kCpu);
  uint64_t owed = lostSignal_->settle(taken, registry_.armedCpuNs(), lp(counters_.ticks[cpu]));
  while (owed > 0) {  // as the other estimated ticks: counted, then recorded (or dropped if the ring is full)
    auto weight = static_cast<uint32_t>(std::min<uint64_t>(owed, UINT32_MAX));
    owed -= weight;
    recordEstimatedCode_signalSafe(*ring_, counters_, kSignalLostCode, 0, clockNs(CLOCK_MONOTONIC), weight);
  }
}

bool Profiler::stop(std::string* why) {
  std::lock_guard<std::mutex> lock(commandMutex_);
  if (!running_) {
    *why = "profiling is not running";
    return false;
  }
  if (sampler_) sampler_->stop();  // first: it sends signals and holds jthread references
  if (engine_) engine_->settleThreads(registry_.armedTids());  // debts only their own handlers can pay
  SignalHandler::deactivate();     // after this no handler touches the ring
  settleLostSignalTicks();         // the last second of a taken-over signal, before the threads are disarmed
  if (options_.alloc) AllocSampler::stop(Jvm::jvmti());  // nor an allocation callback
  if (options_.lock) LockSampler::stop(Jvm::jvmti());    // nor a lock wait
  if (remoteWalker_) {             // and none waits for the walker
    remoteWalker_->stop();
    logInfo("remote walker: %llu stacks walked, %llu answered while the sampled thread spun, %llu after a futex wait",
            static_cast<unsigned long long>(remoteWalker_->walks()),
            static_cast<unsigned long long>(remoteWalker_->spinsSatisfied()),
            static_cast<unsigned long long>(remoteWalker_->futexWaits()));
    remoteWalker_.reset();
  }
  if (options_.walk != WalkMode::kAgct) VmStackWalker::logDecodeCacheStats();
  registry_.end(Jvm::currentEnv());  // walk=copy: each ring's last samples are read as it is disarmed
  if (ringReader_) {
    ringReader_->stop();
    ringReader_->logSummary();
    ringReader_.reset();
  }
  if (engine_) engine_->stop();
  writer_.stop();
  endWallNs_ = clockNs(CLOCK_MONOTONIC);
  endCpuNs_ = clockNs(CLOCK_PROCESS_CPUTIME_ID);
  running_ = false;
  writeOutputs(true, outputPaths());
  logDroppedHint();
  logInfo("profiling stopped");
  return true;
}

void Profiler::logDroppedHint() {
  // Drops are counted in every output; above 1% they are worth a line that says what to do. The
  // ring fills when the writer falls behind: a .jfr chunk or a loop= interval written at 100us on
  // a saturated machine stalls it for longer than 1,024 slots last (2.7% of a 200-thread server's
  // ticks, none with ringsize=8192).
  uint64_t ticks = counters_.totalTicks();
  uint64_t dropped = counters_.totalDropped();
  if (dropped == 0 || dropped * 100 <= ticks) return;
  logInfo("%llu of %llu ticks (%.1f%%) were dropped: the sample ring (ringsize=%u) filled while the writer was busy;"
          " a larger ringsize= keeps them, at up to a page of memory per slot (ringsize=8192: up to 38 MB)",
          static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(ticks), 100.0 * dropped / ticks,
          options_.ringSize);
}

void Profiler::logRateHint(const ProfileReport& r) {
  // ctimer and itimer are POSIX CPU-time timers, which the kernel checks only at its tick (1-10 ms
  // by CONFIG_HZ; 4 ms here). Asked for less, both keep the rate, their signals counting the
  // intervals they stand for (ctimer: si_overrun, or jittered the thread's CPU clock; itimer: the
  // process's CPU clock), but their stacks are no finer than the tick. The summary and the stats
  // give the rate and the merged ticks; this line says why and what to do. (Short-lived threads
  // lower the rate of stacks too, their CPU settled stackless; at 10 ms and above only they can.)
  // The rate of stacks: ctimer settles the CPU its signals did not stand for as stackless
  // cpu_unsampled ticks as threads end and at stop, which keeps the CPU but takes no sample.
  if (!options_.cpuEngine || options_.engine == EngineKind::kCpu || options_.intervalNs >= 10'000'000) return;
  uint64_t ticks = r.cpuTicks();
  uint64_t settled = std::min(ticks, r.failureCount(bucketName(Bucket::kCpuUnsampled)));
  if (ticks < 100 || ticks == settled) return;
  double achieved = r.samplesPerCpuSecond() * static_cast<double>(ticks - settled) / static_cast<double>(ticks);
  double requested = r.requestedPerCpuSecond();
  if (achieved <= 0) return;
  if (achieved < requested / 2) {
    logInfo("event=%s took %.0f samples per CPU-second of the %.0f that interval=%lldns asks (%.1f%%; the rest of the "
            "CPU is counted as cpu_unsampled): the kernel fires CPU-time timers only at its tick, here about every "
            "%.1f ms of a thread's CPU; ask interval=%.0fms, or event=cpu (perf events) to sample faster",
            engineName(options_.engine), achieved, requested, static_cast<long long>(options_.intervalNs),
            100.0 * achieved / requested, 1000.0 / achieved, std::ceil(1000.0 / achieved));
  } else if (r.merged * 2 > ticks - settled && r.merged < ticks - settled) {
    ticks -= settled;
    double perSignal = static_cast<double>(ticks) / static_cast<double>(ticks - r.merged);
    logInfo("event=%s: %.1f%% of its %llu ticks came within a later tick's signal: the kernel fires CPU-time timers "
            "only at its tick, so each stack stands for %.1f intervals of %lldns (about %.1f ms of %s CPU); "
            "event=cpu (perf events) samples each interval",
            engineName(options_.engine), 100.0 * static_cast<double>(r.merged) / static_cast<double>(ticks),
            static_cast<unsigned long long>(ticks), perSignal, static_cast<long long>(options_.intervalNs),
            perSignal * static_cast<double>(options_.intervalNs) / 1e6,
            options_.engine == EngineKind::kItimer ? "the process's" : "a thread's");
  }
}

bool Profiler::dump(const std::vector<std::string>& files, std::string* why) {
  std::lock_guard<std::mutex> lock(commandMutex_);
  if (!running_) {
    *why = "profiling is not running; nothing to dump";
    return false;
  }
  for (const std::string& path : files) {
    if (!checkOutputWritable(path, why)) {
      *why = "cannot write " + path + ": " + *why;
      return false;
    }
    if (outputFormatOf(path) == OutputFormat::kJfr && (!jfr_ || jfr_->path() != path)) {
      *why = "a .jfr file can only be dumped to the recording's own path (" + (jfr_ ? jfr_->path() : "none") + ")";
      return false;
    }
  }
  endWallNs_ = clockNs(CLOCK_MONOTONIC);
  endCpuNs_ = clockNs(CLOCK_PROCESS_CPUTIME_ID);
  writeOutputs(false, files.empty() ? outputPaths() : files);
  return true;
}

std::string Profiler::status() {
  std::lock_guard<std::mutex> lock(commandMutex_);
  if (!running_) return "idle";
  std::lock_guard<std::mutex> storeLock(storeMutex_);
  drainLocked();
  int shownSignal = engine_ && engine_->signal() != 0 ? engine_->signal() : wallSignal_;
  // The session's counts: with loop=, the intervals written so far and the current one, so that
  // ticks = recorded + failed + dropped holds here as in every report.
  char buf[512];
  snprintf(buf, sizeof buf,
           "running event=%s signal=%s timers=%s interval_ns=%lld seconds=%.1f threads=%zu ticks=%llu recorded=%llu "
           "failed=%llu dropped=%llu",
           eventsName(options_).c_str(), shownSignal != 0 ? signalName(shownSignal) : "none", timersName(),
           static_cast<long long>(options_.cpuEngine ? options_.intervalNs : options_.samplerIntervalNs),
           (clockNs(CLOCK_MONOTONIC) - startWallNs_) / 1e9, registry_.armedCount(),
           static_cast<unsigned long long>(counters_.totalTicks()),
           static_cast<unsigned long long>(base_.recorded + accounting_.recorded()),
           static_cast<unsigned long long>(base_.failed + accounting_.failuresTotal()),
           static_cast<unsigned long long>(counters_.totalDropped()));
  return buf;
}

void Profiler::onVMDeath() {
  std::string why;
  bool wasRunning;
  {
    std::lock_guard<std::mutex> lock(commandMutex_);
    wasRunning = running_;
  }
  if (wasRunning) stop(&why);
}

void Profiler::writeOutputs(bool final, const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> storeLock(storeMutex_);
  drainLocked();
  writeOutputsLocked(final, paths, "");
}

void Profiler::rotateIntervalLocked(uint64_t nowNs) {
  endWallNs_ = nowNs;
  endCpuNs_ = clockNs(CLOCK_PROCESS_CPUTIME_ID);
  std::vector<std::string> paths;
  for (const std::string& path : outputPaths()) {
    if (path == options_.statsFile || outputFormatOf(path) != OutputFormat::kJfr) paths.push_back(path);
  }
  // x.html → x-YYYYmmdd-HHMMSS.html, the local time the interval began (as the .jfr is named)
  int64_t began = static_cast<int64_t>((base_.wallNs + (clockNs(CLOCK_REALTIME) - nowNs)) / 1'000'000'000);
  writeOutputsLocked(false, paths, JfrRecorder::stamp(began));
  if (jfr_) jfr_->rotate(nowNs, began);
  // The next interval starts from empty: the store's and the accounting's memory is one interval's.
  for (int k = 0; k < kKinds; k++) {
    auto kind = static_cast<SampleKind>(k);
    uint64_t failed = 0;
    for (int b = 0; b < kBuckets; b++) failed += accounting_.failures(kind, static_cast<Bucket>(b));
    base_.ticks[k] += accounting_.recorded(kind) + failed + (lp(counters_.dropped[k]) - base_.dropped[k]);
    base_.recorded += accounting_.recorded(kind);
    base_.failed += failed;
    base_.dropped[k] = lp(counters_.dropped[k]);
    base_.droppedValue[k] = lp(counters_.droppedValue[k]);
  }
  base_.merged = lp(counters_.merged);
  base_.estimated = lp(counters_.estimated);
  base_.wallNs = nowNs;
  base_.cpuNs = endCpuNs_;
  registry_.retireEnded();  // threads that ended are in a report now: their records are not kept for days
  base_.threadCpuNs.clear();
  for (const ThreadRecord& t : registry_.snapshot()) base_.threadCpuNs[t.tid] = t.cpuNs;
  accounting_.startInterval(nowNs, registry_.liveTids());  // empties the store too
  names_->startInterval();  // names (methods, frames, classes) neither this interval nor the last used are forgotten
  labels_.prune();  // the sets no thread is in were the last interval's only
  // What the interval freed goes back to the system: without it, the freed chunks of each
  // interval's store and names stay in the writer's malloc arena, fragmented, and the RSS creeps
  // up interval after interval although the live memory is flat (bench/soak).
  malloc_trim(0);
}

MemoryReport Profiler::memoryLocked() const {
  MemoryReport m;
  m.ringMapped = ring_->mappedBytes();
  m.ringResident = residentBytes(ring_->mapping(), m.ringMapped);
  m.spillMapped = ring_->spill().mappedBytes();
  m.spillResident = residentBytes(ring_->spill().mapping(), m.spillMapped);
  m.storeNodes = store_.nodeCount();
  m.storeBytes = store_.bytes();
  FrameNamer::Memory names = names_->memory();
  m.methods = names.methods;
  m.frames = names.frames;
  m.nameBytes = names.nameBytes;
  m.symbolBytes = names.symbolBytes;
  if (jfr_) {
    m.jfrBufferBytes = jfr_->bufferBytes();
    m.jfrPoolEntries = jfr_->poolEntries();
  }
  m.labelSets = labels_.size();
  m.processResident = processResidentBytes();
  struct mallinfo2 heap = mallinfo2();  // the whole process's malloc: the JVM's, the agent's, libraries'
  m.mallocInUse = heap.uordblks + heap.hblkhd;
  m.mallocFree = heap.fordblks;
  return m;
}

SessionTotals Profiler::totalsLocked(bool final) const {
  SessionTotals totals;
  for (int k = 0; k < kKinds; k++) {
    totals.dropped[k] = lp(counters_.dropped[k]) - base_.dropped[k];
    // A final report counts every tick that was taken; once stopped, all are in their buckets.
    // A dump while running sums the buckets instead, since some ticks may still be in flight.
    auto kind = static_cast<SampleKind>(k);
    uint64_t failed = 0;
    for (int b = 0; b < kBuckets; b++) failed += accounting_.failures(kind, static_cast<Bucket>(b));
    totals.ticks[k] = final ? lp(counters_.ticks[k]) - base_.ticks[k] : accounting_.recorded(kind) + failed + totals.dropped[k];
  }
  totals.merged = lp(counters_.merged) - base_.merged;
  for (int k = 0; k < kKinds; k++) totals.droppedValue[k] = lp(counters_.droppedValue[k]) - base_.droppedValue[k];
  totals.estimated = lp(counters_.estimated) - base_.estimated;
  totals.durationNs = endWallNs_ - base_.wallNs;
  totals.processCpuNs = endCpuNs_ - base_.cpuNs;
  totals.signal = engine_ ? engine_->signal() : 0;
  totals.timers = timersName();
  if (engine_) totals.kernel = {kernelTimeName(engine_->kernelTime()), engine_->kernelTimeReason()};
  totals.wallSignal = wallSignal_;
  totals.depth.limit = options_.depth;
  totals.depth.unlimited = options_.depth == kUnlimitedDepth;
  totals.depth.slotFrames = ring_->depth();
  totals.depth.spilled = ring_->spill().lent();
  totals.depth.spillRefused = ring_->spill().refused();
  totals.memory = memoryLocked();
  if (sampler_) {
    totals.sampler = sampler_->stats();
    totals.hasSampler = true;
  }
  return totals;
}

void Profiler::writeOutputsLocked(bool final, const std::vector<std::string>& paths, const std::string& stamp) {
  SessionTotals totals = totalsLocked(final);
  std::vector<ThreadRecord> threads = registry_.snapshot();
  for (ThreadRecord& t : threads) {  // the interval's CPU of each thread
    auto it = base_.threadCpuNs.find(t.tid);
    if (it != base_.threadCpuNs.end()) t.cpuNs = t.cpuNs > it->second ? t.cpuNs - it->second : 0;
  }
  ProfileReport report = buildReport(options_, totals, store_, accounting_, threads, *names_, labels_);
  report.startUnixNs = base_.wallNs + (clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC));
  report.preloadNs = MethodPreloader::initialNs();
  report.classesPreloaded = MethodPreloader::initialClasses();
  report.classPrepareNs = MethodPreloader::preparedNs();
  report.classesPrepared = MethodPreloader::preparedClasses();

  // At stop the recording closes first, so that push= can send its last interval and the other
  // outputs can say how the sending went.
  bool jfrClosed = false;
  if (final && jfr_) {
    jfr_->flush(report, true);
    jfrClosed = true;
  }
  // push=otlp+http://: the interval's profile (loop= rotation, or the last one at stop; not dumps)
  if (pusher_ && pusher_->protocol() == PushProtocol::kOtlp && (final || !stamp.empty())) {
    int64_t from = static_cast<int64_t>(report.startUnixNs / 1'000'000'000);
    pusher_->offerBody(encodeOtlp(report), from, from + static_cast<int64_t>(report.durationNs / 1'000'000'000));
  }
  if (final && pusher_) {
    pusher_->stop(Pusher::kStopDeadlineMs);
    Pusher::Counts c = pusher_->counts();
    report.push = {true, pusher_->url(), options_.service, c.sent, c.failed, c.dropped, c.bytes};
  }
  bool jfrPath = writeReportFiles(report, paths, options_.statsFile, stamp);
  if (jfrPath && jfr_ && !jfrClosed) jfr_->flush(report, final);
  if (final) {
    logRateHint(report);
    accounting_.setListener(nullptr);
    jfr_.reset();
    pusher_.reset();
    if (!pushDir_.empty()) rmdir(pushDir_.c_str());  // its files were deleted as they were handled
    sampler_.reset();
  }
}

}  // namespace candor
