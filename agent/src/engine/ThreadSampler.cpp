#include "engine/ThreadSampler.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/WallTargets.h"
#include "jvm/AgentThread.h"
#include "jvm/Jvm.h"

namespace candor {

namespace {
uint64_t threadCpuSelf() { return clockNs(CLOCK_THREAD_CPUTIME_ID); }

void sleepUntil(uint64_t ns) {
  timespec ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

ThreadState stateFromJvmti(jint st, bool usedCpu) {
  if ((st & JVMTI_THREAD_STATE_SLEEPING) != 0) return ThreadState::kSleeping;
  if ((st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0) return ThreadState::kMonitor;
  if ((st & JVMTI_THREAD_STATE_PARKED) != 0) return ThreadState::kParked;
  if ((st & JVMTI_THREAD_STATE_WAITING) != 0) return ThreadState::kWaiting;
  bool native = (st & JVMTI_THREAD_STATE_IN_NATIVE) != 0;
  if (native) return usedCpu ? ThreadState::kNative : ThreadState::kIo;
  return usedCpu ? ThreadState::kRunning : ThreadState::kRunnable;
}
}  // namespace

ThreadSampler::ThreadSampler(const Options& options, ThreadRegistry& registry, JvmtiSampleSink& sink)
    : options_(options), registry_(registry), sink_(sink),
      wallSignal_(options.wallSignal != 0 ? options.wallSignal : SIGURG) {}

ThreadSampler::~ThreadSampler() { stop(); }

void ThreadSampler::start() {
  sp(stopping_, false);
  thread_ = AgentThread::start("candor sampler", true, [this](JNIEnv* env) {
    if (env != nullptr) run(env);
  });
}

void ThreadSampler::stop() {
  if (!thread_.joinable()) return;
  sp(stopping_, true);
  thread_.join();
}

SamplerStats ThreadSampler::stats() {
  std::lock_guard<std::mutex> lock(statsMutex_);
  return stats_;
}

uint64_t ThreadSampler::nextRandom() {  // xorshift64*: selection needs spread, not secrecy
  random_ ^= random_ >> 12;
  random_ ^= random_ << 25;
  random_ ^= random_ >> 27;
  return random_ * 0x2545F4914F6CDD1DULL;
}

void ThreadSampler::run(JNIEnv* env) {
  random_ ^= monotonicNs();
  const uint64_t interval = static_cast<uint64_t>(options_.samplerIntervalNs);
  const uint64_t first = monotonicNs() + interval;
  uint64_t k = 0;
  while (!lp(stopping_)) {
    uint64_t intended = first + k * interval;
    sleepUntil(intended);
    if (lp(stopping_)) break;
    uint64_t cpu0 = threadCpuSelf();
    tick(env, intended);
    uint64_t cost = threadCpuSelf() - cpu0;
    uint64_t now = monotonicNs();
    uint64_t next = k + 1;
    if (now > first + next * interval) {  // fell behind: skip the ticks that are already past
      uint64_t caughtUp = (now - first) / interval + 1;
      std::lock_guard<std::mutex> lock(statsMutex_);
      stats_.missedTicks += caughtUp - next;
      next = caughtUp;
    }
    k = next;
    std::lock_guard<std::mutex> lock(statsMutex_);
    stats_.ticks++;
    stats_.tickCpuNs.record(cost);
    stats_.elapsedNs = now - (first - interval);
  }
}

uint64_t ThreadSampler::busyThresholdNs() const {
  return std::max<uint64_t>(50'000, static_cast<uint64_t>(options_.samplerIntervalNs) / 50);
}

ThreadState ThreadSampler::classify(const SamplerTarget& t, uint64_t cpuNow, bool* usedCpu) {
  WallTarget& w = WallTargets::at(t.wallIndex);
  bool unchanged = w.lastCpuNs != 0 && cpuNow == w.lastCpuNs && w.lastState != ThreadState::kUnknown;
  *usedCpu = w.lastCpuNs == 0 || cpuNow > w.lastCpuNs + busyThresholdNs();
  w.lastCpuNs = cpuNow;
  // A thread that used no CPU at all since the last look cannot have changed its state: skip
  // the JVMTI call, which dominates the per-tick cost when hundreds of threads sit idle.
  if (unchanged && isIdleState(w.lastState)) return w.lastState;
  jint st = 0;
  if (Jvm::jvmti()->GetThreadState(t.ref, &st) != JVMTI_ERROR_NONE || (st & JVMTI_THREAD_STATE_ALIVE) == 0) {
    w.lastState = ThreadState::kUnknown;
    return ThreadState::kUnknown;
  }
  w.lastState = stateFromJvmti(st, *usedCpu);
  return w.lastState;
}

void ThreadSampler::tick(JNIEnv* env, uint64_t intendedNs) {
  registry_.samplerTargets(env, &targets_);
  size_t n = targets_.size();
  states_.resize(n);
  cpu_.resize(n);
  busy_.clear();
  idle_.clear();
  for (size_t i = 0; i < n; i++) {
    bool usedCpu;
    cpu_[i] = threadCpuNs(targets_[i].tid);
    states_[i] = classify(targets_[i], cpu_[i], &usedCpu);
    if (states_[i] == ThreadState::kUnknown) continue;  // not started or already ended
    (states_[i] == ThreadState::kRunning || states_[i] == ThreadState::kNative ? busy_ : idle_).push_back(i);
  }
  chosen_.clear();
  if (options_.sampler == SamplerMode::kSafepoint) {  // the classic sampler takes every thread
    chosen_ = busy_;
    chosen_.insert(chosen_.end(), idle_.begin(), idle_.end());
  } else {
    size_t quota = options_.wallThreads;
    size_t total = busy_.size() + idle_.size();
    size_t takeBusy = std::min(busy_.size(), quota);
    for (size_t i = 0; i < takeBusy; i++) {  // more busy threads than quota: a random subset
      std::swap(busy_[i], busy_[i + nextRandom() % (busy_.size() - i)]);
      chosen_.push_back(busy_[i]);
    }
    size_t share = total > 0 ? static_cast<size_t>(std::lround(double(quota) * idle_.size() / total)) : 0;
    size_t takeIdle = std::min({idle_.size(), quota - takeBusy, std::max<size_t>(share, idle_.empty() ? 0 : 1)});
    for (size_t i = 0; i < takeIdle; i++) {
      std::swap(idle_[i], idle_[i + nextRandom() % (idle_.size() - i)]);
      chosen_.push_back(idle_[i]);
    }
  }
  {
    std::lock_guard<std::mutex> lock(statsMutex_);
    size_t busyChosen = 0;
    for (size_t c : chosen_) busyChosen += (states_[c] == ThreadState::kRunning || states_[c] == ThreadState::kNative);
    stats_.runningSeen += busy_.size();
    stats_.runningSampled += busyChosen;
    stats_.candidatesMax = std::max<uint64_t>(stats_.candidatesMax, n);
  }
  switch (options_.sampler) {
    case SamplerMode::kWall:
      for (size_t c : chosen_) sampleWall(targets_[c], states_[c], cpu_[c], intendedNs);
      break;
    case SamplerMode::kHandshake:
      for (size_t c : chosen_) sampleHandshake(targets_[c], states_[c], intendedNs);
      break;
    case SamplerMode::kSafepoint:
      sampleSafepoint(chosen_, intendedNs);
      break;
    case SamplerMode::kNone:
      break;
  }
}

void ThreadSampler::sampleWall(const SamplerTarget& t, ThreadState state, uint64_t cpuNow, uint64_t intendedNs) {
  WallTarget& w = WallTargets::at(t.wallIndex);
  bool idleSinceLastSample = w.cpuAtLastSampleNs != UINT64_MAX && cpuNow < w.cpuAtLastSampleNs + busyThresholdNs();
  if (isIdleState(state) && idleSinceLastSample && w.stateAtLastSample == state) {
    sink_.recordRepeat(t.tid, state, intendedNs);  // its stack cannot have changed
    std::lock_guard<std::mutex> lock(statsMutex_);
    stats_.repeated++;
    return;
  }
  if (lv(wallSignalTaken_)) {
    // A signal still pending went to the other handler: that tick is lost too, once.
    uint32_t weight = lv(w.pending) ? 2 : 1;
    sp(w.pending, false);
    sink_.recordSignalLost(t.tid, state, intendedNs, weight);
    return;
  }
  if (lv(w.pending)) {
    // Its last signal is still undelivered: the thread has not run since then (it waits for a
    // core), so its stack has not moved. Record that, rather than let it fall out of the
    // wall-clock picture; the pending signal still yields its own sample later.
    sink_.recordRepeat(t.tid, ThreadState::kRunnable, intendedNs);
    std::lock_guard<std::mutex> lock(statsMutex_);
    stats_.skippedPending++;
    return;
  }
  sp(w.state, static_cast<uint8_t>(state));
  sp(w.intendedNs, intendedNs);
  so(w.pending, true);  // publishes state and intendedNs
  siginfo_t info = {};
  info.si_signo = wallSignal_;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_int = t.wallIndex;
  bool sent = syscall(SYS_rt_tgsigqueueinfo, getpid(), t.tid, wallSignal_, &info) == 0;
  if (sent) {
    w.cpuAtLastSampleNs = cpuNow;
    w.stateAtLastSample = state;
  } else {
    sp(w.pending, false);
  }
  std::lock_guard<std::mutex> lock(statsMutex_);
  (sent ? stats_.signalsSent : stats_.signalFailures)++;
}

void ThreadSampler::sampleHandshake(const SamplerTarget& t, ThreadState state, uint64_t intendedNs) {
  jint count = 0;
  bool cut = false;
  uint64_t t0 = monotonicNs();
  jvmtiError err = frames_.stackTrace(Jvm::jvmti(), t.ref, options_.depth, &count, &cut);
  uint64_t took = monotonicNs() - t0;
  sink_.record(t.tid, SampleKind::kHandshake, state, intendedNs, frames_.data(), count, err, cut);
  std::lock_guard<std::mutex> lock(statsMutex_);
  stats_.callNs.record(took);
}

void ThreadSampler::sampleSafepoint(const std::vector<size_t>& chosen, uint64_t intendedNs) {
  if (chosen.empty()) return;
  std::vector<jthread> refs;
  refs.reserve(chosen.size());
  for (size_t c : chosen) refs.push_back(targets_[c].ref);
  jvmtiStackInfo* infos = nullptr;
  uint64_t t0 = monotonicNs();
  // One safepoint per tick, so no retry: a stack that reaches the limit is recorded cut (and
  // marked), and the limit grows for the next tick, up to depth=.
  if (safepointDepth_ == 0) safepointDepth_ = std::min<uint32_t>(options_.depth, JvmtiFrames::kFirstDepth);
  jvmtiError err = Jvm::jvmti()->GetThreadListStackTraces(static_cast<jint>(refs.size()), refs.data(),
                                                          static_cast<jint>(safepointDepth_), &infos);
  uint64_t took = monotonicNs() - t0;
  bool grow = false;
  for (size_t i = 0; i < chosen.size(); i++) {
    const SamplerTarget& t = targets_[chosen[i]];
    if (err != JVMTI_ERROR_NONE) {
      sink_.record(t.tid, SampleKind::kSafepoint, states_[chosen[i]], intendedNs, nullptr, 0, err);
    } else {
      bool cut = static_cast<uint32_t>(infos[i].frame_count) >= safepointDepth_;
      grow |= cut;
      sink_.record(t.tid, SampleKind::kSafepoint, states_[chosen[i]], intendedNs, infos[i].frame_buffer,
                     infos[i].frame_count, infos[i].state == 0 ? JVMTI_ERROR_THREAD_NOT_ALIVE : JVMTI_ERROR_NONE, cut);
    }
  }
  if (grow) safepointDepth_ = std::min<uint32_t>(options_.depth, safepointDepth_ * 4);
  if (infos != nullptr) Jvm::jvmti()->Deallocate(reinterpret_cast<unsigned char*>(infos));
  std::lock_guard<std::mutex> lock(statsMutex_);
  stats_.callNs.record(took);
}

}  // namespace candor
