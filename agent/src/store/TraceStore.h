// Deduplicated stack traces and their sample counts, per thread. Runs on the writer thread only.
//
// Stacks are stored as a prefix tree (a calling-context tree): a node is one frame under its
// caller, and a trace is the node of its innermost frame, so stacks that share callers share
// their nodes. A deep recursion sampled many times costs its depth once, not once per distinct
// leaf. Adding a sample compares it with the same thread's previous one from the root down and
// looks up only the frames below the first difference (incremental stack tracing, done on the
// consumer side): consecutive samples of a thread mostly share their callers.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/Vocabulary.h"
#include "store/FlatMap.h"

namespace candor {

struct StoredFrame {
  jmethodID method;
  int32_t bci;  // AGCT lineno field: bci, or kNativeMethodBci
  bool operator==(const StoredFrame& o) const { return method == o.method && bci == o.bci; }
};

class TraceStore {
 public:
  // Adds one sample of `frames` (leaf first) taken on thread `tid`; returns the trace id.
  // `truncated`: the stack filled the walker's buffer, so a [truncated] marker goes below it.
  // `labels`: the thread's label set (store/LabelSets id), 0 for none.
  uint32_t add(const ASGCT_CallFrame* frames, int numFrames, int tid, SampleKind kind = SampleKind::kCpu,
               ThreadState state = ThreadState::kUnknown, uint64_t count = 1, bool truncated = false,
               uint32_t labels = 0);
  // The trace of `leafFirst` (frames() of a trace), stored without a sample: for a stack a later
  // sample repeats by its id (SampleAccounting::startInterval).
  uint32_t intern(const std::vector<StoredFrame>& leafFirst);
  // Counts one more sample of a trace already stored.
  void addAgain(uint32_t trace, int tid, SampleKind kind, ThreadState state, uint64_t count = 1, uint32_t labels = 0);

  // Frames of a trace, leaf first (as AGCT returns them).
  std::vector<StoredFrame> frames(uint32_t trace) const;
  uint32_t depth(uint32_t trace) const { return nodes_[trace].depth; }
  // The prefix tree itself: node 0 is the root; a trace id is a node.
  uint32_t parent(uint32_t node) const { return nodes_[node].parent; }
  const StoredFrame& frame(uint32_t node) const { return nodes_[node].frame; }
  // Distinct traces added, and the frames stored for all of them together.
  size_t traceCount() const { return traceCount_; }
  size_t nodeCount() const { return nodes_.size() - 1; }
  // The memory the tree, its index and the counts take, roughly.
  size_t bytes() const;

  // Sample counts keyed by (trace id, tid, kind, state, label set).
  struct Key {
    uint32_t trace;
    int32_t tid;
    SampleKind kind = SampleKind::kCpu;
    ThreadState state = ThreadState::kUnknown;
    uint32_t labels = 0;
    bool operator==(const Key& o) const {
      return trace == o.trace && tid == o.tid && kind == o.kind && state == o.state && labels == o.labels;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return mixHash(((uint64_t(k.trace) << 32) ^ uint32_t(k.tid)) * 31 + (uint32_t(k.kind) << 8 | uint32_t(k.state)) +
                     uint64_t(k.labels) * 0x9E3779B97F4A7C15ull);
    }
  };
  using Counts = FlatMap<Key, uint64_t, KeyHash>;
  const Counts& counts() const { return counts_; }
  uint64_t totalSamples() const { return total_; }

  // Methods seen since the last call: the writer resolves their names while their classes live.
  std::vector<jmethodID> takeNewMethods();

  void clear();

 private:
  struct Node {
    uint32_t parent;
    uint32_t depth;   // frames from the root down to this one; 0 for the root
    StoredFrame frame;
    bool isTrace;     // some sample ended here
  };
  struct Edge {
    uint32_t parent;
    StoredFrame frame;
    bool operator==(const Edge& o) const { return parent == o.parent && frame == o.frame; }
  };
  struct EdgeHash {
    size_t operator()(const Edge& e) const {
      return mixHash(((uint64_t(e.parent) * 0x9e3779b97f4a7c15ULL) ^ reinterpret_cast<uintptr_t>(e.frame.method)) ^
                     uint32_t(e.frame.bci));
    }
  };
  uint32_t child(uint32_t parent, const ASGCT_CallFrame& f);

  std::vector<Node> nodes_{Node{0, 0, {nullptr, 0}, false}};  // node 0: the root, no frame
  FlatMap<Edge, uint32_t, EdgeHash> children_;
  std::unordered_map<int, std::vector<uint32_t>> lastPath_;   // per thread: nodes root-first
  size_t traceCount_ = 0;
  Counts counts_;
  std::unordered_set<jmethodID> knownMethods_;
  std::vector<jmethodID> newMethods_;
  uint64_t total_ = 0;
};

}  // namespace candor
