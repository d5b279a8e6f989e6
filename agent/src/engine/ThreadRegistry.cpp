#include "engine/ThreadRegistry.h"

#include <dirent.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "base/Log.h"
#include "engine/CTimerEngine.h"
#include "engine/WallTargets.h"
#include "jvm/Jvm.h"

namespace candor {

const char* threadKindName(ThreadKind k) {
  switch (k) {
    case ThreadKind::kJava: return "java";
    case ThreadKind::kCompiler: return "compiler";
    case ThreadKind::kGc: return "gc";
    case ThreadKind::kVm: return "vm";
    case ThreadKind::kOther: return "other";
  }
  return "other";
}

ThreadKind classifyNativeThread(const std::string& comm) {
  auto has = [&](const char* s) { return comm.find(s) != std::string::npos; };
  if (has("Compiler") || has("C1 ") || has("C2 ")) return ThreadKind::kCompiler;
  if (has("GC") || has("G1 ") || comm.rfind("Z", 0) == 0 || has("Shenandoah") || has("Conc")) return ThreadKind::kGc;
  if (has("VM ") || has("Service Thread") || has("Monitor Deflation") || has("Signal Dispatcher") ||
      has("Notification Thread") || has("Sweeper")) {
    return ThreadKind::kVm;
  }
  return ThreadKind::kOther;
}

uint64_t threadCpuNs(int tid) {
  timespec ts;
  if (clock_gettime(threadCpuClock(tid), &ts) != 0) return 0;
  return uint64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void ThreadRegistry::begin(Engine* engine, const Options& options, bool withSampler) {
  std::lock_guard<std::mutex> lock(mutex_);
  active_ = true;
  engine_ = engine;
  withSampler_ = withSampler;
  nameFilter_ = options.threadFilter.empty() ? nullptr : std::make_unique<std::regex>(options.threadFilter);
  tidFilter_ = options.tidFilter;
  warned_ = false;
}

bool ThreadRegistry::passesFilter(int tid, const std::string& name) const {
  if (!tidFilter_.empty() && std::find(tidFilter_.begin(), tidFilter_.end(), tid) == tidFilter_.end()) return false;
  return !nameFilter_ || std::regex_search(name, *nameFilter_);
}

void ThreadRegistry::add(int tid, const std::string& name, ThreadKind kind, JNIEnv* env, jthread thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_ || tid <= 0 || !passesFilter(tid, name)) return;
  // A tid that comes back is the same OS thread re-attached (main becomes DestroyJavaVM) or,
  // rarely, a recycled tid: either way its samples are keyed by tid, so the record continues.
  auto [it, isNew] = threads_.try_emplace(tid);
  ThreadRecord& r = it->second;
  if (!isNew && r.live) return;
  r.endedBeforeInterval = false;
  if (isNew) {
    r.tid = tid;
    r.name = name;
    r.kind = kind;
  }
  r.live = true;
  r.armed = true;
  r.cpuAtArmNs = threadCpuNs(tid);
  if (r.kind == ThreadKind::kJava) Jvm::javaThreads().add(tid);  // before its timer can fire
  if (withSampler_ && kind == ThreadKind::kJava && env != nullptr && thread != nullptr) {
    r.ref = static_cast<jthread>(env->NewGlobalRef(thread));
    r.wallIndex = WallTargets::acquire(tid);
  }
  if (engine_ == nullptr || !engine_->perThread()) return;
  // walk=copy walks a sample from its JavaThread: known from the start, not from the first sample
  // that happens to be in Java code. Read only for a thread that is armed, the one use of it.
  if (kind == ThreadKind::kJava && env != nullptr && thread != nullptr) r.timer.javaThread = Jvm::javaThreadOf(env, thread);
  r.timer.cpuAtArmNs = r.cpuAtArmNs;
  std::string why;
  r.armed = engine_->armThread(tid, &r.timer, &why);
  // A thread that ended before it was armed (a churning pool, armed from another thread: perf says
  // ESRCH) is no failure to report: it shows among the threads not armed, with its CPU.
  if (!r.armed && !warned_ && threadCpuNs(tid) != 0) {
    warned_ = true;
    logError("cannot sample thread '%s' (tid %d): %s", name.c_str(), tid, why.c_str());
  }
}

void ThreadRegistry::releaseSamplerState(ThreadRecord& r, JNIEnv* env) {
  if (r.ref != nullptr) {
    if (withSampler_) deadRefs_.push_back(r.ref);  // the sampler may still hold it this tick
    else if (env != nullptr) env->DeleteGlobalRef(r.ref);
    r.ref = nullptr;
  }
  WallTargets::release(r.wallIndex);
  r.wallIndex = -1;
}

void ThreadRegistry::remove(int tid, JNIEnv* env) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = threads_.find(tid);
  if (it == threads_.end() || !it->second.live) return;
  // Its last ticks first: their CPU is then inside the CPU the record keeps, never past it.
  if (engine_ != nullptr && it->second.armed) engine_->settleThisThread(tid);
  disarm(it->second);  // on the exiting thread itself: its clock is valid
  Jvm::javaThreads().remove(tid);
  releaseSamplerState(it->second, env);
  it->second.live = false;
}

