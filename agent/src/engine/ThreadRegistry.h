// The threads a session samples: which are armed, what they are called, what kind they are, and
// how much CPU they used while armed (the denominator of "samples per CPU-second").
// Called from JVMTI thread events, the control thread and the writer thread; never the handler.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

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
};

class ThreadRegistry {
 public:
  void begin(Engine* engine);
  // Arms a thread unless it is known already; logs the first failure only.
  void add(int tid, const std::string& name, ThreadKind kind);
  void remove(int tid);
  // Arms every thread of the process not yet known (allthreads), naming it from /proc.
  void addAllProcessThreads();
  // Disarms everything and settles CPU times; the records stay for the report.
  void end();

  // A copy of every record, live CPU times brought up to date.
  std::vector<ThreadRecord> snapshot();
  size_t armedCount();
  void clear();

 private:
  // CPU used while armed: settled periods plus the current one.
  static uint64_t cpuSoFar(const ThreadRecord& r);
  std::mutex mutex_;
  Engine* engine_ = nullptr;
  std::map<int, ThreadRecord> threads_;
  bool warned_ = false;
};

uint64_t threadCpuNs(int tid);

}  // namespace candor
