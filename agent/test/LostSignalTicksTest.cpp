#include "engine/LostSignalTicks.h"

#include <gtest/gtest.h>

using namespace candor;

namespace {
constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kS = 1000 * kMs;
}  // namespace

TEST(LostSignalTicks, NothingIsOwedWhileTheSignalIsCandors) {
  LostSignalTicks lost(kMs);
  EXPECT_EQ(0u, lost.settle(false, 1 * kS, 10));  // a poor rate is not a takeover
  EXPECT_EQ(0u, lost.settle(false, 2 * kS, 20));
  EXPECT_FALSE(lost.takenOver());
  EXPECT_EQ(0u, lost.charged());
}

TEST(LostSignalTicks, AfterATakeoverTheCpuSinceTheLastGoodCheckIsOwedAtTheRateAchievedBefore) {
  LostSignalTicks lost(kMs);
  EXPECT_EQ(0u, lost.settle(false, 2 * kS, 1900));  // 95% of the requested rate
  // Taken during the next second: 300 ticks arrived before it, then none.
  EXPECT_EQ(650u, lost.settle(true, 3 * kS, 2200));  // 950 expected, 300 arrived
  EXPECT_TRUE(lost.takenOver());
  // The charges are counted in `ticks` from then on (the writer adds them): not ticks that arrived.
  EXPECT_EQ(950u, lost.settle(true, 4 * kS, 2200 + 650));
  EXPECT_EQ(1600u, lost.charged());
}

TEST(LostSignalTicks, AHandlerThatChainsToCandorsOwesNothing) {
  LostSignalTicks lost(kMs);
  lost.settle(false, 1 * kS, 1000);
  EXPECT_EQ(0u, lost.settle(true, 2 * kS, 2000));
  EXPECT_EQ(0u, lost.settle(true, 3 * kS, 3000));
  EXPECT_EQ(0u, lost.charged());
}

TEST(LostSignalTicks, ATakeoverAtTheStartUsesTheRequestedRate) {
  LostSignalTicks lost(10 * kMs);
  // 50 ms of CPU before the first check: 5 intervals, too few to measure a rate.
  lost.settle(false, 50 * kMs, 1);
  EXPECT_EQ(200u, lost.settle(true, 2050 * kMs, 1));
}

TEST(LostSignalTicks, TicksThatArriveAgainPayBackNothingButStopTheCharges) {
  LostSignalTicks lost(kMs);
  lost.settle(false, 1 * kS, 1000);
  EXPECT_EQ(1000u, lost.settle(true, 2 * kS, 1000));
  // The other handler gave the signal back: ticks arrive at the full rate again.
  EXPECT_EQ(0u, lost.settle(false, 3 * kS, 1000 + 1000 + 1000));
  EXPECT_EQ(1000u, lost.charged());
}