void ThreadRegistry::disarm(ThreadRecord& r) {
  uint64_t before = r.cpuNs;
  r.cpuNs = cpuSoFar(r);
  if (engine_ == nullptr) return;
  r.timer.cpuAtDisarmNs = 0;
  engine_->disarmThread(&r.timer);
  // percpu: disarming read every CPU's ring for the thread's last samples, then its clock. Kept
  // from there, the CPU the record keeps covers every tick counted for the thread; read before,
  // it left out the reading's own CPU, which became ticks all the same (sampled, or charged by the
  // settlement from the later clock): with thousands of threads a second, each alive for ~45 us
  // of CPU, their ticks came to 103.5-105.4% of it (100.0-100.5% now, CpuCoverageTest).
  uint64_t last = r.timer.cpuAtDisarmNs;
  if (r.live && r.armed && last > r.cpuAtArmNs) r.cpuNs = std::max(r.cpuNs, before + (last - r.cpuAtArmNs));
}

uint64_t ThreadRegistry::cpuSoFar(const ThreadRecord& r) {
  if (!r.live || !r.armed) return r.cpuNs;
  uint64_t now = threadCpuNs(r.tid);
  return r.cpuNs + (now >= r.cpuAtArmNs ? now - r.cpuAtArmNs : 0);
}

void ThreadRegistry::addAllProcessThreads() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  std::vector<int> tids;
  while (dirent* e = readdir(dir)) {
    int tid = atoi(e->d_name);
    if (tid > 0) tids.push_back(tid);
  }
  closedir(dir);
  for (int tid : tids) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (threads_.count(tid) != 0) continue;
    }
    std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(comm, name);
    add(tid, name, classifyNativeThread(name));
  }
}

void ThreadRegistry::samplerTargets(JNIEnv* env, std::vector<SamplerTarget>* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (jthread ref : deadRefs_) env->DeleteGlobalRef(ref);
  deadRefs_.clear();
  out->clear();
  for (const auto& [tid, r] : threads_) {
    if (r.live && r.ref != nullptr && r.wallIndex >= 0) out->push_back({tid, r.ref, r.wallIndex});
  }
}

void ThreadRegistry::end(JNIEnv* env) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [tid, r] : threads_) {
    disarm(r);
    Jvm::javaThreads().remove(tid);
    r.live = false;
    if (r.ref != nullptr && env != nullptr) env->DeleteGlobalRef(r.ref);  // the sampler has stopped
    r.ref = nullptr;
    r.wallIndex = -1;
  }
  if (env != nullptr) {
    for (jthread ref : deadRefs_) env->DeleteGlobalRef(ref);
  }
  deadRefs_.clear();
  WallTargets::releaseAll();
  engine_ = nullptr;
  active_ = false;
}

std::vector<ThreadRecord> ThreadRegistry::snapshot() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ThreadRecord> out;
  for (const auto& [tid, r] : threads_) {
    out.push_back(r);
    out.back().cpuNs = cpuSoFar(r);
  }
  return out;
}

std::vector<int> ThreadRegistry::armedTids() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> out;
  for (const auto& [tid, r] : threads_) {
    if (r.live && r.armed) out.push_back(tid);
  }
  return out;
}

std::vector<int> ThreadRegistry::liveTids() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int> out;
  for (const auto& [tid, r] : threads_) {
    if (r.live) out.push_back(tid);
  }
  return out;
}

uint64_t ThreadRegistry::armedCpuNs() {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t sum = retiredCpuNs_;
  for (const auto& [tid, r] : threads_) sum += cpuSoFar(r);
  return sum;
}

size_t ThreadRegistry::armedCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (auto& [tid, r] : threads_) n += r.live ? 1 : 0;
  return n;
}

void ThreadRegistry::retireEnded() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = threads_.begin(); it != threads_.end();) {
    ThreadRecord& r = it->second;
    if (!r.live && r.endedBeforeInterval) {
      retiredCpuNs_ += r.cpuNs;
      it = threads_.erase(it);
      continue;
    }
    if (!r.live) r.endedBeforeInterval = true;
    ++it;
  }
}

void ThreadRegistry::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  threads_.clear();
  retiredCpuNs_ = 0;
}

}  // namespace candor
