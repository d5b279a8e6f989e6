#include "store/TimelineLog.h"

namespace candor {

void TimelineLog::add(uint64_t timeNs, int32_t tid, uint32_t labels, SampleKind kind, ThreadState state,
                      uint32_t trace, Bucket failure, uint64_t weight) {
  if (!enabled_ || weight == 0) return;
  // A sample stamped before the session began (taken as it started) goes in the first column.
  uint64_t offset = timeNs > startNs_ ? timeNs - startNs_ : 0;
  Key key{static_cast<uint32_t>(offset / bucketNs_), tid, trace, kind, state,
          trace == kNoTrace ? failure : Bucket::kNoJavaFrame, labels};
  entries_[key] += weight;
  if (entries_.size() > kMaxEntries) coarsen();
}

void TimelineLog::coarsen() {
  while (entries_.size() > kMaxEntries / 2) {
    bool wider = false;  // can columns still merge?
    for (const auto& entry : entries_) wider = wider || entry.first.bucket > 0;
    if (!wider) {  // more distinct stacks than the bound in one column: no timeline rather than a wrong one
      clear();
      given_up_ = true;
      return;
    }
    bucketNs_ *= 2;
    std::unordered_map<Key, uint64_t, KeyHash> merged;
    merged.reserve(entries_.size());
    for (const auto& [key, weight] : entries_) {
      Key k = key;
      k.bucket /= 2;
      merged[k] += weight;
    }
    entries_.swap(merged);
  }
}

void TimelineLog::clear() {
  enabled_ = false;
  given_up_ = false;
  bucketNs_ = 1'000'000;
  entries_.clear();
  entries_.rehash(0);
}

}  // namespace candor
