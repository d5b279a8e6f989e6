// A bounded multi-producer, single-consumer ring of preallocated sample slots.
//
// Producers are signal handlers on any thread; the consumer is the writer thread. The design is
// Dmitry Vyukov's bounded queue (each slot carries a sequence number), reduced to one consumer:
//
//   slot.seq == pos            the slot is free for the producer that claims index `pos`
//   slot.seq == pos + 1        the slot holds a published sample for the consumer at `pos`
//   slot.seq == pos + capacity the consumer released it; free for the producer at pos + capacity
//
// Ordering argument. A producer claims `pos` by CAS on `tail_` (relaxed: the CAS only arbitrates
// between producers; it publishes nothing). It then fills the slot with plain stores and
// publishes with so(seq, pos + 1) (release). The consumer reads lv(seq) (acquire); seeing pos + 1
// makes every store the producer made before the release visible, so the frames are complete.
// The consumer hands the slot back with so(seq, pos + capacity); a producer's lv(seq) observing
// that value happens-after the consumer's last read of the slot, so overwrites cannot tear a
// sample still being read. A producer that finds seq < pos sees a slot the consumer has not
// released yet: the ring is full and the sample is dropped (counted by the caller), never waited
// for — a signal handler must not block.
//
// A claimed slot that is not yet published stops the consumer at that index until the producer
// publishes it. Producers are signal handlers that run to completion, so this wait is bounded by
// one stack walk. The memory comes from mmap: pages are touched only when a deep stack needs them.
// A stack deeper than a slot continues in a buffer of the ring's SpillPool, named by the slot.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/Ordering.h"
#include "base/Vocabulary.h"
#include "concurrent/SpillPool.h"

namespace candor {

struct SampleSlot {
  std::atomic<uint64_t> seq;
  int32_t tid;
  int32_t numFrames;     // > 0: frames recorded; <= 0: an AGCT error code or a candor failure code
  uint64_t timeNs;       // CLOCK_MONOTONIC at the tick
  int64_t latencyNs;     // from the intended sample time to timeNs; -1 when not measured
  uint8_t kind;          // SampleKind
  uint8_t state;         // ThreadState
  uint8_t truncated;     // 1: the walk stopped at the depth limit; outer frames may be missing
  uint8_t site;          // 1: taken in a system call (the user pc just past a `syscall`): a kernel site
  int16_t spill;         // >= 0: the frames are in this SpillPool buffer, not in `frames`
  uint32_t handlerNs;    // time from the handler's start to the publish; 0 when not measured
  uint32_t weight = 1;   // ticks this sample stands for (merged perf overflows, estimated kernel time)
  uint64_t value = 0;    // kAlloc: the bytes the sample stands for; kLock: nanoseconds waited
  uint32_t labels = 0;   // the thread's label set (store/LabelSets id) at the tick; 0: none
  ASGCT_CallFrame frames[1];  // really `depth` entries; the slot stride covers them
};

class SampleRing {
 public:
  // capacity must be a power of two (else ok() is false); depth is the frames a slot holds;
  // deeper stacks may borrow one of `spillBuffers` buffers of `spillFrames` frames.
  SampleRing(uint32_t capacity, uint32_t depth, uint32_t spillBuffers = 0, uint32_t spillFrames = 0);
  ~SampleRing();
  SampleRing(const SampleRing&) = delete;
  SampleRing& operator=(const SampleRing&) = delete;

  bool ok() const { return base_ != nullptr && spill_.ok(); }
  uint32_t capacity() const { return capacity_; }
  uint32_t depth() const { return depth_; }
  // The deepest stack a sample can hold: a slot, or a spill buffer when the pool has any.
  uint32_t maxDepth() const { return spill_.frames() > depth_ ? spill_.frames() : depth_; }
  SpillPool& spill() { return spill_; }

  // Signal-handler path: returns a slot owned by the caller (not truncated, no spill buffer), or
  // nullptr when the ring is full.
  SampleSlot* tryClaim_signalSafe();
  // Signal-handler path: makes a claimed slot visible to the consumer.
  void publish_signalSafe(SampleSlot* slot);

  // Consumer side (one thread only): the next published slot, or nullptr if none is ready.
  SampleSlot* peek();
  // The frames of a slot, wherever they are: the consumer's after peek(), or the producer's
  // before it publishes the slot.
  const ASGCT_CallFrame* framesOf(const SampleSlot* slot) const {
    return slot->spill >= 0 ? spill_.buffer(slot->spill) : slot->frames;
  }
  // Consumer side: returns the slot obtained from peek() (and its spill buffer) to the producers.
  void release(SampleSlot* slot);

  // Consumer side: samples published but not yet consumed (approximate while producers run).
  uint64_t backlog() const;

  // The slots' mapping (its pages are touched only as samples land in them).
  const void* mapping() const { return base_; }
  size_t mappedBytes() const { return bytes_; }

 private:
  SampleSlot* slotAt(uint64_t pos) const {
    return reinterpret_cast<SampleSlot*>(base_ + (pos & mask_) * stride_);
  }

  uint32_t capacity_;
  uint32_t depth_;
  uint64_t mask_;
  size_t stride_;
  size_t bytes_;
  char* base_;
  SpillPool spill_;
  alignas(64) std::atomic<uint64_t> tail_{0};  // next index a producer claims
  alignas(64) uint64_t head_{0};               // next index the consumer reads (consumer-owned)
};

}  // namespace candor
