#include "store/LatencyHistogram.h"

#include <algorithm>
#include <cmath>

namespace candor {

int LatencyHistogram::bucketOf(uint64_t v) {
  if (v < kSub) return static_cast<int>(v);  // magnitude 0 holds 0..31 exactly
  int msb = 63 - __builtin_clzll(v);         // ≥ kSubBits
  int magnitude = msb - kSubBits + 1;
  int sub = static_cast<int>((v >> (msb - kSubBits)) & (kSub - 1));
  int bucket = magnitude * kSub + sub;
  return std::min(bucket, kMagnitudes * kSub - 1);
}

uint64_t LatencyHistogram::upperEdge(int bucket) {
  int magnitude = bucket / kSub, sub = bucket % kSub;
  if (magnitude == 0) return static_cast<uint64_t>(sub);
  int shift = magnitude - 1;
  return ((static_cast<uint64_t>(kSub + sub + 1)) << shift) - 1;
}

void LatencyHistogram::record(uint64_t v, uint64_t count) {
  counts_[bucketOf(v)] += count;
  count_ += count;
  sum_ += v * count;
  max_ = std::max(max_, v);
}

void LatencyHistogram::recordCorrected(uint64_t v, uint64_t interval) {
  record(v);
  if (interval == 0) return;
  for (uint64_t missing = v; missing > interval;) {
    missing -= interval;
    record(missing);
  }
}

uint64_t LatencyHistogram::percentile(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); b++) {
    seen += counts_[b];
    if (seen >= rank) return std::min(upperEdge(static_cast<int>(b)), max_);
  }
  return max_;
}

void LatencyHistogram::clear() {
  counts_.fill(0);
  count_ = 0;
  sum_ = 0;
  max_ = 0;
}

}  // namespace candor
