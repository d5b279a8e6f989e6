#include "engine/LostSignalTicks.h"

#include <algorithm>
#include <cmath>

namespace candor {

uint64_t LostSignalTicks::settle(bool taken, uint64_t cpuNs, uint64_t ticks) {
  auto interval = static_cast<double>(intervalNs_);
  if (!taken_) {
    if (!taken) {
      baseCpuNs_ = cpuNs;
      baseTicks_ = ticks;
      return 0;
    }
    taken_ = true;
    double expected = static_cast<double>(baseCpuNs_) / interval;
    rate_ = expected >= kCalibrationTicks ? std::min(1.0, static_cast<double>(baseTicks_) / expected) : 1.0;
  }
  // Once taken, always settled: a handler that gives the signal back (or chains to candor's) brings
  // ticks again, and they count against what is owed.
  double expected = static_cast<double>(cpuNs > baseCpuNs_ ? cpuNs - baseCpuNs_ : 0) / interval * rate_;
  uint64_t since = ticks > baseTicks_ ? ticks - baseTicks_ : 0;
  double arrived = static_cast<double>(since > charged_ ? since - charged_ : 0);
  double owed = std::floor(expected - arrived);
  if (owed <= static_cast<double>(charged_)) return 0;
  auto now = static_cast<uint64_t>(owed) - charged_;
  charged_ += now;
  return now;
}

}  // namespace candor
