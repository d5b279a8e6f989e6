#include "base/Ordering.h"
#include "concurrent/SpillPool.h"

#include <sys/mman.h>

namespace candor {

SpillPool::SpillPool(uint32_t buffers, uint32_t frames)
    : buffers_(frames == 0 || buffers > kMaxBuffers ? 0 : buffers), frames_(buffers_ == 0 ? 0 : frames) {
  bytesPerBuffer_ = (sizeof(ASGCT_CallFrame) * static_cast<size_t>(frames_) + 4095) & ~size_t(4095);
  if (buffers_ == 0) return;
  void* p = mmap(nullptr, bytesPerBuffer_ * buffers_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p != MAP_FAILED) base_ = static_cast<char*>(p);
}

SpillPool::~SpillPool() {
  if (base_ != nullptr) munmap(base_, bytesPerBuffer_ * buffers_);
}

int SpillPool::tryClaim_signalSafe() {
  if (base_ == nullptr) return -1;
  uint32_t all = buffers_ == 32 ? ~0u : (1u << buffers_) - 1;
  uint32_t busy = lp(busy_);
  while ((busy & all) != all) {
    int index = __builtin_ctz(~busy);
    // acquire: see the comment at the top of SpillPool.h
    if (casWeakAcquire(busy_, busy, busy | (1u << index))) {
      addPlain(lent_, 1);
      return index;
    }
  }
  addPlain(refused_, 1);
  return -1;
}

void SpillPool::release_signalSafe(int index) {
  andOrdered(busy_, ~(1u << index));
}

}  // namespace candor
