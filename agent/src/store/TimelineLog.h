// When samples happened, for the flame graph page's timeline: per time bucket, thread, kind,
// state and trace (or failure bucket), the weight of the samples that share them.
//
// Bounded: it starts with 1 ms buckets, and whenever it holds more than kMaxEntries entries the
// buckets double in width and merge, so it stays under ~4 MB whatever the run's length (a page is
// about a thousand pixels wide: a run of an hour still gets 55 ms columns or finer). Should one
// column alone hold more distinct stacks than that, it gives up (the page has no timeline, and
// says nothing false). Writer
// thread, under the store's lock, like the store it indexes.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "base/Vocabulary.h"

namespace candor {

class TimelineLog {
 public:
  static constexpr size_t kMaxEntries = 1 << 16;
  static constexpr uint32_t kNoTrace = UINT32_MAX;

  struct Key {
    uint32_t bucket;  // (time - start) / bucketNs()
    int32_t tid;
    uint32_t trace;   // the store's trace id, or kNoTrace for a failure
    SampleKind kind;
    ThreadState state;
    Bucket failure;   // when trace == kNoTrace
    uint32_t labels;  // the thread's label set (store/LabelSets id)
    bool operator==(const Key& o) const {
      return bucket == o.bucket && tid == o.tid && trace == o.trace && kind == o.kind && state == o.state &&
             failure == o.failure && labels == o.labels;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = (uint64_t(k.bucket) << 32) ^ uint32_t(k.tid) ^ (uint64_t(k.trace) * 0x9E3779B97F4A7C15ull);
      return (h ^ (uint64_t(k.kind) << 56) ^ (uint64_t(k.state) << 48) ^ (uint64_t(k.failure) << 40)) +
             uint64_t(k.labels) * 0xC2B2AE3D27D4EB4Full;
    }
  };

  // Off until started: a run without a page keeps nothing.
  void start(uint64_t startNs) {
    clear();
    startNs_ = startNs;
    enabled_ = true;
  }
  bool enabled() const { return enabled_; }
  // It gave up: one column alone held more distinct stacks than the bound.
  bool givenUp() const { return given_up_; }
  void add(uint64_t timeNs, int32_t tid, uint32_t labels, SampleKind kind, ThreadState state, uint32_t trace,
           Bucket failure, uint64_t weight);
  uint64_t startNs() const { return startNs_; }
  uint64_t bucketNs() const { return bucketNs_; }
  const std::unordered_map<Key, uint64_t, KeyHash>& entries() const { return entries_; }
  void clear();

 private:
  void coarsen();

  bool enabled_ = false;
  bool given_up_ = false;
  uint64_t startNs_ = 0;
  uint64_t bucketNs_ = 1'000'000;
  std::unordered_map<Key, uint64_t, KeyHash> entries_;
};

}  // namespace candor
