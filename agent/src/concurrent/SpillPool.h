// Frames of stacks deeper than a ring slot holds. A handler whose stack filled its slot borrows
// one of a few large buffers, walks again into it, and the slot names the buffer; the consumer
// gives the buffer back when it has read the sample. This is how `depth=` can default to
// unlimited while every slot stays small: only deep stacks pay, and only the pages a stack
// really fills are ever touched (the buffers are reserved with mmap, MAP_NORESERVE).
//
// Ordering argument. `busy_` has one bit per buffer. A producer takes a buffer by CAS of its bit
// from 0 to 1 with acquire: that synchronizes with the consumer's release of the bit, so the
// consumer's last reads of the buffer happen-before the producer's writes. The frames the
// producer writes reach the consumer through the ring slot: the slot's publish (release) comes
// after them and the consumer reads the slot with acquire. The consumer clears the bit with
// release once it has read the frames. A buffer is never waited for: when all are lent out the
// sample keeps what fit in its slot and is marked truncated.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"

namespace candor {

class SpillPool {
 public:
  static constexpr uint32_t kMaxBuffers = 32;

  // No buffers (buffers == 0 or frames == 0) is a valid pool that never lends.
  SpillPool(uint32_t buffers, uint32_t frames);
  ~SpillPool();
  SpillPool(const SpillPool&) = delete;
  SpillPool& operator=(const SpillPool&) = delete;

  bool ok() const { return buffers_ == 0 || base_ != nullptr; }
  uint32_t buffers() const { return buffers_; }
  uint32_t frames() const { return frames_; }  // frames one buffer holds
  // The buffers' mapping (reserved; touched only as deep stacks fill them).
  const void* mapping() const { return base_; }
  size_t mappedBytes() const { return bytesPerBuffer_ * buffers_; }

  // Signal-handler path: a free buffer's index, or -1 when every buffer is lent out.
  int tryClaim_signalSafe();
  // Signal-handler path (a producer that claimed and did not use it) or consumer.
  void release_signalSafe(int index);
  ASGCT_CallFrame* buffer(int index) const {
    return reinterpret_cast<ASGCT_CallFrame*>(base_ + static_cast<size_t>(index) * bytesPerBuffer_);
  }

  uint64_t lent() const { return lp(lent_); }
  uint64_t refused() const { return lp(refused_); }

 private:
  uint32_t buffers_;
  uint32_t frames_;
  size_t bytesPerBuffer_;
  char* base_ = nullptr;
  std::atomic<uint32_t> busy_{0};
  std::atomic<uint64_t> lent_{0};     // buffers lent since start (statistics)
  std::atomic<uint64_t> refused_{0};  // claims that found every buffer lent out
};

}  // namespace candor
