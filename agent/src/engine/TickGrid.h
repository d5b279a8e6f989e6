// percpu: when a CPU's timer tick fell due. A CPU-wide perf cpu-clock event's hrtimer is moved
// on by whole periods from its first expiry (perf_swevent_hrtimer: hrtimer_forward_now), so its
// ticks fall due on a fixed grid, phase + k * period, on the clock the samples' times are read on
// (use_clockid CLOCK_MONOTONIC, the hrtimer's clock). A sample is taken when the timer
// interrupt runs: a few µs after the tick fell due, or much later when interrupts were off (a
// context switch) or the virtual CPU was not running. So the phase is where the earliest samples
// of the CPU come: per window of kWindow samples, the smallest offset from the current phase
// among those near the window's median offset (late outliers, a sample more than half a period
// late, do not move it), which also follows a timer that was restarted (throttling).
//
// Thread context: one reader thread per ring (the engine's lock held). Not on a signal path.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

namespace candor {

class TickGrid {
 public:
  static constexpr uint32_t kWindow = 64;
  // Offsets farther below the window's median than this are late outliers, not the grid.
  static constexpr int64_t kClusterNs = 100'000;

  explicit TickGrid(uint64_t periodNs = 0) : period_(static_cast<int64_t>(periodNs)) {}

  // Learns from a sample taken at `timeNs`.
  void observe(uint64_t timeNs) {
    if (period_ <= 0) return;
    if (!started_) {
      phase_ = static_cast<int64_t>(timeNs % static_cast<uint64_t>(period_));
      started_ = true;
    }
    offsets_[count_++] = offset(timeNs);
    if (count_ < kWindow) return;
    std::sort(offsets_.begin(), offsets_.end());
    int64_t median = offsets_[kWindow / 2];
    int64_t earliest = *std::lower_bound(offsets_.begin(), offsets_.end(), median - kClusterNs);
    phase_ = mod(phase_ + earliest);
    known_ = true;
    count_ = 0;
  }

  bool known() const { return known_; }

  // When the tick sampled at `timeNs` fell due; `timeNs` itself before the grid is known, or
  // for a sample that came before the grid says (the phase's own jitter).
  uint64_t dueNs(uint64_t timeNs) const {
    if (!known_) return timeNs;
    int64_t late = offset(timeNs);
    return late > 0 ? timeNs - static_cast<uint64_t>(late) : timeNs;
  }

 private:
  int64_t mod(int64_t v) const { return ((v % period_) + period_) % period_; }
  // The sample's offset from the grid's latest tick, in (-period/2, period/2].
  int64_t offset(uint64_t timeNs) const {
    int64_t r = mod(static_cast<int64_t>(timeNs % static_cast<uint64_t>(period_)) - phase_);
    return r > period_ / 2 ? r - period_ : r;
  }

  int64_t period_;
  int64_t phase_ = 0;
  bool started_ = false;
  bool known_ = false;
  uint32_t count_ = 0;
  std::array<int64_t, kWindow> offsets_{};
};

}  // namespace candor
