// A log-bucketed latency histogram in the spirit of HdrHistogram: values 0..2^44 ns with 32
// sub-buckets per power of two (≤ 3% relative error), fixed memory, O(1) record. Writer side only.
#pragma once
#include <array>
#include <cstdint>

namespace candor {

class LatencyHistogram {
 public:
  void record(uint64_t valueNs, uint64_t count = 1);
  // Coordinated-omission correction (HdrHistogram's recordValueWithExpectedInterval): a sample
  // that was `value` late on a schedule of `interval` also stands for the samples the stall
  // swallowed, which would have been value - interval, value - 2·interval, … late.
  void recordCorrected(uint64_t valueNs, uint64_t expectedIntervalNs);

  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t mean() const { return count_ == 0 ? 0 : sum_ / count_; }
  // The value at quantile q (0..1): the upper edge of the bucket holding it; 0 when empty.
  uint64_t percentile(double q) const;
  void clear();

 private:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kMagnitudes = 45;
  static int bucketOf(uint64_t v);
  static uint64_t upperEdge(int bucket);

  std::array<uint64_t, kMagnitudes * kSub> counts_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
};

}  // namespace candor
