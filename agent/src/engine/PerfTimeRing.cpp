#include "engine/PerfTimeRing.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "base/Ordering.h"
#include "concurrent/Clock.h"

namespace candor {

namespace {
constexpr int kMaxFd = 32768;  // 512 KB of zero pages until used; fds beyond go unmeasured

struct Entry {
  std::atomic<int> tid{0};  // 0: free; written last on register, first on unregister
  std::atomic<perf_event_mmap_page*> page{nullptr};
};
Entry gEntries[kMaxFd];

// Read once, outside the handler: the handler only uses the mapping's own data_offset/data_size.
const size_t kPageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));

// Copies n bytes at ring position `pos` (modulo the data size): records may wrap.
void copyFromRing_signalSafe(const char* data, uint64_t size, uint64_t pos, void* out, size_t n) {
  char* dst = static_cast<char*>(out);
  for (size_t i = 0; i < n; i++) dst[i] = data[(pos + i) % size];
}
}  // namespace

void* PerfTimeRing::map(int fd, int tid) {
  if (fd < 0 || fd >= kMaxFd) return nullptr;
  size_t len = kPageSize * (1 + kDataPages);
  void* ring = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED) return nullptr;
  sp(gEntries[fd].page, static_cast<perf_event_mmap_page*>(ring));
  so(gEntries[fd].tid, tid);  // publishes page
  return ring;
}

void PerfTimeRing::unmap(int fd, void* ring) {
  if (ring == nullptr) return;
  if (fd >= 0 && fd < kMaxFd) {
    sv(gEntries[fd].tid, 0);
    sp(gEntries[fd].page, nullptr);
  }
  munmap(ring, kPageSize * (1 + kDataPages));
}

int64_t PerfTimeRing::latencyOfNewest_signalSafe(int fd, int callingTid) {
  if (fd < 0 || fd >= kMaxFd || lv(gEntries[fd].tid) != callingTid) return -1;
  perf_event_mmap_page* page = lp(gEntries[fd].page);
  if (page == nullptr) return -1;
  uint64_t now = monotonicNs();
  // The kernel writes records, then data_head (release); we read head with acquire, and give
  // the space back by storing data_tail after the last read of the records.
  uint64_t head = lvRaw(&page->data_head);
  uint64_t tail = page->data_tail;
  uint64_t size = page->data_size != 0 ? page->data_size : kPageSize * kDataPages;
  const char* data = reinterpret_cast<const char*>(page) + (page->data_offset != 0 ? page->data_offset : kPageSize);
  uint64_t newest = 0;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header header;
    copyFromRing_signalSafe(data, size, tail, &header, sizeof header);
    if (header.size < sizeof header) break;  // never happens; do not loop forever on garbage
    if (header.type == PERF_RECORD_SAMPLE && header.size >= sizeof header + sizeof(uint64_t)) {
      copyFromRing_signalSafe(data, size, tail + sizeof header, &newest, sizeof newest);
    }
    tail += header.size;  // LOST / THROTTLE records are skipped
  }
  soRaw(&page->data_tail, head);
  if (newest == 0 || newest > now) return -1;
  return static_cast<int64_t>(now - newest);
}

}  // namespace candor
