// ctimer under the kernel tick arms its timers at an eighth of the interval (probes): a signal
// counts the probes since the last (1 + si_overrun), the intervals they complete join the
// thread's weight history, and a signal the history weighs at 0 is no tick; jittered, the probes
// are one-shot and the thread's CPU clock counts the intervals. Above the tick a signal stands for
// its own intervals and weighs at least one. A settle request has
// the thread pay, as stackless cpu_unsampled ticks, its CPU that its ticks did not stand for.
#include "engine/CTimerEngine.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "base/Options.h"
#include "concurrent/Clock.h"
#include "engine/CpuTickBatch.h"
#include "engine/SettleRequests.h"
#include "engine/SmoothedWeight.h"

using namespace candor;

namespace {
long long tickNs() {
  timespec res = {};
  clock_getres(CLOCK_MONOTONIC_COARSE, &res);
  return res.tv_sec * 1'000'000'000LL + res.tv_nsec;
}

// The weight of one timer signal that counted `fired` expiries of the armed timer.
uint64_t signalWeight(CTimerEngine& engine, int fired) {
  siginfo_t info = {};
  info.si_code = SI_TIMER;
  info.si_overrun = fired - 1;
  info.si_timerid = 0x7fffffff;  // no such timer: the jittered engine's re-arm fails harmlessly
  CpuTickBatch batch;
  engine.readTicks_signalSafe(&info, 1, &batch);
  return batch.ticks();
}

// Starts `engine` at `intervalNs`, jittered by `jitterPct`; why it could not, as the failure.
testing::AssertionResult startAt(CTimerEngine& engine, int64_t intervalNs, int jitterPct = 0) {
  Options options;
  options.intervalNs = intervalNs;
  options.jitterPct = jitterPct;
  std::string why;
  if (engine.start(options, &why)) return testing::AssertionSuccess();
  return testing::AssertionFailure() << why;
}
}  // namespace

TEST(CTimerEngineTest, underTheTickProbesCountTheIntervalsTheyComplete) {
  CTimerEngine engine(SIGVTALRM);
  ASSERT_TRUE(startAt(engine, tickNs() / 4));  // 1 ms at HZ=250
  // A busy thread: each tick's signal counts a tick's worth of probes, 4 intervals at 1 ms.
  uint64_t busy = 0;
  for (int i = 0; i < 100; i++) busy += signalWeight(engine, 32);
  EXPECT_EQ(400u, busy);
  // Signals in short bursts count a probe or two each: most weigh none, none weighs less than 0,
  // and the weights still add up to the intervals within the debt the history carries.
  uint64_t bursty = 0, noTicks = 0;
  for (int i = 0; i < 800; i++) {
    uint64_t w = signalWeight(engine, 1 + i % 2);
    bursty += w;
    noTicks += w == 0 ? 1 : 0;
  }
  EXPECT_GT(noTicks, 400u);
  EXPECT_LE(bursty, 150u + SmoothedWeight::kPayback);  // 1,200 probes: 150 intervals
  EXPECT_GE(bursty + 2 * SmoothedWeight::kPayback, 150u);
}

TEST(CTimerEngineTest, atTheTickASignalStandsForItsOwnIntervals) {
  for (int jitter : {0, 10}) {
    CTimerEngine engine(SIGVTALRM);
    ASSERT_TRUE(startAt(engine, tickNs() * 2, jitter));
    EXPECT_EQ(1u, signalWeight(engine, 1)) << jitter;  // no probes: an expiry is an interval
    EXPECT_EQ(1u, signalWeight(engine, 1)) << jitter;
  }
}

namespace {
void spinCpuNs(uint64_t ns) {
  uint64_t from = clockNs(CLOCK_THREAD_CPUTIME_ID);
  volatile uint64_t sink = 0;
  while (clockNs(CLOCK_THREAD_CPUTIME_ID) - from < ns) sink = sink + 1;
}
CpuTickBatch settle(CTimerEngine& engine);
}  // namespace

