#include "walk/RemoteWalkChannel.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/Ordering.h"
#include "concurrent/Clock.h"

namespace candor {

namespace {
constexpr int kSpins = 2000;  // PLATFORM-NOTES: spin ~2,000 iterations, then futex-wait

// Raw futex calls: async-signal-safe system calls.
void futexWait_signalSafe(std::atomic<uint32_t>* word, uint32_t expected, int64_t timeoutNs) {
  timespec ts = {static_cast<time_t>(timeoutNs / 1'000'000'000), static_cast<long>(timeoutNs % 1'000'000'000)};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

void futexWakeAll_signalSafe(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

inline void cpuRelax() { __builtin_ia32_pause(); }
}  // namespace

RemoteRequest* RemoteWalkChannel::claim_signalSafe() {
  for (RemoteRequest& r : slots_) {
    uint32_t expected = RemoteRequest::kFree;
    if (lp(r.state) == RemoteRequest::kFree &&
        // acquire: pairs with the previous owner's so(kFree), after the walker's last read of the slot
        casAcquire(r.state, expected, RemoteRequest::kClaimed)) {
      return &r;
    }
  }
  return nullptr;
}

bool RemoteWalkChannel::publishAndWait_signalSafe(RemoteRequest* r, int64_t timeoutNs, int32_t* result) {
  r->result = 0;
  so(r->state, static_cast<uint32_t>(RemoteRequest::kPublished));
  addSc(published_, 1);
  futexWakeAll_signalSafe(&published_);

  uint32_t s = lv(r->state);
  for (int i = 0; i < kSpins && s != RemoteRequest::kDone; i++) {
    cpuRelax();
    s = lv(r->state);
  }
  if (s == RemoteRequest::kDone) addPlain(spinsSatisfied_, 1);
  else addPlain(futexWaits_, 1);

  uint64_t deadline = monotonicNs() + static_cast<uint64_t>(timeoutNs);
  bool walked = true;
  while (s != RemoteRequest::kDone) {
    uint64_t now = monotonicNs();
    if (s == RemoteRequest::kPublished && now >= deadline) {
      uint32_t expected = RemoteRequest::kPublished;
      if (casAcquire(r->state, expected, RemoteRequest::kAbandoned)) {
        walked = false;
        break;
      }
      s = expected;  // the walker took it just now: wait for it, however long the walk takes
      continue;
    }
    // Once walking, the walk is bounded (crash-guarded, finite stack); wait in 1 ms naps.
    int64_t nap = s == RemoteRequest::kPublished ? static_cast<int64_t>(deadline - now) : 1'000'000;
    futexWait_signalSafe(&r->state, s, nap);
    s = lv(r->state);
  }
  if (result != nullptr) *result = walked ? r->result : 0;  // before the slot can be reused
  so(r->state, static_cast<uint32_t>(RemoteRequest::kFree));
  return walked;
}

RemoteRequest* RemoteWalkChannel::take(int64_t timeoutNs) {
  uint64_t deadline = monotonicNs() + static_cast<uint64_t>(timeoutNs);
  for (;;) {
    if (stopped()) return nullptr;
    uint32_t seen = lvSc(published_);
    uint32_t start = lp(scanStart_);
    for (int i = 0; i < kSlots; i++) {  // round robin from the last slot taken: no starvation
      RemoteRequest& r = slots_[(start + i) % kSlots];
      uint32_t expected = RemoteRequest::kPublished;
      if (lp(r.state) == RemoteRequest::kPublished &&
          casAcquire(r.state, expected, RemoteRequest::kWalking)) {
        sp(scanStart_, static_cast<uint32_t>((start + i + 1) % kSlots));
        return &r;
      }
    }
    uint64_t now = monotonicNs();
    if (now >= deadline) return nullptr;
    // A publish after `seen` was read changes the word, so the wait returns at once: no lost wake-up.
    futexWait_signalSafe(&published_, seen, static_cast<int64_t>(deadline - now));
  }
}

void RemoteWalkChannel::complete(RemoteRequest* r) {
  so(r->state, static_cast<uint32_t>(RemoteRequest::kDone));
  futexWakeAll_signalSafe(&r->state);
}

void RemoteWalkChannel::stop() {
  so(stopped_, true);
  addSc(published_, 1);
  futexWakeAll_signalSafe(&published_);
}

}  // namespace candor
