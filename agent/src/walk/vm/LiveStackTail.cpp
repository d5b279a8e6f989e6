#include "walk/vm/LiveStackTail.h"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace candor {

namespace {
constexpr size_t kPage = 4096;
// Read ahead, doubling from a first read of kFirstRead: a stack a little deeper than the copy (a
// server's, now and then) costs one small read, a very deep one a few large ones.
constexpr size_t kFirstRead = 8 * 1024;
constexpr size_t kMaxRead = 256 * 1024;
constexpr int kIovs = 64;  // pages per system call
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
  if (end > filled_) fillTo(std::min(capacity_, std::max(end, filled_ + std::clamp(filled_, kFirstRead, kMaxRead))));
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
