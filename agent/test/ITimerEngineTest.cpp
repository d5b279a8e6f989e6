// itimer: each signal claims the intervals of process CPU completed since the last signal's
// (ITimerEngine::claimIntervals_signalSafe), so the ticks sum to the CPU however many signals
// the kernel sends, merges or fires late.
#include "engine/ITimerEngine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace candor;

TEST(ITimerEngineTest, aSignalClaimsTheIntervalsSinceTheLastOne) {
  std::atomic<uint64_t> claimed{0};
  EXPECT_EQ(1u, ITimerEngine::claimIntervals_signalSafe(claimed, 1));
  EXPECT_EQ(4u, ITimerEngine::claimIntervals_signalSafe(claimed, 5));  // under the tick: 4 intervals a signal
  EXPECT_EQ(5u, claimed.load());
}

TEST(ITimerEngineTest, aLaggingTimersSignalWithNoNewIntervalIsNoTick) {
  // After a busy spell the timer's expiry lags the clock and it fires at each tick check, even
  // when less than an interval of CPU passed: those signals stand for nothing.
  std::atomic<uint64_t> claimed{0};
  EXPECT_EQ(7u, ITimerEngine::claimIntervals_signalSafe(claimed, 7));
  EXPECT_EQ(0u, ITimerEngine::claimIntervals_signalSafe(claimed, 7));
  EXPECT_EQ(0u, ITimerEngine::claimIntervals_signalSafe(claimed, 6));  // a racing handler read the clock earlier
  EXPECT_EQ(1u, ITimerEngine::claimIntervals_signalSafe(claimed, 8));
}

TEST(ITimerEngineTest, racingHandlersShareTheIntervalsWithoutCountingAnyTwice) {
  std::atomic<uint64_t> claimed{0};
  std::atomic<uint64_t> total{0};
  constexpr int kThreads = 4;
  constexpr uint64_t kDue = 200'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      uint64_t mine = 0;
      // Each reads a clock that advances, some reads later than others': due steps by 1-3.
      for (uint64_t due = 1 + t; due <= kDue; due += 1 + (due + t) % 3) {
        mine += ITimerEngine::claimIntervals_signalSafe(claimed, due);
      }
      mine += ITimerEngine::claimIntervals_signalSafe(claimed, kDue);
      total.fetch_add(mine);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(kDue, total.load());
  EXPECT_EQ(kDue, claimed.load());
}
