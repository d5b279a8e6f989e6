// The weight of a CPU-time timer's signal under the kernel tick (engine/SmoothedWeight.h): it must
// not depend on the stack the signal lands on, and the weights must add up to the intervals.
#include "engine/SmoothedWeight.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

using namespace candor;

namespace {
// A thread alternating short bursts and long ones: a signal that ends a gap of short bursts
// stands for more intervals (they held no tick) and lands in a long burst. Returns the share of
// the weight that went to signals landing in long bursts, and checks the weights' sum.
double longShare(bool ownCount, uint64_t* intervals, uint64_t* paid) {
  SmoothedWeight::Local history = {1, 0, 0, 0};
  std::mt19937 rnd(7);
  uint64_t weightLong = 0, weightAll = 0;
  for (int i = 0; i < 20000; i++) {
    bool inLong = rnd() % 2 == 0;                             // half the signals land in each
    uint64_t stoodFor = inLong ? 3 + rnd() % 3 : 6 + rnd() % 5;  // after short bursts: more
    uint64_t w = ownCount ? stoodFor : history.weigh_signalSafe(stoodFor);
    weightAll += w;
    weightLong += inLong ? w : 0;
    *intervals += stoodFor;
  }
  *paid = weightAll;
  return static_cast<double>(weightLong) / static_cast<double>(weightAll);
}
}  // namespace

TEST(SmoothedWeightTest, aSignalsWeightDoesNotFollowWhereItLands) {
  uint64_t intervals = 0, paid = 0;
  // Weighing each signal by its own count gives the long bursts 4/(4+8) of the weight ...
  EXPECT_NEAR(1.0 / 3, longShare(true, &intervals, &paid), 0.01);
  // ... the smoothed weight gives them their half of the signals.
  intervals = paid = 0;
  EXPECT_NEAR(0.5, longShare(false, &intervals, &paid), 0.01);
  // Within a few intervals of the total: what the last signals still owe.
  EXPECT_LE(paid, intervals + 2 * SmoothedWeight::kPayback);
  EXPECT_GE(paid + 10 * SmoothedWeight::kPayback, intervals);
}

TEST(SmoothedWeightTest, theFirstSignalWeighsItsOwnCountAndEveryWeightIsAtLeastOne) {
  SmoothedWeight::Local history = {1, 0, 0, 0};
  EXPECT_EQ(5u, history.weigh_signalSafe(5));
  EXPECT_EQ(5u, history.weigh_signalSafe(1));  // the average so far; the 1 joins the history
  for (int i = 0; i < 100; i++) EXPECT_GE(history.weigh_signalSafe(1), 1u);
  // The early average overpaid; signals that stand for one interval each weigh at least one, so
  // that stays: a change of pace costs a few intervals of the old pace.
  EXPECT_GE(history.paid(), history.intervals);
  EXPECT_LE(history.paid() - history.intervals, 8u);
}

TEST(SmoothedWeightTest, aProcessTimersSignalThatCompletesNoIntervalStillWeighsItsShare) {
  // A lagging itimer fires at every tick check: a signal in a spell of short bursts comes after
  // little of the process's CPU and often completes no interval. Dropping those dropped the short
  // bursts; in the history they weigh the average like any other signal.
  SmoothedWeight::Shared history;
  std::mt19937 rnd(11);
  uint64_t intervals = 0, weightShort = 0, weightAll = 0, signalsShort = 0;
  for (int i = 0; i < 20000; i++) {
    bool inShort = rnd() % 3 == 0;                          // a third of the signals
    uint64_t stoodFor = inShort ? rnd() % 2 : 3 + rnd() % 3;  // short: 0 or 1 interval
    uint64_t w = history.weigh_signalSafe(stoodFor);
    intervals += stoodFor;
    weightAll += w;
    weightShort += inShort ? w : 0;
    signalsShort += inShort ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(signalsShort) / 20000, static_cast<double>(weightShort) / weightAll, 0.01);
  EXPECT_LE(weightAll, intervals + 2 * SmoothedWeight::kPayback);
  EXPECT_GE(weightAll + 10 * SmoothedWeight::kPayback, intervals);
}

TEST(SmoothedWeightTest, signalsFasterThanIntervalsWeighNoneInAPatternOfTheirOwn) {
  // A quarter of an interval per signal: three in four weigh 0 (no tick), whatever they claimed.
  SmoothedWeight::Shared history;
  uint64_t intervals = 0, paid = 0, ticks = 0, ticksOnClaimers = 0, claimers = 0;
  for (int i = 0; i < 4000; i++) {
    uint64_t stoodFor = i % 4 == 3 ? 1 : 0;
    uint64_t w = history.weigh_signalSafe(stoodFor);
    EXPECT_LE(w, 1u);
    intervals += stoodFor;
    paid += w;
    ticks += w > 0 ? 1 : 0;
    ticksOnClaimers += w > 0 && stoodFor > 0 ? 1 : 0;
    claimers += stoodFor > 0 ? 1 : 0;
  }
  EXPECT_LE(paid, intervals);
  EXPECT_GE(paid + 2 * SmoothedWeight::kPayback, intervals);
  // The signals that claimed an interval get no more of the ticks than their quarter.
  EXPECT_LT(ticksOnClaimers, ticks / 2) << claimers;
}

TEST(SmoothedWeightTest, aProcessWideHistoryIsSharedAndResets) {
  SmoothedWeight::Shared history;
  for (int i = 0; i < 1000; i++) history.weigh_signalSafe(4);
  EXPECT_EQ(4000u, history.paid());
  history.reset();
  EXPECT_EQ(7u, history.weigh_signalSafe(7));
}

TEST(SmoothedWeightTest, signalsStandingForLessThanAnIntervalOnAverageKeepNoDebt) {
  // A pool thread's probes: 3 intervals in 5 signals. A truncated average was 0 and the debt alone
  // paid, in whole intervals, an eighth at a time: it stayed at 8-12 intervals (82-89% of a
  // 200-thread server's CPU in ticks). With the fractions carried, it stays under two.
  {
    SmoothedWeight::Local history = {1, 0, 0, 0};
    uint64_t intervals = 0, paid = 0, worst = 0;
    const uint64_t pattern[] = {1, 1, 0, 1, 0};
    for (int i = 0; i < 200; i++) {
      uint64_t stoodFor = pattern[i % 5];
      paid += history.weigh_signalSafe(stoodFor, 0);
      intervals += stoodFor;
      if (i >= 10) worst = std::max(worst, intervals > paid ? intervals - paid : paid - intervals);
    }
    EXPECT_EQ(paid, history.paid());
    EXPECT_LE(worst, 2u);
  }
  SmoothedWeight::Shared shared;
  uint64_t intervals = 0, paid = 0;
  for (int i = 0; i < 200; i++) {
    uint64_t stoodFor = i % 5 == 1 || i % 5 == 3 ? 1 : 0;  // 2 in 5
    paid += shared.weigh_signalSafe(stoodFor);
    intervals += stoodFor;
  }
  EXPECT_LE(intervals - paid, 2u);
}
