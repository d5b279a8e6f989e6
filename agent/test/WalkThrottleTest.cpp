#include "walk/WalkThrottle.h"

#include <gtest/gtest.h>

#include <memory>

using namespace candor;

namespace {
constexpr uint64_t kMs = 1'000'000;
}  // namespace

TEST(WalkThrottle, ASlowClockReadingOnlyMakesASuspectASlowCpuTimeThrottlesForTwiceItsCost) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000);  // half of a 1 ms interval
  EXPECT_FALSE(t->suspect_signalSafe(42));
  t->charge_signalSafe(42, 3 * kMs, 3 * kMs, false);  // slow by the clock (maybe preempted in the handler)
  EXPECT_FALSE(t->skip_signalSafe(42, 3 * kMs + 1));
  EXPECT_TRUE(t->suspect_signalSafe(42)) << "the next walk is timed in CPU time";
  t->charge_signalSafe(42, 7 * kMs, 3 * kMs, true);  // slow in CPU time: throttled until 7 + 2 * 3 ms
  EXPECT_TRUE(t->skip_signalSafe(42, 8 * kMs));
  EXPECT_TRUE(t->skip_signalSafe(42, 13 * kMs - 1));
  EXPECT_FALSE(t->skip_signalSafe(42, 13 * kMs));
  EXPECT_FALSE(t->skip_signalSafe(43, 8 * kMs)) << "another thread is not throttled";
}

TEST(WalkThrottle, AFastCpuTimeClearsTheSuspicion) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000);
  t->charge_signalSafe(7, 2 * kMs, 2 * kMs, false);
  t->charge_signalSafe(7, 3 * kMs, 1000, true);  // it was preemption: the walk itself is fast
  EXPECT_FALSE(t->suspect_signalSafe(7));
  t->charge_signalSafe(7, 6 * kMs, 2 * kMs, false);  // slow by the clock, but the first in a row
  EXPECT_FALSE(t->skip_signalSafe(7, 6 * kMs + 1));
}

TEST(WalkThrottle, TwoSlowClockReadingsInARowThrottleRemoteWalks) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000);
  t->charge_signalSafe(8, 2 * kMs, 2 * kMs, false);
  t->charge_signalSafe(8, 5 * kMs, 2 * kMs, false);
  EXPECT_TRUE(t->skip_signalSafe(8, 6 * kMs));
  EXPECT_FALSE(t->skip_signalSafe(8, 9 * kMs));
}

TEST(WalkThrottle, ABudgetOfZeroNeverThrottles) {
  auto t = std::make_unique<WalkThrottle>();
  for (int i = 0; i < 3; i++) t->charge_signalSafe(9, i * 10 * kMs + 5 * kMs, 5 * kMs, true);
  EXPECT_FALSE(t->skip_signalSafe(9, 26 * kMs));
  EXPECT_FALSE(t->suspect_signalSafe(9));
}

TEST(WalkThrottle, ThreadsWhoseTidsCollideTakeTheEntryOver) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000);
  t->charge_signalSafe(5, 2 * kMs, 2 * kMs, false);
  t->charge_signalSafe(5 + 4096, 5 * kMs, 2 * kMs, false);  // same entry, another thread: its first slow walk
  EXPECT_FALSE(t->skip_signalSafe(5 + 4096, 5 * kMs + 1));
  EXPECT_FALSE(t->skip_signalSafe(5, 5 * kMs + 1));
  EXPECT_FALSE(t->suspect_signalSafe(5));
}
