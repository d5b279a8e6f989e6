#include "store/SampleAccounting.h"

namespace candor {

uint64_t SampleAccounting::drain(SampleRing& ring) {
  uint64_t n = 0;
  for (SampleSlot* slot; (slot = ring.peek()) != nullptr; n++) {
    ThreadTicks& t = perThread_[slot->tid];
    t.ticks++;
    uint32_t traceId = DrainListener::kNoTrace;
    if (slot->numFrames > 0) {
      traceId = store_.add(slot->frames, slot->numFrames, slot->tid);
      recorded_++;
      t.recorded++;
    } else {
      failures_[static_cast<int>(bucketForCode(slot->numFrames))]++;
    }
    if (listener_ != nullptr) listener_->onDrained(*slot, traceId);
    ring.release(slot);
  }
  return n;
}

uint64_t SampleAccounting::failuresTotal() const {
  uint64_t sum = 0;
  for (uint64_t f : failures_) sum += f;
  return sum;
}

void SampleAccounting::clear() {
  recorded_ = 0;
  failures_.fill(0);
  perThread_.clear();
}

}  // namespace candor
