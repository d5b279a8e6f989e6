// What a CPU-time timer's signal weighs when the kernel checks the timer only at its tick (ctimer,
// itimer under 4 ms here). A signal stands for every interval of CPU since the previous one (1 +
// si_overrun; itimer: the process's CPU clock), but weighing it by that count puts the CPU of short
// bursts on long ones: a burst shorter than the tick seldom holds a tick, so its intervals wait
// for the next signal, which most often falls in a long burst (a thread alternating 0.2 ms and 8 ms
// bursts, 34% of its CPU in the short ones: 15.7-22.4% of its ticks there; 30.0-35.7% smoothed,
// SamplerModesTest; async-profiler's unweighted ctimer 27.1-34.2%). So
// a signal weighs what its timer's earlier signals stood for on average, plus an eighth of what
// they still owe, and its own count goes into that history for later signals to pay: no weight
// depends on the stack it lands on, and the ticks follow the CPU to within a few intervals (the
// debt left at the end).
//
// A process-wide timer (itimer) that lags the CPU fires at every tick check, so a signal may come
// before a whole interval of the process's CPU has: it stands for none, yet it is a sample of
// where the CPU went as fair as any other. Dropping exactly those signals dropped short bursts
// (their signals come after little CPU: JDK 17's Bursts, 24.4-30.9% of the ticks against 34%), so
// every signal joins the history and the debt term alone decides which weigh nothing: when signals
// come faster than intervals the weights are 0 or more, in a pattern set by the signals before,
// never by where this one landed. ctimer under the tick arms its timers at an eighth of the
// interval for the same reason (CTimerEngine.h), and its signals too may weigh nothing.
//
// Thread context: handler path. A per-thread history is the thread's own (ctimer); a process-wide
// one (itimer) is shared by handlers on several CPUs through relaxed atomic adds, whose races only
// move a weight by the rounding they read.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "base/Ordering.h"

namespace candor {

struct SmoothedWeight {
  static constexpr int64_t kPayback = 8;  // an eighth of the debt per signal
  // What has been paid is kept in 1/65536 intervals: where signals stand for less than an interval
  // on average (a pool thread's short bursts, ctimer's probes) a truncated average was 0, so the
  // debt alone paid, an eighth at a time in whole intervals, and stayed at 8-12 intervals per thread
  // (a 200-thread server's ctimer ticks: 82-89% of its CPU). Fractions carry over instead: the
  // weights are the whole intervals the running sum crosses.
  static constexpr uint64_t kFraction = uint64_t{1} << 16;

  // This signal's weight in fractions of an interval (never below 0) from the history before it;
  // `stoodFor` joins the history after. The first signal has no history: its own count.
  static uint64_t nextFx_signalSafe(uint64_t intervals, uint64_t signals, uint64_t paidFx, uint64_t stoodFor) {
    if (signals == 0) return stoodFor * kFraction;
    int64_t owedFx = static_cast<int64_t>(intervals * kFraction) - static_cast<int64_t>(paidFx);
    int64_t w = static_cast<int64_t>(intervals * kFraction / signals) + owedFx / kPayback;
    return static_cast<uint64_t>(std::max<int64_t>(0, w));
  }

  // A thread's own history (plain fields: only its handler touches them; zero-initialized, as
  // thread-local storage is).
  struct Local {
    uint64_t session;
    uint64_t intervals;
    uint64_t signals;
    uint64_t paidFx;

    // Whole intervals paid so far: the sum of the weights.
    uint64_t paid() const { return paidFx / kFraction; }

    // A signal that stands for at least one interval weighs at least one (`least` 1: the sum then
    // moves to the next whole interval); one that may stand for none (ctimer's sub-interval probes)
    // may weigh none (`least` 0).
    uint64_t weigh_signalSafe(uint64_t stoodFor, uint64_t least = 1) {
      uint64_t before = paid();
      paidFx += nextFx_signalSafe(intervals, signals, paidFx, stoodFor);
      if (paid() < before + least) paidFx = (before + least) * kFraction;
      intervals += stoodFor;
      signals++;
      return paid() - before;
    }
  };

  // A process-wide timer's history.
  struct Shared {
    std::atomic<uint64_t> intervals{0};
    std::atomic<uint64_t> signals{0};
    std::atomic<uint64_t> paidFx{0};

    void reset() {
      sp(intervals, 0);
      sp(signals, 0);
      sp(paidFx, 0);
    }
    uint64_t paid() const { return lp(paidFx) / kFraction; }
    // `stoodFor` may be 0, and so may the weight (the signal is then no tick). Racing handlers each
    // add their fraction; each weighs the whole intervals its own add crossed, so the weights sum
    // to the whole intervals of the total.
    uint64_t weigh_signalSafe(uint64_t stoodFor) {
      uint64_t wFx = nextFx_signalSafe(lp(intervals), lp(signals), lp(paidFx), stoodFor);
      addPlain(intervals, stoodFor);
      addPlain(signals, uint64_t{1});
      uint64_t old = addPlain(paidFx, wFx);
      return (old + wFx) / kFraction - old / kFraction;
    }
  };
};

}  // namespace candor
