// The CPU ticks a taken-over signal no longer brings. When another handler replaces candor's for
// the CPU engine's signal (a profiler or library loaded later), the timers go on firing but their
// ticks reach that handler, and no candor counter sees them. The writer measures them instead,
// about once a second and once more at stop, from the sampled threads' CPU clocks: the CPU they
// used since the last check that found the signal still candor's, at the rate of ticks per
// interval of CPU the session achieved until then, less the ticks that still arrived (a handler
// that chains to candor's passes them on), is owed to the named failure signal_lost. So the ticks
// add up again and the CPU keeps its weight; which stacks it ran is unknown.
//
// Error: the rate before the takeover stands for the rate after it (perf's timers, and ctimer and
// itimer, whose signals weigh the intervals they stand for, take 95-100% of the requested ticks; a
// jittered ctimer a quarter here under the kernel tick). Before 100 intervals of CPU there is no rate
// to go by and the requested one is used, too high for a jittered ctimer: so the writer checks every
// 50 ms while calibrating() (the first 100 ms of CPU), and a takeover that early is rare (a second
// agent is loaded at start, before candor's timers run, or attached later).
//
// Thread context: one caller at a time (the writer thread, or stop() after the writer has stopped
// settling: Profiler serializes them). Pure arithmetic: no clocks, no counters of its own.
#pragma once
#include <cstdint>

namespace candor {

class LostSignalTicks {
 public:
  static constexpr double kCalibrationTicks = 100;

  explicit LostSignalTicks(int64_t intervalNs) : intervalNs_(intervalNs > 0 ? intervalNs : 1) {}

  // `taken`: another handler holds the signal now. `cpuNs`: the armed threads' CPU so far
  // (ThreadRegistry::armedCpuNs). `ticks`: the CPU ticks counted so far, this class's charges
  // included. Returns the ticks to charge to signal_lost now (and counts them as charged).
  uint64_t settle(bool taken, uint64_t cpuNs, uint64_t ticks);

  bool takenOver() const { return taken_; }
  // Not taken over yet, and too little CPU seen to know the rate the timers achieve.
  bool calibrating() const {
    return !taken_ && static_cast<double>(baseCpuNs_) < kCalibrationTicks * static_cast<double>(intervalNs_);
  }
  uint64_t charged() const { return charged_; }

 private:
  int64_t intervalNs_;
  bool taken_ = false;
  uint64_t baseCpuNs_ = 0;  // at the last check that found the signal candor's
  uint64_t baseTicks_ = 0;
  double rate_ = 1;         // ticks per interval of CPU before the takeover
  uint64_t charged_ = 0;
};

}  // namespace candor
