#include "engine/PerfTickRing.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

#include "base/Ordering.h"
#include "concurrent/Clock.h"
#include "engine/PerfEvents.h"

namespace candor {

namespace {
constexpr int kMaxFd = 32768;  // 512 KB of zero pages until used; fds beyond go unmeasured

struct Entry {
  std::atomic<int> tid{0};  // 0: free; written last on register, first on unregister
  std::atomic<perf_event_mmap_page*> page{nullptr};
  std::atomic<uint32_t> mapBytes{0};
  std::atomic<bool> callchain{false};
};
Entry gEntries[kMaxFd];

// Read once, outside the handler.
const size_t kPageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));

// What the handler keeps of the page while it reads one batch.
struct RingView {
  perf_event_mmap_page* page;
  const uint8_t* data;
  uint64_t size;  // a power of two
};

RingView viewOf(perf_event_mmap_page* page) {
  uint64_t size = page->data_size != 0 ? page->data_size : kPageSize;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(page) + (page->data_offset != 0 ? page->data_offset : kPageSize);
  return {page, data, size};
}

// A u64 at ring position `pos`: records may wrap, a u64 never straddles the end (records are
// 8-byte aligned and the data size is a multiple of 8).
uint64_t wordAt_signalSafe(const RingView& r, uint64_t pos) {
  return *reinterpret_cast<const uint64_t*>(r.data + (pos & (r.size - 1)));
}

void keepNewest_signalSafe(CpuTickBatch* b, const CpuTickBatch::Record& rec) {
  if (b->records == CpuTickBatch::kMaxRecords) {  // the oldest loses its record, not its tick
    for (int i = 1; i < CpuTickBatch::kMaxRecords; i++) b->record[i - 1] = b->record[i];
    b->records--;
    b->unrecorded++;
  }
  b->record[b->records++] = rec;
}
}  // namespace

void* PerfTickRing::map(int fd, int tid, uint32_t dataPages, bool callchain) {
  if (fd < 0 || fd >= kMaxFd) return nullptr;
  size_t len = kPageSize * (1 + dataPages);
  void* ring = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED) return nullptr;
  Entry& e = gEntries[fd];
  sp(e.page, static_cast<perf_event_mmap_page*>(ring));
  sp(e.mapBytes, static_cast<uint32_t>(len));
  sp(e.callchain, callchain);
  so(e.tid, tid);  // publishes the fields above
  return ring;
}

void PerfTickRing::unmap(int fd, void* ring) {
  if (ring == nullptr) return;
  size_t len = kPageSize * 2;
  if (fd >= 0 && fd < kMaxFd) {
    Entry& e = gEntries[fd];
    sv(e.tid, 0);  // before the unmap: a handler that still sees the tid runs on this thread, not now
    len = lp(e.mapBytes);
    sp(e.page, static_cast<perf_event_mmap_page*>(nullptr));
  }
  munmap(ring, len);
}

void PerfTickRing::read_signalSafe(int fd, int callingTid, CpuTickBatch* batch) {
  if (fd < 0 || fd >= kMaxFd || lv(gEntries[fd].tid) != callingTid) return;
  perf_event_mmap_page* page = lp(gEntries[fd].page);
  if (page == nullptr) return;
  bool callchain = lp(gEntries[fd].callchain);
  RingView r = viewOf(page);
  // The kernel writes records, then data_head (release); we read head with acquire, and give
  // the space back (data_tail) only in release_signalSafe, after the last read of the records.
  uint64_t head = lvRaw(&page->data_head);
  uint64_t tail = page->data_tail;
  batch->fromRing = true;
  batch->ring = page;
  batch->head = head;
  while (head - tail >= sizeof(perf_event_header)) {
    uint64_t h = wordAt_signalSafe(r, tail);
    perf_event_header header;
    header.type = static_cast<uint32_t>(h);
    header.misc = static_cast<uint16_t>(h >> 32);
    header.size = static_cast<uint16_t>(h >> 48);
    if (header.size < sizeof header || header.size > head - tail) break;  // never: do not loop on garbage
    if (header.type == PERF_RECORD_SAMPLE && header.size >= sizeof header + 8) {
      CpuTickBatch::Record rec = {};
      rec.timeNs = wordAt_signalSafe(r, tail + 8);
      rec.inKernel = (header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
      if (callchain && header.size >= sizeof header + 16) {
        uint64_t nr = wordAt_signalSafe(r, tail + 16);
        uint64_t room = (header.size - sizeof header - 16) / 8;
        rec.ipCount = static_cast<uint32_t>(nr < room ? nr : room);
        rec.ipsPos = tail + 24;
      }
      keepNewest_signalSafe(batch, rec);
    } else if (header.type == PERF_RECORD_LOST && header.size >= sizeof header + 16) {
      batch->unrecorded += wordAt_signalSafe(r, tail + 16);  // {id, lost}
    }
    tail += header.size;  // THROTTLE and other records are skipped
  }
  if (batch->records > 0) {
    uint64_t newest = batch->record[batch->records - 1].timeNs;
    uint64_t now = monotonicNs();
    if (newest != 0 && newest <= now) batch->latencyNs = static_cast<int64_t>(now - newest);
  }
}

int32_t PerfTickRing::kernelFrames_signalSafe(const CpuTickBatch& batch, int i, ASGCT_CallFrame* out, int32_t max) {
  if (batch.ring == nullptr || i < 0 || i >= batch.records) return 0;
  const CpuTickBatch::Record& rec = batch.record[i];
  RingView r = viewOf(static_cast<perf_event_mmap_page*>(batch.ring));
  return callchainKernelFrames_signalSafe(rec.ipCount, [&](uint64_t k) { return wordAt_signalSafe(r, rec.ipsPos + 8 * k); },
                                          out, max);
}

void PerfTickRing::release_signalSafe(const CpuTickBatch& batch) {
  if (batch.ring == nullptr) return;
  soRaw(&static_cast<perf_event_mmap_page*>(batch.ring)->data_tail, batch.head);
}

}  // namespace candor
