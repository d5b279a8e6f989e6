#include "concurrent/SampleRing.h"

#include <sys/mman.h>

namespace candor {

SampleRing::SampleRing(uint32_t capacity, uint32_t depth, uint32_t spillBuffers, uint32_t spillFrames)
    : capacity_(capacity), depth_(depth), mask_(capacity - 1), base_(nullptr), spill_(spillBuffers, spillFrames) {
  size_t raw = offsetof(SampleSlot, frames) + sizeof(ASGCT_CallFrame) * depth;
  stride_ = (raw + 63) & ~size_t(63);  // own cache line for each slot header
  bytes_ = stride_ * capacity;
  if (capacity == 0 || (capacity & (capacity - 1)) != 0 || depth == 0) return;  // the index mask needs 2^n
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  base_ = static_cast<char*>(p);
  for (uint64_t i = 0; i < capacity; i++) sp(slotAt(i)->seq, i);
}

SampleRing::~SampleRing() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

SampleSlot* SampleRing::tryClaim_signalSafe() {
  uint64_t pos = lp(tail_);
  for (;;) {
    SampleSlot* slot = slotAt(pos);
    int64_t diff = static_cast<int64_t>(lv(slot->seq) - pos);
    if (diff == 0) {
      if (casWeak(tail_, pos, pos + 1)) {  // on failure pos holds the new tail
        slot->truncated = 0;
        slot->spill = -1;
        slot->handlerNs = 0;
        slot->weight = 1;
        return slot;
      }
    } else if (diff < 0) {
      return nullptr;  // the consumer has not released this slot: full
    } else {
      pos = lp(tail_);  // another producer took this index; retry at the current tail
    }
  }
}

void SampleRing::publish_signalSafe(SampleSlot* slot) {
  // The slot's own seq tells us the claimed index: it still holds `pos` until we publish.
  so(slot->seq, lp(slot->seq) + 1);
}

SampleSlot* SampleRing::peek() {
  SampleSlot* slot = slotAt(head_);
  return lv(slot->seq) == head_ + 1 ? slot : nullptr;
}

void SampleRing::release(SampleSlot* slot) {
  if (slot->spill >= 0) spill_.release_signalSafe(slot->spill);
  so(slot->seq, head_ + capacity_);
  head_++;
}

uint64_t SampleRing::backlog() const {
  uint64_t tail = lp(tail_);
  return tail > head_ ? tail - head_ : 0;
}

}  // namespace candor
