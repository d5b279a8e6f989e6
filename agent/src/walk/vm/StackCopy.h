// walk=copy: a sample taken without a signal. perf recorded the thread's registers and copied the
// top of its user stack (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER) at the timer interrupt;
// the ring reader walks it later, when the thread has long moved on. So the walker must read the
// thread's stack only from the copy: FrameWalker sends every read of an address on the sampled
// thread's stack here. A word inside the copy is served from it; a word outside (a frame deeper
// than the copy) comes from the thread's live stack when a LiveStackTail is attached (the ring
// reader keeps such a walk only if it reaches the thread's first Java call: LiveStackTail.h);
// otherwise the read returns 0 and marks the copy `beyond`, and the walker stops there, keeping
// the frames it has, and the sample is recorded [truncated]. Memory that is not the thread's
// stack (code, Method*s, the JavaThread's own fields) is read live, inside the crash guard as
// always.
#pragma once
#include <cstdint>
#include <cstring>

#include "walk/vm/LiveStackTail.h"

namespace candor {

// The registers the walker starts from, as perf sampled them.
struct SampledRegs {
  uintptr_t pc, sp, fp;
  uintptr_t bcp;  // r13: the template interpreter's bcp register
};

class StackCopy {
 public:
  // `bytes`: the `size` bytes that were at [regs.sp, regs.sp + size) at the sample.
  StackCopy(const SampledRegs& regs, const void* bytes, uint64_t size)
      : regs_(regs), base_(regs.sp), bytes_(static_cast<const char*>(bytes)), size_(size) {}

  // The registers the Java walk starts from: the sampled ones, or those of the Java frame the C
  // frames above it were unwound to (cstack).
  const SampledRegs& regs() const { return regs_; }
  void resumeAt(uintptr_t pc, uintptr_t sp, uintptr_t fp) {
    regs_ = SampledRegs{pc, sp, fp, 0};
    resumed_ = true;
  }
  // regs().pc is a return address (resumeAt), not the interrupted instruction.
  bool resumed() const { return resumed_; }
  uint64_t size() const { return size_; }
  // Words past the copy's end may come from `tail` (the ring reader's), for this walk.
  void attachTail(LiveStackTail* tail) {
    tail_ = tail;
    if (tail != nullptr) tail->begin(base_ + size_);
  }
  // Whether the walk took words from the live stack past the copy.
  bool usedTail() const { return tail_ != nullptr && tail_->used(); }
  // The walker reached the thread's first Java call: nothing lies below.
  void markBottom() { bottom_ = true; }
  // The walker found a caller read from the tail that the frame above cannot return to.
  void markBroken() { broken_ = true; }
  // Reached the first Java call through a chain of callers that holds.
  bool atBottom() const { return bottom_ && !broken_; }

  // A word of the sampled thread's stack at `addr`: from the copy, past its end from the tail if
  // one is attached and can read it, or else 0 (and beyond() from now on).
  uintptr_t load_signalSafe(uintptr_t addr) {
    if (addr >= base_ && addr - base_ <= size_ && size_ - (addr - base_) >= sizeof(uintptr_t)) {
      uintptr_t value;
      memcpy(&value, bytes_ + (addr - base_), sizeof value);
      return value;
    }
    uintptr_t value;
    if (tail_ != nullptr && !beyond_ && addr >= base_ + size_ && tail_->load(addr, &value)) return value;
    beyond_ = true;
    return 0;
  }
  // Whether the walk needed a word of the stack the copy does not hold.
  bool beyond() const { return beyond_; }

 private:
  SampledRegs regs_;
  uintptr_t base_;  // the sampled sp: where the copy begins
  const char* bytes_;
  uint64_t size_;
  LiveStackTail* tail_ = nullptr;
  bool beyond_ = false;
  bool resumed_ = false;
  bool bottom_ = false;
  bool broken_ = false;
};

}  // namespace candor
