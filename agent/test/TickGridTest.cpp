// percpu: the tick grid that says when a CPU's tick fell due, and the switch records that say
// which thread ran from when (engine/TickGrid.h, engine/PerfSampleRecord.h), and the CPUs' own
// timer periods (PerfRingEngine::cpuPeriodNs).
#include "engine/TickGrid.h"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/PerfRingEngine.h"
#include "engine/PerfSampleRecord.h"

using namespace candor;

namespace {
constexpr uint64_t kMs = 1'000'000;

// Samples of a grid (phase + k ms) taken 0.5–8 µs late, one in eight 20–400 µs late, one in
// thirty 600–900 µs late (more than half a period: they look early).
void feed(TickGrid& grid, uint64_t phase, uint64_t from, int n, std::mt19937& rnd) {
  for (int k = 0; k < n; k++) {
    uint64_t late = 500 + rnd() % 7'500;
    if (k % 8 == 3) late = 20'000 + rnd() % 380'000;
    if (k % 30 == 7) late = 600'000 + rnd() % 300'000;
    grid.observe(from + k * kMs + phase + late);
  }
}
}  // namespace

TEST(TickGridTest, findsWhenTicksFellDueDespiteLateOnes) {
  std::mt19937 rnd(7);
  TickGrid grid(kMs);
  uint64_t phase = 999'000;  // near the wrap: early-looking outliers cross it
  EXPECT_FALSE(grid.known());
  EXPECT_EQ(grid.dueNs(5 * kMs + 123), 5 * kMs + 123);  // unknown yet: the sample's own time
  feed(grid, phase, 100 * kMs, 3 * TickGrid::kWindow, rnd);
  ASSERT_TRUE(grid.known());
  uint64_t due = 500 * kMs + phase;
  // within the earliest samples' lateness of the truth, whether taken 3 µs or 300 µs late
  EXPECT_NEAR(static_cast<double>(grid.dueNs(due + 3'000)), static_cast<double>(due), 1'000);
  EXPECT_NEAR(static_cast<double>(grid.dueNs(due + 300'000)), static_cast<double>(due), 1'000);
  // never after the sample
  EXPECT_LE(grid.dueNs(due + 100), due + 100);
}

TEST(TickGridTest, followsATimerThatRestarted) {
  std::mt19937 rnd(11);
  TickGrid grid(kMs);
  feed(grid, 200'000, 0, 2 * TickGrid::kWindow, rnd);
  feed(grid, 650'000, 1'000 * kMs, 2 * TickGrid::kWindow, rnd);  // throttled, restarted 450 µs later
  uint64_t due = 3'000 * kMs + 650'000;
  EXPECT_NEAR(static_cast<double>(grid.dueNs(due + 5'000)), static_cast<double>(due), 1'000);
  feed(grid, 50'000, 5'000 * kMs, 2 * TickGrid::kWindow, rnd);  // and earlier again
  due = 9'000 * kMs + 50'000;
  EXPECT_NEAR(static_cast<double>(grid.dueNs(due + 5'000)), static_cast<double>(due), 1'000);
}

TEST(TickGridTest, readsWhichTaskTheCpuSwitchedTo) {
  // {header, next_prev_pid, next_prev_tid, sample_id: pid, tid, time}
  auto record = [](uint16_t misc, uint32_t nextPrevTid, uint32_t tid, uint64_t time) {
    std::vector<uint8_t> r(sizeof(perf_event_header) + 8 + 8 + 8);
    perf_event_header h{PERF_RECORD_SWITCH_CPU_WIDE, misc, static_cast<uint16_t>(r.size())};
    memcpy(r.data(), &h, sizeof h);
    uint32_t ids[4] = {40, nextPrevTid, 50, tid};
    memcpy(r.data() + sizeof h, ids, sizeof ids);
    memcpy(r.data() + sizeof h + 16, &time, sizeof time);
    return r;
  };
  uint32_t tid = 0;
  uint64_t time = 0;
  bool out = true;
  // a switch in: the incoming task is the record's own (sample_id)
  auto in = record(0, 41, 51, 123'456'789);
  ASSERT_TRUE(parsePerfSwitch(in.data(), in.size(), &tid, &time, &out));
  EXPECT_EQ(tid, 51u);
  EXPECT_EQ(time, 123'456'789u);
  EXPECT_FALSE(out);
  // a switch out: the next task is next_prev's
  auto next = record(PERF_RECORD_MISC_SWITCH_OUT, 52, 0, 5);
  ASSERT_TRUE(parsePerfSwitch(next.data(), next.size(), &tid, &time, &out));
  EXPECT_EQ(tid, 52u);
  EXPECT_EQ(time, 5u);
  EXPECT_TRUE(out);
  EXPECT_FALSE(parsePerfSwitch(in.data(), in.size() - 1, &tid, &time, &out));  // cut short
}

TEST(TickGridTest, everyCpuTicksAtItsOwnPeriodAroundTheInterval) {
  // Any two CPUs' grids must turn against each other (no phase kept for a run), within the
  // spread, and the periods' mean must be the interval the ticks are weighed by.
  for (uint64_t interval : {uint64_t{997'000}, uint64_t{99'700}, uint64_t{10'000}, uint64_t{9'970'000}}) {
    for (int cpus : {1, 2, 3, 8, 64, 257}) {
      std::vector<uint64_t> periods;
      double sum = 0;
      bool clear = interval - interval * PerfRingEngine::kCpuSpreadPerMille / 2000 >= 10'000;  // of perf's floor
      for (int cpu = 0; cpu < cpus; cpu++) {
        uint64_t p = PerfRingEngine::cpuPeriodNs(interval, cpu, cpus);
        EXPECT_GE(p, uint64_t{10'000});  // perf's least hrtimer period
        EXPECT_LE(std::abs(static_cast<double>(p) - static_cast<double>(interval)),
                  static_cast<double>(interval) * PerfRingEngine::kCpuSpreadPerMille / (clear ? 2000.0 : 1000.0) + 1);
        periods.push_back(p);
        sum += static_cast<double>(p);
      }
      std::vector<uint64_t> sorted = periods;
      std::sort(sorted.begin(), sorted.end());
      if (interval * PerfRingEngine::kCpuSpreadPerMille / 1000 >= static_cast<uint64_t>(cpus)) {
        EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end())
            << cpus << " CPUs at " << interval << " ns: two share a period";
      }
      if (clear) {
        EXPECT_NEAR(sum / cpus, static_cast<double>(interval), 1.0) << cpus << " CPUs";
      }
    }
  }
  // Two CPUs at 1 ms: their phase turns through a whole period in about 250 ticks.
  uint64_t apart = PerfRingEngine::cpuPeriodNs(997'000, 1, 2) - PerfRingEngine::cpuPeriodNs(997'000, 0, 2);
  EXPECT_GE(apart, uint64_t{3'900});
}
