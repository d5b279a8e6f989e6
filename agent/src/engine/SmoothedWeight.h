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
// never by where this one landed. A per-thread timer's signal (ctimer) always completes an
// interval and weighs at least one.
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

  // This signal's weight (at least `least`) from the history before it; `stoodFor` joins it.
  static uint64_t next_signalSafe(uint64_t intervals, uint64_t signals, uint64_t paid, uint64_t stoodFor,
                                  int64_t least) {
    if (signals == 0) return stoodFor;  // no history yet: its own count
    int64_t owed = static_cast<int64_t>(intervals) - static_cast<int64_t>(paid);
    int64_t w = static_cast<int64_t>(intervals / signals) + owed / kPayback;
    return static_cast<uint64_t>(std::max<int64_t>(least, w));
  }

  // A thread's own history (plain fields: only its handler touches them; zero-initialized, as
  // thread-local storage is).
  struct Local {
    uint64_t session;
    uint64_t intervals;
    uint64_t signals;
    uint64_t paid;

    // `stoodFor` is at least 1; so is the weight.
    uint64_t weigh_signalSafe(uint64_t stoodFor) {
      uint64_t w = next_signalSafe(intervals, signals, paid, stoodFor, 1);
      intervals += stoodFor;
      signals++;
      paid += w;
      return w;
    }
  };

  // A process-wide timer's history.
  struct Shared {
    std::atomic<uint64_t> intervals{0};
    std::atomic<uint64_t> signals{0};
    std::atomic<uint64_t> paid{0};

    void reset() {
      sp(intervals, 0);
      sp(signals, 0);
      sp(paid, 0);
    }
    // `stoodFor` may be 0, and so may the weight (the signal is then no tick).
    uint64_t weigh_signalSafe(uint64_t stoodFor) {
      uint64_t w = next_signalSafe(lp(intervals), lp(signals), lp(paid), stoodFor, 0);
      addPlain(intervals, stoodFor);
      addPlain(signals, uint64_t{1});
      addPlain(paid, w);
      return w;
    }
  };
};

}  // namespace candor
