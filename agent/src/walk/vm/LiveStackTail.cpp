#include "walk/vm/LiveStackTail.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace candor {

namespace {
constexpr size_t kPage = 4096;
constexpr size_t kChunk = 64 * 1024;  // read ahead: a walk that needs the tail mostly needs more of it
constexpr int kIovs = static_cast<int>(kChunk / kPage) + 1;
}  // namespace

LiveStackTail::LiveStackTail(size_t capacityBytes) {
  void* p = mmap(nullptr, capacityBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    buf_ = static_cast<char*>(p);
    capacity_ = capacityBytes;
  }
}

LiveStackTail::~LiveStackTail() {
  if (buf_ != nullptr) munmap(buf_, capacity_);
}

void LiveStackTail::begin(uintptr_t copyEnd) {
  start_ = copyEnd;
  filled_ = 0;
  used_ = false;
}

bool LiveStackTail::load(uintptr_t addr, uintptr_t* out) {
  if (buf_ == nullptr || addr < start_) return false;
  size_t end = addr - start_ + sizeof(uintptr_t);
  if (end > capacity_) return false;
  if (end > filled_) fillTo(std::max(end, std::min(capacity_, filled_ + kChunk)));
  if (end > filled_) return false;
  memcpy(out, buf_ + (addr - start_), sizeof *out);
  used_ = true;
  return true;
}

void LiveStackTail::fillTo(size_t bytes) {
  pid_t self = getpid();
  while (filled_ < bytes) {
    // One element per page, so that a page that is not mapped ends the read there.
    iovec remote[kIovs];
    int count = 0;
    size_t want = 0;
    for (uintptr_t at = start_ + filled_; count < kIovs && filled_ + want < bytes; count++) {
      size_t len = std::min<size_t>(kPage - at % kPage, bytes - filled_ - want);
      remote[count] = {reinterpret_cast<void*>(at), len};
      at += len;
      want += len;
    }
    iovec local = {buf_ + filled_, want};
    ssize_t got = process_vm_readv(self, &local, 1, remote, static_cast<unsigned long>(count), 0);
    if (got <= 0) return;
    filled_ += static_cast<size_t>(got);
    if (static_cast<size_t>(got) < want) return;
  }
}

}  // namespace candor
