// Deduplicated stack traces and their sample counts, per thread. Runs on the writer thread only.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "jvm/AsgctTypes.h"
#include "store/SampleKinds.h"

namespace candor {

struct StoredFrame {
  jmethodID method;
  int32_t bci;  // AGCT lineno field: bci, or kAsgctNativeFrameBci
  bool operator==(const StoredFrame& o) const { return method == o.method && bci == o.bci; }
};

// A distinct stack. Frames are stored leaf first, as AGCT returns them.
struct StoredTrace {
  std::vector<StoredFrame> frames;
  uint64_t hash;
};

class TraceStore {
 public:
  // Adds one sample of `frames` (leaf first) taken on thread `tid`; returns the trace id.
  uint32_t add(const ASGCT_CallFrame* frames, int numFrames, int tid, SampleKind kind = SampleKind::kCpu,
               ThreadState state = ThreadState::kUnknown, uint64_t count = 1);
  // Counts one more sample of a trace already stored.
  void addAgain(uint32_t trace, int tid, SampleKind kind, ThreadState state, uint64_t count = 1);

  const std::vector<StoredTrace>& traces() const { return traces_; }
  // Sample counts keyed by (trace id, tid, kind, state).
  struct Key {
    uint32_t trace;
    int32_t tid;
    SampleKind kind = SampleKind::kCpu;
    ThreadState state = ThreadState::kUnknown;
    bool operator==(const Key& o) const {
      return trace == o.trace && tid == o.tid && kind == o.kind && state == o.state;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return ((uint64_t(k.trace) << 32) ^ uint32_t(k.tid)) * 31 + (uint32_t(k.kind) << 8 | uint32_t(k.state));
    }
  };
  const std::unordered_map<Key, uint64_t, KeyHash>& counts() const { return counts_; }
  uint64_t totalSamples() const { return total_; }

  // Methods seen since the last call: the writer resolves their names while their classes live.
  std::vector<jmethodID> takeNewMethods();

  void clear();

 private:
  std::vector<StoredTrace> traces_;
  std::unordered_multimap<uint64_t, uint32_t> byHash_;
  std::unordered_map<Key, uint64_t, KeyHash> counts_;
  std::unordered_set<jmethodID> knownMethods_;
  std::vector<jmethodID> newMethods_;
  uint64_t total_ = 0;
};

}  // namespace candor
