// Settle requests: what a thread owes that only its own handler can reach (a debt kept in its
// thread-local state) is paid by that handler, asked for with a queued signal (SI_QUEUE from this
// process, carrying kValue) before the thread's timer goes: on the ending thread itself, whose
// handler runs before the send returns, or for every armed thread as the session stops, where the
// stopping thread waits briefly for the handlers. Used by the engines whose per-thread state lags
// the thread's CPU clock: PerfEngine (its kernel debt) and CTimerEngine (the intervals its signals
// have not yet weighed).
//
// Thread context: send and sendAndWait on the agent's threads; is_signalSafe and handled_signalSafe
// on the signalled thread, in its handler.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/Ordering.h"

namespace candor {

class SettleRequests {
 public:
  static constexpr int kValue = 0x5e771e;  // si_value of a settle request

  // Before any request: the engine's signal.
  void start(int signal);
  // Not sent when another handler took the signal over (SignalTakeoverTest): what it would make
  // of the signal is its own.
  bool send(int tid) const;
  // Sends one to each thread and waits up to 200 ms for their handlers. A thread that does not
  // run its handler soon (stopped, or a JVM that is exiting) keeps its debt: that CPU shows as the
  // rate's shortfall, as an unsampled thread's would.
  void sendAndWait(const std::vector<int>& tids);

  // Signal-handler path: whether `info` is this process's settle request.
  bool is_signalSafe(const siginfo_t* info) const {
    return info->si_code == SI_QUEUE && info->si_pid == pid_ && info->si_value.sival_int == kValue;
  }
  // Signal-handler path: the request is handled. Release: the debt is in the batch the handler
  // records next, before the stop that waits for this goes on to deactivate the handlers (which
  // waits for handlers in flight).
  void handled_signalSafe() { addOrdered(handled_, uint64_t{1}); }
  // Signal-handler path: a settled thread's last part of an interval (ns), pooled with the other
  // threads' (relaxed adds: each handler's fetch_add sees its own place in the sum); the whole
  // intervals its add crossed, as stackless cpu_unsampled ticks. Thousands of short threads keep
  // their CPU; the pool's own last part (< 1 tick per session) is all that stays unsampled.
  uint64_t poolLastPart_signalSafe(uint64_t partNs, uint64_t intervalNs) {
    uint64_t before = addPlain(lastParts_, partNs);
    return (before + partNs) / intervalNs - before / intervalNs;
  }

 private:
  int signal_ = 0;
  pid_t pid_ = 0;
  std::atomic<uint64_t> handled_{0};  // requests handled (handlers add; sendAndWait reads)
  std::atomic<uint64_t> lastParts_{0};  // ns of settled threads' last parts, pooled (handlers add)
};

}  // namespace candor
