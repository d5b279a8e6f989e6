#include "walk/WalkThrottle.h"

#include <gtest/gtest.h>

#include <memory>

using namespace candor;

namespace {
constexpr uint64_t kMs = 1'000'000;
}  // namespace

TEST(WalkThrottle, ASlowClockReadingOnlyMakesASuspectASlowCpuTimeThrottlesForTwiceItsCost) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000, 2'000'000);  // half of a 1 ms interval
  EXPECT_FALSE(t->suspect_signalSafe(42));
  t->charge_signalSafe(42, 3 * kMs, 3 * kMs, WalkThrottle::Cost::kClock);  // slow by the clock (maybe preempted in the handler)
  EXPECT_FALSE(t->skip_signalSafe(42, 3 * kMs + 1));
  EXPECT_TRUE(t->suspect_signalSafe(42)) << "the next walk is timed in CPU time";
  t->charge_signalSafe(42, 7 * kMs, 3 * kMs, WalkThrottle::Cost::kCpuTime);  // slow in CPU time: throttled until 7 + 2 * 3 ms
  EXPECT_TRUE(t->skip_signalSafe(42, 8 * kMs));
  EXPECT_TRUE(t->skip_signalSafe(42, 13 * kMs - 1));
  EXPECT_FALSE(t->skip_signalSafe(42, 13 * kMs));
  EXPECT_FALSE(t->skip_signalSafe(43, 8 * kMs)) << "another thread is not throttled";
}

TEST(WalkThrottle, AFastCpuTimeClearsTheSuspicion) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000, 2'000'000);
  t->charge_signalSafe(7, 2 * kMs, 2 * kMs, WalkThrottle::Cost::kClock);
  t->charge_signalSafe(7, 3 * kMs, 1000, WalkThrottle::Cost::kCpuTime);  // it was preemption: the walk itself is fast
  EXPECT_FALSE(t->suspect_signalSafe(7));
  t->charge_signalSafe(7, 6 * kMs, 2 * kMs, WalkThrottle::Cost::kClock);  // slow by the clock, but the first in a row
  EXPECT_FALSE(t->skip_signalSafe(7, 6 * kMs + 1));
}

TEST(WalkThrottle, RemoteWaitsThrottleOnlyWhenTwoInARowExceedTheirLongerBudget) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000, 2'000'000);
  t->charge_signalSafe(8, 1 * kMs, 1 * kMs, WalkThrottle::Cost::kWait);  // over the walk budget, not the wait's
  t->charge_signalSafe(8, 2 * kMs, 1 * kMs, WalkThrottle::Cost::kWait);
  EXPECT_FALSE(t->skip_signalSafe(8, 2 * kMs + 1));
  t->charge_signalSafe(8, 5 * kMs, 3 * kMs, WalkThrottle::Cost::kWait);
  EXPECT_FALSE(t->skip_signalSafe(8, 5 * kMs + 1)) << "one long wait";
  t->charge_signalSafe(8, 9 * kMs, 3 * kMs, WalkThrottle::Cost::kWait);
  EXPECT_TRUE(t->skip_signalSafe(8, 10 * kMs));
  EXPECT_FALSE(t->skip_signalSafe(8, 15 * kMs));
}

TEST(WalkThrottle, ABudgetOfZeroNeverThrottles) {
  auto t = std::make_unique<WalkThrottle>();
  for (int i = 0; i < 3; i++) t->charge_signalSafe(9, i * 10 * kMs + 5 * kMs, 5 * kMs, WalkThrottle::Cost::kCpuTime);
  EXPECT_FALSE(t->skip_signalSafe(9, 26 * kMs));
  EXPECT_FALSE(t->suspect_signalSafe(9));
}

TEST(WalkThrottle, ThreadsWhoseTidsCollideTakeTheEntryOver) {
  auto t = std::make_unique<WalkThrottle>();
  t->setBudgetNs(500'000, 2'000'000);
  t->charge_signalSafe(5, 2 * kMs, 2 * kMs, WalkThrottle::Cost::kClock);
  t->charge_signalSafe(5 + 4096, 5 * kMs, 2 * kMs, WalkThrottle::Cost::kClock);  // same entry, another thread: its first slow walk
  EXPECT_FALSE(t->skip_signalSafe(5 + 4096, 5 * kMs + 1));
  EXPECT_FALSE(t->skip_signalSafe(5, 5 * kMs + 1));
  EXPECT_FALSE(t->suspect_signalSafe(5));
}