// Jittered under the tick: one-shot probes count no overrun, so each signal stands for the whole
// intervals of the thread's CPU clock since the last it counted. Before, each weighed one: at 1 ms
// a quarter of the CPU in ticks, the rest settled stackless.
TEST(CTimerEngineTest, jitteredUnderTheTickTheCpuClockCountsTheIntervals) {
  auto interval = static_cast<uint64_t>(tickNs() / 4);
  CTimerEngine engine(SIGVTALRM);
  ASSERT_TRUE(startAt(engine, static_cast<int64_t>(interval), 10));
  uint64_t from = clockNs(CLOCK_THREAD_CPUTIME_ID);
  uint64_t paid = signalWeight(engine, 1);  // armed elsewhere: a probe's CPU before it, no interval
  for (int i = 0; i < 40; i++) {
    spinCpuNs(4 * interval);  // a tick's worth of CPU between signals, as a busy thread's
    paid += signalWeight(engine, 1);
  }
  uint64_t intervals = (clockNs(CLOCK_THREAD_CPUTIME_ID) - from) / interval;
  EXPECT_GE(paid + 2 * SmoothedWeight::kPayback, intervals) << "far more than one per signal";
  EXPECT_LE(paid, intervals + 1);
  // What the last signals did not weigh is settled: ticks and CPU agree.
  uint64_t settled = settle(engine).unsampledCpu;
  EXPECT_GE(paid + settled + 1, intervals);
  EXPECT_LE(paid + settled, intervals + 2);
}

namespace {
CpuTickBatch settle(CTimerEngine& engine) {
  siginfo_t info = {};
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_value.sival_int = SettleRequests::kValue;
  CpuTickBatch batch;
  engine.readTicks_signalSafe(&info, 1, &batch);
  return batch;
}
}  // namespace

TEST(CTimerEngineTest, aSettleRequestChargesTheCpuTheTicksDidNotStandFor) {
  auto interval = static_cast<uint64_t>(tickNs() / 4);
  CTimerEngine engine(SIGVTALRM);
  ASSERT_TRUE(startAt(engine, static_cast<int64_t>(interval)));
  // The first signal finds a thread armed elsewhere: its CPU since arming is inferred from the
  // signal's count (8 probes, an interval), which its weight pays.
  uint64_t paid = signalWeight(engine, 8);
  EXPECT_EQ(1u, paid);
  // 20 intervals of CPU that no signal weighed.
  uint64_t from = clockNs(CLOCK_THREAD_CPUTIME_ID);
  volatile uint64_t sink = 0;
  while (clockNs(CLOCK_THREAD_CPUTIME_ID) - from < 20 * interval) sink = sink + 1;
  CpuTickBatch batch = settle(engine);
  EXPECT_TRUE(batch.settle && batch.cpuTimer);
  EXPECT_EQ(0u, batch.ticks());  // no tick of its own: only what it settles
  EXPECT_GE(batch.unsampledCpu, 20u);
  EXPECT_LE(batch.unsampledCpu, 21u);  // the pooled last part may round up once
  // Settled: a second request owes nothing.
  EXPECT_EQ(0u, settle(engine).unsampledCpu);
  // Another process's queued signal is no settle request (and, as any foreign signal, one tick).
  siginfo_t foreign = {};
  foreign.si_code = SI_QUEUE;
  foreign.si_pid = getpid() + 1;
  foreign.si_value.sival_int = SettleRequests::kValue;
  CpuTickBatch other;
  engine.readTicks_signalSafe(&foreign, 1, &other);
  EXPECT_FALSE(other.settle);
  EXPECT_EQ(1u, other.ticks());
}

// A thread whose ticks ran ahead of its CPU leaves the surplus as a credit, which the next thread
// that owes draws on before it is charged: the ticks of both follow their CPU in total.
TEST(CTimerEngineTest, aSurplusIsACreditTheNextDeficitDrawsOn) {
  auto interval = static_cast<uint64_t>(tickNs() / 4);
  CTimerEngine engine(SIGVTALRM);
  ASSERT_TRUE(startAt(engine, static_cast<int64_t>(interval)));
  auto owesAfter = [&](int firstFired, uint64_t spinIntervals) {
    uint64_t owed = 0;
    std::thread([&] {
      signalWeight(engine, firstFired);  // armed elsewhere: its CPU before is inferred from the count
      spinCpuNs(spinIntervals * interval);
      owed = settle(engine).unsampledCpu;
    }).join();
    return owed;
  };
  // 20 intervals' worth of probes on a thread that has barely run: its one signal weighs them all.
  EXPECT_EQ(0u, owesAfter(20 * 8, 0));
  // A thread that then owes 30 intervals is charged 10: 20 were ticks of the first already.
  uint64_t second = owesAfter(8, 30);
  EXPECT_GE(second, 9u);
  EXPECT_LE(second, 11u);
  // The credit is spent: the next is charged what it owes.
  uint64_t third = owesAfter(8, 30);
  EXPECT_GE(third, 29u);
  EXPECT_LE(third, 31u);
}
