#include "store/LatencyHistogram.h"

#include <gtest/gtest.h>

using namespace candor;

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(0.5), 0u);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 20; v++) h.record(v);
  EXPECT_EQ(h.percentile(0.5), 10u);
  EXPECT_EQ(h.percentile(1.0), 20u);
  EXPECT_EQ(h.max(), 20u);
}

TEST(LatencyHistogram, PercentilesWithinThreePercentAndMonotone) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100000; v++) h.record(v * 1000);  // 1 µs .. 100 ms, uniform
  double qs[] = {0.1, 0.5, 0.9, 0.99, 0.999};
  uint64_t last = 0;
  for (double q : qs) {
    uint64_t p = h.percentile(q);
    double truth = q * 100000 * 1000;
    EXPECT_NEAR(static_cast<double>(p), truth, truth * 0.03) << q;
    EXPECT_GE(p, last);
    last = p;
  }
  EXPECT_EQ(h.percentile(1.0), 100000u * 1000);
}

TEST(LatencyHistogram, CoordinatedOmissionBackfillsSwallowedSamples) {
  LatencyHistogram h;
  for (int i = 0; i < 96; i++) h.record(100'000);  // 100 µs
  h.recordCorrected(5'000'000, 1'000'000);          // one 5 ms stall on a 1 ms schedule
  EXPECT_EQ(h.count(), 96u + 5u);                   // 5, 4, 3, 2, 1 ms
  EXPECT_GE(h.percentile(0.99), 4'000'000u * 97 / 100);
  EXPECT_EQ(h.max(), 5'000'000u);
}
